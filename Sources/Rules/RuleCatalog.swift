import Findings

/// The whole rule catalog: a plain, sorted list of descriptors, built from the per-protocol
/// lists. `CatalogTests` checks its invariants (unique IDs, names, spec references).
public enum RuleCatalog {
    public static let all: [RuleDescriptor] =
        (SSDPCatalog.descriptors + MDNSCatalog.descriptors).sorted { $0.id < $1.id }

    /// Looks a rule up by ID (`SSDP-104`, case-insensitive) or by readable name.
    public static func find(_ key: String) -> RuleDescriptor? {
        let upper = key.uppercased()
        return all.first { $0.id.rawValue == upper || $0.name == key.lowercased() }
    }
}
