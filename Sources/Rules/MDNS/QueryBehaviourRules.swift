import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about queries and the responses to them: Known-Answer suppression and lists,
// continuous querying, unicast responses, duplicate question and answer suppression.

/// A record's identity in a Known-Answer list or a response: RRSet and RDATA.
struct MDNSRecordKey: Hashable {
    var set: MDNSRRSetKey
    var rdata: UInt64

    init(_ rr: ResourceRecord, _ p: [UInt8]) {
        set = MDNSRRSetKey(name: rr.name.key(in: p), type: rr.type.rawValue, rrclass: rr.rrclass)
        rdata = MDNSSessionModel.rdataKey(rr, p)
    }

    init(set: MDNSRRSetKey, rdata: UInt64) {
        self.set = set
        self.rdata = rdata
    }
}

/// MDNS-509: a responder does not answer with a record the query listed as a known answer
/// with at least half its TTL, and does answer with one listed with less than half.
///
/// The MUST to answer is judged from absence, so only where the capture shows enough: the
/// responder's true TTL is known (it multicast the record itself, still live), the query
/// asked a QM question for it (a QU answer may go by unicast, unseen) without TC (a
/// continuation may list it again), the responder answered that question within the second
/// after the query (so it was there and heard it) without the record, no other host
/// multicast the record in that second (duplicate answer suppression, §7.4), and the capture
/// ran past the second. Concluded at the end of the input.
///
/// Responses are compared with the store's window of recent queries; the obligations to
/// answer are verdict rows (`MDNSVerdicts.knownAnswersDue`, then `.knownAnswersMissed`).
struct KnownAnswerSuppressionRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-509", "known-answer-suppression", .error,
        "A responder does not repeat a Known-Answer the querier listed with at least half its TTL",
        spec: "RFC 6762 §7.1",
        "A multicast response within 1 s of a multicast query, containing an answer the query listed as a Known-Answer with a TTL at least half the responder's own TTL for it, unless another querier asked the same name in between without listing it, or the responder first sent the record in the last 10 s (announcing). At the end of the input: a responder that answered a QM question (no TC) within 1 s but left out a record of its own the query listed with less than half the TTL the responder multicast it with, unless another host multicast the record in that second.",
        example:
            "query lists _http._tcp.local. PTR a._http._tcp.local. TTL 4400 (true TTL 4500), the response repeats it",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(kaQuery(ttl: 4400), src: "192.168.1.5"), mdns(service(), at: 0.1)]),
            // Listed with 1000 of 4500 s: the responder answers the question but leaves it out.
            RuleExample([
                mdns(service(), at: 0), mdns(kaQuery(ttl: 1000), src: "192.168.1.5", at: 20),
                mdns(
                    response {
                        $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Den._ipp._tcp.local"))
                    }, at: 20.1),
                mdns(ask("printer.local", 1), src: "192.168.1.5", at: 22),
            ]),
        ],
        nonTriggering: [
            RuleExample([mdns(kaQuery(ttl: 1000), src: "192.168.1.5"), mdns(service(), at: 0.1)]),
            // Listed with less than half its TTL, and answered.
            RuleExample([
                mdns(service(), at: 0), mdns(kaQuery(ttl: 1000), src: "192.168.1.5", at: 20),
                mdns(service(), at: 20.1), mdns(ask("printer.local", 1), src: "192.168.1.5", at: 22),
            ]),
            // Another querier asked without listing it.
            RuleExample([
                mdns(kaQuery(ttl: 4400), src: "192.168.1.5"),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.6", at: 0.05),
                mdns(service(), at: 0.1),
            ]),
        ])

    static func kaQuery(ttl: UInt32) -> DNSBuilder {
        query { b in
            b.question("_ipp._tcp.local", 12)
            b.record(.answer, "_ipp._tcp.local", 12, ttl: ttl, rdata: B.name("Office._ipp._tcp.local"))
        }
    }

    /// A response is compared with at most the latest 256 queries of the window.
    static let capacity = 256
    static let window = 1.0
    static let announcing = 10.0

    /// A responder that must answer with a record a query listed with less than half its TTL.
    struct Due {
        var query: Int
        var time: Timestamp
        var responder: IPAddress
        var record: MDNSRecordKey
        var listed: UInt32
        var ttl: UInt32
        var name: String
        /// The responder's first response to the question without the record.
        var answeredWithout: Int?
    }

    /// The queries a response is compared with: every multicast query of the last second
    /// (those without a question and those stamped before an earlier packet included), the
    /// latest `capacity`.
    static func compared(_ store: borrowing MDNSSessionStore, at now: Timestamp) -> ArraySlice<MDNSRecentQuery> {
        store.windows.queries(within: window, of: now, latest: capacity) { _ in true }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let i = e.input, e.dst.isMulticast else { return }
        closeDue(at: e.time, &store, &out)
        noteDue(e, i, &store, &out)
        guard i.isResponse, e.srcPort == 5353 else { return }
        let recent = compared(store, at: e.time)
        guard recent.contains(where: { !$0.known.isEmpty }), let askers = e.askers else { return }
        // The earliest query with an answer it listed, and of its answers the first (by its
        // place in the message's records): the queries that asked for each answer's name, in
        // order.
        var found: (query: Int, answer: Int, listed: UInt32)? = nil
        for a in i.records.indices where i.records[a].section == .answer && i.records[a].record.ttl > 0 {
            let key = MDNSRecordKey(i.records[a])
            let ttl = i.records[a].record.ttl
            let asked = askers.of(key.set.name)
            for n in asked.indices where asked[n] >= recent.startIndex {
                let k = asked[n]
                if let f = found, k >= f.query { break }
                guard !recent[k].known.isEmpty, let listed = recent[k].listed(key),
                    UInt64(listed) * 2 >= UInt64(ttl)
                else { continue }
                let source = recent[k].source
                let askedPlainly = asked[(n + 1)...].contains {
                    recent[$0].source != source && recent[$0].listed(key) == nil
                }
                if askedPlainly { continue }
                // Records the responder first sent in the last 10 s are in their announcing
                // phase (RFC 6762 §8.3): announcements are not answers to the query.
                if let m = store.model.rrsets[key.set]?.member(rdata: key.rdata, owner: e.src),
                    MDNSSession.since(m.firstSeen, e.time) <= Self.announcing
                {
                    break
                }
                found = (k, a, listed)
                break
            }
        }
        guard let found else { return }
        let r = i.records[found.answer]
        out.report(
            Self.descriptor,
            "answers with \(i.name(r.record.name)) \(r.record.type), which the query of frame \(recent[found.query].frame) listed as a Known-Answer with TTL \(found.listed) (at least half of \(r.record.ttl))",
            related: [recent[found.query].frame])
    }
}

