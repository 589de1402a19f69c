import DNS
import Findings
import NetLayers
import WireFormat

// SEG-0xx: what a reflector or mDNS gateway between segments gets wrong. These rules run on
// the whole network of a merged session (`analyze --segments`, `capture -i A -i B`, a
// pcapng with several interfaces): one store that sees every segment, in capture order,
// beside the per-link stores the other session rules judge with.

/// The datagram `d` as captured on segment `segment` (for examples).
func on(_ segment: UInt16, _ d: Datagram) -> Datagram {
    var d = d
    d.segment = segment
    return d
}

/// SEG-001: a question forwarded to another segment and answered there has its answers
/// forwarded back.
///
/// A multicast question (not a probe) asked on one segment is *forwarded* when the same
/// question (name and type) appears on another segment from another source within a second
/// (the source there is the forwarder). It is *answered* there when a multicast response on
/// that segment, within a second of the forwarded copy, carries a record of the asked name
/// and type. The answer is *forwarded back* when any response on the asking segment carries
/// such a record after the question. Reported once per question and pair of segments, at the
/// end of the input (or on live capture's timer) when the capture ran at least 2 s past the
/// answer without it coming back.
struct AnswersNotForwardedBackRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-001", "answers-forwarded-back", .warning, "Answers to a forwarded question come back",
        spec: "RFC 6762 §2 (link-local scope), §11; avahi-daemon.conf(5) enable-reflector, reflect-filters",
        "On a session of several segments: a question asked on one segment, forwarded to another (the same name and type from another source within 1 s) and answered there within 1 s, while no response on the asking segment carries an answer to it by 2 s after that answer.",
        interop:
            "avahi's reflect-filters forward questions of every type but answers only of the listed types; mDNS gateways (UniFi, Cisco) filter by service type: the service is visible on one segment only",
        example: "_ipp._tcp.local. PTR asked on lan, forwarded to iot and answered there; no _ipp answer on lan",
        scope: .stateful, hides: true)

    static let examples = RuleExamples(
        triggering: [RuleExample(forwarded(answeredBack: false))],
        nonTriggering: [
            RuleExample(forwarded(answeredBack: true)),
            // Answered on the other segment, but the capture ended before an answer could come back.
            RuleExample(Array(forwarded(answeredBack: false).dropLast())),
            // Nobody forwarded the question: the segments are not joined.
            RuleExample([
                on(1, mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0)),
                on(2, mdns(service(), src: "192.168.2.20", at: 0.1)), on(1, mdns(ask("_http._tcp.local"), at: 5)),
            ]),
        ])

    /// A question for `_ipp._tcp.local.` on segment 1, forwarded to segment 2 by
    /// 192.168.2.1, answered there by 192.168.2.20; the answer repeated on segment 1 by
    /// 192.168.1.1 or not; a later packet shows the capture went on.
    static func forwarded(answeredBack: Bool) -> [Datagram] {
        var out = [
            on(1, mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0)),
            on(2, mdns(ask("_ipp._tcp.local"), src: "192.168.2.1", at: 0.001)),
            on(2, mdns(service(), src: "192.168.2.20", at: 0.1)),
        ]
        if answeredBack { out.append(on(1, mdns(service(), src: "192.168.1.1", at: 0.101))) }
        out.append(on(1, mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 5)))
        return out
    }

    /// A question's identity across segments.
    struct Key: WordHashable {
        var name: UInt64
        var type: UInt16

        func feedWords<S: WordSink>(into sink: inout S) {
            sink.add(name)
            sink.add(UInt64(type))
        }
    }
    /// A question asked on a segment, and what became of it (`MDNSVerdicts.forwardedQuestions`).
    struct Exchange {
        var segment: UInt16
        var asked: MDNSFrameTime
        var asker: IPAddress
        var name: String
        var forwarded: (at: MDNSFrameTime, by: IPAddress, segment: UInt16)?
        var answered: (at: MDNSFrameTime, by: IPAddress)?
        var answeredOnOrigin = false
        var reported = false
        var last: Timestamp
    }

    static let window = 1.0
    static let comeBack = 2.0
    static let maxQuestions = 16

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let i = e.input, e.dst.isMulticast, !e.timeWentBack else { return }
        let segment = i.datagram.segment
        if i.isQuery {
            guard !i.isProbe else { return }
            for (q, name) in zip(i.message.questions, i.questionNames).prefix(Self.maxQuestions) {
                take(
                    Key(name: name.key, type: q.type.rawValue), "\(i.name(q.name)) \(q.type)", e, segment, &store, &out)
            }
            return
        }
        guard i.isResponse else { return }
        for r in i.records where r.section != .authority && r.record.ttl > 0 {
            for type in [r.record.type.rawValue, RecordType.any.rawValue] {
                let key = Key(name: r.nameKey, type: type)
                store.verdicts.forwardedQuestions.modify(key) { x in
                    guard MDNSSession.since(x.asked.time, e.time) <= 60 else { return }
                    if x.segment == segment {
                        x.answeredOnOrigin = true
                    } else if let f = x.forwarded, f.segment == segment, x.answered == nil,
                        MDNSSession.since(f.at.time, e.time) <= Self.window + MDNSSession.jitter
                    {
                        x.answered = (MDNSFrameTime(frame: e.frame, time: e.time), e.src)
                    }
                    x.last = e.time
                }
            }
        }
    }

    /// A question on `segment`: the forwarded copy of one asked elsewhere, or a new exchange.
    private static func take(
        _ key: Key, _ question: String, _ e: MDNSEvent, _ segment: UInt16,
        _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        if let x = store.verdicts.forwardedQuestions[key] {
            let recent = MDNSSession.since(x.asked.time, e.time) <= Self.window + MDNSSession.jitter
            if recent, x.segment != segment, x.forwarded == nil, x.asker != e.src {
                store.verdicts.forwardedQuestions[key]?.forwarded = (now, e.src, segment)
                store.verdicts.forwardedQuestions[key]?.last = e.time
                return
            }
            // An exchange still under way (forwarded, waiting for its answers) is kept.
            if recent || (x.forwarded != nil && MDNSSession.since(x.asked.time, e.time) <= 5) { return }
            // The exchange this question replaces: its answers never came back.
            let finding = violation(x, at: e.time)
            if let finding { out.report(Self.descriptor, finding.message, related: finding.frames) }
            let reported = x.reported || finding != nil
            var fresh = Exchange(segment: segment, asked: now, asker: e.src, name: question, last: e.time)
            fresh.reported = reported
            store.verdicts.forwardedQuestions[key] = fresh
            return
        }
        store.verdicts.forwardedQuestions.insert(
            Exchange(segment: segment, asked: now, asker: e.src, name: question, last: e.time), for: key,
            at: e.time, evicted: &out.evictions)
    }

    /// What to report of an exchange at `now`, if its answers certainly did not come back.
    private static func violation(_ x: Exchange, at now: Timestamp) -> (message: String, frames: [Int])? {
        guard !x.reported, !x.answeredOnOrigin, let f = x.forwarded, let a = x.answered,
            MDNSSession.since(a.at.time, now) >= Self.comeBack
        else { return nil }
        let delay = ResponseDelayRule.ms(MDNSSession.since(x.asked.time, f.at.time))
        return (
            "question \(x.name) asked by \(x.asker) (frame \(x.asked.frame)) was forwarded to another segment by \(f.by) (frame \(f.at.frame), \(delay) ms later) and answered there by \(a.by) (frame \(a.at.frame)), but no answer to it came back to the asking segment: the forwarder passes questions, not their answers",
            [x.asked.frame, f.at.frame, a.at.frame]
        )
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        var done: [Key] = []
        for (key, x) in store.verdicts.forwardedQuestions.rows.sorted(by: {
            $0.value.asked.frame < $1.value.asked.frame
        }) {
            guard let finding = violation(x, at: now) else { continue }
            out.reportAtEnd(
                Self.descriptor, finding.message, frames: finding.frames, time: x.asked.time, source: x.asker)
            done.append(key)
        }
        for key in done { store.verdicts.forwardedQuestions[key]?.reported = true }
    }
}

