import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about a host claiming names: probing before announcing, and announcing (probing
// itself and its rate: ProbingRules.swift).

/// MDNS-503: unique records are probed before their first announcement.
///
/// Judged only on a host's first packet, when the capture was already running for a second
/// (so no earlier traffic of the host was missed), and when nobody probed the name.
struct ProbeBeforeAnnounceRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-503", "probe-before-announce", .error, "Unique records are probed before they are first announced",
        spec: "RFC 6762 §8, §8.1",
        "A source's first packet, more than 1 s after the capture began, announces cache-flush unique records for a name that no one probed.",
        example: "a host's first packet after link-up announces cache-flush A with no probe before it",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample([mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), announce(at: 2)])],
        nonTriggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5),
                announce(at: 2.75),
            ]),
            // The capture may have begun after the host's probes.
            RuleExample([announce(at: 0)]),
        ])

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, store.model.senders[e.src] == nil, let start = store.model.start,
            MDNSSession.since(start, e.time) > 1
        else { return }
        for (k, r) in claimedNames(i) where !store.model.probes.keys.contains(where: { $0.name == k }) {
            out.report(
                Self.descriptor,
                "first packet from this host announces \(i.name(r.record.name)) \(r.record.type) (cache-flush) without probing for it",
                related: [])
            return
        }
    }
}

