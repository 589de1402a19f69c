import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about questions a responder owes an answer and never gives: a type it lacks for a
// name it owns, answered by neither the type nor an NSEC (MDNS-520); a QU question for its
// records, when it answers the question asked QM (MDNS-521).

/// A responder as the rules of this file tell hosts apart: by link-layer address where the
/// link has one (a dual-stack host claims its names from an IPv4 and an IPv6 address), else
/// by source address.
struct MDNSResponderID: Sendable, Hashable, WordHashable {
    var mac: UInt64
    var source: IPAddress

    init(_ d: borrowing Datagram) {
        mac = d.sourceMAC.bits
        source = d.src
    }

    /// The same host: the same link-layer address, or (without one) the same source.
    func isSame(as other: MDNSResponderID) -> Bool {
        mac != 0 || other.mac != 0 ? mac == other.mac : source == other.source
    }

    func feedWords<S: WordSink>(into sink: inout S) {
        sink.add(mac)
        source.feedWords(into: &sink)
    }
}

/// MDNS-520: a responder that owns a unique name answers a question for a type it lacks with
/// an NSEC (RFC 6762 §6.1).
///
/// A passive reading, conservative: the name is the responder's when it multicast records of
/// it with the cache-flush bit (TTL above 0, still within that TTL, no goodbye since); the
/// question is a plain QM question of a multicast query from port 5353, not ANY, for a type
/// the responder never sent for the name (a type it has is MDNS-509's and the one-second
/// rule's business, not a negative answer), not listed as a Known-Answer, and no NSEC for the
/// name went out from it in the second before. Its answer is due within a second: any
/// response from the host (multicast or unicast, from any of its addresses) carrying the
/// type or an NSEC (or a CNAME) for the name settles it. QU questions and legacy queries are
/// not judged: their answers go by unicast, which a capture on a switched port does not see.
struct NegativeAnswerRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-520", "negative-answer", .warning,
        "A responder answers a question for a type its name lacks with an NSEC",
        spec: "RFC 6762 §6.1",
        "Per responder (told apart by link-layer address, else source address) and name it claimed as unique (multicast records of the name with the cache-flush bit, TTL above 0, still live, no goodbye since): a QM question of a multicast query from port 5353 for that name and a type other than ANY that the responder never sent for it, not a Known-Answer of the query, answered within 1 s by no response from the responder carrying the type, an NSEC or a CNAME for the name (nor an NSEC for it multicast in the second before). Reported at the end of the input (live: on the timer), once per responder, name and type, with the queries' frames. Not judged: QU questions and legacy queries (their answers go by unicast, which the capture may not see), names the responder never claimed or said goodbye to, the responder's own queries, truncated datagrams.",
        interop:
            "without the NSEC a querier cannot tell \"no such record\" from a lost answer, and retries (RFC 6762 §6.1); Apple BCT checks NSEC answers",
        example: "printer.local. claimed with A; query printer.local. HINFO; no response within 1 s", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(aResponse("192.168.1.20"), at: 0), hinfo(at: 5), later()]),
            // Answered, but with neither the type nor an NSEC.
            RuleExample([
                mdns(aResponse("192.168.1.20"), at: 0), hinfo(at: 5), mdns(onlyA(), at: 5.01), later(),
            ]),
        ],
        nonTriggering: [
            // The NSEC comes back.
            RuleExample([
                mdns(aResponse("192.168.1.20"), at: 0), hinfo(at: 5), mdns(aResponse("192.168.1.20"), at: 5.01),
                later(),
            ]),
            // Near miss: the capture ends within the question's second.
            RuleExample([mdns(aResponse("192.168.1.20"), at: 0), hinfo(at: 5)]),
            // Near miss: nobody claimed the name.
            RuleExample([hinfo(at: 5), later()]),
            // Near miss: the name was said goodbye to.
            RuleExample([mdns(onlyA(), at: 0), mdns(onlyA(ttl: 0), at: 2), hinfo(at: 5), later()]),
            // Near miss: an ANY question.
            RuleExample([
                mdns(aResponse("192.168.1.20"), at: 0), mdns(ask("printer.local", 255), src: "192.168.1.5", at: 5),
                later(),
            ]),
            // Near miss: a QU question (its answer may go by unicast, unseen).
            RuleExample([
                mdns(aResponse("192.168.1.20"), at: 0),
                mdns(ask("printer.local", 13, qu: true), src: "192.168.1.5", at: 5), later(),
            ]),
            // Near miss: a type the responder has (not a negative answer).
            RuleExample([
                mdns(aResponse("192.168.1.20"), at: 0), mdns(ask("printer.local", 1), src: "192.168.1.5", at: 5),
                later(),
            ]),
            // Near miss: the NSEC was multicast 0.3 s before the query.
            RuleExample([mdns(aResponse("192.168.1.20"), at: 4.7), hinfo(at: 5), later()]),
        ])

    /// A later packet: the question's second is over (at the end of the input it may not be).
    static func later(at t: Double = 8) -> Datagram { mdns(ask("other.local", 1), src: "192.168.1.5", at: t) }
    static func hinfo(at t: Double) -> Datagram { mdns(ask("printer.local", 13), src: "192.168.1.5", at: t) }
    static func onlyA(ttl: UInt32 = 120) -> DNSBuilder { response { hostA(&$0, ttl: ttl) } }

    /// A responder's claim of a name (a verdict row, `MDNSVerdicts.uniqueNames`).
    struct Claim {
        var owner: MDNSResponderID
        var last: Timestamp
        /// The longest TTL of its last claim: past it, caches dropped the records.
        var ttl: UInt32
        var goodbye = false
    }
    /// A question whose answer is due (`MDNSVerdicts.negativeDue`).
    struct Due {
        var frame: Int
        var time: Timestamp
        var owner: MDNSResponderID
        var asker: IPAddress
        var name: UInt64
        var type: UInt16
        /// The question's name as the query wrote it.
        var text: String
    }
    struct MissedKey: Hashable, WordHashable {
        var owner: MDNSResponderID
        var name: UInt64
        var type: UInt16

        func feedWords<S: WordSink>(into sink: inout S) {
            owner.feedWords(into: &sink)
            sink.add(name)
            sink.add(UInt64(type))
        }
    }
    /// Questions the responder left without the type or an NSEC (`MDNSVerdicts.negativeMissed`).
    struct Missed {
        var text: String
        var frames: [Int]
        var count: Int
        var first: Timestamp
        var last: Timestamp
    }
    static let window = 1.0
    static let maxFrames = 8

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let i = e.input, !e.isTruncated else { return }
        closeDue(at: e.time, &store, &out)
        if i.isResponse {
            guard e.srcPort == 5353 else { return }
            settle(e, i, &store)
            claim(e, i, &store, &out)
            return
        }
        guard e.dst.isMulticast, e.srcPort == 5353, !i.isProbe, !store.verdicts.uniqueNames.isEmpty else { return }
        let asker = MDNSResponderID(i.datagram)
        for (q, name) in i.keyedQuestions.prefix(64) {
            let type = q.type.rawValue
            guard !q.unicastResponse, q.type != .any, q.qclass == 1,
                let c = store.verdicts.uniqueNames[MDNSNameKey(name)], !c.goodbye, !c.owner.isSame(as: asker),
                MDNSSession.since(c.last, e.time) <= Double(c.ttl)
            else { continue }
            // A type it has, or a Known-Answer: not a negative answer.
            if let set = store.model.rrset(name, q.type, 1), set.members.contains(where: { !$0.goodbye }) {
                continue
            }
            if i.answerRecords.contains(where: { $0.nameKey == name && $0.record.type == q.type }) { continue }
            if let nsec = store.model.rrset(name, .nsec, 1),
                nsec.members.contains(where: {
                    $0.lastMulticast.map { MDNSSession.since($0.time, e.time) < Self.window } ?? false
                })
            {
                continue
            }
            store.verdicts.negativeDue.append(
                Due(
                    frame: e.frame, time: e.time, owner: c.owner, asker: e.src, name: name, type: type,
                    text: i.name(q.name)),
                evicted: &out.evictions)
        }
    }

    /// A response from the owner with the type, an NSEC or a CNAME of the name settles it.
    private static func settle(_ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore) {
        guard !store.verdicts.negativeDue.isEmpty else { return }
        let from = MDNSResponderID(i.datagram)
        store.verdicts.negativeDue.removeAll { d in
            d.owner.isSame(as: from)
                && i.records.contains {
                    $0.section != .authority && $0.nameKey == d.name
                        && ($0.record.type.rawValue == d.type || $0.record.type == .nsec || $0.record.type == .cname)
                }
        }
    }

    /// The names a multicast response claims (cache-flush, TTL above 0) or says goodbye to.
    private static func claim(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        // A forwarder's copy claims nothing for the forwarder.
        guard i.isMulticast, !e.forwarded, !i.isRelayed else { return }
        let owner = MDNSResponderID(i.datagram)
        for r in i.records where r.section != .authority && r.record.cacheFlush && r.record.type != .opt {
            let ttl = r.record.ttl
            store.verdicts.uniqueNames.update(
                MDNSNameKey(r.nameKey), default: Claim(owner: owner, last: e.time, ttl: ttl), at: e.time,
                evicted: &out.evictions
            ) { c in
                if ttl == 0 {
                    if c.owner.isSame(as: owner) { c.goodbye = true }
                    return
                }
                if !c.owner.isSame(as: owner) { c = Claim(owner: owner, last: e.time, ttl: ttl) }
                c.last = e.time
                c.ttl = max(c.ttl, ttl)
                c.goodbye = false
            }
        }
    }

    /// Moves the questions whose second is over to the missed ones.
    private static func closeDue(at now: Timestamp, _ store: inout MDNSSessionStore, _ out: inout SessionReports) {
        guard !store.verdicts.negativeDue.isEmpty else { return }
        for d in store.verdicts.negativeDue.elements {
            guard MDNSSession.since(d.time, now) > Self.window else { break }
            let key = MissedKey(owner: d.owner, name: d.name, type: d.type)
            store.verdicts.negativeMissed.update(
                key, default: Missed(text: "", frames: [], count: 0, first: d.time, last: d.time), at: now,
                evicted: &out.evictions
            ) { m in
                m.count &+= 1
                m.last = d.time
                if m.frames.count < Self.maxFrames { m.frames.append(d.frame) }
                if m.text.isEmpty {
                    m.text = "\(d.text) \(RecordType(rawValue: d.type)) asked by \(d.asker)"
                }
            }
        }
        store.verdicts.negativeDue.age(to: now)
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        closeDue(at: now, &store, &out)
        guard !store.verdicts.negativeMissed.isEmpty else { return }
        let rows = store.verdicts.negativeMissed.rows.sorted {
            ($0.value.frames.first ?? 0) < ($1.value.frames.first ?? 0)
        }
        for (key, m) in rows {
            out.reportAtEnd(
                Self.descriptor,
                "\(m.text) (\(m.count) time(s)) got neither that type nor an NSEC from \(key.owner.source), which claims the name as unique: RFC 6762 §6.1 asks for an NSEC saying the type does not exist",
                frames: m.frames, time: m.first, source: key.owner.source)
        }
        store.verdicts.negativeMissed.removeAll()
    }
}

