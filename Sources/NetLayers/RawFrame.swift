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

    public init(number: Int, time: Timestamp, linkType: LinkType, capturedLength: Int, originalLength: Int) {
        self.number = number
        self.time = time
        self.linkType = linkType
        self.capturedLength = capturedLength
        self.originalLength = originalLength
    }
}
