import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about when responses go out after the queries they answer: random delays for
// shared answers, no delay for unique ones (MDNS-507), and the pause after a multi-packet
// Known-Answer list (MDNS-508).

/// A question's identity: name key and QTYPE.
struct MDNSQuestionID: Hashable, Sendable {
    var name: UInt64
    var type: UInt16

    /// Whether `rr` answers it (same name, QTYPE the record's type or ANY).
    func isAnswered(by key: MDNSRRSetKey) -> Bool {
        name == key.name && (type == key.type || type == RecordType.any.rawValue)
    }
}

/// MDNS-507: shared answers are delayed 20–120 ms; a single question answered only with
/// unique records is answered at once.
///
/// A response (from 5353 to 5353) is paired, record by record, with the queries of the last
/// second from other sources that ask for the record (RFC 6762 §6):
/// - a shared answer is too early when every such query came less than 20 ms before it (a
///   response 2 ms after one query may still be the delayed answer to an earlier one);
/// - a unique answer is too late when the latest such query had one question, every answer
///   in the response answers it (nothing was aggregated, §6.4), and it came more than 120 ms
///   after the query. The RFC asks for "within at most 10 ms"; judging only past the shared
///   range leaves room for scheduling and capture jitter, so what is reported is a delay no
///   reading of §6 allows.
/// Not judged: records their responder is announcing (the store's phase,
/// `MDNSSessionStore.isAnnouncing`: it probed the name in the last 5 s, or an announcement
/// sequence of the name is open; a record merely new to the capture is not taken as
/// announcing, so a responder's first answer is judged like any other), records it multicast
/// less than a second before the query (§6 then holds the answer back), answers after a TC
/// query (MDNS-508). At the end of the input, a responder's shared delays that
/// never spread over the 20–120 ms range across 20 or more samples (all within 25 ms) are
/// info: §6 asks for a uniform random delay.
struct ResponseDelayRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-507", "response-timing", .warning, "Shared answers wait 20–120 ms; unique answers go out at once",
        spec: "RFC 6762 §6, §6.3, §6.4",
        "Responses paired with the queries of the last second that ask for their records: a shared answer less than 20 ms after every such query (warning); a unique answer to a single-question query, not aggregated with other answers, more than 120 ms after it (warning); at the end of the input, 20 or more shared delays of one responder all within 25 ms of each other (info). Not judged: records their responder is announcing (it probed the name in the last 5 s, or an announcement sequence of the name, start-up or update, is open), records held back by the once-per-second limit, answers to TC queries. DiscoScope reads this as follows: only positive evidence makes a record announcing (a probe for the name, or an unsolicited response opening an announcement sequence: an announcement is an unsolicited response); a responder's first answer to a query is judged as an answer. §6 asks unique answers \"within at most 10 ms\"; only a delay past the shared 120 ms is reported, which no reading of §6 allows, leaving room for scheduling and capture jitter.",
        interop: "Apple BCT: SIMPLE REPLY RESPONSE TIME, SHARED REPLY TIMING - UNIFORM RANDOM REPLY TIME DISTRIBUTION",
        example: "PTR (shared) answered 2 ms after the query; A (unique) answered 300 ms after the query",
        scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(answered(service(), "_ipp._tcp.local", 12, after: [0.002]), severity: .warning),
            RuleExample(answered(aResponse("192.168.1.20"), "printer.local", 1, after: [0.3]), severity: .warning),
            RuleExample(
                answered(service(), "_ipp._tcp.local", 12, after: Array(repeating: 0.05, count: 20)), severity: .info),
            // The responder's first packet answers the query 2 ms after it: nothing shows it
            // announcing, so it is an answer, and too early.
            RuleExample(
                [
                    mdns(ask("_http._tcp.local"), src: "192.168.1.6"),
                    mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 20), mdns(service(), at: 20.002),
                ], severity: .warning),
            // A unique record first sent 300 ms after a single-question query for it, with no
            // probe before: a late answer.
            RuleExample(
                [mdns(ask("printer.local", 1), src: "192.168.1.5", at: 0.45), announce(at: 0.75)],
                severity: .warning),
        ],
        nonTriggering: [
            RuleExample(answered(service(), "_ipp._tcp.local", 12, after: [0.06])),
            RuleExample(answered(aResponse("192.168.1.20"), "printer.local", 1, after: [0.004])),
            // The second query came 2 ms before the answer, the first 60 ms before it.
            RuleExample([
                mdns(service(), at: 0), mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 20),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.6", at: 20.058), mdns(service(), at: 20.06),
            ]),
            // Delays spread over the range.
            RuleExample(
                answered(service(), "_ipp._tcp.local", 12, after: (1...20).map { 0.02 + Double($0 % 10) * 0.01 })),
            // The responder probed the name: 300 ms after the query comes the announcement its
            // probing scheduled, 250 ms after the last probe, not a late answer.
            RuleExample([
                probe(at: 0), probe(at: 0.25), mdns(ask("printer.local", 1), src: "192.168.1.5", at: 0.45),
                probe(at: 0.5), announce(at: 0.75),
            ]),
        ])

    /// `r` sent once, then, every 20 s from 20 s on, a query from 192.168.1.5 for `name` and
    /// `r` again each delay later.
    static func answered(_ r: DNSBuilder, _ name: String, _ type: UInt16, after delays: [Double]) -> [Datagram] {
        var out: [Datagram] = [mdns(r, at: 0)]
        for (k, d) in delays.enumerated() {
            let t = Double(k + 1) * 20
            out.append(mdns(ask(name, type), src: "192.168.1.5", at: t))
            out.append(mdns(r, at: t + d))
        }
        return out
    }

    static let window = 1.0
    static let sharedMinimum = 0.02
    static let sharedMaximum = 0.12
    /// A response is paired with at most the latest 64 queries of the window, and at most
    /// this many delays are kept per responder.
    static let capacity = 64
    static let samplesNeeded = 20
    static let narrowSpread = 0.025

    /// A responder's shared-answer delays (its verdict row, `MDNSVerdicts.responseDelays`).
    struct Samples {
        var delays: [Double] = []
        var frames: [Int] = []
        var first: MDNSFrameTime
        var last: Timestamp
    }

    /// The queries a response from 5353 is paired with: multicast queries with questions of
    /// the last second (not those stamped before an earlier packet), the latest `capacity`.
    static func pairable(_ store: borrowing MDNSSessionStore, at now: Timestamp) -> ArraySlice<MDNSRecentQuery> {
        store.windows.queries(within: window, of: now, latest: capacity) { !$0.questions.isEmpty && !$0.timeWentBack }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(e, store, into: &out)
            return
        }
        guard let i = e.input, !e.timeWentBack, i.isResponse, e.srcPort == 5353, e.dstPort == 5353 else { return }
        let recent = pairable(store, at: e.time)
        guard !recent.isEmpty, let askers = e.askers else { return }
        let answers = i.records.lazy.filter { $0.section == .answer && $0.record.ttl > 0 && $0.record.type != .opt }
        for r in answers {
            let key = MDNSRecordKey(r)
            // The queries from other hosts that ask for it: the first, the latest, how many
            // (among those that asked for its name, nothing copied).
            var first: Int? = nil
            var last = recent.startIndex
            var count = 0
            var truncated = false
            for k in askers.of(key.set.name)
            where k >= recent.startIndex && !recent[k].timeWentBack && recent[k].asks(key.set)
                && recent[k].source != e.src
            {
                if first == nil { first = k }
                last = k
                count += 1
                truncated = truncated || recent[k].truncated
            }
            guard let first, !truncated, !store.isAnnouncing(key.set.name, in: e) else { continue }
            let latest = recent[last]
            let delay = MDNSSession.since(latest.time, e.time)
            if i.isShared(r) {
                let earliest = MDNSSession.since(recent[first].time, e.time)
                if earliest < Self.sharedMinimum - MDNSSession.jitter {
                    out.report(
                        Self.descriptor,
                        "shared \(i.name(r.record.name)) \(r.record.type) answered \(Self.ms(delay)) ms after the query of frame \(latest.frame); shared answers are delayed 20–120 ms at random",
                        related: [latest.frame])
                    return
                }
                if count == 1, delay <= Self.sharedMaximum + MDNSSession.jitter {
                    sample(e, delay, &store, &out)
                }
            } else if i.isUnique(r), latest.questions.count == 1, delay > Self.sharedMaximum + MDNSSession.jitter,
                answers.allSatisfy({ a in i.isUnique(a) && latest.asks(MDNSRecordKey(a).set) })
            {
                let m = store.model.rrsets[key.set]?.member(rdata: key.rdata, owner: e.src)
                if let last = m?.lastMulticast, MDNSSession.since(last.time, latest.time) < 1 { continue }
                out.report(
                    Self.descriptor,
                    "unique \(i.name(r.record.name)) \(r.record.type) answered \(Self.ms(delay)) ms after the single-question query of frame \(latest.frame), with nothing aggregated; such answers go out without delay (within about 10 ms)",
                    related: [latest.frame])
                return
            }
        }
    }

    private static func sample(
        _ e: MDNSEvent, _ delay: Double, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        if store.verdicts.responseDelays[e.src] == nil {
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            store.verdicts.responseDelays.insert(
                Samples(first: now, last: e.time), for: e.src, at: e.time, evicted: &out.evictions)
        }
        store.verdicts.responseDelays[e.src]?.last = e.time
        guard let s = store.verdicts.responseDelays[e.src], s.delays.count < Self.capacity, s.frames.last != e.frame
        else { return }
        store.verdicts.responseDelays[e.src]?.delays.append(delay)
        store.verdicts.responseDelays[e.src]?.frames.append(e.frame)
    }

    private static func conclude(_ e: MDNSEvent, _ store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        for (src, s) in store.verdicts.responseDelays.rows.sorted(by: { $0.value.first.frame < $1.value.first.frame })
        where s.delays.count >= Self.samplesNeeded {
            guard let lo = s.delays.min(), let hi = s.delays.max(), hi - lo < Self.narrowSpread else { continue }
            out.reportAtEnd(
                Self.descriptor, severity: .info,
                "\(s.delays.count) shared answers all delayed \(Self.ms(lo))–\(Self.ms(hi)) ms after their queries; the delay is to be uniformly random over 20–120 ms",
                frames: Array(s.frames.prefix(8)), time: s.first.time, source: src)
        }
    }

    static func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
}