extension KnownAnswerSuppressionRule {
    /// Responders whose second to answer is over and who answered without the record.
    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        closeDue(at: now, &store, &out)
        for d in store.verdicts.knownAnswersMissed.elements {
            out.reportAtEnd(
                Self.descriptor,
                "\(d.name) was listed as a Known-Answer with TTL \(d.listed), below half of the \(d.ttl) s \(d.responder) gives it, and \(d.responder) answered the question (frame \(d.answeredWithout ?? d.query)) without it; a responder must answer then",
                frames: [d.answeredWithout ?? d.query, d.query], time: d.time, source: d.responder)
        }
        store.verdicts.knownAnswersMissed.removeAll()
    }

    /// Moves the obligations whose second is over (the oldest) to the missed ones when the
    /// responder answered without the record (while fewer than their cap are kept), or drops
    /// them.
    fileprivate static func closeDue(at now: Timestamp, _ store: inout MDNSSessionStore, _ out: inout SessionReports) {
        guard !store.verdicts.knownAnswersDue.isEmpty else { return }
        for d in store.verdicts.knownAnswersDue.elements {
            guard MDNSSession.since(d.time, now) > Self.window else { break }
            if d.answeredWithout != nil,
                store.verdicts.knownAnswersMissed.elements.count < store.verdicts.knownAnswersMissed.cap
            {
                store.verdicts.knownAnswersMissed.append(d, evicted: &out.evictions)
            }
        }
        store.verdicts.knownAnswersDue.age(to: now)
    }

    /// Takes a query's obligations, or a response's fulfilment of them.
    fileprivate static func noteDue(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        if i.isQuery {
            guard !i.isProbe, !i.header.tc, e.srcPort == 5353 else { return }
            for r in i.answerRecords.prefix(256) where r.record.ttl > 0 {
                let rr = r.record
                let key = MDNSRecordKey(r)
                // A QM question for it, among the first 64 (those the window pairs).
                guard
                    let q = i.keyedQuestions.first(where: {
                        MDNSQuestionID(name: $0.1, type: $0.0.type.rawValue).isAnswered(by: key.set)
                    })?.0, !q.unicastResponse, i.questionIDs.contains(where: { $0.isAnswered(by: key.set) }),
                    let set = store.model.rrsets[key.set]
                else { continue }
                for m in set.members
                where m.rdata == key.rdata && m.owner != e.src && m.ttl > 0 && m.isLive(at: e.time)
                    && UInt64(rr.ttl) * 2 < UInt64(m.ttl) && m.lastMulticast != nil
                {
                    store.verdicts.knownAnswersDue.append(
                        Due(
                            query: e.frame, time: e.time, responder: m.owner, record: key, listed: rr.ttl, ttl: m.ttl,
                            name: "\(i.name(rr.name)) \(rr.type)"), evicted: &out.evictions)
                }
            }
            return
        }
        guard i.isResponse, e.srcPort == 5353, !store.verdicts.knownAnswersDue.isEmpty else { return }
        let sent = Set(
            i.records.lazy.filter { $0.section != .authority && $0.record.ttl > 0 }.map { MDNSRecordKey($0) })
        let answered = Set(i.records.lazy.filter { $0.section == .answer }.map { MDNSRecordKey($0).set })
        // Sent, by the responder or (duplicate answer suppression) by another host.
        store.verdicts.knownAnswersDue.removeAll { sent.contains($0.record) }
        for k in store.verdicts.knownAnswersDue.elements.indices
        where store.verdicts.knownAnswersDue[k].responder == e.src
            && store.verdicts.knownAnswersDue[k].answeredWithout == nil
        {
            if answered.contains(store.verdicts.knownAnswersDue[k].record.set) {
                store.verdicts.knownAnswersDue[k].answeredWithout = e.frame
            }
        }
    }
}

