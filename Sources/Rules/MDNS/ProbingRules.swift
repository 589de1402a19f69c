import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-501 and MDNS-502: how a host probes for the names it claims, and how often.

/// MDNS-501: three probes about 250 ms apart, QU, qtype ANY, then 250 ms before announcing.
///
/// Judged when a host announces a name it was seen probing (or seen "probing" a browse PTR
/// naming it, see `SharedProbes`). When the session's first mDNS packet came less than a
/// second before the sequence's first probe seen, earlier probes may be missing: the count is
/// not judged then, nor the first probe's QU bit unless three probes were seen (the first of
/// the three §8.1 asks for is the first); the intervals seen and the wait before announcing
/// are. Probes are 250 ms apart (§8.1): 200–300 ms passes (avahi 248–267 ms, with a
/// forwarder's delay 231 ms), systemd-resolved 252's 500 ms does not.
struct ProbingRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-501", "probing", .warning, "A host probes three times, 250 ms apart, before announcing",
        spec: "RFC 6762 §8.1, §8.2",
        "At a host's first announcement of a name it probed (per source address and name): fewer than 3 probes, probes less than 200 ms or more than 300 ms apart (§8.1 spaces them 250 ms; the interval is reported as measured), or the announcement less than 250 ms after the last probe; a probe whose question is not qtype ANY, or a first probe without the QU bit (§8.1 SHOULD). When the session's first mDNS packet came less than 1 s before the first probe seen (a probe may be the first packet the capture shows), the count is not judged (earlier probes may be missing), and the QU bit of the first probe seen only when three probes were seen (the first of the three §8.1 asks for); the intervals seen and the wait before announcing are judged always. A host that \"probes\" by querying the service type's PTR with its shared browse PTR in Authority, and then announces the instance's unique SRV/TXT, never probed them: reported at that announcement, with the timing of those queries. DiscoScope reads this as follows: a probe queries the name it claims (qtype ANY) with the proposed unique records in Authority (§8.1); a shared record needs no probe, so such a query probes nothing.",
        example: "a single probe followed by an announcement 30 ms later", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), announce(at: 2.03)]),
            RuleExample([probe(qtype: 1, at: 0)]),
            // systemd-resolved 252: the third probe 500 ms after the second (the capture's
            // first mDNS packet is the first probe: the intervals are judged all the same).
            RuleExample([probe(at: 0), probe(at: 0.298), probe(at: 0.798), announce(at: 1.298)]),
            // Three probes seen, the first without the QU bit: it is the first of the three,
            // also when the session began with it.
            RuleExample([
                probe(qu: false, at: 0), probe(qu: false, at: 0.25), probe(qu: false, at: 0.5), announce(at: 0.75),
            ]),
            // The capture began mid-probing: the count is not judged, but announcing 30 ms
            // after the last probe is wrong whatever came before.
            RuleExample([probe(at: 0.25), probe(at: 0.5), announce(at: 0.53)]),
            // python-zeroconf: the service type's PTR asked (QU) with the shared PTR in
            // Authority, 175 ms apart, and the instance announced at once.
            RuleExample(
                [mdns(ask("_ipp._tcp.local"), src: "192.168.1.5")]
                    + [2, 2.175, 2.35].map { mdns(typeProbe(), at: $0) } + [mdns(instanceAnnouncement(), at: 2.3503)]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5),
                announce(at: 2.75),
            ]),
            // The capture began mid-probing: the earlier probes may be missing, and what is
            // seen is right.
            RuleExample([probe(at: 0.25), probe(at: 0.5), announce(at: 0.75)]),
            // Near miss: 298 ms and 250 ms apart, within 200–300 ms.
            RuleExample([probe(at: 0), probe(at: 0.298), probe(at: 0.548), announce(at: 0.8)]),
            // Near miss: two probes seen at the session's start, without the QU bit: the
            // first seen may be the second sent.
            RuleExample([probe(qu: false, at: 0.25), probe(qu: false, at: 0.5), announce(at: 0.75)]),
            // The instance probed as §8.1 asks (qtype ANY, its SRV and TXT in Authority),
            // beside the shared PTR.
            RuleExample(
                [mdns(ask("_ipp._tcp.local"), src: "192.168.1.5")]
                    + [2, 2.25, 2.5].map { mdns(typeProbe(instance: true), at: $0) } + [
                        mdns(instanceAnnouncement(), at: 2.75)
                    ]),
        ])

    /// A python-zeroconf "probe" for `Office._ipp._tcp.local.`: `_ipp._tcp.local.` PTR (QU)
    /// with the browse PTR in Authority; with `instance`, a real probe for the instance (ANY,
    /// SRV and TXT in Authority) beside it.
    static func typeProbe(instance: Bool = false) -> DNSBuilder {
        query { b in
            b.question("_ipp._tcp.local", 12, qu: true)
            if instance { b.question("Office._ipp._tcp.local", 255, qu: true) }
            b.record(.authority, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
            if instance {
                b.record(.authority, "Office._ipp._tcp.local", 33, ttl: 120, rdata: B.srv(631, "printer.local"))
                b.record(.authority, "Office._ipp._tcp.local", 16, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
            }
        }
    }

    /// `Office._ipp._tcp.local.` announced as python-zeroconf does: PTR, SRV and TXT (both
    /// cache-flush) in the Answer section.
    static func instanceAnnouncement() -> DNSBuilder {
        response { b in
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            b.record(.answer, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
        }
    }

    /// Probes closer than this are one round.
    static let round = 0.05
    /// The intervals between probes that pass (§8.1: 250 ms).
    static let shortest = 0.2
    static let longest = 0.3

    /// A probing sequence judged already (a verdict row, `MDNSVerdicts.probingJudged`, by
    /// prober and name): its last probe's frame, judged at `time`.
    struct Judged {
        var frame: Int
        var time: Timestamp
    }

    /// The RDATA a host's probes proposed for a name (a verdict row,
    /// `MDNSVerdicts.probeProposals`, by prober and name), the latest `cap`.
    struct Proposed {
        var rdata: [UInt64]
        var last: Timestamp
        /// The latest probe whose capture clock went back (its time is the latest before it).
        var wentBack: Timestamp?
        static let cap = 16
    }

    /// A host's queries with a shared browse PTR naming an instance in Authority, and no
    /// unique record of it (a verdict row, `MDNSVerdicts.sharedProbes`, by prober and the
    /// instance's name): what python-zeroconf sends instead of probing the instance.
    struct SharedProbes {
        /// The last `MDNSProbeState.maxProbes`, oldest first, and whether each was QU.
        var probes: [MDNSFrameTime]
        var qu: [Bool]
        /// What the first one asked: `_http._tcp.local. PTR`.
        var asked: String
        var last: Timestamp
        /// The latest one whose capture clock went back.
        var wentBack: Timestamp?
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        let p = i.message.payload
        if i.isProbe {
            for q in i.message.questions where q.type != .any {
                if i.records.contains(where: {
                    $0.section == .authority && i.isUnique($0) && $0.record.name.equals(q.name, in: p)
                }) {
                    out.report(
                        Self.descriptor, "probe question \(i.name(q.name)) asks for \(q.type), not ANY", related: [])
                    break
                }
            }
            noteSharedProbe(e, i, &store, &out)
            noteProposals(e, i, &store, &out)
            return
        }
        guard let start = store.model.start else { return }
        for index in claimedNames(i) {
            let r = i.records[index]
            let k = r.nameKey
            let key = MDNSProbeKey(source: e.src, name: k)
            var probes: [MDNSFrameTime]
            var qu: [Bool]
            var shared: String? = nil
            var wentBack: Timestamp? = nil
            if let s = store.model.probes[key] {
                // The announcement carries what the probes proposed; a response with other
                // records of the name (the host answering its own probe with the records it
                // already holds, as avahi does when it adds an address) is not it.
                guard let proposed = store.verdicts.probeProposals[key]?.rdata,
                    i.records.contains(where: {
                        $0.section == .answer && $0.nameKey == k && proposed.contains($0.rdataKey)
                    })
                else { continue }
                probes = s.probes
                qu = s.qu
                wentBack = store.verdicts.probeProposals[key]?.wentBack
            } else if let s = store.verdicts.sharedProbes[key] {
                probes = s.probes
                qu = s.qu
                shared = s.asked
                wentBack = s.wentBack
            } else {
                continue
            }
            guard let last = probes.last, store.verdicts.probingJudged[key]?.frame != last.frame,
                MDNSSession.since(last.time, e.time) <= 5
            else { continue }
            store.verdicts.probingJudged.insert(
                Judged(frame: last.frame, time: e.time), for: key, at: e.time, evicted: &out.evictions)
            // The probes of this sequence: those within 2 s before the last.
            let first = probes.firstIndex { MDNSSession.since($0.time, last.time) <= 2 } ?? probes.startIndex
            probes.removeFirst(first)
            qu.removeFirst(min(first, qu.count))
            let name = i.name(r.record.name)
            var problems: [String] = []
            if let shared {
                problems.append(
                    "the probes asked for \(shared) with the shared browse PTR in Authority, never for \(name) itself (qtype ANY, its unique records in Authority): its unique records were not probed"
                )
            }
            // Intervals that a clock going back (a multi-interface capture written out of time
            // order) shortened are not judged.
            if !e.timeWentBack, wentBack.map({ $0 < probes[0].time }) ?? true {
                problems += timing(
                    probes, qu, announced: e.time, complete: MDNSSession.since(start, probes[0].time) > 1)
            }
            guard !problems.isEmpty else { continue }
            out.report(
                Self.descriptor, "probing for \(name): " + problems.joined(separator: "; "),
                related: probes.map(\.frame).reversed())
        }
    }

    /// What is wrong with the timing of a probe sequence (`sent`, oldest first, not empty)
    /// announced at `announced`; the count and the first probe's QU bit only when the
    /// sequence is `complete` (the session ran a second before it; the QU bit also when three
    /// probes were seen). Probes less than `round`
    /// apart are one round split over several messages (avahi puts a round's Authority
    /// records in as many packets as they need).
    private static func timing(_ sent: [MDNSFrameTime], _ qu: [Bool], announced: Timestamp, complete: Bool)
        -> [String]
    {
        var probes: [MDNSFrameTime] = []
        for p in sent where probes.last.map({ MDNSSession.since($0.time, p.time) >= Self.round }) ?? true {
            probes.append(p)
        }
        var problems: [String] = []
        if complete, probes.count < 3 { problems.append("\(probes.count) probe(s) instead of 3") }
        for k in probes.indices.dropFirst() {
            let gap = MDNSSession.since(probes[k - 1].time, probes[k].time)
            if gap < Self.shortest - MDNSSession.jitter || gap > Self.longest + MDNSSession.jitter {
                let all = zip(probes, probes.dropFirst()).map {
                    String(Int((MDNSSession.since($0.time, $1.time) * 1000).rounded()))
                }
                problems.append(
                    "probes \(Int((gap * 1000).rounded())) ms apart (frames \(probes[k - 1].frame), \(probes[k].frame)) instead of 250 ms (intervals \(all.joined(separator: ", ")) ms)"
                )
                break
            }
        }
        if let last = probes.last {
            let wait = MDNSSession.since(last.time, announced)
            if wait < 0.25 - MDNSSession.jitter {
                problems.append("announced \(Int((wait * 1000).rounded())) ms after the last probe instead of 250 ms")
            }
        }
        // The first of three probes seen is the first one (§8.1 sends three), also when the
        // session began with it.
        if complete || probes.count >= 3, let firstQU = qu.first, !firstQU {
            problems.append("first probe without the QU bit")
        }
        return problems
    }

    /// Notes a probe's shared browse PTRs whose instance the probe does not probe itself.
    private static func noteSharedProbe(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        for r in i.records where r.section == .authority && i.isShared(r) {
            guard let target = r.target, target.dnssd.kind == .instance,
                !i.records.contains(where: { $0.section == .authority && i.isUnique($0) && $0.nameKey == target.key })
            else { continue }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let qu = i.message.questions.contains { $0.unicastResponse }
            store.verdicts.sharedProbes.update(
                MDNSProbeKey(source: e.src, name: target.key),
                default: SharedProbes(probes: [], qu: [], asked: asked(i), last: e.time), at: e.time,
                evicted: &out.evictions
            ) { s in
                // One message may name the instance twice: counted once.
                guard s.probes.last?.frame != now.frame else { return }
                if s.probes.count >= MDNSProbeState.maxProbes {
                    s.probes.removeFirst()
                    s.qu.removeFirst()
                }
                s.probes.append(now)
                s.qu.append(qu)
                s.last = now.time
                if e.timeWentBack { s.wentBack = now.time }
            }
        }
    }

    /// Notes the RDATA a probe proposes for each name it probes (unique Authority records).
    private static func noteProposals(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        for r in i.records where r.section == .authority && i.isUnique(r) {
            store.verdicts.probeProposals.update(
                MDNSProbeKey(source: e.src, name: r.nameKey), default: Proposed(rdata: [], last: e.time), at: e.time,
                evicted: &out.evictions
            ) { p in
                p.last = e.time
                if e.timeWentBack { p.wentBack = e.time }
                if !p.rdata.contains(r.rdataKey) {
                    if p.rdata.count >= Proposed.cap { p.rdata.removeFirst() }
                    p.rdata.append(r.rdataKey)
                }
            }
        }
    }

    /// `_http._tcp.local. PTR`: the first question of a query.
    private static func asked(_ i: MDNSInput) -> String {
        guard let q = i.message.questions.first else { return "no question" }
        return "\(i.name(q.name)) \(q.type)"
    }
}

/// MDNS-502: after 15 conflicts in 10 s, at least 5 s between probe attempts.
///
/// A conflict, as the wire shows it: a host probed a name (unique records in Authority) and,
/// within the second after that probe, another host sent a response (multicast, or unicast
/// to the prober) with a record of that name (unique, TTL above 0) that the probe did not
/// propose: it defends the name. One conflict per probe. The prober's next probe after a
/// conflict starts a new attempt (under a new name after a rename, or the same name again);
/// once 15 conflicts lie within the 10 s before it, it must come at least 5 s after the
/// prober's previous probe. Kept per source address (a dual-stack host probes over each);
/// the latest prober of each name and address family is the one a defence answers.
/// Simultaneous probes (tie-breaking, §8.2) are not counted: which one lost is not certain.
///
/// Defences of QU probes go by unicast, which a capture taken on a third host does not see;
/// so a flood no host may send whatever the conflicts is also reported: more than 60 probes
/// (20 rounds) for one name from one source within 10 s (15 conflicted attempts of at most
/// three probes, then one attempt per 5 s, stay below that).
struct ProbeRateRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-502", "probe-rate-limit", .error, "Probing is rate-limited after repeated conflicts",
        spec: "RFC 6762 §8.1",
        "Per source: a probe attempt less than 5 s after the source's previous probe, when 15 conflicts lie within the 10 s before it. DiscoScope reads a conflict as follows: the source probed a name and, within 1 s, another host (another address, and another MAC when the link shows them) sent a response (multicast, or unicast to the prober) with a unique record of that name, TTL above 0, that the probe did not propose; at most one per probe; the source's next probe after a conflict starts an attempt. Simultaneous probes (§8.2 tie-breaking) are not counted. Also, whatever the capture shows of conflicts (defences of QU probes go by unicast, unseen from a third host): more than 20 probe rounds (60 probes) for one name from one source within 10 s, which a host that rate-limits never sends.",
        interop: "Apple BCT: PROBING: RATE LIMITING",
        example:
            "a 16th probe attempt 1 s after the 15th conflict within 10 s; more than 20 probe rounds for printer.local. within 10 s",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // 15 attempts, each defended by 192.168.1.9, then a 16th 1 s after the last.
            RuleExample(defended(15) + [probe("printer-15.local", at: 9.4)]),
            // A flood of rounds for one name, whatever the conflicts.
            RuleExample((0...60).map { k in probe(at: Double(k) * 0.15) }),
        ],
        nonTriggering: [
            // The 16th attempt waits 5 s.
            RuleExample(defended(15) + [probe("printer-15.local", at: 13.4)]),
            // 14 conflicts: no rate limit yet.
            RuleExample(defended(14) + [probe("printer-14.local", at: 8.4)]),
            // The probe's own records from another address (its dual-stack twin): no conflict.
            RuleExample(
                (0..<16).flatMap { k in
                    [
                        probe("printer-\(k).local", at: Double(k) * 0.6),
                        announce(src: "192.168.1.21", at: Double(k) * 0.6 + 0.3),
                    ]
                }),
            RuleExample((0..<64).map { k in probe(at: Double(k / 3) * 5 + Double(k % 3) * 0.25) }),
        ])

    /// `n` attempts 0.6 s apart, `printer-k.local`, each defended 50 ms later by 192.168.1.9
    /// (its own A record for the name).
    static func defended(_ n: Int) -> [Datagram] {
        (0..<n).flatMap { k in
            [
                probe("printer-\(k).local", at: Double(k) * 0.6),
                mdns(
                    response { $0.record(.answer, "printer-\(k).local", 1, flush: true, rdata: B.a("192.168.1.9")) },
                    src: "192.168.1.9", at: Double(k) * 0.6 + 0.05),
            ]
        }
    }

    static let rounds = 20
    static let window = 10.0
    static let conflicts = 15
    static let wait = 5.0
    /// How long after a probe a response may defend against it.
    static let defence = 1.0

    /// A prober's probes for one name (a verdict row, `MDNSVerdicts.probeRates`). The model
    /// keeps a probing phase's last few probes; a rate needs every probe of the window: the
    /// 61st within 10 s is reported when the 60th before it is at most 10 s old, which only
    /// the probes themselves tell.
    struct Probes {
        /// The probes of the last `window` seconds, oldest first (at most 61: the rule
        /// reports when there are more than 60, and then keeps none).
        var recent: [MDNSFrameTime] = []
        /// The latest probe.
        var last: Timestamp
        /// Reported: nothing more to decide while the probes go on (the row expires 10 s after
        /// the last one: a flood after that is another).
        var reported = false
    }

    /// A name and an address family: a defence over IPv4 answers the IPv4 probe.
    struct ClaimKey: WordHashable {
        var name: UInt64
        var v6: Bool

        func feedWords<S: WordSink>(into sink: inout S) {
            sink.add(name)
            sink.add(v6 ? 1 : 0)
        }
    }

    /// The latest probe for a name (a verdict row, `MDNSVerdicts.probeClaims`).
    struct Claim {
        var source: IPAddress
        var mac: MACBytes
        var probe: MDNSFrameTime
        /// The RDATA keys of the records it proposed for the name (the first 8).
        var proposed: [UInt64]
        /// A conflict was counted for this probe.
        var counted = false
    }

    /// A prober's conflicts (a verdict row, `MDNSVerdicts.probeConflicts`, made at its first
    /// conflict).
    struct Conflicts {
        /// The conflicts of the last `window` seconds, oldest first (at most `conflicts`).
        var recent: [MDNSFrameTime] = []
        /// The prober's latest probe.
        var lastProbe: MDNSFrameTime
        /// A conflict came after `lastProbe`: the next probe starts a new attempt.
        var pending = true
        var activity: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        if i.isProbe {
            judgeAttempt(e, &store, &out)
            noteClaims(e, i, &store, &out)
            judgeFlood(e, i, &store, &out)
        } else if i.isResponse, e.srcPort == 5353 {
            noteConflicts(e, i, &store, &out)
        }
    }

    /// A probe after a conflict: a new attempt, which waits 5 s once 15 conflicts lie within
    /// the 10 s before it.
    private static func judgeAttempt(_ e: MDNSEvent, _ store: inout MDNSSessionStore, _ out: inout SessionReports) {
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        let limited = store.verdicts.probeConflicts.modify(e.src) {
            c -> (previous: MDNSFrameTime, count: Int, first: Int)? in
            defer {
                c.lastProbe = now
                c.pending = false
                c.activity = now.time
            }
            guard c.pending else { return nil }
            c.recent.removeAll { MDNSSession.since($0.time, now.time) > Self.window }
            guard c.recent.count >= Self.conflicts, let first = c.recent.first,
                MDNSSession.since(c.lastProbe.time, now.time) < Self.wait - MDNSSession.jitter
            else { return nil }
            return (c.lastProbe, c.recent.count, first.frame)
        }
        guard let found = limited, let limited = found else { return }
        out.report(
            Self.descriptor,
            "probe attempt \(String(format1: MDNSSession.since(limited.previous.time, e.time))) s after the previous probe (frame \(limited.previous.frame)), after \(limited.count) conflicts within 10 s (since frame \(limited.first)): after 15 conflicts in 10 s a host waits at least 5 s before each further attempt",
            related: [limited.previous.frame, limited.first])
    }

    /// Takes a probe's claims: the names of its unique Authority records and what it proposed.
    private static func noteClaims(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        let v6 = e.src.isIPv6
        for r in i.records where r.section == .authority && i.isUnique(r) {
            let key = ClaimKey(name: r.nameKey, v6: v6)
            let fresh = Claim(source: e.src, mac: i.datagram.sourceMAC, probe: now, proposed: [])
            store.verdicts.probeClaims.update(key, default: fresh, at: e.time, evicted: &out.evictions) { c in
                // A new probe (or another prober) starts the claim afresh.
                if c.probe.frame != now.frame || c.source != e.src { c = fresh }
                if c.proposed.count < 8, !c.proposed.contains(r.rdataKey) { c.proposed.append(r.rdataKey) }
            }
        }
    }

    /// Counts the conflicts a response shows: records defending names another host probes.
    private static func noteConflicts(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        guard !store.verdicts.probeClaims.isEmpty else { return }
        let v6 = e.src.isIPv6
        let mac = i.datagram.sourceMAC
        for r in i.records where r.section == .answer && r.record.ttl > 0 && i.isUnique(r) {
            let key = ClaimKey(name: r.nameKey, v6: v6)
            let rdata = r.rdataKey
            let prober = store.verdicts.probeClaims.modify(key) { c -> MDNSFrameTime? in
                guard !c.counted, c.source != e.src, e.dst.isMulticast || e.dst == c.source,
                    mac.count == 0 || c.mac.count == 0 || mac != c.mac,
                    MDNSSession.since(c.probe.time, e.time) <= Self.defence, !c.proposed.contains(rdata)
                else { return nil }
                c.counted = true
                return c.probe
            }
            guard let prober, let probe = prober,
                let source = store.verdicts.probeClaims[key]?.source
            else { continue }
            let conflict = MDNSFrameTime(frame: e.frame, time: e.time)
            store.verdicts.probeConflicts.update(
                source, default: Conflicts(lastProbe: probe, activity: e.time), at: e.time, evicted: &out.evictions
            ) { c in
                c.recent.removeAll { MDNSSession.since($0.time, conflict.time) > Self.window }
                if c.recent.count >= Self.conflicts { c.recent.removeFirst() }
                c.recent.append(conflict)
                c.pending = true
                c.activity = e.time
            }
        }
    }

    /// More than `rounds` rounds of probes for one name from one source within 10 s.
    private static func judgeFlood(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        var seen: [UInt64] = []
        for (rr, info) in zip(i.message.authorities, i.records.lazy.filter { $0.section == .authority }) {
            let k = info.nameKey
            if seen.contains(k) { continue }
            seen.append(k)
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let flood = store.verdicts.probeRates.update(
                MDNSProbeKey(source: e.src, name: k), default: Probes(last: now.time), at: e.time,
                evicted: &out.evictions
            ) { p -> (count: Int, first: MDNSFrameTime)? in
                p.last = now.time
                guard !p.reported else { return nil }
                p.recent.removeAll { MDNSSession.since($0.time, now.time) > Self.window }
                p.recent.append(now)
                guard p.recent.count > 3 * Self.rounds, let first = p.recent.first else { return nil }
                defer {
                    p.reported = true
                    p.recent = []
                }
                return (p.recent.count, first)
            }
            guard let flood else { continue }
            out.report(
                Self.descriptor,
                "\(flood.count) probes for \(i.name(rr.name)) within \(String(format1: MDNSSession.since(flood.first.time, e.time))) s (since frame \(flood.first.frame)): more than \(Self.rounds) rounds, which a host that waits 5 s between attempts after 15 conflicts never sends",
                related: [flood.first.frame])
        }
    }
}
