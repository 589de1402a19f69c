import NetLayers
import WireFormat

/// One mDNS datagram as the session rules see it, in capture order: endpoints, time and the
/// two header fields read without decoding the message (ID and QR).
public struct MDNSEvent: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var src: IPAddress
    public var srcPort: UInt16
    public var dst: IPAddress
    public var dstPort: UInt16
    public var id: UInt16
    public var isResponse: Bool

    public init(
        frame: Int, time: Timestamp, src: IPAddress, srcPort: UInt16, dst: IPAddress, dstPort: UInt16, id: UInt16,
        isResponse: Bool
    ) {
        self.frame = frame
        self.time = time
        self.src = src
        self.srcPort = srcPort
        self.dst = dst
        self.dstPort = dstPort
        self.id = id
        self.isResponse = isResponse
    }

    /// A query from a port other than 5353 (RFC 6762 §6.7).
    public var isLegacyQuery: Bool { !isResponse && srcPort != 5353 && dstPort == 5353 }
    /// A unicast response from 5353 to a port other than 5353: the answer to a legacy query.
    public var isLegacyResponse: Bool { isResponse && srcPort == 5353 && dstPort != 5353 && !dst.isMulticast }
}