/// MDNS-510: a querier lists Known-Answers only while at least half their TTL remains.
struct KnownAnswerTTLRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-510", "known-answer-half-ttl", .warning,
        "A querier lists Known-Answers only with at least half their original TTL left",
        spec: "RFC 6762 §7.1",
        "A Known-Answer whose TTL is below half the TTL its responder last announced it with (seen in the capture).",
        example: "Known-Answer PTR with TTL 100 whose last announcement had TTL 4500", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(service()), mdns(KnownAnswerSuppressionRule.kaQuery(ttl: 100), src: "192.168.1.5", at: 60),
            ])
        ],
        nonTriggering: [
            RuleExample([
                mdns(service()), mdns(KnownAnswerSuppressionRule.kaQuery(ttl: 4000), src: "192.168.1.5", at: 60),
            ]),
            // No announcement seen: the original TTL is unknown.
            RuleExample([mdns(KnownAnswerSuppressionRule.kaQuery(ttl: 100), src: "192.168.1.5")]),
        ])

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isQuery, !i.isProbe, !e.atEnd else { return }
        for r in i.answerRecords where r.record.ttl > 0 {
            let rr = r.record
            let key = MDNSRecordKey(r)
            guard let set = store.model.rrsets[key.set],
                let m = set.members.filter({ $0.rdata == key.rdata && $0.ttl > 0 }).max(by: {
                    $0.lastFrame < $1.lastFrame
                })
            else { continue }
            if UInt64(rr.ttl) * 2 < UInt64(m.ttl) {
                out.report(
                    Self.descriptor,
                    "Known-Answer \(i.name(rr.name)) \(rr.type) with TTL \(rr.ttl), below half of the \(m.ttl) it was announced with (frame \(m.lastFrame))",
                    related: [m.lastFrame])
                return
            }
        }
    }
}

