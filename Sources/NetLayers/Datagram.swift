import WireFormat

/// One UDP datagram out of a capture, with everything the rules need about its IP and UDP
/// headers. A reassembled datagram carries the frame of its last fragment (as Wireshark
/// reports it) and the list of all fragment frames.
public struct Datagram: Sendable {
    /// 1-based frame number over every record of the input.
    public var frame: Int
    public var time: Timestamp
    public var src: IPAddress
    public var dst: IPAddress
    public var srcPort: UInt16
    public var dstPort: UInt16
    /// IPv4 TTL or IPv6 hop limit, raw.
    public var hopLimit: UInt8
    /// The UDP payload bytes that were captured (at most the UDP length says).
    public var payload: [UInt8]
    /// Payload length the UDP header claims (UDP length − 8).
    public var udpPayloadLength: Int
    /// Total IP packet length on the wire (IP header(s) + UDP), after reassembly.
    public var ipPacketLength: Int
    /// Frames of the fragments this datagram was reassembled from; empty if it was not
    /// fragmented.
    public var fragmentFrames: [Int]
    /// Source MAC address when the link layer had one (6 bytes), else empty.
    public var srcMAC: [UInt8] {
        get { sourceMAC.bytes }
        set { sourceMAC = MACBytes(newValue[...]) }
    }
    /// The same, kept as an integer (no allocation per datagram).
    public var sourceMAC = MACBytes()
    /// The frame's destination link-layer address when the link header has one (Ethernet),
    /// else empty; of a reassembled datagram, its last fragment's.
    public var destinationMAC = MACBytes()
    /// Set by a `PacketDecoder` told not to copy payloads (`copiesPayloads` false): where the
    /// payload lies in the frame's bytes, `payload` being empty until its user fills it in
    /// (and clears this); a user that moves the bytes elsewhere (the analysis's batch
    /// buffer) points it there. Nil for a reassembled datagram, whose payload is always copied.
    public var framePayload: Range<Int>? = nil
    /// The run's index of the segment (link) it was captured on; 0 when the run names none
    /// for it (see `RawFrame.segment`).
    public var segment: UInt16 = 0

    public init(
        frame: Int, time: Timestamp, src: IPAddress, dst: IPAddress, srcPort: UInt16, dstPort: UInt16,
        hopLimit: UInt8, payload: [UInt8], udpPayloadLength: Int? = nil, ipPacketLength: Int? = nil,
        fragmentFrames: [Int] = [], srcMAC: [UInt8] = []
    ) {
        self.frame = frame
        self.time = time
        self.src = src
        self.dst = dst
        self.srcPort = srcPort
        self.dstPort = dstPort
        self.hopLimit = hopLimit
        self.payload = payload
        self.udpPayloadLength = udpPayloadLength ?? payload.count
        let ipHeader = src.isIPv6 ? 40 : 20
        self.ipPacketLength = ipPacketLength ?? (ipHeader + 8 + payload.count)
        self.fragmentFrames = fragmentFrames
        self.srcMAC = srcMAC
    }

    /// The capture's snap length cut this datagram short: decode what is there, and do not
    /// report the missing part as malformed.
    public var isTruncated: Bool { (framePayload?.count ?? payload.count) < udpPayloadLength }
    public var wasFragmented: Bool { !fragmentFrames.isEmpty }
    public var isIPv6: Bool { src.isIPv6 }
}

/// A link-layer address of up to 8 bytes, as a value (no heap storage).
public struct MACBytes: Sendable, Hashable {
    public private(set) var bits: UInt64 = 0
    public private(set) var count: Int = 0
    public init() {}
    public init<C: Collection>(_ b: C) where C.Element == UInt8 {
        for x in b.prefix(8) { append(x) }
    }
    /// Adds a byte at the end (ignored once there are 8).
    public mutating func append(_ x: UInt8) {
        guard count < 8 else { return }
        bits = bits << 8 | UInt64(x)
        count += 1
    }
    public var bytes: [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: bits >> UInt64(8 * (count - 1 - $0))) }
    }
}