/// MDNS-504: after probing, at least two announcements one second apart; at most eight.
struct AnnouncingRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-504", "announcing", .error, "A host announces at least twice, one second apart",
        spec: "RFC 6762 §8.3",
        "Per source and name it probed: unsolicited multicast responses (no query for the name in the last second) with the name's unique records, counting those at least 0.5 s after the previous one. At the end of the input: only one such announcement while the capture ran 2 s or more past it (error; not judged after a goodbye); more than eight, or an interval shorter than 1.5 times the one before it, when that one was under 2 s or this one is under 1 s (info: each interval at least doubles, less the timers' jitter; after a longer pause an update may start announcing afresh). Responses within 1 s of another host's query may be answers: after one, neither a single announcement nor the intervals are judged.",
        example: "only one announcement after probing", scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75), announce(at: 1.0),
                    mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 4),
                ], severity: .error),
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + (0..<9).map { announce(at: 0.75 + Double($0)) },
                severity: .info),
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.75, 2.75].map { announce(at: $0) },
                severity: .info),
        ],
        nonTriggering: [
            RuleExample([
                probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75), announce(at: 1.75),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 4),
            ]),
            // Doubling intervals: 1 s, 2 s, 4 s.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.75, 3.75, 7.75].map { announce(at: $0) }),
            // The capture ended right after the first announcement.
            RuleExample([probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75)]),
        ])

    /// A prober's announcements of a name after its probing phase (a verdict row,
    /// `MDNSVerdicts.announcements`).
    struct Phase {
        var name: String
        var first: MDNSFrameTime
        var last: MDNSFrameTime
        var count = 1
        var goodbye = false
        var frames: [Int]
        /// Times of the counted announcements (the first nine).
        var times: [Timestamp]

        /// A response with the name's records came within a second of another host's query
        /// (for any name): it may have been an answer, so what was counted is not the whole
        /// story and neither "once" nor the intervals are judged.
        var uncertain = false

        /// The first interval shorter than 1.5 times the one before it, with the frame that
        /// ends it. RFC 6762 §8.3 asks for at least a factor of two; implementations add a
        /// random jitter of up to a quarter second to each announcement (avahi), so only an
        /// interval that clearly did not grow is reported. After an interval of 2 s or more a
        /// shorter one of a second or more may start the announcements of an update (§8.4
        /// announces changed records afresh), which the wire does not tell apart: only an
        /// interval under a second (never "one second apart") is judged then.
        func nonDoubling() -> (frame: Int, gap: Double, previous: Double)? {
            guard times.count >= 3 else { return nil }
            for k in 2..<times.count {
                let previous = MDNSSession.since(times[k - 2], times[k - 1])
                let gap = MDNSSession.since(times[k - 1], times[k])
                let shortPrevious = previous < AnnouncingRule.restart
                let underASecond = gap < 1 - MDNSSession.jitter
                if gap < AnnouncingRule.growth * previous - MDNSSession.jitter, shortPrevious || underASecond,
                    k < frames.count
                {
                    return (frames[k], gap, previous)
                }
            }
            return nil
        }
    }
    static let spacing = 0.5
    static let growth = 1.5
    static let restart = 2.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(e, store, into: &out)
            return
        }
        // Queries are kept by the store: the latest queriers (probes included) and when each
        // name was last asked for by a query other than a probe.
        guard let i = e.input, !i.isQuery else { return }
        let maybeAnswer = store.windows.queriers.other(than: e.src, within: 1, of: e.time)
        for r in i.records where r.section == .answer && r.record.ttl == 0 {
            let key = MDNSProbeKey(source: e.src, name: r.nameKey)
            store.verdicts.announcements.modify(key) { $0.goodbye = true }
        }
        for (k, r) in claimedNames(i) {
            let key = MDNSProbeKey(source: e.src, name: k)
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            // An answer to a query of the last second is not an unsolicited announcement.
            if let t = store.windows.asked[k]?.query, MDNSSession.since(t, e.time) <= 1 {
                store.verdicts.announcements.modify(key) { $0.uncertain = true }
                continue
            }
            if maybeAnswer, store.verdicts.announcements.modify(key, { $0.uncertain = true }) != nil {
                continue
            }
            let lastProbe = store.model.probes[key]?.probes.last
            if let first = store.verdicts.announcements[key]?.first, (lastProbe?.frame ?? 0) < first.frame {
                store.verdicts.announcements.modify(key) { ph in
                    guard !ph.goodbye, MDNSSession.since(ph.last.time, now.time) >= Self.spacing else { return }
                    ph.count &+= 1
                    ph.last = now
                    if ph.frames.count < 9 {
                        ph.frames.append(now.frame)
                        ph.times.append(now.time)
                    }
                }
            } else if let last = lastProbe, MDNSSession.since(last.time, e.time) <= 5 {
                // A new probing phase (first, or after a restart or rename) starts a new count.
                store.verdicts.announcements.insert(
                    Phase(name: i.name(r.record.name), first: now, last: now, frames: [e.frame], times: [e.time]),
                    for: key, at: e.time, evicted: &out.evictions)
            }
        }
    }

    private static func conclude(_ e: MDNSEvent, _ store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        for (key, ph) in store.verdicts.announcements.rows.sorted(by: { $0.value.first.frame < $1.value.first.frame }) {
            if ph.count == 1, !ph.goodbye, !ph.uncertain, MDNSSession.since(ph.first.time, e.time) >= 2 {
                out.reportAtEnd(
                    Self.descriptor,
                    "\(ph.name) announced once after probing; at least two announcements one second apart are required",
                    frames: [ph.first.frame], time: ph.first.time, source: key.source)
            } else if ph.count > 8 {
                out.reportAtEnd(
                    Self.descriptor, severity: .info,
                    "\(ph.name) announced \(ph.count) times after probing; at most eight",
                    frames: ph.frames, time: ph.first.time, source: key.source)
            } else if !ph.uncertain, let d = ph.nonDoubling() {
                out.reportAtEnd(
                    Self.descriptor, severity: .info,
                    "\(ph.name) announced again \(String(format1: d.gap)) s after an interval of \(String(format1: d.previous)) s (frame \(d.frame)); each interval between announcements at least doubles",
                    frames: [d.frame] + ph.frames.filter { $0 != d.frame }, time: ph.first.time, source: key.source)
            }
        }
    }
}