/// Where a record was first multicast in the last couple of seconds, and the copies other
/// sources sent of it on other segments since (`MDNSVerdicts.recordTrails`: SEG-002, SEG-003).
struct MDNSRecordTrail {
    var segment: UInt16
    var source: IPAddress
    /// The sending host: by its link-layer address where the link has one, so that a host's
    /// IPv4 and IPv6 copies are one host's.
    var host: MulticastHost
    var at: MDNSFrameTime
    var ttl: UInt32
    var flush: Bool
    /// The copies on other segments (the first `maxCopies`).
    var copies: [(segment: UInt16, source: IPAddress, host: MulticastHost, frame: Int)] = []
    var rewriteReported = false
    var loopReported = false
    var last: Timestamp

    static let maxCopies = 4
    /// How long after the original a copy on another segment counts as forwarded: avahi's
    /// reflector sends its copy about a second later (its response aggregation).
    static let window = 2.0

    /// What the store's trails make of one multicast response record: the trail it joins
    /// (as the original, refreshed, or a copy), for the two rules to read before.
    enum Role {
        /// The first in the window, or the original source again.
        case original
        /// Another source's copy on another segment of a unique record (one of the two has
        /// the cache-flush bit): forwarded.
        case forwarded(MDNSRecordTrail)
        /// Another source's copy on the original's segment, after copies elsewhere.
        case cameBack(MDNSRecordTrail)
        /// Nothing to judge (a shared record's copy, or another source on the same segment).
        case other
    }

