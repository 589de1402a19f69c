/// A catalog rule ID such as `SSDP-104` or `MDNS-301`. These IDs are a contract (SARIF,
/// suppressions, baselines): they are written out literally and never derived from code names.
public struct RuleID: Hashable, Comparable, Sendable, RawRepresentable, ExpressibleByStringLiteral,
    CustomStringConvertible, Codable
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: RuleID, b: RuleID) -> Bool { a.rawValue < b.rawValue }

    /// `SSDP` or `MDNS`.
    public var family: String {
        String(rawValue.prefix { $0 != "-" })
    }
}

/// Which protocol a rule judges.
public enum RuleProtocol: String, Sendable, Hashable, Codable {
    case ssdp
    case mdns
}

/// Whether a rule is decidable from one datagram or needs other packets.
public enum RuleScope: String, Sendable, Hashable, Codable {
    case stateless
    case stateful
    /// Judged from a device description `discoscope probe` fetches (and its HTTP headers).
    case probe
}

/// Everything known about a rule apart from the code that checks it: identity, default
/// severity, spec citation, and the text used by `discoscope rules explain` and SARIF.
///
/// A value: every rule type declares its own (`Rule.descriptor`). Findings refer to a rule
/// by its ID and share the few texts reporters print (`texts`), never the descriptor.
public struct RuleDescriptor: Sendable, Hashable {
    /// Catalog ID, e.g. `SSDP-104`.
    public let id: RuleID
    /// Readable, stable kebab-case name, e.g. `mx-out-of-range`; accepted wherever an ID is.
    public let name: String
    /// One-line summary ("MX is an integer of at least 1, and at most 5 for UPnP 1.1+").
    public let title: String
    /// The rule's default severity: the highest it reports, the catalog's level.
    public let severity: Severity
    /// The lowest severity the rule reports (some of its cases are less serious: a reason
    /// phrase other than OK is a warning where another status is an error).
    public let lowestSeverity: Severity
    public let scope: RuleScope
    public let proto: RuleProtocol
    /// Spec reference, e.g. `UDA 1.1/2.0 §1.3.2; UDA 1.0 §1.2.2`.
    public let spec: String
    /// Full description: what the rule requires, in our words.
    public let description: String
    /// Which well-known stacks mishandle such a message, when known (from interop.md).
    public let interop: String?
    /// An example of a violating message (for `rules explain`).
    public let example: String
    /// A visibility rule: its findings mean some clients never see the device (answers not
    /// forwarded, a host deaf to the group, a LOCATION nobody can fetch), whatever the
    /// severity; reports rank them first (`Impact`).
    public let hides: Bool
    /// Its interop note says some stacks lose such a message (drop, ignore, reject …): an
    /// error of this rule hides the device from them (`Impact`).
    public let interopLosesMessage: Bool
    /// The service profiles whose instances the rule judges (empty: a base-protocol rule). A
    /// finding names the one its instance claims (`Finding.profile`).
    public let profiles: ServiceProfiles
    /// Whether the requirement is the specification's, a de-facto contract, or unconfirmed.
    public let basis: RuleBasis
    /// Its name, spec reference and interop note as its findings carry them.
    public let texts: RuleTexts

    public init(
        id: RuleID, name: String, title: String, severity: Severity, scope: RuleScope = .stateless,
        proto: RuleProtocol, spec: String, description: String, interop: String? = nil, example: String,
        lowestSeverity: Severity? = nil, hides: Bool = false, profiles: ServiceProfiles = [],
        basis: RuleBasis = .specified
    ) {
        self.id = id
        self.name = name
        self.title = title
        self.severity = severity
        self.lowestSeverity = lowestSeverity ?? severity
        self.scope = scope
        self.proto = proto
        self.spec = spec
        self.description = description
        self.interop = interop
        self.example = example
        self.hides = hides
        self.interopLosesMessage = Impact.losesMessage(interop)
        self.profiles = profiles
        self.basis = basis
        texts = RuleTexts(name: name, spec: spec, interop: interop)
    }
}
