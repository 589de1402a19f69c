import WireFormat

/// A decoded SSDP or mDNS message as reporters see it: addressing plus already-rendered text
/// and JSON fields. Reporters need no decoder to print it.
public struct MessageRecord: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var src: String
    public var sport: UInt16
    public var dst: String
    public var dport: UInt16
    public var ipTTL: UInt8
    public var proto: RuleProtocol
    /// Protocol-specific kind: `m-search`, `notify`, `response`, `other`, `query`, `response`.
    public var kind: String
    /// The one-line summary for text output (`M-SEARCH ST=ssdp:all MX=3`), as UTF-8: built
    /// as bytes and written as bytes (the analyzer lends its reused buffer here, and takes it
    /// back once the line is formatted).
    public var summaryUTF8: [UInt8]
    /// Extra lines shown with `-v` (every header, every section).
    public var detail: [String]
    /// Protocol fields for JSON lines, after the common ones (`kind`, `start_line`,
    /// `headers`…), as JSON text: the members of an object without its braces
    /// (`"start_line":"…","headers":[…]`), written once by the record's maker (for mDNS, once
    /// per payload, shared by every datagram repeating it). JSON lines copy it as it is.
    public var fieldsJSON: [UInt8]
    /// `fieldsJSON` as values, read afresh each time (for reporters and commands that look
    /// into a message's fields: read it once per message); setting it writes the text.
    public var fields: [(String, JSONValue)] {
        get {
            guard !fieldsJSON.isEmpty else { return [] }
            var text: [UInt8] = [0x7B]
            text.append(contentsOf: fieldsJSON)
            text.append(0x7D)
            guard case .object(let members)? = try? JSONValue.parse(utf8: text) else {
                assertionFailure("a record's fields are not JSON object members")
                return []
            }
            return members
        }
        set {
            fieldsJSON.removeAll()
            JSONValue.writeMembers(newValue, into: &fieldsJSON)
        }
    }
    /// Whether the datagram was cut short by the capture's snap length.
    public var truncated: Bool
    /// Frames of the IP fragments this datagram was reassembled from (empty if not fragmented).
    public var fragmentFrames: [Int]
    /// Index of the input file (several files in one run); set by the analyzer.
    public var fileIndex: Int = 0
    /// The run's index of the segment (link) it was captured on (`Segments`); 0 when the run
    /// names no segment for it. Set by the analyzer.
    public var segment: UInt16 = 0
    /// mDNS: a forwarder's copy of another link's host's records (`MDNSInput.isRelayed`): the
    /// forwarder's message, not the host's (the HTML timeline puts it on the sender's lane).
    public var relayed = false
    /// The sender's link-layer address when the link type has one and it was asked for
    /// (text `-e`); else empty.
    public var srcMAC: [UInt8] = []
    /// The frame's destination link-layer address, under the same conditions (Ethernet only);
    /// else empty.
    public var dstMAC: [UInt8] = []
    /// The UDP payload as captured, when a dump was asked for (text `-X` / `-A`); else empty.
    public var payload: [UInt8] = []

    public init(
        frame: Int, time: Timestamp, src: String, sport: UInt16, dst: String, dport: UInt16, ipTTL: UInt8,
        proto: RuleProtocol, kind: String, summary: String, detail: [String] = [],
        fields: [(String, JSONValue)] = [], truncated: Bool = false, fragmentFrames: [Int] = []
    ) {
        self.init(
            frame: frame, time: time, src: src, sport: sport, dst: dst, dport: dport, ipTTL: ipTTL, proto: proto,
            kind: kind, summaryUTF8: Array(summary.utf8), detail: detail, fields: fields, truncated: truncated,
            fragmentFrames: fragmentFrames)
    }

    public init(
        frame: Int, time: Timestamp, src: String, sport: UInt16, dst: String, dport: UInt16, ipTTL: UInt8,
        proto: RuleProtocol, kind: String, summaryUTF8: [UInt8], detail: [String] = [],
        fields: [(String, JSONValue)], truncated: Bool = false, fragmentFrames: [Int] = []
    ) {
        var text: [UInt8] = []
        JSONValue.writeMembers(fields, into: &text)
        self.init(
            frame: frame, time: time, src: src, sport: sport, dst: dst, dport: dport, ipTTL: ipTTL, proto: proto,
            kind: kind, summaryUTF8: summaryUTF8, detail: detail, fieldsJSON: text, truncated: truncated,
            fragmentFrames: fragmentFrames)
    }

    /// `fieldsJSON`: JSON object members without the braces (see `fieldsJSON`).
    public init(
        frame: Int, time: Timestamp, src: String, sport: UInt16, dst: String, dport: UInt16, ipTTL: UInt8,
        proto: RuleProtocol, kind: String, summaryUTF8: [UInt8], detail: [String] = [],
        fieldsJSON: [UInt8] = [], truncated: Bool = false, fragmentFrames: [Int] = []
    ) {
        self.frame = frame
        self.time = time
        self.src = src
        self.sport = sport
        self.dst = dst
        self.dport = dport
        self.ipTTL = ipTTL
        self.proto = proto
        self.kind = kind
        self.summaryUTF8 = summaryUTF8
        self.detail = detail
        self.fieldsJSON = fieldsJSON
        self.truncated = truncated
        self.fragmentFrames = fragmentFrames
    }
}
