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
        scope: .stateful)

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
    struct Key: Hashable {
        var name: UInt64
        var type: UInt16
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
