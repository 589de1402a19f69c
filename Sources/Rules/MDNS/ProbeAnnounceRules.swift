import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about a host claiming names: probing before announcing, and announcing (probing
// itself and its rate: ProbingRules.swift).

/// MDNS-503: unique records are probed before their first announcement.
///
/// Judged only on a host's first packet, when the capture was already running for a second
/// (so no earlier traffic of the host was missed), when the packet is an announcement (no
/// query for its names in the answer window: an answer is not an announcement), and when
/// nobody probed the name.
struct ProbeBeforeAnnounceRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-503", "probe-before-announce", .error, "Unique records are probed before they are first announced",
        spec: "RFC 6762 §8, §8.1",
        "A source's first packet, more than 1 s after the capture began, announces cache-flush unique records for a name that no one probed. DiscoScope reads this as follows: only an unsolicited response announces; a response within 1 s of a query for one of its names (or of another host's probe for it) is an answer, whatever it carries.",
        example: "a host's first packet after link-up announces cache-flush A with no probe before it",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), announce(at: 2)]),
            // A query for another name does not make the host's first packet an answer.
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"),
                mdns(ask("scanner.local", 1), src: "192.168.1.5", at: 2), announce(at: 2.005),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5),
                announce(at: 2.75),
            ]),
            // The capture may have begun after the host's probes.
            RuleExample([announce(at: 0)]),
            // The host's first packet answers a query for the name 5 ms earlier: a host that
            // was up all along and silent, answering.
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"),
                mdns(ask("printer.local", 1), src: "192.168.1.5", at: 2), announce(at: 2.005),
            ]),
        ])

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, store.model.senders[e.src] == nil, let start = store.model.start,
            MDNSSession.since(start, e.time) > 1
        else { return }
        let claimed = claimedNames(i)
        guard !claimed.isEmpty, let roles = e.roles, !roles.solicited else { return }
        for index in claimed where !store.model.isProbed(i.records[index].nameKey) {
            let r = i.records[index]
            out.report(
                Self.descriptor,
                "first packet from this host announces \(i.name(r.record.name)) \(r.record.type) (cache-flush) without probing for it",
                related: [])
            return
        }
    }
}

