import Findings

extension RuleDescriptor {
    /// An SSDP rule's descriptor (IDs from the SSDP catalog; interop notes from its receiver
    /// matrix), in the catalog's order of fields.
    static func ssdp(
        _ id: String, _ name: String, _ severity: Severity, _ title: String, spec: String, _ description: String,
        interop: String? = nil, example: String, scope: RuleScope = .stateless, lowest: Severity? = nil,
        hides: Bool = false
    ) -> RuleDescriptor {
        RuleDescriptor(
            id: RuleID(rawValue: id), name: name, title: title, severity: severity, scope: scope, proto: .ssdp,
            spec: spec, description: description, interop: interop, example: example, lowestSeverity: lowest,
            hides: hides)
    }

    /// An mDNS / DNS-SD rule's descriptor, as `ssdp(…)`.
    static func mdns(
        _ id: String, _ name: String, _ severity: Severity, _ title: String, spec: String, _ description: String,
        interop: String? = nil, example: String, scope: RuleScope = .stateless, lowest: Severity? = nil,
        hides: Bool = false
    ) -> RuleDescriptor {
        RuleDescriptor(
            id: RuleID(rawValue: id), name: name, title: title, severity: severity, scope: scope, proto: .mdns,
            spec: spec, description: description, interop: interop, example: example, lowestSeverity: lowest,
            hides: hides)
    }

    /// A service-profile rule's descriptor (shared/rules/profiles.md): the profiles whose
    /// instances it judges, and how firmly its requirement is established. A requirement
    /// whose wording or section is not confirmed ships as a warning at most (its catalog row
    /// says so).
    static func profile(
        _ id: String, _ name: String, _ severity: Severity, _ title: String, profiles: ServiceProfiles,
        spec: String, _ description: String, basis: RuleBasis = .specified, interop: String? = nil,
        example: String, scope: RuleScope = .stateless, lowest: Severity? = nil, proto: RuleProtocol = .mdns,
        hides: Bool = false
    ) -> RuleDescriptor {
        let capped = basis == .notConfirmed && severity == .error ? Severity.warning : severity
        return RuleDescriptor(
            id: RuleID(rawValue: id), name: name, title: title, severity: capped, scope: scope, proto: proto,
            spec: spec, description: description, interop: interop, example: example,
            lowestSeverity: lowest.map { min($0, capped) }, hides: hides, profiles: profiles, basis: basis)
    }
}
