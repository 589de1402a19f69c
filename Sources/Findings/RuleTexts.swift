/// The texts every report prints beside each finding of a rule: its name, spec reference and
/// interop note. Made once per rule (`RuleDescriptor.texts`) and shared by its findings, with
/// their JSON strings, which the JSON reporters write as they are instead of escaping the
/// same text again for every finding (a spec reference's `§` takes the escaping path).
public final class RuleTexts: Sendable, Hashable {
    public let name: String
    public let spec: String
    public let interop: String?
    /// The JSON strings of the three, quotes included (`null` when there is no interop note).
    public let nameJSON: [UInt8]
    public let specJSON: [UInt8]
    public let interopJSON: [UInt8]

    public init(name: String, spec: String, interop: String?) {
        self.name = name
        self.spec = spec
        self.interop = interop
        nameJSON = JSONValue.string(name).serializedBytes
        specJSON = JSONValue.string(spec).serializedBytes
        interopJSON = interop.map { JSONValue.string($0).serializedBytes } ?? Array("null".utf8)
    }

    /// The same texts with another interop note (a finding whose rule's note is about
    /// another kind of finding); these themselves when it is the same.
    public func with(interop other: String?) -> RuleTexts {
        other == interop ? self : RuleTexts(name: name, spec: spec, interop: other)
    }

    public static func == (a: RuleTexts, b: RuleTexts) -> Bool {
        a === b || (a.name == b.name && a.spec == b.spec && a.interop == b.interop)
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(spec)
        h.combine(interop)
    }
}
