import NetLayers
import SSDP
import WireFormat

/// One SSDP datagram as the session rules see it, in capture order: endpoints, time, what
/// a scan of a few headers found, and for a response the M-SEARCH it answers. The analyzer
/// builds it from its bounded table of recent searches; rules keep no copy of packets.
public struct SSDPEvent: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var src: IPAddress
    public var srcPort: UInt16
    public var dst: IPAddress
    public var dstPort: UInt16
    public var kind: SSDPMessage.Kind
    /// ST's value, when the message has one.
    public var st: ArraySlice<UInt8>?
    /// For a response: the multicast M-SEARCH last sent from the endpoint it goes to.
    public var search: RecentSearch?
    /// For a response with no `search`: an M-SEARCH from its destination address but another
    /// port that still awaits answers (the response went to the wrong port).
    public var searchFromOtherPort: RecentSearch?

    public init(
        frame: Int, time: Timestamp, src: IPAddress, srcPort: UInt16, dst: IPAddress, dstPort: UInt16,
        kind: SSDPMessage.Kind, st: ArraySlice<UInt8>? = nil, search: RecentSearch? = nil,
        searchFromOtherPort: RecentSearch? = nil
    ) {
        self.frame = frame
        self.time = time
        self.src = src
        self.srcPort = srcPort
        self.dst = dst
        self.dstPort = dstPort
        self.kind = kind
        self.st = st
        self.search = search
        self.searchFromOtherPort = searchFromOtherPort
    }
}

/// A multicast M-SEARCH remembered for pairing responses with it.
public struct RecentSearch: Sendable {
    public var frame: Int
    public var time: Timestamp
    /// The port it was sent from.
    public var port: UInt16
    /// MX after the cap for the control point's version (nil when absent or invalid).
    public var mx: UInt64?
    public var st: [UInt8]
    /// Until when a datagram to its endpoint counts as a candidate response.
    public var expires: Timestamp

    public init(frame: Int, time: Timestamp, port: UInt16, mx: UInt64?, st: [UInt8], expires: Timestamp) {
        self.frame = frame
        self.time = time
        self.port = port
        self.mx = mx
        self.st = st
        self.expires = expires
    }
}