/// MDNS-504: at least two announcements one second apart; at most eight, intervals doubling.
///
/// Judged per announcement sequence, as the store reads them (`MDNSPhases`): the start-up
/// sequence after a host probed a name, and each update sequence (changed data of a unique
/// RRSet; RFC 6762 §8.4 announces an update afresh, as §8.3). A sequence is judged when the next one of the same host and name starts, or at the
/// end of the input.
struct AnnouncingRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-504", "announcing", .error, "A host announces at least twice, one second apart",
        spec: "RFC 6762 §8.3, §8.4",
        "Per source and name, each announcement sequence on its own: the start-up sequence after the host probed the name, and each update sequence (changed RDATA of a unique RRSet the host sent before, §8.4). Announcements are the first response with the name after probing it, then unsolicited multicast responses (no query for the name, or probe from another host, in the last second) with the name's records, counted when at least 0.5 s after the previous one and while the sequence keeps its pace (the next within four times the last interval, at least 4 s). When the next sequence starts, or at the end of the input: only one announcement while 2 s or more passed (error; not judged after a goodbye); more than eight (info); each successive interval of the sequence (every pair, whatever its length) against the one before it: not longer than it, less 10 ms (warning: §8.3's intervals MUST at least double, and this one did not grow at all, as troglobit mdnsd 0.12's constant 2 s), else shorter than 1.5 times it (info: at least double, less the timers' jitter: avahi adds up to 250 ms to each). The message lists the intervals measured. After the host answered a query for the name during the sequence, or its first announcement also answered one (an announcement may have gone out as that answer), neither a single announcement nor the intervals are judged. DiscoScope reads this as follows: answers are not announcements, and an update's announcements are a sequence of their own, not more of the start-up sequence.",
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
                severity: .warning),
            // troglobit mdnsd 0.12: four announcements a constant 2 s apart (intervals of 2 s
            // or more are judged too).
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 2.75, 4.752, 6.754].map { announce(at: $0) },
                severity: .warning),
            // An interval that grew, but by less than 1.5 (after 2 s: 2.5 s).
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.75, 3.75, 6.25].map { announce(at: $0) },
                severity: .info),
            // An update (new address) announced once: its own sequence, judged on its own.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.75, 3.75].map { announce(at: $0) }
                    + [announce("192.168.1.21", at: 30), mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 40)],
                severity: .error),
        ],
        nonTriggering: [
            RuleExample([
                probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75), announce(at: 1.75),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 4),
            ]),
            // Doubling intervals: 1 s, 2 s, 4 s.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.75, 3.75, 7.75].map { announce(at: $0) }),
            // Near miss: timer jitter (avahi: up to 250 ms each): 1.2 s, 1.85 s, 3.7 s, each at
            // least 1.5 times the one before.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 1.95, 3.8, 7.5].map { announce(at: $0) }),
            // Near miss: 2 s, then 3 s (1.5 times), then 6 s.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)] + [0.75, 2.75, 5.75, 11.75].map { announce(at: $0) }),
            // The capture ended right after the first announcement.
            RuleExample([probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75)]),
            // Five start-up announcements, then an update (new address) announced four times:
            // two sequences, each fine (counted as one, nine announcements).
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5)]
                    + [0.75, 1.75, 3.75, 7.75, 15.75].map { announce(at: $0) }
                    + [20, 21, 23, 27].map { announce("192.168.1.21", at: $0) }),
        ])

    /// An interval shorter than this times the one before it did not double (info).
    static let growth = 1.5

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(e, store, into: &out)
            return
        }
        // A new sequence of a name closes the one before it: judged now.
        guard let roles = e.roles else { return }
        for n in roles.names {
            guard case .starts = n.role,
                let s = store.phases.rows[MDNSProbeKey(source: e.src, name: n.key)]?.sequence,
                let v = verdict(s, end: e.time)
            else { continue }
            out.report(
                Self.descriptor, severity: v.severity, v.message + " (before the sequence this starts)",
                related: v.frames)
        }
    }

    private static func conclude(_ e: MDNSEvent, _ store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        let rows = store.phases.rows
        let open = rows.slots(where: { $0.sequence != nil }, by: { $0.sequence?.first.frame ?? 0 })
        for k in open {
            let key = rows.rows.keys[k]
            guard let s = rows[k].sequence, let v = verdict(s, end: e.time) else { continue }
            out.reportAtEnd(
                Self.descriptor, severity: v.severity, v.message, frames: v.frames, time: s.first.time,
                source: key.source)
        }
    }

    /// What is wrong with a sequence that ended by `end` (start-up after probing, or update).
    private static func verdict(_ s: MDNSAnnouncementSequence, end: Timestamp)
        -> (severity: Severity?, message: String, frames: [Int])?
    {
        let after: String
        switch s.start {
        case .probed: after = "after probing"
        case .update: after = "as an update (changed data)"
        case .hostStart, .alongside, .returned: return nil
        }
        if s.count == 1, !s.goodbye, !s.uncertain, MDNSSession.since(s.first.time, end) >= 2 {
            return (
                nil,
                "\(s.name) announced once \(after); at least two announcements one second apart are required",
                [s.first.frame]
            )
        }
        if s.count > MDNSPhases.maxAnnouncements {
            return (.info, "\(s.name) announced \(s.count) times \(after); at most eight", s.frames)
        }
        if !s.uncertain, let d = nonDoubling(s) {
            // Not longer than the one before it (jitter aside): the interval did not grow.
            let flat = d.gap <= d.previous + MDNSSession.jitter
            return (
                flat ? .warning : .info,
                "\(s.name) announced again \(String(format1: d.gap)) s after an interval of \(String(format1: d.previous)) s (frame \(d.frame)) \(after)\(flat ? ": the interval did not grow" : ""); each interval between announcements at least doubles (intervals \(intervals(s)) s)",
                [d.frame] + s.frames.filter { $0 != d.frame }
            )
        }
        return nil
    }

    /// The first interval shorter than 1.5 times the one before it, with the frame that ends
    /// it, over every successive pair of the sequence's counted announcements (the first nine).
    /// RFC 6762 §8.3 asks for at least a factor of two; implementations add a random jitter of
    /// up to a quarter second to each announcement (avahi), so only an interval that clearly
    /// did not double is reported. (An interval of 2 s or more was once exempt, as a possible
    /// fresh start; the sequence's pace, `MDNSAnnouncementSequence.reach`, already ends a
    /// sequence that pauses, and troglobit mdnsd's constant 2 s went unreported.)
    private static func nonDoubling(_ s: MDNSAnnouncementSequence) -> (frame: Int, gap: Double, previous: Double)? {
        let counted = s.counted
        guard counted.count >= 3 else { return nil }
        for k in 2..<counted.count {
            let previous = MDNSSession.since(counted[k - 2].time, counted[k - 1].time)
            let gap = MDNSSession.since(counted[k - 1].time, counted[k].time)
            if gap < growth * previous - MDNSSession.jitter {
                return (counted[k].frame, gap, previous)
            }
        }
        return nil
    }

    /// The sequence's intervals in seconds, to the millisecond: `2.000, 2.002, 2.002`.
    private static func intervals(_ s: MDNSAnnouncementSequence) -> String {
        let c = s.counted
        return zip(c, c.dropFirst()).map { a, b in
            let ms = Int((MDNSSession.since(a.time, b.time) * 1000).rounded())
            let frac = String(ms % 1000)
            return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
        }.joined(separator: ", ")
    }
}