    static func role(
        of r: MDNSInput.RecordInfo, _ e: MDNSEvent, segment: UInt16,
        in trails: SessionTable<MDNSRecordKey, MDNSRecordTrail>
    ) -> Role {
        guard let t = trails[MDNSRecordKey(r)],
            MDNSSession.since(t.at.time, e.time) <= window
        else { return .original }
        let host = sender(e)
        if segment == t.segment {
            if host == t.host { return .original }
            return t.flush && !t.copies.isEmpty ? .cameBack(t) : .other
        }
        guard host != t.host, t.flush || r.record.cacheFlush else { return .other }
        return .forwarded(t)
    }

    /// Takes an event's records into the trails (by the store, after the rules judged it).
    static func note(
        _ e: MDNSEvent, into trails: inout SessionTable<MDNSRecordKey, MDNSRecordTrail>, evicted: inout Int
    ) {
        guard let records = MDNSRecordTrail.followed(e), let i = e.input else { return }
        let segment = i.datagram.segment
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        for r in records {
            let key = MDNSRecordKey(r)
            switch role(of: r, e, segment: segment, in: trails) {
            case .original:
                let host = sender(e)
                let copies = trails[key].flatMap {
                    $0.segment == segment && $0.host == host && MDNSSession.since($0.at.time, e.time) <= 2
                        ? $0 : nil
                }
                var fresh = Self(
                    segment: segment, source: e.src, host: host, at: now, ttl: r.record.ttl, flush: r.record.cacheFlush,
                    last: e.time)
                if let copies {
                    fresh.copies = copies.copies
                    fresh.rewriteReported = copies.rewriteReported
                    fresh.loopReported = copies.loopReported
                }
                trails.insert(fresh, for: key, at: e.time, evicted: &evicted)
            case .forwarded:
                let host = sender(e)
                trails.modify(key) { t in
                    if t.copies.count < maxCopies,
                        !t.copies.contains(where: { $0.segment == segment && $0.host == host })
                    {
                        t.copies.append((segment, e.src, host, e.frame))
                    }
                    t.last = e.time
                }
            case .cameBack, .other:
                break
            }
        }
    }

