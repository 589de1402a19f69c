import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about queries and the responses to them: Known-Answer suppression and lists,
// continuous querying, unicast responses.

/// A record's identity in a Known-Answer list or a response: RRSet and RDATA.
struct MDNSRecordKey: Hashable {
    var set: MDNSRRSetKey
    var rdata: UInt64

    init(_ rr: ResourceRecord, _ p: [UInt8]) {
        set = MDNSRRSetKey(name: rr.name.key(in: p), type: rr.type.rawValue, rrclass: rr.rrclass)
        rdata = MDNSSessionModel.rdataKey(rr, p)
    }
}

/// MDNS-509: a responder does not answer with a record the query listed as a known answer
/// with at least half its TTL.
struct KnownAnswerSuppressionRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-509", "known-answer-suppression", .error,
        "A responder does not repeat a Known-Answer the querier listed with at least half its TTL",
        spec: "RFC 6762 §7.1",
        "A multicast response within 1 s of a multicast query, containing an answer the query listed as a Known-Answer with a TTL at least half the responder's own TTL for it, unless another querier asked the same name in between without listing it, or the responder first sent the record in the last 10 s (announcing). Not judged: the MUST to answer when the listed TTL is below half (absence).",
        example:
            "query lists _http._tcp.local. PTR a._http._tcp.local. TTL 4400 (true TTL 4500), the response repeats it",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample([mdns(kaQuery(ttl: 4400), src: "192.168.1.5"), mdns(service(), at: 0.1)])],
        nonTriggering: [
            RuleExample([mdns(kaQuery(ttl: 1000), src: "192.168.1.5"), mdns(service(), at: 0.1)]),
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

    struct Query {
        var frame: Int
        var time: Timestamp
        var source: IPAddress
        var names: [UInt64]
        var known: [MDNSRecordKey: UInt32]
    }
    /// Multicast queries of the last second, oldest first.
    private var recent: [Query] = []
    static let capacity = 64
    static let window = 1.0
    static let announcing = 10.0

    mutating func observe(_ e: MDNSEvent, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, e.dst.isMulticast else { return }
        let p = i.message.payload
        recent.removeAll { MDNSSession.since($0.time, e.time) > Self.window }
        if i.isQuery, !i.isProbe {
            if recent.count >= Self.capacity {
                recent.removeFirst()
                out.evicted()
            }
            var known: [MDNSRecordKey: UInt32] = [:]
            for rr in i.message.answers.prefix(256) { known[MDNSRecordKey(rr, p)] = rr.ttl }
            recent.append(
                Query(
                    frame: e.frame, time: e.time, source: e.src, names: i.message.questions.map { $0.name.key(in: p) },
                    known: known))
            return
        }
        guard i.isResponse, e.srcPort == 5353 else { return }
        for (k, q) in recent.enumerated() where !q.known.isEmpty {
            for r in i.records where r.section == .answer && r.record.ttl > 0 {
                let key = MDNSRecordKey(r.record, p)
                guard let listed = q.known[key], q.names.contains(key.set.name),
                    UInt64(listed) * 2 >= UInt64(r.record.ttl)
                else { continue }
                let askedPlainly = recent[(k + 1)...].contains {
                    $0.source != q.source && $0.names.contains(key.set.name) && $0.known[key] == nil
                }
                if askedPlainly { continue }
                // Records the responder first sent in the last 10 s are in their announcing
                // phase (RFC 6762 §8.3): announcements are not answers to the query.
                if let m = e.model.rrsets[key.set]?.member(rdata: key.rdata, owner: e.src),
                    MDNSSession.since(m.firstSeen, e.time) <= Self.announcing
                {
                    continue
                }
                out.report(
                    Self.descriptor,
                    "answers with \(i.name(r.record.name)) \(r.record.type), which the query of frame \(q.frame) listed as a Known-Answer with TTL \(listed) (at least half of \(r.record.ttl))",
                    related: [q.frame])
                return
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

    mutating func observe(_ e: MDNSEvent, into out: inout SessionReports) {
        guard let i = e.input, i.isQuery, !i.isProbe, !e.atEnd else { return }
        let p = i.message.payload
        for rr in i.message.answers where rr.ttl > 0 {
            let key = MDNSRecordKey(rr, p)
            guard let set = e.model.rrsets[key.set],
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
    private var pending: [IPAddress: MDNSFrameTime] = [:]
    static let capacity = 1024

    mutating func observe(_ e: MDNSEvent, into out: inout SessionReports) {
        if e.atEnd {
            for (src, tc) in pending.sorted(by: { $0.value.frame < $1.value.frame })
            where MDNSSession.since(tc.time, e.time) > Self.window {
                out.reportAtEnd(
                    Self.descriptor, "TC query never followed by a Known-Answer continuation", frames: [tc.frame],
                    time: tc.time, source: src)
            }
            return
        }
        guard let i = e.input, i.isQuery, e.dstPort == 5353 else { return }
        let continuation = i.message.questions.isEmpty
        if let tc = pending.removeValue(forKey: e.src), !continuation {
            out.report(
                Self.descriptor,
                "the TC query of frame \(tc.frame) was not followed by a Known-Answer continuation (a query with no question)",
                related: [tc.frame])
        }
        if continuation {
            let last = e.model.senders[e.src]?.lastTruncatedQuery
            if last.map({ MDNSSession.since($0.time, e.time) > Self.window + MDNSSession.jitter }) ?? true,
                let start = e.model.start, MDNSSession.since(start, e.time) > Self.window || last != nil
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
            MDNSSession.makeRoom(&pending, cap: Self.capacity, now: e.time, horizon: 1, time: { $0.time }, &out)
            pending[e.src] = MDNSFrameTime(frame: e.frame, time: e.time)
        }
    }
}

/// MDNS-512: continuous querying backs off (1 s, then doubling) and drops the QU bit.
struct QueryBackoffRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-512", "query-backoff", .error, "Repeated queries back off: 1 s, then each interval doubles",
        spec: "RFC 6762 §5.2, §5.4",
        "Per source and question (name, type; probes exempt): the second transmission less than 1 s after the first, or a later one less than 1.5 times a previous interval shorter than 2 s after it (error; a longer pause may start a new sequence); the QU bit on a retransmission (warning).",
        example: "same question from the same host every 1 s", scope: .stateful, lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample((0..<4).map { mdns(ask("_ipp._tcp.local"), at: Double($0)) }, severity: .error),
            RuleExample(
                [mdns(ask("_ipp._tcp.local", qu: true)), mdns(ask("_ipp._tcp.local", qu: true), at: 1)],
                severity: .warning),
        ],
        nonTriggering: [
            RuleExample([0, 1, 3, 7, 15].map { mdns(ask("_ipp._tcp.local"), at: $0) }),
            RuleExample([mdns(ask("_ipp._tcp.local", qu: true)), mdns(ask("_ipp._tcp.local"), at: 1)]),
        ])

    static let growth = 1.5
    static let restart = 2.0

    mutating func observe(_ e: MDNSEvent, into out: inout SessionReports) {
        guard let i = e.input, i.isQuery, !i.isProbe, !e.atEnd, e.srcPort == 5353, e.dst.isMulticast,
            !e.timeWentBack
        else { return }
        let p = i.message.payload
        for q in i.message.questions {
            let key = MDNSQuestionKey(source: e.src, name: q.name.key(in: p), type: q.type.rawValue)
            guard let s = e.model.questions[key], let last = s.sent.last else { continue }
            let gap = MDNSSession.since(last.time, e.time)
            guard gap <= 3600 else { continue }
            if s.sent.count == 1 || s.count == 1 {
                if gap < 1 - MDNSSession.jitter {
                    out.report(
                        Self.descriptor,
                        "\(i.name(q.name)) \(q.type) asked again \(String(format1: gap)) s after frame \(last.frame); the first two transmissions are at least 1 s apart",
                        related: [last.frame])
                    return
                }
            } else if let before = s.sent.dropLast().last {
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

    mutating func observe(_ e: MDNSEvent, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, !e.atEnd, !e.dst.isMulticast, e.dstPort == 5353,
            let start = e.model.start, MDNSSession.since(start, e.time) > Self.window
        else { return }
        if let q = e.model.senders[e.dst]?.lastUnicastQuery,
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