/// MDNS-521: a responder answers QU questions for its records as it answers QM ones (RFC 6762
/// §5.4).
///
/// A QU question asks for a unicast answer, which a capture away from the querier does not
/// see. So a QU question is judged only where its answer would show: the capture has shown
/// unicast mDNS going to the querier, or the responder last multicast the record more than a
/// quarter of its TTL before (§5.4: it then multicasts the answer). The responder is a source
/// that multicast the RRSet the question asks for (still live); a question whose query lists
/// Known-Answers of its RRSet, or has TC set, is not judged (§7.1); it is left
/// unanswered when no response from that source carries the RRSet within 1 s. It is reported
/// only for a responder that does answer the same question (name and type) asked QM by
/// someone else (a multicast response with the RRSet within 1 s of the QM query), before or
/// after: a responder that answers neither is not this rule's.
struct QUAnsweredRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-521", "qu-answered", .warning, "A responder answers QU questions, as it answers QM ones",
        spec: "RFC 6762 §5.4",
        "Per responder (source address) and RRSet it multicast (still live): a QU question of a multicast query from port 5353 (not a probe, not ANY, no TC bit, no Known-Answer of the RRSet listed) for the RRSet, from another host, answered by no response from the responder carrying the RRSet within 1 s, when the same responder answers the same name and type asked QM (a response with the RRSet within 1 s of a QM query for it). Judged only where the answer would show: unicast mDNS to the querier was seen in the capture, or the responder last multicast the record more than a quarter of its TTL before (then it should multicast the answer, §5.4); otherwise a unicast answer may simply be unseen, and the rule stays silent. Reported at the end of the input (live: on the timer), once per responder, name and type, with the QU queries' frames and a QM exchange.",
        interop:
            "queriers that ask QU first (probing, start-up queries, python-zeroconf, Apple) get nothing and wait for their QM retry",
        example: "QU PTR _http._tcp.local. unanswered; the same question asked QM answered at once",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // The PTR (TTL 120) was last multicast 40 s before the QU question: more than a
            // quarter of its TTL, so the answer would be multicast.
            RuleExample([
                mdns(ptr(), at: 0), qm(at: 40), mdns(ptr(), at: 40.05), qu(at: 80), NegativeAnswerRule.later(at: 85),
            ]),
            // Unicast to the querier was seen: a unicast answer would show.
            RuleExample([
                mdns(ptr(), at: 0), qm(at: 40), mdns(ptr(), at: 40.05),
                mdns(aResponse("192.168.1.20"), dst: "192.168.1.5", at: 41), qu(at: 45),
                NegativeAnswerRule.later(at: 50),
            ]),
        ],
        nonTriggering: [
            // Answered by unicast.
            RuleExample([
                mdns(ptr(), at: 0), qm(at: 40), mdns(ptr(), at: 40.05), qu(at: 80),
                mdns(ptr(), dst: "192.168.1.5", at: 80.03), NegativeAnswerRule.later(at: 85),
            ]),
            // Near miss: the record was multicast 10 s before (a quarter of its TTL is 30 s),
            // and no unicast to the querier was seen: its unicast answer may be unseen.
            RuleExample([
                mdns(ptr(), at: 0), qm(at: 40), mdns(ptr(), at: 40.05), qu(at: 50), NegativeAnswerRule.later(at: 55),
            ]),
            // Near miss: the querier lists the answer as a Known-Answer (RFC 6762 §7.1).
            RuleExample([
                mdns(ptr(), at: 0), qm(at: 40), mdns(ptr(), at: 40.05), qu(at: 80, known: true),
                NegativeAnswerRule.later(at: 85),
            ]),
            // Near miss: the responder never answered the question asked QM either.
            RuleExample([mdns(ptr(), at: 0), qu(at: 80), NegativeAnswerRule.later(at: 85)]),
        ])

    static func qm(at t: Double) -> Datagram { mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: t) }
    static func qu(at t: Double, known: Bool = false) -> Datagram {
        mdns(
            query { b in
                b.question("_ipp._tcp.local", 12, qu: true)
                if known { b.record(.answer, "_ipp._tcp.local", 12, ttl: 100, rdata: B.name("Office._ipp._tcp.local")) }
            }, src: "192.168.1.5", at: t)
    }
    static func ptr() -> DNSBuilder {
        response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 120, rdata: B.name("Office._ipp._tcp.local")) }
    }

    /// A responder and the question (name, type) it owes an answer to.
    struct Key: Hashable, WordHashable {
        var responder: IPAddress
        var name: UInt64
        var type: UInt16

        func feedWords<S: WordSink>(into sink: inout S) {
            responder.feedWords(into: &sink)
            sink.add(name)
            sink.add(UInt64(type))
        }
    }
    /// A QU question whose second to be answered runs (`MDNSVerdicts.quDue`).
    struct Due {
        var key: Key
        var frame: Int
        var time: Timestamp
        var text: String
    }
    /// What a responder did with one question asked QU and QM (`MDNSVerdicts.quAnswers`).
    struct Row {
        /// The QU queries it left unanswered (the first `maxFrames`), and how many.
        var missed: [Int] = []
        var count = 0
        var text = ""
        var firstMissed: Timestamp = .zero
        /// A QM query of the question and the response answering it.
        var qm: (query: Int, response: Int)?
        var last: Timestamp
    }
    static let window = 1.0
    static let maxFrames = 8
    static let maxResponders = 4

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        guard let i = e.input, !e.isTruncated, e.srcPort == 5353 else { return }
        closeDue(at: e.time, &store, &out)
        if i.isResponse {
            settle(e, i, &store)
            noteQM(e, i, &store, &out)
            return
        }
        // A query with TC set has more Known-Answers to come (§7.2): not judged.
        guard e.dst.isMulticast, !i.isProbe, !i.header.tc, i.message.questions.contains(where: { $0.unicastResponse })
        else { return }
        let seesUnicast = store.windows.unicastReceivers[e.src] != nil
        for (q, name) in i.keyedQuestions.prefix(64) where q.unicastResponse && q.type != .any && q.qclass == 1 {
            guard let set = store.model.rrset(name, q.type, 1) else { continue }
            // Known-Answers of the question: the responder may rightly stay silent (§7.1).
            if i.answerRecords.contains(where: { $0.nameKey == name && $0.record.type == q.type }) { continue }
            var n = 0
            for m in set.members where m.owner != e.src && m.isLive(at: e.time) && n < Self.maxResponders {
                guard let last = m.lastMulticast else { continue }
                let stale = MDNSSession.since(last.time, e.time) > Double(m.ttl) / 4
                guard seesUnicast || stale else { continue }
                let key = Key(responder: m.owner, name: name, type: q.type.rawValue)
                if store.verdicts.quDue.elements.contains(where: { $0.key == key }) { continue }
                n += 1
                store.verdicts.quDue.append(
                    Due(key: key, frame: e.frame, time: e.time, text: "\(i.name(q.name)) \(q.type)"),
                    evicted: &out.evictions)
            }
        }
    }

    /// A response from the responder with the RRSet settles its QU questions.
    private static func settle(_ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore) {
        guard !store.verdicts.quDue.isEmpty else { return }
        store.verdicts.quDue.removeAll { d in
            d.key.responder == e.src
                && i.records.contains {
                    $0.section != .authority && $0.nameKey == d.key.name && $0.record.type.rawValue == d.key.type
                }
        }
    }

    /// A multicast response answering a QM question of another host's query of the last second.
    private static func noteQM(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        guard i.isMulticast, let askers = e.askers else { return }
        let recent = store.windows.queries(within: Self.window, of: e.time)
        for r in i.records where r.section == .answer && r.record.ttl > 0 {
            let type = r.record.type.rawValue
            let asked = askers.of(r.nameKey)
            guard
                let k = asked.first(where: { k in
                    guard k >= recent.startIndex, k < recent.endIndex else { return false }
                    let query = recent[k]
                    guard query.source != e.src else { return false }
                    return zip(query.questions, query.qm).contains { $0.name == r.nameKey && $0.type == type && $1 }
                })
            else { continue }
            let frame = recent[k].frame
            let key = Key(responder: e.src, name: r.nameKey, type: type)
            store.verdicts.quAnswers.update(key, default: Row(last: e.time), at: e.time, evicted: &out.evictions) {
                if $0.qm == nil { $0.qm = (frame, e.frame) }
                $0.last = e.time
            }
        }
    }

    /// Moves the QU questions whose second is over to their responder's row.
    private static func closeDue(at now: Timestamp, _ store: inout MDNSSessionStore, _ out: inout SessionReports) {
        guard !store.verdicts.quDue.isEmpty else { return }
        for d in store.verdicts.quDue.elements {
            guard MDNSSession.since(d.time, now) > Self.window else { break }
            store.verdicts.quAnswers.update(d.key, default: Row(last: d.time), at: now, evicted: &out.evictions) {
                if $0.count == 0 {
                    $0.text = d.text
                    $0.firstMissed = d.time
                }
                $0.count &+= 1
                if $0.missed.count < Self.maxFrames { $0.missed.append(d.frame) }
                $0.last = d.time
            }
        }
        store.verdicts.quDue.age(to: now)
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        closeDue(at: now, &store, &out)
        let judged = store.verdicts.quAnswers.slots(
            where: { !$0.missed.isEmpty && $0.qm != nil }, by: { $0.missed.first ?? 0 })
        for slot in judged {
            let key = store.verdicts.quAnswers.rows.keys[slot]
            let r = store.verdicts.quAnswers[slot]
            guard let qm = r.qm else { continue }
            let frames = r.missed.map(String.init).joined(separator: ", ")
            out.reportAtEnd(
                Self.descriptor,
                "QU question for \(r.text) not answered by its owner \(key.responder) (\(r.count) time(s), frames \(frames)), which answers the same question asked QM (frame \(qm.query), answered at \(qm.response))",
                frames: r.missed + [qm.query, qm.response], time: r.firstMissed, source: key.responder)
        }
        // Reported once: the row keeps its QM exchange, not the misses.
        for slot in judged { store.verdicts.quAnswers[slot].missed = [] }
    }
}
