import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-501 and MDNS-502: how a host probes for the names it claims, and how often.

/// MDNS-501: three probes about 250 ms apart, QU, qtype ANY, then 250 ms before announcing.
///
/// Judged when a host announces a name it was seen probing, and only when the capture began
/// more than a second before its first probe (else earlier probes may be missing).
struct ProbingRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-501", "probing", .warning, "A host probes three times, 250 ms apart, before announcing",
        spec: "RFC 6762 §8.1, §8.2",
        "At a host's first announcement of a name it probed (per source address and name): fewer than 3 probes, probes less than 200 ms or more than 500 ms apart, or the announcement less than 250 ms after the last probe; a probe whose question is not qtype ANY, or a first probe without the QU bit.",
        example: "a single probe followed by an announcement 30 ms later", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), announce(at: 2.03)]),
            RuleExample([probe(qtype: 1, at: 0)]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5),
                announce(at: 2.75),
            ]),
            // The capture began mid-probing: the earlier probes may be missing.
            RuleExample([probe(at: 0.25), probe(at: 0.5), announce(at: 0.75)]),
        ])

    /// A probing sequence judged already (a verdict row, `MDNSVerdicts.probingJudged`, by
    /// prober and name): its last probe's frame, judged at `time`.
    struct Judged {
        var frame: Int
        var time: Timestamp
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
            return
        }
        for (k, r) in claimedNames(i) {
            let key = MDNSProbeKey(source: e.src, name: k)
            guard let s = store.model.probes[key], let last = s.probes.last,
                store.verdicts.probingJudged[key]?.frame != last.frame, MDNSSession.since(last.time, e.time) <= 5,
                let start = store.model.start, MDNSSession.since(start, s.firstSeen) > 1
            else { continue }
            store.verdicts.probingJudged.insert(
                Judged(frame: last.frame, time: e.time), for: key, at: e.time, evicted: &out.evictions)
            // The probes of this sequence: those within 2 s before the last.
            let seq = s.probes.filter { MDNSSession.since($0.time, last.time) <= 2 }
            let name = i.name(r.record.name)
            var problems: [String] = []
            if seq.count < 3 { problems.append("\(seq.count) probe(s) instead of 3") }
            for k in seq.indices.dropFirst() {
                let gap = MDNSSession.since(seq[k - 1].time, seq[k].time)
                if gap < 0.2 - MDNSSession.jitter || gap > 0.5 + MDNSSession.jitter {
                    problems.append(
                        "probes \(Int((gap * 1000).rounded())) ms apart (frames \(seq[k - 1].frame), \(seq[k].frame))")
                    break
                }
            }
            let wait = MDNSSession.since(last.time, e.time)
            if wait < 0.25 - MDNSSession.jitter {
                problems.append("announced \(Int((wait * 1000).rounded())) ms after the last probe instead of 250 ms")
            }
            if let firstQU = s.qu.suffix(seq.count).first, !firstQU {
                problems.append("first probe without the QU bit")
            }
            guard !problems.isEmpty else { continue }
            out.report(
                Self.descriptor, "probing for \(name): " + problems.joined(separator: "; "),
                related: seq.map(\.frame).reversed())
        }
    }
}

/// MDNS-502: after 15 conflicts in 10 s, at most one probe attempt per 5 s.
///
/// Per prober and name (every Authority record's name, counted once per probe): the 61st
/// probe within 10 s is reported, once per prober and name.
struct ProbeRateRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-502", "probe-rate-limit", .error, "Probing is rate-limited after repeated conflicts",
        spec: "RFC 6762 §8.1",
        "Per source and probed name: more than 20 probe rounds (three probes each) within 10 s.",
        interop: "Apple BCT: PROBING: RATE LIMITING",
        example: "more than 20 probe rounds for printer.local. within 10 s",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample((0...60).map { k in probe(at: Double(k) * 0.15) })],
        nonTriggering: [RuleExample((0..<64).map { k in probe(at: Double(k / 3) * 5 + Double(k % 3) * 0.25) })])

    static let rounds = 20
    static let window = 10.0

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
        /// Reported: nothing more to decide.
        var reported = false
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isProbe, !e.atEnd else { return }
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
                "\(flood.count) probes for \(i.name(rr.name)) within \(String(format1: MDNSSession.since(flood.first.time, e.time))) s (since frame \(flood.first.frame)): more than \(Self.rounds) rounds; after 15 conflicts a host waits 5 s between attempts",
                related: [flood.first.frame])
        }
    }
}
