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
}