/// MDNS-511: a TC query is followed by Known-Answer continuations; a question-less query
/// follows a TC query.
struct KnownAnswerContinuationRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-511", "known-answer-continuation", .error,
        "A TC query is followed at once by a continuation, and a question-less query follows one",
        spec: "RFC 6762 §7.2",
        "Per source, window 0.5 s: a query with no question (an empty one included) with no TC query from the same source just before it; a TC query whose source's next query is not a continuation, or (at the end of the input) that nothing followed while the capture ran on.",
        example: "QDCOUNT-0 query with no TC predecessor", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"),
                mdns(
                    query { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("A._ipp._tcp.local")) },
                    at: 1),
            ]),
            RuleExample([
                mdns(query(flags: 0x0200) { $0.question("_ipp._tcp.local", 12) }), mdns(ask("_ipp._tcp.local"), at: 2),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(query(flags: 0x0200) { $0.question("_ipp._tcp.local", 12) }),
                mdns(
                    query { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("A._ipp._tcp.local")) },
                    at: 0.1),
            ])
        ])

    static let window = 0.5

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let i = e.input, i.isQuery, e.dstPort == 5353 else { return }
        let continuation = i.message.questions.isEmpty
        // The source's next query closes its TC query's wait, whatever it is.
        if let tc = store.verdicts.truncatedQueries[e.src] {
            store.verdicts.truncatedQueries.remove(e.src)
            if !continuation {
                out.report(
                    Self.descriptor,
                    "the TC query of frame \(tc.frame) was not followed by a Known-Answer continuation (a query with no question)",
                    related: [tc.frame])
            }
        }
        if continuation {
            let last = store.model.senders[e.src]?.lastTruncatedQuery
            if last.map({ MDNSSession.since($0.time, e.time) > Self.window + MDNSSession.jitter }) ?? true,
                let start = store.model.start, MDNSSession.since(start, e.time) > Self.window || last != nil
            {
                out.report(
                    Self.descriptor,
                    i.message.answers.isEmpty
                        ? "query with no question and no Known-Answer"
                        : "query with no question follows no TC query from this source",
                    related: last.map { [$0.frame] } ?? [])
            }
        }
        if i.header.tc {
            store.verdicts.truncatedQueries.insert(
                MDNSFrameTime(frame: e.frame, time: e.time), for: e.src, at: e.time, evicted: &out.evictions)
        }
    }

    /// TC queries whose window is over with nothing after them from their source.
    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard !store.verdicts.truncatedQueries.isEmpty else { return }
        for (src, tc) in store.verdicts.truncatedQueries.rows.sorted(by: { $0.value.frame < $1.value.frame })
        where MDNSSession.since(tc.time, now) > Self.window {
            out.reportAtEnd(
                Self.descriptor, "TC query never followed by a Known-Answer continuation", frames: [tc.frame],
                time: tc.time, source: src)
            store.verdicts.truncatedQueries.remove(src)
        }
    }
}