/// MDNS-505: no regular periodic announcements.
///
/// Per source and record (RRSet and RDATA; a data change starts a new series): steady
/// unsolicited multicast responses, that is responses that answer no query (no query for one
/// of their names in the last second, nor another host's probe) and announce nothing (not part of a
/// start-up or update announcement sequence of one of their names, `MDNSPhases`: those are
/// MDNS-504's), with no query for the record's name since the previous one. A series whose
/// intervals all equal its first one (within 10 % and 50 ms) is periodic once it has 6
/// transmissions with a period of 2 s or more, or 9 with a period of 1–2 s. Repetitions less
/// than a second apart are a burst, MDNS-506's business, and restart the series. Anything
/// else (an answer, an announcement, a changed RDATA, an interval off the period) ends the
/// series. A link change is not visible on the wire, but it causes a one-off announcement,
/// not a period. Queries whose capture clock went back are not counted.
struct PeriodicAnnouncementRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-505", "no-periodic-announcements", .error, "Records are not announced at a fixed period",
        spec: "RFC 6762 §8.3",
        "Per source and record: 6 or more unsolicited multicast responses at a fixed period of 2 s or more (9 or more for periods of 1–2 s; repetitions less than 1 s apart are MDNS-506's), with no query for the name between them. DiscoScope reads this as follows: a response within 1 s of a query for one of its names (or of another host's probe for it) is an answer, and the announcements of a start-up sequence (after probing, at the host's first packets, or back after a goodbye) or of an update sequence (changed data), eight at most, are announcing, MDNS-504's business: neither is a periodic announcement, and either ends the series.",
        interop:
            "periodic announcements cost every host on the link a wake-up; RFC 6762 relies on queries and TTLs instead",
        example: "the same record set unsolicited every 60 s for an hour with no matching queries", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample((0..<6).map { announce(at: Double($0) * 60) }),
            // Start-up announcements after probing, then the same record every 60 s: the
            // repeats after the sequence are periodic.
            RuleExample(
                [probe(at: 0), probe(at: 0.25), probe(at: 0.5), announce(at: 0.75), announce(at: 1.75)]
                    + (1...6).map { announce(at: 1.75 + Double($0) * 60) }),
        ],
        nonTriggering: [
            // Start-up announcements 2 s apart right after probing: MDNS-504's (intervals that
            // do not double, info), not periodic announcements.
            RuleExample(
                [mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5)]
                    + (0..<8).map { announce(at: 2.75 + Double($0) * 2) }),
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
        // What the response is (answer, announcement or steady) is the store's reading
        // (`MDNSSessionStore.roles`); when each name was last asked for, probes included (a
        // probe for a name the responder holds is answered at once, §8.1), is its window.
        guard let i = e.input, !e.timeWentBack, let roles = e.roles else { return }
        // An answer, or an announcement of a start-up or update sequence, is no periodic
        // repeat: it ends the series of its records.
        let steady = !roles.solicited && !roles.announcing
        var revealed: Key? = nil
        for r in i.records where r.section != .authority && r.record.ttl > 0 && r.record.type != .opt {
            let key = Key(source: e.src, record: MDNSRecordKey(r))
            guard let slot = store.verdicts.unsolicited.slot(of: key) else {
                if !steady { continue }
                store.verdicts.unsolicited.add(
                    Series(frames: [e.frame], last: e.time, count: 1), forAbsent: key, at: e.time,
                    evicted: &out.evictions)
                continue
            }
            let last = store.verdicts.unsolicited[slot].last
            let answered =
                steady && store.windows.asked[MDNSNameKey(key.record.set.name)]?.inOrder.map { $0 >= last } ?? false
            if !steady || answered {
                store.verdicts.unsolicited.remove(at: slot)
                continue
            }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let gap = MDNSSession.since(last, e.time)
            if Self.extend(&store.verdicts.unsolicited[slot], now, gap: gap), revealed == nil { revealed = key }
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
