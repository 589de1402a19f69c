import DNS
import Findings
import NetLayers
import WireFormat

/// One mDNS datagram as the session rules see it, in capture order: endpoints, time and the
/// decoded message (`input`, shared with the stateless rules: nothing decoded twice). The
/// rules get the session model beside it (`SessionRule.observe(_:in:into:)`).
public struct MDNSEvent: Sendable, SessionEvent {
    public typealias Store = MDNSSessionStore

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
    public var id: UInt16
    public var isResponse: Bool
    /// The decoded message in its datagram (nil only for events built without one).
    public var input: MDNSInput?

    /// What the event's message claims (`MDNSMessageView.claimedProfiles`; none without one).
    public var claimedProfiles: ServiceProfiles { input?.view.claimedProfiles ?? [] }
    /// For a multicast response: what it is to the announcing of each of its names, as the
    /// store settled it before the rules judged it (`MDNSSessionStore.resolve`).
    public var roles: MDNSResponseRoles?
    /// For a response from port 5353: the queries of the last second that asked for each of
    /// its answer names, as the store found them before the rules judged it.
    public var askers: MDNSAskers?
    /// The end of the input: no message (`input` is nil), the store is the final one and
    /// `time` the latest packet time. Rules that conclude from the whole session do it here.
    public var atEnd = false
    /// In a session of several segments: a response that copies records another host sent
    /// on another segment just before (`MDNSSessionStore.isForwardedCopy`), as a reflector
    /// or mDNS gateway does. Like a relayed response (`MDNSInput.isRelayed`), it is the
    /// forwarder's message: the model takes its sender as no address of the host.
    public var forwarded = false

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

    /// The event of a decoded message, at `time` (the packet's, or the latest before it).
    public init(_ input: MDNSInput, time: Timestamp, timeWentBack: Bool) {
        let d = input.datagram
        self.init(
            frame: d.frame, time: time, src: d.src, srcPort: d.srcPort, dst: d.dst, dstPort: d.dstPort,
            id: input.header.id, isResponse: input.isResponse)
        self.timeWentBack = timeWentBack
        self.input = input
    }

    /// A query from a port other than 5353 (RFC 6762 §6.7).
    public var isLegacyQuery: Bool { !isResponse && srcPort != 5353 && dstPort == 5353 }
    /// A unicast response from 5353 to a port other than 5353: the answer to a legacy query.
    public var isLegacyResponse: Bool { isResponse && srcPort == 5353 && dstPort != 5353 && !dst.isMulticast }
    /// The snap length cut the datagram: what it lacks proves nothing.
    public var isTruncated: Bool { input?.isTruncated ?? false }
}