/// MDNS-512: continuous querying backs off (1 s, then doubling) and drops the QU bit.
struct QueryBackoffRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-512", "query-backoff", .error, "Repeated queries back off: 1 s, then each interval doubles",
        spec: "RFC 6762 §5.2, §5.4",
        "Per source and question (name, type; probes exempt, and so is a question for a name its sender probed in the last 0.5 s, while it is probing: the plain copy of a probe's questions an avahi reflector sends beside the probe): the second transmission less than 1 s after the first, or a later one less than 1.5 times a previous interval shorter than 2 s after it (error; a longer pause may start a new sequence); the QU bit on a retransmission (warning).",
        example: "same question from the same host every 1 s", scope: .stateful, lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample((0..<4).map { mdns(ask("_ipp._tcp.local"), at: Double($0)) }, severity: .error),
            RuleExample(
                [mdns(ask("_ipp._tcp.local", qu: true)), mdns(ask("_ipp._tcp.local", qu: true), at: 1)],
                severity: .warning),
            // Another host probing the name does not make this querier's repeats probing.
            RuleExample(
                [
                    mdns(ask("printer.local", 255), at: 0), probe(src: "192.168.1.30", at: 0.1),
                    mdns(ask("printer.local", 255), at: 0.25),
                ], severity: .error),
            // Probing is over (the last probe 0.7 s before): its question is judged.
            RuleExample(
                [
                    probe(at: 0), mdns(ask("printer.local", 255), at: 0.2),
                    mdns(ask("printer.local", 255), at: 0.7),
                ], severity: .error),
        ],
        nonTriggering: [
            RuleExample([0, 1, 3, 7, 15].map { mdns(ask("_ipp._tcp.local"), at: $0) }),
            RuleExample([mdns(ask("_ipp._tcp.local", qu: true)), mdns(ask("_ipp._tcp.local"), at: 1)]),
            // A reflector's copies of a probe: the questions alone, then the probe, 250 ms apart.
            RuleExample(
                [0, 0.25, 0.5].flatMap { t in
                    [mdns(ask("printer.local", 255), at: t), probe(at: t + 0.0001)]
                }),
        ])

    static let growth = 1.5
    static let restart = 2.0
    /// A question this soon after its sender's latest probe for the name belongs to the
    /// probing: probes are 250 ms apart, so a host still probing sends its next one by then.
    static let probing = 0.5

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isQuery, !i.isProbe, !e.atEnd, e.srcPort == 5353, e.dst.isMulticast,
            !e.timeWentBack
        else { return }
        for (q, name) in i.keyedQuestions {
            // A question for a name its sender is probing is part of that probing (avahi's
            // reflector forwards a probe as the probe and, apart, its questions).
            if let p = store.model.probes[MDNSProbeKey(source: e.src, name: name)],
                MDNSSession.since(p.lastSeen, e.time) <= Self.probing
            {
                continue
            }
            let key = MDNSQuestionKey(source: e.src, name: name, type: q.type.rawValue)
            guard let s = store.model.questions[key] else { continue }
            let last = s.last
            let gap = MDNSSession.since(last.time, e.time)
            guard gap <= 3600 else { continue }
            if let before = s.previous {
                let previous = MDNSSession.since(before.time, last.time)
                // After a long pause a new sequence may start again at 1 s (another
                // application asks the same question): only shorter intervals are compared.
                if gap < previous * Self.growth - MDNSSession.jitter, previous < Self.restart {
                    out.report(
                        Self.descriptor,
                        "\(i.name(q.name)) \(q.type) asked again \(String(format1: gap)) s after frame \(last.frame), after an interval of \(String(format1: previous)) s; each interval should double",
                        related: [last.frame, before.frame])
                    return
                }
            } else if gap < 1 - MDNSSession.jitter {
                out.report(
                    Self.descriptor,
                    "\(i.name(q.name)) \(q.type) asked again \(String(format1: gap)) s after frame \(last.frame); the first two transmissions are at least 1 s apart",
                    related: [last.frame])
                return
            }
            if q.unicastResponse {
                out.report(
                    Self.descriptor, severity: .warning,
                    "retransmission of \(i.name(q.name)) \(q.type) (first at frame \(s.firstFrame)) with the QU bit",
                    related: [last.frame])
                return
            }
        }
    }
}

