import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// The in-order part of the membership analysis, on the reading thread: each membership
/// message (IGMP, MLD) and each SSDP or mDNS datagram, reduced to who sent it to which
/// discovery group and in what role, becomes a `MulticastEvent` of its link, judged by the
/// membership rules (`RuleRegistry.multicastSession`) with that link's `MulticastStore`. One
/// engine per segment: memberships are a link's business.
///
/// Its findings name frames of either kind, so they are held and reported with the session's
/// end-of-input findings (live: on the timer), placed by their first frame.
struct MulticastStage {
    private var links: SegmentEngines<MulticastEvent>
    /// Whether any membership rule is enabled (otherwise nothing is judged or kept).
    private let enabled: Bool
    /// The latest packet time seen on any link.
    private var latest: Timestamp = .zero
    /// What the rules reported so far, handed on at the timer or the end of the input.
    private var pending = SessionReports()
    private var ruleEvictions = 0
    /// Table entries dropped because their table was full (the summary's `state_evicted`).
    var stateEvicted: Int { links.evicted + ruleEvictions }

    init(disabled: Set<RuleID>) {
        links = SegmentEngines(RuleRegistry.multicastSession, disabled: disabled)
        enabled = RuleRegistry.multicastSession.contains { !disabled.contains($0.descriptor.id) }
    }

    /// A membership message (a malformed one says nothing of memberships).
    mutating func membership(_ p: MembershipPacket) {
        guard enabled, case .success(let m) = p.message else { return }
        observe(
            MulticastEvent(
                frame: p.frame, time: p.time, src: p.src, dst: p.dst, sourceMAC: p.sourceMAC, kind: .membership(m)),
            on: p.segment)
    }

    /// An SSDP datagram of `kind`.
    mutating func ssdp(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) {
        guard enabled, !d.src.isMulticast, !d.src.isUnspecified else { return }
        let role: MulticastEvent.Discovery.Role
        switch SSDPMessage.kind(ofStartLineIn: bytes, range) {
        case .mSearch:
            guard d.dst.isMulticast else { return }
            role = .query
        case .notify: role = .announce
        case .response: role = .answer
        case .other: return
        }
        discovery(d, MulticastEvent.Discovery(proto: .ssdp, role: role))
    }

    /// An mDNS datagram whose payload is `range` of `bytes`: a message from port 5353 (a
    /// querier from another port is answered by unicast, and needs no membership).
    mutating func mdns(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) {
        guard enabled, d.srcPort == 5353, range.count >= 12, !d.src.isMulticast, !d.src.isUnspecified else { return }
        let p = range.lowerBound
        if bytes[p + 2] & 0x80 != 0 {
            // What caches keep of a multicast response (SEG-104): its longest TTL, and
            // whether it says goodbye.
            let ttls = d.dst.isMulticast ? Self.recordTTLs(bytes, range) : (live: 0, goodbye: false)
            discovery(
                d, MulticastEvent.Discovery(proto: .mdns, role: .answer, liveTTL: ttls.live, goodbye: ttls.goodbye))
        } else {
            let qm = d.dst.isMulticast && Self.asksQM(bytes, range)
            discovery(d, MulticastEvent.Discovery(proto: .mdns, role: .query, answeredByMulticast: qm))
        }
    }

    /// Whether an mDNS query (its header at `range.lowerBound`) has a question whose class's
    /// top bit is clear (QM: answered by multicast). Reads the first 64 questions; a question
    /// that runs past the payload ends the reading.
    static func asksQM(_ b: [UInt8], _ range: Range<Int>) -> Bool {
        let end = range.upperBound
        let count = min(Int(b[range.lowerBound + 4]) << 8 | Int(b[range.lowerBound + 5]), 64)
        var o = range.lowerBound + 12
        for _ in 0..<count {
            guard skipName(b, &o, end: end), o + 4 <= end else { return false }
            if b[o + 2] & 0x80 == 0 { return true }
            o += 4
        }
        return false
    }

    /// Moves `o` past the name at `o` (labels up to the root or a compression pointer, at
    /// most 128 of them); false when it runs past `end`.
    private static func skipName(_ b: [UInt8], _ o: inout Int, end: Int) -> Bool {
        var steps = 0
        while true {
            guard o < end, steps < 128 else { return false }
            let len = Int(b[o])
            steps += 1
            if len == 0 {
                o += 1
                return true
            }
            if len & 0xC0 == 0xC0 {
                o += 2
                return true
            }
            o += 1 + len
        }
    }

    /// The longest TTL of an mDNS response's records (`range`: the message) with a TTL above
    /// 0, and whether one has TTL 0 (a goodbye): the records of every section after the
    /// questions, the first 256 of them, OPT left out. Reads in place, without decoding; a
    /// record that runs past the payload ends the reading (what was read stands).
    static func recordTTLs(_ b: [UInt8], _ range: Range<Int>) -> (live: UInt32, goodbye: Bool) {
        let end = range.upperBound
        let h = range.lowerBound
        func count(_ k: Int) -> Int { Int(b[h + k]) << 8 | Int(b[h + k + 1]) }
        let questions = min(count(4), 64)
        let records = min(count(6) + count(8) + count(10), 256)
        var o = h + 12
        var live: UInt32 = 0
        var goodbye = false
        for _ in 0..<questions {
            guard skipName(b, &o, end: end), o + 4 <= end else { return (live, goodbye) }
            o += 4
        }
        for _ in 0..<records {
            guard skipName(b, &o, end: end), o + 10 <= end else { break }
            let type = Int(b[o]) << 8 | Int(b[o + 1])
            let ttl = UInt32(b[o + 4]) << 24 | UInt32(b[o + 5]) << 16 | UInt32(b[o + 6]) << 8 | UInt32(b[o + 7])
            let length = Int(b[o + 8]) << 8 | Int(b[o + 9])
            if type != 41 {
                if ttl == 0 { goodbye = true } else { live = max(live, ttl) }
            }
            o += 10 + length
        }
        return (live, goodbye)
    }

    private mutating func discovery(_ d: borrowing Datagram, _ x: MulticastEvent.Discovery) {
        observe(
            MulticastEvent(
                frame: d.frame, time: d.time, src: d.src, dst: d.dst, sourceMAC: d.sourceMAC, kind: .discovery(x)),
            on: d.segment)
    }

    private mutating func observe(_ event: MulticastEvent, on segment: UInt16) {
        var e = event
        let k = links.index(of: segment)
        (e.time, e.timeWentBack) = links.clock(k, event.time)
        latest = max(latest, event.time)
        let before = pending.evictions
        links[k].observe(e, into: &pending)
        ruleEvictions += pending.evictions - before
    }

    /// Live capture's timer: what the rules reported so far.
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        out.append(contentsOf: pending)
        pending = SessionReports()
    }

    /// The end of the input: every link judges its end, and what the rules reported is handed on.
    mutating func finish(into out: inout SessionReports) {
        if enabled {
            let end = MulticastEvent(
                frame: 0, time: latest, src: .v4(0), dst: .v4(0), sourceMAC: MACBytes(), kind: .end)
            let before = pending.evictions
            links.finish(judging: end, into: &pending)
            ruleEvictions += pending.evictions - before
        }
        conclude(by: latest, into: &out)
    }
}
