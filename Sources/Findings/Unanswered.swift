import WireFormat

/// A question nothing answered on its link over a session: an mDNS question (name and type)
/// that no response carried a record for once it had been asked, or an SSDP search (one
/// searcher endpoint and ST) that no 200 OK came back to. Plain values made by the session
/// stages at the end of a session: reporters print them without a decoder. `name` is from
/// the wire: escape it when printing to a terminal.
public struct UnansweredQuestion: Sendable, Hashable {
    public var proto: RuleProtocol
    /// mDNS: the question's name; SSDP: the ST.
    public var name: String
    /// mDNS: the question's type (`PTR`); SSDP: empty.
    public var type: String
    public var asked: Int
    /// The first askers (addresses), at most `maxAskers`.
    public var askers: [String]
    /// More addresses asked it than `askers` holds.
    public var moreAskers: Bool
    public var firstFrame: Int
    public var first: Timestamp
    public var last: Timestamp
    /// The run's index of its segment (`Segments`; 0: unnamed).
    public var segment: UInt16

    public static let maxAskers = 4

    public init(
        proto: RuleProtocol, name: String, type: String, asked: Int, askers: [String], moreAskers: Bool,
        firstFrame: Int, first: Timestamp, last: Timestamp, segment: UInt16
    ) {
        self.proto = proto
        self.name = name
        self.type = type
        self.asked = asked
        self.askers = askers
        self.moreAskers = moreAskers
        self.firstFrame = firstFrame
        self.first = first
        self.last = last
        self.segment = segment
    }

    /// `_ipp._tcp.local. PTR` or `ssdp:all`.
    public var label: String { type.isEmpty ? name : "\(name) \(type)" }

    /// Most asked first, then by first frame, then by label, segment and askers (questions of
    /// one query share a frame; the stages' tables have no order): the order summaries list
    /// them in, the same every run.
    public static func ranked(_ a: UnansweredQuestion, _ b: UnansweredQuestion) -> Bool {
        if a.asked != b.asked { return a.asked > b.asked }
        if a.firstFrame != b.firstFrame { return a.firstFrame < b.firstFrame }
        if a.label != b.label { return a.label < b.label }
        if a.segment != b.segment { return a.segment < b.segment }
        return a.askers.lexicographicallyPrecedes(b.askers)
    }
}