    /// The host that sent an event's message.
    static func sender(_ e: MDNSEvent) -> MulticastHost {
        MulticastHost(mac: e.input?.datagram.sourceMAC ?? MACBytes(), address: e.src)
    }

    /// The multicast response records the segment rules follow: answers and additional
    /// records with a TTL of a response from port 5353 (the first 64).
    static func followed(_ e: MDNSEvent) -> ArraySlice<MDNSInput.RecordInfo>? {
        guard let i = e.input, i.isResponse, e.dst.isMulticast, e.srcPort == 5353, !e.timeWentBack else { return nil }
        return i.records.filter { $0.section != .authority && $0.record.type != .opt }.prefix(64)
    }
}

/// SEG-002: a forwarder passes records on as they were: the same TTL (less the seconds it
/// held them), the same cache-flush bit, and no address that is link-local on the segment
/// they came from.
struct RecordsRewrittenInTransitRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-002", "records-rewritten-in-transit", .warning, "A forwarder passes records on unchanged",
        spec:
            "RFC 6762 §6.1 (NSEC: the types a name has), §10 (TTLs; a goodbye is TTL 0), §10.2 (cache-flush bit: unique records), §11 (link-local scope); RFC 3927 §2.6, RFC 4291 §2.5.6 (link-local addresses are not forwarded)",
        "On a session of several segments: a record multicast by one source on one segment is forwarded when another source multicasts the same record (name, type, class, RDATA) on another segment within 2 s, and one of the two has the cache-flush bit (a unique record has one owner, so the other source copies it). The copy is reported once per record when its TTL differs from the original's by more than the seconds between them (a cache may pass on what is left; a goodbye must stay TTL 0), when its cache-flush bit differs, or when it is an A or AAAA record of a link-local address (169.254/16, fe80::/10), which hosts on another link cannot reach. A name whose records the original response carried together with an NSEC for the name (the negative answer saying which types it has) is reported once, at the end of the input (live: on the timer), when a forwarder copied those records to another segment and sent no NSEC for the name there within 2 s of the original: hosts there wait for the types the name lacks. DiscoScope reads this as follows: shared records (neither copy has the cache-flush bit) may be sent by several hosts and are not judged; an address of the other segment's routable subnet is what a reflector is for (hosts reach it through a router) and is not reported; the NSEC is judged per name and forwarder over the 2 s window, not per packet (a forwarder may split or merge packets): any NSEC for the name from that forwarder on that segment within the window counts, also one in a later packet, and a name whose original carried no NSEC, or a capture that ends within the window, is not judged.",
        interop:
            "avahi's reflector passes TTLs and cache-flush bits on unchanged and leaves link-local AAAA records out of what it reflects (the reflector recordings, whose avahi 0.8 hosts send no NSEC at all); a gateway that answers from its cache with fixed TTLs, or clears the cache-flush bit, makes caches on the other segment keep stale or duplicate records; one that drops NSEC records leaves an AAAA query for an IPv4-only host unanswered instead of answered negatively",
        example:
            "printer.local. A 192.168.1.20 (TTL 120, cache-flush) on segment 1; the forwarder's copy on segment 2 has TTL 4500 and no cache-flush bit",
        scope: .stateful)

    static let examples = RuleExamples(
        triggering: [
            // The TTL and the cache-flush bit rewritten.
            RuleExample(copied(ttl: 4500, flush: false)),
            // A link-local address forwarded to another segment.
            RuleExample([
                on(1, mdns(aResponse("169.254.7.7"), src: "169.254.7.7", at: 0)),
                on(2, mdns(aResponse("169.254.7.7"), src: "192.168.2.1", at: 0.9)),
            ]),
            // The A record passed on without its NSEC.
            RuleExample(nsecForwarded([response { hostA(&$0) }])),
        ],
        nonTriggering: [
            // Passed on unchanged, a second later.
            RuleExample(copied(ttl: 120, flush: true)),
            // Passed on with what is left of the TTL after 2 s.
            RuleExample(copied(ttl: 118, flush: true, at: 1.9)),
            // Too late to be a copy: the other segment's own record.
            RuleExample(copied(ttl: 4500, flush: false, at: 5)),
            // The copy carries its NSEC.
            RuleExample(nsecForwarded([aResponse("192.168.1.20")])),
            // The forwarder splits the response: the NSEC follows in its next packet, within 2 s.
            RuleExample(nsecForwarded([response { hostA(&$0) }, nsecOnly()])),
            // The original had no NSEC.
            RuleExample(copied(ttl: 120, flush: true) + [later]),
            // The capture ends within the window: the NSEC may still come.
            RuleExample(Array(nsecForwarded([response { hostA(&$0) }]).dropLast())),
        ])

    /// printer.local. A with its NSEC (A only) on segment 1 from 192.168.1.20, the responses
    /// `copies` on segment 2 from 192.168.2.1 from 0.9 s on (0.2 s apart), and a query 5 s in
    /// that shows the capture went on past the window.
    static func nsecForwarded(_ copies: [DNSBuilder]) -> [Datagram] {
        [on(1, mdns(aResponse("192.168.1.20"), src: "192.168.1.20", at: 0))]
            + copies.enumerated().map { k, c in on(2, mdns(c, src: "192.168.2.1", at: 0.9 + 0.2 * Double(k))) }
            + [later]
    }

    /// A response with printer.local.'s NSEC (A only) and nothing else.
    static func nsecOnly() -> DNSBuilder {
        response { $0.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1])) }
    }

    /// A query on segment 1, 5 s in.
    static let later = on(1, mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 5))

    /// printer.local. A on segment 1 from 192.168.1.20 (TTL 120, cache-flush), and a copy on
    /// segment 2 from 192.168.2.1 at `at` seconds.
    static func copied(ttl: UInt32, flush: Bool, at: Double = 0.9) -> [Datagram] {
        let copy = response { b in
            b.record(.answer, "printer.local", 1, flush: flush, ttl: ttl, rdata: B.a("192.168.1.20"))
        }
        return [
            on(1, mdns(response { hostA(&$0) }, src: "192.168.1.20", at: 0)),
            on(2, mdns(copy, src: "192.168.2.1", at: at)),
        ]
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        store.verdicts.followsRecordTrails = true
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let records = MDNSRecordTrail.followed(e), let i = e.input else { return }
        let segment = i.datagram.segment
        followNSEC(records, e, i, segment, in: &store, evicted: &out.evictions)
        for r in records {
            guard
                case .forwarded(let t) = MDNSRecordTrail.role(
                    of: r, e, segment: segment, in: store.verdicts.recordTrails)
            else { continue }
            noteCopy(r, of: t, e, segment, in: &store)
            guard !t.rewriteReported else { continue }
            let rr = r.record
            let held = MDNSSession.since(t.at.time, e.time)
            var changes: [String] = []
            let aged = rr.ttl < t.ttl && Double(t.ttl - rr.ttl) <= held.rounded(.up) + 1
            if rr.ttl != t.ttl && !aged { changes.append("its TTL \(t.ttl) became \(rr.ttl)") }
            if rr.cacheFlush != t.flush {
                changes.append("its cache-flush bit was \(t.flush ? "cleared" : "set")")
            }
            if let a = rr.value.address, a.isLinkLocal {
                changes.append("it carries the link-local address \(a), unreachable from another link")
            }
            guard !changes.isEmpty else { continue }
            store.verdicts.recordTrails.modify(MDNSRecordKey(r)) { $0.rewriteReported = true }
            out.report(
                descriptor,
                "\(i.name(rr.name)) \(rr.type) sent by \(t.source) on another segment (frame \(t.at.frame)) was forwarded here by \(e.src) \(ResponseDelayRule.ms(held)) ms later, rewritten: \(changes.joined(separator: "; "))",
                related: [t.at.frame])
        }
    }

    // MARK: NSEC records dropped in transit

    /// A name whose records one host multicast with an NSEC for it (RFC 6762 §6.1: the types
    /// the name has) on one segment, and what forwarders passed on of it to other segments
    /// within the window (`MDNSVerdicts.nsecTrails`, by name key).
    struct NSECTrail {
        var segment: UInt16
        var host: MulticastHost
        var source: IPAddress
        var name: String
        /// The types the NSEC lists (the first `maxTypes`), as text.
        var types: String
        /// The origin's latest response with records of the name and its NSEC.
        var at: MDNSFrameTime
        /// The forwarders of the name on other segments since `at` (the first `maxForwarders`).
        var forwarders: [Forwarder] = []
        /// The first forwarder seen to pass the records on without an NSEC for the name, once
        /// its window had ended; kept until reported.
        var dropped: Dropped?
        var reported = false
        var last: Timestamp
    }

    /// Another host on another segment that sent the name's records (copies of the origin's)
    /// or an NSEC for it within the window.
    struct Forwarder {
        var segment: UInt16
        var host: MulticastHost
        var source: IPAddress
        /// Its first copy of the name's records, and the origin's response it copied.
        var copy: (at: MDNSFrameTime, of: MDNSFrameTime)?
        /// It sent an NSEC for the name on its segment.
        var nsec = false
    }

    /// What a report of a dropped NSEC names: the forwarder's copy and the original it copied.
    struct Dropped {
        var copy: MDNSFrameTime
        var by: IPAddress
        var original: MDNSFrameTime
    }

    /// Bounds on what one name's trail keeps, and on the NSEC names followed per response.
    static let maxForwarders = 4
    static let maxTypes = 8
    static let maxNSECNames = 16

    /// The NSECs of a response: the origin's response with records of a name and its NSEC
    /// starts the name's trail (or renews it: the trail before is settled first); another
    /// host's NSEC for the name on another segment within the window is noted as passed on.
    private static func followNSEC(
        _ records: ArraySlice<MDNSInput.RecordInfo>, _ e: MDNSEvent, _ i: MDNSInput, _ segment: UInt16,
        in store: inout MDNSSessionStore, evicted: inout Int
    ) {
        var seen: [UInt64] = []
        for n in records where n.record.type == .nsec && !seen.contains(n.nameKey) {
            guard seen.count < maxNSECNames else { break }
            seen.append(n.nameKey)
            let key = n.nameKey
            let host = MDNSRecordTrail.sender(e)
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let withRecords =
                n.record.ttl > 0
                && records.contains { $0.nameKey == key && $0.record.type != .nsec && $0.record.ttl > 0 }
            if let t = store.verdicts.nsecTrails[key], MDNSSession.since(t.at.time, e.time) <= MDNSRecordTrail.window {
                if t.segment == segment, t.host == host {
                    if withRecords {
                        store.verdicts.nsecTrails.modify(key) { t in
                            t.at = now
                            t.last = e.time
                        }
                    }
                } else if t.segment != segment, t.host != host {
                    store.verdicts.nsecTrails.modify(key) { t in
                        t.forwarder(segment, host, e.src) { $0.nsec = true }
                        t.last = e.time
                    }
                }
                continue
            }
            guard withRecords else { continue }
            var types = ""
            if case .nsec(_, let bitmap) = n.record.value {
                types = i.message.nsecTypes(bitmap).prefix(maxTypes).map { "\($0)" }.joined(separator: ", ")
            }
            var fresh = NSECTrail(
                segment: segment, host: host, source: e.src, name: i.name(n.record.name), types: types, at: now,
                last: e.time)
            if var before = store.verdicts.nsecTrails[key] {
                settle(&before, at: e.time)
                fresh.dropped = before.dropped
                fresh.reported = before.reported
            }
            store.verdicts.nsecTrails.insert(fresh, for: key, at: e.time, evicted: &evicted)
        }
    }

    /// A forwarded record `r` (the copy of trail `t`): a copy of the records of a name whose
    /// origin sent them with its NSEC, when `t` is that origin's.
    private static func noteCopy(
        _ r: MDNSInput.RecordInfo, of t: MDNSRecordTrail, _ e: MDNSEvent, _ segment: UInt16,
        in store: inout MDNSSessionStore
    ) {
        guard r.record.type != .nsec, r.record.ttl > 0 else { return }
        let host = MDNSRecordTrail.sender(e)
        store.verdicts.nsecTrails.modify(r.nameKey) { n in
            guard n.segment == t.segment, n.host == t.host,
                MDNSSession.since(n.at.time, e.time) <= MDNSRecordTrail.window
            else { return }
            let origin = n.at
            n.forwarder(segment, host, e.src) { f in
                if f.copy == nil { f.copy = (MDNSFrameTime(frame: e.frame, time: e.time), origin) }
            }
            n.last = e.time
        }
    }

    /// Settles a trail whose window ended by `now`: the first forwarder that copied the
    /// name's records and sent no NSEC for it dropped the NSEC.
    private static func settle(_ n: inout NSECTrail, at now: Timestamp) {
        guard n.dropped == nil, MDNSSession.since(n.at.time, now) > MDNSRecordTrail.window,
            let f = n.forwarders.first(where: { $0.copy != nil && !$0.nsec }), let c = f.copy
        else { return }
        n.dropped = Dropped(copy: c.at, by: f.source, original: c.of)
    }

    /// Reports each name whose NSEC a forwarder certainly dropped by `now`, once.
    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        var due: [(UInt64, NSECTrail)] = []
        for (key, row) in store.verdicts.nsecTrails.rows where !row.reported {
            var n = row
            settle(&n, at: now)
            if n.dropped != nil { due.append((key, n)) }
        }
        for (key, n) in due.sorted(by: { ($0.1.dropped?.copy.frame ?? 0) < ($1.1.dropped?.copy.frame ?? 0) }) {
            guard let d = n.dropped else { continue }
            store.verdicts.nsecTrails.modify(key) { row in
                row = n
                row.reported = true
            }
            let only = n.types.isEmpty ? "no type" : "\(n.types) only"
            out.reportAtEnd(
                descriptor,
                "\(n.name) went out from \(n.source) on another segment with an NSEC saying it has \(only) (frame \(d.original.frame)); \(d.by) forwarded its records here \(ResponseDelayRule.ms(MDNSSession.since(d.original.time, d.copy.time))) ms later (frame \(d.copy.frame)) with no NSEC for the name within \(Int(MDNSRecordTrail.window)) s: the forwarder dropped the NSEC, so hosts here wait for records the name does not have (an AAAA query for an IPv4-only host)",
                frames: [d.copy.frame, d.original.frame], time: d.copy.time, source: d.by)
        }
    }
}