/// MDNS-508: after a query with TC set, the responder waits 400–500 ms after the querier's
/// last Known-Answer packet.
///
/// A TC query and its continuations (queries with no question from the same source, each
/// within 0.5 s of the one before) are one Known-Answer list (RFC 6762 §7.2). A response from
/// another host answering one of its questions within a second of the last packet, less than
/// 400 ms after that packet, did not wait for the list to end. Not judged when another host
/// asked the same question plainly in between (the response may answer that), or for
/// records their responder is announcing (`MDNSSessionStore.isAnnouncing`: positive evidence
/// only, so a responder's first answer is judged like any other).
struct TruncatedQueryDelayRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-508", "truncated-query-delay", .warning,
        "After a TC query the responder waits 400–500 ms after the last Known-Answer packet",
        spec: "RFC 6762 §6, §7.2",
        "A response answering a question of a TC query less than 400 ms after the last packet of that querier's Known-Answer list (the TC query and its continuations), unless another querier asked the question without TC in between, or the responder is announcing the record (it probed the name in the last 5 s, or an announcement sequence of the name is open). DiscoScope reads this as follows: only positive evidence makes a record announcing; a responder's first answer is judged as an answer. A pause longer than 500 ms is not reported: §7.2 asks the responder to extend its delay \"as necessary\" to a pause of 400–500 ms, and a longer one loses nothing but time.",
        example: "response 30 ms after a TC query", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(service(), at: 0), mdns(tcQuery(), src: "192.168.1.5", at: 20), mdns(service(), at: 20.03),
            ]),
            // The responder's first packet answers 30 ms after the TC query: nothing shows it
            // announcing, so it is an answer that did not wait.
            RuleExample([
                mdns(ask("_http._tcp.local"), src: "192.168.1.6"), mdns(tcQuery(), src: "192.168.1.5", at: 20),
                mdns(service(), at: 20.03),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(service(), at: 0), mdns(tcQuery(), src: "192.168.1.5", at: 20),
                mdns(continuation(), src: "192.168.1.5", at: 20.01), mdns(service(), at: 20.45),
            ]),
            // Another querier asked plainly: the answer may be to that question.
            RuleExample([
                mdns(service(), at: 0), mdns(tcQuery(), src: "192.168.1.5", at: 20),
                mdns(ask("_ipp._tcp.local"), src: "192.168.1.6", at: 20.01), mdns(service(), at: 20.1),
            ]),
            // The responder started announcing the service a second before (its first packets,
            // in a capture that began earlier): 30 ms after the TC query comes its second
            // announcement.
            RuleExample([
                mdns(ask("_http._tcp.local"), src: "192.168.1.6"), mdns(service(), at: 19),
                mdns(tcQuery(), src: "192.168.1.5", at: 20), mdns(service(), at: 20.03),
            ]),
        ])

    static func tcQuery() -> DNSBuilder {
        query(flags: 0x0200) { b in
            b.question("_ipp._tcp.local", 12)
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Den._ipp._tcp.local"))
        }
    }
    static func continuation() -> DNSBuilder {
        query { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Hall._ipp._tcp.local")) }
    }

    /// A querier's open Known-Answer list (its verdict row, `MDNSVerdicts.knownAnswerLists`).
    struct List {
        var query: MDNSRecentQuery
        var last: MDNSFrameTime
    }
    /// At most this many plain queries of the window are read.
    static let capacity = 256
    static let pause = 0.4
    static let window = 1.0
    static let continuationGap = 0.5

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, !e.timeWentBack else { return }
        // A list whose last packet is more than a second old can no longer be answered early:
        // each use below reads only those of the last second, and the table expires the rest.
        if i.isQuery {
            guard !i.isProbe, e.dst.isMulticast else { return }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            if i.header.tc, !i.message.questions.isEmpty {
                // The list's questions are what a response is paired with.
                store.verdicts.knownAnswerLists.insert(
                    List(query: MDNSRecentQuery(e, i, knownAnswers: false), last: now), for: e.src, at: e.time,
                    evicted: &out.evictions)
            } else if i.message.questions.isEmpty {
                if let l = store.verdicts.knownAnswerLists[e.src],
                    MDNSSession.since(l.last.time, e.time) <= Self.continuationGap
                {
                    store.verdicts.knownAnswerLists[e.src]?.last = now
                }
            }
            return
        }
        let lists = store.verdicts.knownAnswerLists
        guard i.isResponse, e.srcPort == 5353, e.dstPort == 5353, !lists.isEmpty else { return }
        guard let askers = e.askers else { return }
        // The latest `capacity` plain queries (questions, no TC, not stamped before an earlier
        // packet): a response answers the Known-Answer list when one of them, at or after the
        // list's query, asked another host for the record. Found when a list first asks for an
        // answer.
        var plain: ArraySlice<MDNSRecentQuery>? = nil
        // The lists of other queriers still open that may ask for an answer, oldest query
        // first: found by their places in the table, their fields read in place (a copy of a
        // list, made for each list at each response, retained its query's arrays).
        let rows = lists.rows.values
        var open: [(frame: Int, slot: SessionTable<IPAddress, List>.Slot)] = []
        for slot in rows.indices
        where rows[slot].query.source != e.src && MDNSSession.since(rows[slot].last.time, e.time) <= Self.window
            && rows[slot].query.asksAny(of: askers.bits)
        {
            open.append((rows[slot].query.frame, slot))
        }
        open.sort { $0.frame < $1.frame }
        for (_, slot) in open {
            let l = lists[slot]
            for r in i.records where r.section == .answer && r.record.ttl > 0 {
                let key = MDNSRecordKey(r)
                guard l.query.asks(key.set), !store.isAnnouncing(key.set.name, in: e) else { continue }
                let latest =
                    plain
                    ?? store.windows.queries(within: Self.window, of: e.time, latest: Self.capacity, counting: isPlain)
                plain = latest
                let askedPlainly = askers.of(key.set.name).contains { k in
                    k >= latest.startIndex && Self.isPlain(latest[k]) && latest[k].time >= l.query.time
                        && latest[k].source != e.src && latest[k].asks(key.set)
                }
                guard !askedPlainly else { continue }
                let wait = MDNSSession.since(l.last.time, e.time)
                guard wait < Self.pause - MDNSSession.jitter else { continue }
                out.report(
                    Self.descriptor,
                    "\(i.name(r.record.name)) \(r.record.type) answered \(ResponseDelayRule.ms(wait)) ms after the last Known-Answer packet (frame \(l.last.frame)) of the TC query of frame \(l.query.frame); a responder waits 400–500 ms for the rest of the list",
                    related: l.last.frame == l.query.frame ? [l.query.frame] : [l.last.frame, l.query.frame])
                return
            }
        }
    }

    private static func isPlain(_ q: MDNSRecentQuery) -> Bool {
        !q.truncated && !q.questions.isEmpty && !q.timeWentBack
    }
}
