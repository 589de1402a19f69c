import Findings

/// The run's verdict per service profile (`ProfileResult`), from the inventory's profile
/// verdicts: every profile some instance claims, and those `--profile` asks for.
public enum ProfileGate {
    /// Results in profile order. An instance fails a profile when one of its rules reported at
    /// `threshold` or above (nil: any finding fails it). A gated profile that subtype claims
    /// decide (IPP Everywhere, AirPrint) also counts every printer of `_ipp`/`_ipps` that does
    /// not claim it as failing: that is the product not meeting it.
    public static func results(_ inventory: Inventory, gates: [ServiceProfile], threshold: Severity?) -> [ProfileResult]
    {
        var byProfile: [ServiceProfile: ProfileResult] = [:]
        for g in gates { byProfile[g] = ProfileResult(profile: g, gated: true) }
        func note(_ name: String, _ verdicts: [InventoryProfile]) {
            for v in verdicts {
                let failed = v.failed.filter { f in threshold.map { f.severity >= $0 } ?? true }.map(\.rule)
                byProfile[v.profile, default: ProfileResult(profile: v.profile, gated: false)].members.append(
                    ProfileResult.Member(name: name, failed: failed))
            }
        }
        for d in inventory.devices where d.proto == .ssdp && !d.profiles.isEmpty { note(d.id, d.profiles) }
        let subtypeGates = gates.filter(\.claimedBySubtype)
        for s in inventory.services where !s.profiles.isEmpty || !subtypeGates.isEmpty {
            note(s.instance, s.profiles)
            guard !subtypeGates.isEmpty, let service = s.serviceType.split(separator: ".").first,
                ServiceProfile.takesSubtypeClaims(service: service)
            else { continue }
            for g in subtypeGates where !s.profiles.contains(where: { $0.profile == g }) {
                byProfile[g]?.missing.append(s.instance)
            }
        }
        return byProfile.values.sorted { $0.profile < $1.profile }
    }
}