extension RecordsRewrittenInTransitRule.NSECTrail {
    /// Changes the entry of the forwarder `host` on `segment`, added first when there is room.
    mutating func forwarder(
        _ segment: UInt16, _ host: MulticastHost, _ source: IPAddress,
        _ body: (inout RecordsRewrittenInTransitRule.Forwarder) -> Void
    ) {
        if let k = forwarders.firstIndex(where: { $0.segment == segment && $0.host == host }) {
            body(&forwarders[k])
        } else if forwarders.count < RecordsRewrittenInTransitRule.maxForwarders {
            var f = RecordsRewrittenInTransitRule.Forwarder(segment: segment, host: host, source: source)
            body(&f)
            forwarders.append(f)
        }
    }
}

/// SEG-003: forwarding between segments has no loop: a record forwarded from a segment does
/// not come back to it from another source, and reaches another segment once.
struct ForwardingLoopRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-003", "forwarding-loop", .warning, "Forwarded records neither come back nor arrive twice",
        spec: "RFC 6762 §2 (link-local scope), §11; avahi-daemon.conf(5) enable-reflector",
        "On a session of several segments, for a unique record (one of its copies has the cache-flush bit) first multicast by one source on one segment: a copy multicast on that same segment by another source within 2 s, after a copy was seen on another segment (it came back: a forwarder sends it to the link it came from, or two forwarders pass it to each other); or a second copy on another segment from yet another source within 2 s (two forwarders between the same segments, each passing it on). Reported once per record, on the copy that shows it.",
        interop:
            "Two reflectors on the same pair of links (two avahi hosts with enable-reflector, or a reflector beside a switch's mDNS gateway) copy every record twice and may pass each other's copies back: multicast storms, and MDNS-514 conflicts on hosts that see their own records from another source",
        example:
            "printer.local. A from 192.168.1.20 on segment 1; forwarded to segment 2 by 192.168.2.1; sent again on segment 1 by 192.168.1.1",
        scope: .stateful)

    static let examples = RuleExamples(
        triggering: [
            // Forwarded to segment 2, then back to segment 1.
            RuleExample(
                RecordsRewrittenInTransitRule.copied(ttl: 120, flush: true) + [
                    on(1, mdns(response { hostA(&$0) }, src: "192.168.1.1", at: 1.5))
                ]),
            // Two forwarders put it on segment 2.
            RuleExample(
                RecordsRewrittenInTransitRule.copied(ttl: 120, flush: true) + [
                    on(2, mdns(response { hostA(&$0) }, src: "192.168.2.2", at: 1.2))
                ]),
        ],
        nonTriggering: [
            // Forwarded once; the original source announces again.
            RuleExample(
                RecordsRewrittenInTransitRule.copied(ttl: 120, flush: true) + [
                    on(1, mdns(response { hostA(&$0) }, src: "192.168.1.20", at: 1.5))
                ]),
            // The same forwarder sends its copy again.
            RuleExample(
                RecordsRewrittenInTransitRule.copied(ttl: 120, flush: true) + [
                    on(2, mdns(response { hostA(&$0) }, src: "192.168.2.1", at: 1.5))
                ]),
        ])

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        store.verdicts.followsRecordTrails = true
        guard let records = MDNSRecordTrail.followed(e), let i = e.input else { return }
        let segment = i.datagram.segment
        for r in records {
            let role = MDNSRecordTrail.role(of: r, e, segment: segment, in: store.verdicts.recordTrails)
            let message: String
            let t: MDNSRecordTrail
            switch role {
            case .cameBack(let trail):
                guard let c = trail.copies.first(where: { $0.segment != segment }) else { continue }
                t = trail
                message =
                    "\(i.name(r.record.name)) \(r.record.type) sent by \(trail.source) on this segment (frame \(trail.at.frame)) and forwarded to another by \(c.source) (frame \(c.frame)) came back here from \(e.src): a forwarding loop"
            case .forwarded(let trail):
                let host = MDNSRecordTrail.sender(e)
                guard let c = trail.copies.first(where: { $0.segment == segment && $0.host != host }) else { continue }
                t = trail
                message =
                    "\(i.name(r.record.name)) \(r.record.type) sent by \(trail.source) on another segment (frame \(trail.at.frame)) reached this segment twice: from \(c.source) (frame \(c.frame)) and from \(e.src): two forwarders between the same segments"
            case .original, .other:
                continue
            }
            guard !t.loopReported else { continue }
            store.verdicts.recordTrails.modify(MDNSRecordKey(r)) { $0.loopReported = true }
            let frames =
                switch role {
                case .cameBack(let trail): [trail.at.frame] + (trail.copies.first.map { [$0.frame] } ?? [])
                default: [t.at.frame] + t.copies.filter { $0.segment == segment }.prefix(1).map(\.frame)
                }
            out.report(descriptor, message, related: frames)
        }
    }

}
