import NetLayers
import SSDP
import WireFormat

/// One SSDP datagram as the session rules see it, in capture order: endpoints, time, what
/// a scan of a few headers found, for a response the M-SEARCH it answers, and what the
/// session model knew of its device before this message. The analyzer builds it from the
/// session store (`SSDPSessionStore`); rules keep no copy of packets.
public struct SSDPEvent: Sendable, SessionEvent {
    public typealias Store = SSDPSessionStore
    public var frame: Int
    /// The packet's time, or the latest time seen before it when the capture's clock went
    /// backwards (`timeWentBack`): times in events never decrease.
    public var time: Timestamp
    /// The capture's timestamp went backwards at this packet: intervals that end here are not
    /// judged.
    public var timeWentBack = false
    public var src: IPAddress
    public var srcPort: UInt16
    public var dst: IPAddress
    public var dstPort: UInt16
    public var kind: SSDPMessage.Kind
    /// The UPnP version the message is judged by (claimed, remembered for its device, or 1.0),
    /// and the one it claims itself.
    public var version: UPnPVersion = .v1_0
    public var claimedVersion: UPnPVersion?
    /// The payload's content key: equal for identical payloads.
    public var payloadKey: UInt64 = 0
    /// ST's value, when the message has one.
    public var st: ArraySlice<UInt8>?
    /// For a response: the M-SEARCH last sent from the endpoint it goes to.
    public var search: RecentSearch?
    /// For a response with no `search`: an M-SEARCH from its destination address but another
    /// port that still awaits answers (the response went to the wrong port).
    public var searchFromOtherPort: RecentSearch?
    /// What the key headers say (keys and numbers, see `SSDPFacts`).
    public var facts = SSDPFacts()
    /// LOCATION's and USN's values in this message, for finding texts (a rule that keeps one
    /// copies it).
    public var location: ArraySlice<UInt8>?
    public var usn: ArraySlice<UInt8>?
    /// SERVER's (or USER-AGENT's) value and NT's (a NOTIFY) or ST's value, for the inventory
    /// (the model copies them only when they change).
    public var server: ArraySlice<UInt8>?
    public var target: ArraySlice<UInt8>?
    /// The sender's link-layer address (empty when the link type has none).
    public var sourceMAC = MACBytes()
    /// The run's index of the segment it was captured on (0: the unnamed one).
    public var segment: UInt16 = 0
    /// The packet's own timestamp (`time` never goes below an earlier packet's): where a
    /// device first appeared on each segment is compared by it.
    public var captured: Timestamp = .zero
    /// The model dropped what it knew of this device at some point (or may have): its
    /// record, if any, lacks history.
    public var deviceForgotten = false
    /// The model's record of the device this message names in USN (its UUID), as it was
    /// before this message; nil for its first message (or when the message names none).
    public var device: SSDPDeviceState?

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

    /// The record of the source this message came from, in `device`.
    public var sourceState: SSDPSourceState? { device?.source(src) }
    /// The record of this message's USN, in `device`.
    public var usnState: SSDPUSNState? { facts.usnKey.flatMap { device?.usns[$0] } }
    /// A NOTIFY sent unicast to an endpoint whose M-SEARCH still awaits answers (within its
    /// MX and the pairing slack): an answer to that search in the form of a NOTIFY, not an
    /// announcement (not multicast, nor periodic).
    public var answersSearch: Bool {
        guard kind == .notify, let s = search else { return false }
        return !dst.isMulticast && time <= s.expires && s.time <= time
    }
}

/// What the session rules need of a message's key headers: keys (64-bit FNV-1a of a value)
/// and numbers, a function of the payload alone (kept with it for repeated payloads).
public struct SSDPFacts: Sendable, Hashable {
    public enum NTS: Sendable, Hashable { case none, alive, byebye, update, other }
    /// What an NT (or a response's ST) names.
    public enum Target: Sendable, Hashable { case none, all, rootDevice, uuid, deviceType, serviceType, other }

    public var nts: NTS = .none
    /// USN's UUID (case-insensitive): the device key.
    public var uuidKey: UInt64?
    /// The whole USN (case-insensitive).
    public var usnKey: UInt64?
    /// NT in a NOTIFY, ST in a response or M-SEARCH; for `uuid:X`, X's key (case-insensitive).
    public var target: Target = .none
    public var targetUUIDKey: UInt64?
    /// For a URN target: its domain, kind and type without the version (case-sensitive), and
    /// the version.
    public var typeKey: UInt64?
    public var typeVersion: UInt64?
    public var locationKey: UInt64?
    public var serverKey: UInt64?
    public var maxAge: UInt64?
    public var bootID: UInt64?
    public var configID: UInt64?
    public var nextBootID: UInt64?
    public var searchPort: UInt64?
    /// M-SEARCH: MX's value (uncapped), MX present, and MAN exactly `"ssdp:discover"`.
    public var mx: UInt64?
    public var hasMX = false
    public var manValid = false

    public init() {}

    public var isAlive: Bool { nts == .alive }
    /// An alive or a response: a message that (re)advertises a USN.
    public func advertises(_ kind: SSDPMessage.Kind) -> Bool { kind == .response || (kind == .notify && nts == .alive) }

    /// FNV-1a of `bytes`, lower-cased when `foldingCase`.
    public static func key<C: Collection>(_ bytes: C, foldingCase: Bool = false) -> UInt64 where C.Element == UInt8 {
        var h = ASCII.keySeed
        if foldingCase {
            ASCII.addToKey(bytes, &h)
        } else {
            for b in bytes {
                h ^= UInt64(b)
                h = h &* 0x0000_0100_0000_01b3
            }
        }
        return h
    }
}

/// An M-SEARCH remembered for pairing responses with it.
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
    /// MX was present at all, and MAN was exactly `"ssdp:discover"`.
    public var hasMX: Bool = true
    public var manValid: Bool = true
    /// For a unicast M-SEARCH: the device it was sent to (nil: multicast).
    public var unicastTo: IPAddress? = nil

    public init(frame: Int, time: Timestamp, port: UInt16, mx: UInt64?, st: [UInt8], expires: Timestamp) {
        self.frame = frame
        self.time = time
        self.port = port
        self.mx = mx
        self.st = st
        self.expires = expires
    }
}