/// MDNS-505: no regular periodic announcements.
///
/// Per source and record (RRSet and RDATA; a data change starts a new series): unsolicited
/// multicast responses, that is responses with no query (probes included) from another host
/// in the second before them and none asking for the record's name since the previous one.
/// A series whose intervals all equal its first one (within 10 % and 50 ms) is periodic once
/// it has 6 transmissions with a period of 2 s or more, or 9 with a period of 1–2 s (up to
/// eight announcements are allowed, §8.3, and doubling intervals are never equal).
/// Repetitions less than a second apart are a burst, MDNS-506's business, and restart the
/// series. Anything else (an answer, a changed RDATA, an interval off the period) ends the
/// series. A link change is not visible on the wire, but it causes a one-off announcement,
/// not a period. Queries whose capture clock went back are not counted.
struct PeriodicAnnouncementRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-505", "no-periodic-announcements", .error, "Records are not announced at a fixed period",
        spec: "RFC 6762 §8.3",
        "Per source and record: 6 or more unsolicited multicast responses at a fixed period of 2 s or more (9 or more for periods of 1–2 s; repetitions less than 1 s apart are MDNS-506's), with no query for the name between them and none from another host in the second before each.",
        interop:
            "periodic announcements cost every host on the link a wake-up; RFC 6762 relies on queries and TTLs instead",
        example: "the same record set unsolicited every 60 s for an hour with no matching queries", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample((0..<6).map { announce(at: Double($0) * 60) })],
        nonTriggering: [
            // A burst: MDNS-506's business, not a period.
            RuleExample((0..<9).map { announce(at: Double($0) * 0.05) }),
            // Doubling intervals: announcing, then the host stays quiet.
            RuleExample([0, 1, 3, 7, 15, 31].map { announce(at: $0) }),
            // Every repetition answers a query.
            RuleExample(
                (0..<6).flatMap { k in
                    [
                        mdns(ask("printer.local", 1), src: "192.168.1.5", at: Double(k) * 60),
                        announce(at: Double(k) * 60 + 0.1),
                    ]
                }),
        ])

    struct Key: Hashable {
        var source: IPAddress
        var record: MDNSRecordKey
    }
    /// A source's unsolicited multicasts of a record (a verdict row, `MDNSVerdicts.unsolicited`).
    struct Series {
        var frames: [Int]
        var last: Timestamp
        var period: Double?
        var count: Int
        var reported = false
    }
    static let longPeriodCount = 6
    static let anyPeriodCount = 9
    static let longPeriod = 2.0
    static let shortestPeriod = 1.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        // Queries are kept by the store (those whose clock went back left out): the latest
        // queriers, and when each name was last asked for, probes included (a probe for a
        // name the responder holds is answered at once, §8.1).
        guard let i = e.input, !e.atEnd, !e.timeWentBack, i.isResponse, e.dst.isMulticast, e.srcPort == 5353
        else { return }
        let solicited = store.windows.queriers.other(than: e.src, within: 1, of: e.time, inOrderOnly: true)
        var revealed: Key? = nil
        for r in i.records where r.section != .authority && r.record.ttl > 0 && r.record.type != .opt {
            let key = Key(source: e.src, record: MDNSRecordKey(r))
            guard let last = store.verdicts.unsolicited[key]?.last else {
                if solicited { continue }
                store.verdicts.unsolicited.insert(
                    Series(frames: [e.frame], last: e.time, count: 1), for: key, at: e.time, evicted: &out.evictions)
                continue
            }
            let gap = MDNSSession.since(last, e.time)
            let answered = store.windows.asked[key.record.set.name]?.inOrder.map { $0 >= last } ?? false
            if solicited || answered {
                store.verdicts.unsolicited.remove(key)
                continue
            }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let periodic = store.verdicts.unsolicited.modify(key) { s in Self.extend(&s, now, gap: gap) } ?? false
            if periodic, revealed == nil { revealed = key }
        }
        guard let first = revealed, let s = store.verdicts.unsolicited[first],
            let r = i.records.first(where: {
                $0.section != .authority && MDNSRecordKey($0) == first.record
            })
        else { return }
        out.report(
            Self.descriptor,
            "\(i.name(r.record.name)) \(r.record.type) multicast unsolicited \(s.count) times every \(String(format1: s.period ?? 0)) s (since frame \(s.frames.first ?? e.frame)) with no query for it: no regular periodic announcements",
            related: Array(s.frames.dropLast().reversed()))
    }

    /// Takes in an unsolicited multicast `gap` seconds after the series' last one; whether the
    /// series just became periodic.
    private static func extend(_ s: inout Series, _ now: MDNSFrameTime, gap: Double) -> Bool {
        if let period = s.period, abs(gap - period) > max(0.05, period * 0.1) {
            // Off the period: a new series starts from the previous transmission.
            s = Series(frames: [s.frames.last ?? now.frame], last: s.last, period: nil, count: 1)
        }
        // Repetitions less than a second apart are a burst (MDNS-506), not a period.
        if gap < Self.shortestPeriod - MDNSSession.jitter {
            s = Series(frames: [now.frame], last: now.time, count: 1)
            return false
        }
        if s.period == nil { s.period = gap }
        s.count &+= 1
        s.last = now.time
        if s.frames.count < 8 { s.frames.append(now.frame) }
        let needed =
            (s.period ?? 0) >= Self.longPeriod - MDNSSession.jitter ? Self.longPeriodCount : Self.anyPeriodCount
        guard s.count >= needed, !s.reported else { return false }
        s.reported = true
        return true
    }
}