/// MDNS-513: a unicast response to port 5353 answers a recent QU or unicast query.
struct UnicastResponseRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-513", "unicast-response-solicited", .error,
        "A unicast response to port 5353 answers a QU or unicast query of the last 2 s",
        spec: "RFC 6762 §6, §5.4",
        "A response sent by unicast to port 5353 when its destination sent no query with a QU question and no unicast query in the previous 2 s (judged from 2 s after the capture began).",
        interop: "queriers accept unicast responses only for queries they sent in the last two seconds",
        example: "unicast response to 192.168.1.5:5353 with no QU query from 192.168.1.5", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"),
                mdns(service(), dst: "192.168.1.5", at: 3),
            ])
        ],
        nonTriggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local", qu: true), src: "192.168.1.5", at: 2.5),
                mdns(service(), dst: "192.168.1.5", at: 3),
            ]),
            RuleExample([mdns(service(), dst: "192.168.1.5", at: 0)]),
        ])

    static let window = 2.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, !e.atEnd, !e.dst.isMulticast, e.dstPort == 5353,
            let start = store.model.start, MDNSSession.since(start, e.time) > Self.window
        else { return }
        if let q = store.model.senders[e.dst]?.lastUnicastQuery,
            MDNSSession.since(q.time, e.time) <= Self.window + MDNSSession.jitter
        {
            return
        }
        out.report(
            Self.descriptor,
            "unicast response to \(e.dst):5353, which sent no QU or unicast query in the previous 2 s: responses must be multicast",
            related: [])
    }
}

