import WireFormat

/// One captured record: its place and time in the input, and its lengths. The bytes travel
/// beside it (a capture source's are valid only while it hands them over).
public struct RawFrame {
    /// 1-based record number over the whole input, as Wireshark counts.
    public var number: Int
    public var time: Timestamp
    public var linkType: LinkType
    public var capturedLength: Int
    public var originalLength: Int
    /// The segment (link) the frame was captured on: out of a source, an index into that
    /// source's segment names (an interface of a pcapng file, a file of a merged session);
    /// handed to the analysis, an index into the run's segment names. 0 in a source of one
    /// unnamed segment (a plain capture file, one interface).
    public var segment: UInt16

    public init(
        number: Int, time: Timestamp, linkType: LinkType, capturedLength: Int, originalLength: Int, segment: UInt16 = 0
    ) {
        self.number = number
        self.time = time
        self.linkType = linkType
        self.capturedLength = capturedLength
        self.originalLength = originalLength
        self.segment = segment
    }
}