/// MDNS-519: duplicate answer suppression (RFC 6762 §7.4) and duplicate question suppression
/// (§7.3).
///
/// Answers: a multicast response repeating a record (same RRSet and RDATA) that another host
/// multicast at least 20 ms earlier (time to have seen it) with a TTL at least as long, both
/// after the latest query from a third host that asked for it, within a second of that query.
/// Questions: a QM question that another host asked 20–100 ms earlier with a Known-Answer
/// list this querier's list contains. The querier's plan is not on the wire: 100 ms is the
/// shortest planning horizon §5.2 gives (a first query is delayed 20–120 ms), so a question
/// sent that soon after an identical one was planned when the other was seen.
/// Hosts are told apart by source address within one address family only: a dual-stack host
/// sends the same message over IPv4 and IPv6.
struct DuplicateSuppressionRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-519", "duplicate-suppression", .warning,
        "Hosts do not repeat an answer or a question another host just sent",
        spec: "RFC 6762 §7.3, §7.4",
        "An answer another host of the same address family multicast 20 ms or more earlier with at least the same TTL, both answering the latest query (within 1 s) that asked for it; a QM question another host asked 20–100 ms earlier with a Known-Answer list contained in this one's.",
        interop: "Apple BCT: DUPLICATE SUPPRESSION, DISTRIBUTED DUPLICATE SUPPRESSION",
        example: "two responders send the identical shared PTR within 50 ms of each other for the same query",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0), mdns(shared(), src: "192.168.1.30", at: 0.03),
                mdns(shared(), at: 0.08),
            ]),
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.6", at: 0.05),
            ]),
        ],
        nonTriggering: [
            // Both sent at once: neither could have seen the other.
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0), mdns(shared(), src: "192.168.1.30", at: 0.05),
                mdns(shared(), at: 0.06),
            ]),
            // The first querier listed an answer the second lacks: responders will not send
            // it for the first, so the second must ask.
            RuleExample([
                mdns(KnownAnswerSuppressionRule.kaQuery(ttl: 4500), src: "192.168.1.5", at: 0),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.6", at: 0.05),
            ]),
            // The same host over IPv6.
            RuleExample([
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0),
                mdns(ask("_ipp._tcp.local"), src: "fe80::5", dst: "ff02::fb", at: 0.05),
            ]),
        ])

    /// The shared browse PTR for `Office._ipp._tcp.local.`, alone.
    static func shared() -> DNSBuilder {
        response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) }
    }

    /// Questions and answers are compared with at most the latest 256 queries of the window
    /// that `isCompared` keeps.
    static let capacity = 256
    static let window = 1.0
    static let seen = 0.02
    static let planning = 0.1

    static func sameFamily(_ a: IPAddress, _ b: IPAddress) -> Bool {
        switch (a, b) {
        case (.v4, .v4), (.v6, .v6): true
        default: false
        }
    }

    /// Whether a query of the store's window is one questions and answers are compared with:
    /// from port 5353, with a question, not stamped before an earlier packet.
    static func isCompared(_ q: MDNSRecentQuery) -> Bool {
        q.sourcePort == 5353 && !q.questions.isEmpty && !q.timeWentBack
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, !e.timeWentBack, e.dst.isMulticast, e.srcPort == 5353 else { return }
        // Read newest first, up to the first query more than a second old.
        let recent = store.windows.queries.elements
        if i.isQuery {
            guard !i.isProbe, !i.message.questions.isEmpty, !i.header.tc else { return }
            judgeQuestion(e, i, recent, &out)
            return
        }
        guard i.isResponse, let askers = e.askers else { return }
        let start = store.windows.queries(within: Self.window, of: e.time, latest: Self.capacity, counting: isCompared)
            .startIndex
        for r in i.records where r.section == .answer && r.record.ttl > 0 && r.record.type != .opt {
            let key = MDNSRecordKey(r)
            // The latest query compared with that asks for it.
            guard
                let qi = askers.of(key.set.name).last(where: {
                    $0 >= start && isCompared(recent[$0]) && recent[$0].asks(key.set)
                }), recent[qi].source != e.src,
                let set = store.model.rrsets[key.set]
            else { continue }
            let q = (source: recent[qi].source, time: recent[qi].time, frame: recent[qi].frame)
            guard
                let other = set.members.first(where: { m in
                    guard m.rdata == key.rdata, m.owner != e.src, m.owner != q.source, Self.sameFamily(m.owner, e.src),
                        !m.goodbye, m.lastTTL >= r.record.ttl, let t = m.lastMulticast
                    else { return false }
                    return t.time >= q.time && MDNSSession.since(t.time, e.time) >= Self.seen
                }), let t = other.lastMulticast
            else { continue }
            out.report(
                Self.descriptor,
                "\(i.name(r.record.name)) \(r.record.type) repeats the answer \(other.owner) multicast \(ResponseDelayRule.ms(MDNSSession.since(t.time, e.time))) ms earlier (frame \(t.frame)) with TTL \(other.lastTTL) to the query of frame \(q.frame); duplicate answers are suppressed",
                related: [t.frame, q.frame])
            return
        }
    }

    /// A QM question of a query without TC that another host of its family asked 20–100 ms
    /// before, with no Known-Answer for it this query lacks.
    private static func judgeQuestion(
        _ e: MDNSEvent, _ i: MDNSInput, _ recent: ArraySlice<MDNSRecentQuery>, _ out: inout SessionReports
    ) {
        // This query's Known-Answers, made when a question is first compared with an earlier one.
        var listed: Set<MDNSRecordKey>? = nil
        for (k, id) in i.questionIDs.enumerated() where !i.message.questions[k].unicastResponse {
            // Newest first: past the planning horizon, every earlier query is older still.
            var j = recent.endIndex
            var n = 0
            while j > recent.startIndex, n < Self.capacity {
                j -= 1
                let gap = MDNSSession.since(recent[j].time, e.time)
                if gap > Self.planning { break }
                guard isCompared(recent[j]) else { continue }
                n += 1
                guard recent[j].source != e.src, Self.sameFamily(recent[j].source, e.src), !recent[j].truncated,
                    gap >= Self.seen, let q = recent[j].questions.firstIndex(of: id), recent[j].qm[q]
                else { continue }
                let mine = listed ?? Set(i.answerRecords.prefix(256).map { MDNSRecordKey($0) })
                listed = mine
                guard recent[j].known.allSatisfy({ !id.isAnswered(by: $0.key.set) || mine.contains($0.key) }) else {
                    continue
                }
                out.report(
                    Self.descriptor,
                    "QM question \(i.name(i.message.questions[k].name)) \(i.message.questions[k].type) asked \(ResponseDelayRule.ms(gap)) ms after \(recent[j].source) asked it (frame \(recent[j].frame)) with no Known-Answer this query lacks; the duplicate question is suppressed",
                    related: [recent[j].frame])
                return
            }
        }
    }
}
