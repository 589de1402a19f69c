import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx: stateful and timing rules across messages, and MDNS-403.

/// MDNS-403: a legacy query is answered by unicast to its source address and port, and the
/// answer echoes its ID.
///
/// Queries are paired with responses by the querier's address and port within 1 s (the
/// catalog's window); a response to an endpoint with no legacy query in the window is left
/// alone (the query may predate the capture). The pending query of each endpoint is its
/// verdict row (`MDNSVerdicts.legacyQueries`).
///
/// "Answered only by multicast" is judged only where a responder evidently answers: it
/// multicast, within the second after the query, a record answering one of its questions
/// (over the query's address family; for a query sent to one host's address, that host).
/// Such a responder owes the querier a unicast answer; it is reported when, in that second,
/// neither it sent any unicast response to the querier's endpoint nor anyone sent that
/// record there. Left out: the querier's own host (its answer to itself goes over loopback),
/// and captures that never show unicast mDNS to the querier's address (taken on another
/// host, they would not see the unicast answer); a query whose second the capture did not
/// run past is not judged. Concluded at the end of the input.
struct LegacyResponseIDRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-403", "legacy-response-id", .error, "A legacy query is answered by unicast, echoing its ID",
        spec: "RFC 6762 §6.7, §18.1",
        "A legacy query (source port other than 5353) is answered by unicast to its source address and port, with the query's ID: a stub resolver drops an answer whose ID it did not ask with, and does not listen to 224.0.0.251. Reported: a unicast response to the querier's endpoint within 1 s with another ID; and (at the end of the input) a responder that multicast a record answering the query's question within 1 s of it (over the query's address family; for a query sent to a host's own address, that host) while, in that second, it sent the querier no unicast response and nobody sent the record there. DiscoScope reads this as follows: a query no responder evidently answers is not judged (no answer may exist); the querier's own host is left out (it answers itself over loopback); and so are captures that show no unicast mDNS to the querier's address at all (taken on a third host, they cannot see the unicast answer).",
        interop: "avahi, python-zeroconf and mDNSResponder echo the ID; a stub resolver (glibc, dig) ignores any other",
        example: "legacy query from port 53123 with ID 0x04D2 answered with ID 0, or only by multicast",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(query(id: 0x04D2) { $0.question("printer.local", 1) }, src: "192.168.1.10", sport: 53123),
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123, at: 0.2),
            ]),
            // 192.168.1.30 answers the legacy query by unicast; 192.168.1.20 only by multicast.
            RuleExample(legacyBrowse(unicastFrom20: false)),
        ],
        nonTriggering: [
            RuleExample([
                mdns(query(id: 0x04D2) { $0.question("printer.local", 1) }, src: "192.168.1.10", sport: 53123),
                mdns(
                    {
                        var b = response { b in
                            b.question("printer.local", 1)
                            b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                        }
                        b.id = 0x04D2
                        return b
                    }(), dst: "192.168.1.10", dport: 53123, at: 0.2),
            ]),
            // Too late to be paired with the query: another rule's business, not this one's.
            RuleExample([
                mdns(query(id: 0x04D2) { $0.question("printer.local", 1) }, src: "192.168.1.10", sport: 53123),
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123, at: 3),
            ]),
            // Both responders answer by unicast (python-zeroconf multicasts as well).
            RuleExample(legacyBrowse(unicastFrom20: true)),
            // Only the multicast is seen, but the capture shows no unicast to the querier at
            // all: taken elsewhere, it could not see the unicast answer.
            RuleExample([
                mdns(query(id: 0x04D2) { $0.question("_ipp._tcp.local", 12) }, src: "192.168.1.10", sport: 53123),
                mdns(browseAnswer("Office"), at: 0.1), mdns(ask("printer.local", 1), src: "192.168.1.5", at: 2),
            ]),
        ])

    /// A legacy browse from 192.168.1.10:53123 (ID 0x04D2); 192.168.1.30 answers by unicast,
    /// 192.168.1.20 multicasts its answer, and by unicast too when `unicastFrom20`.
    static func legacyBrowse(unicastFrom20: Bool) -> [Datagram] {
        var out = [
            mdns(query(id: 0x04D2) { $0.question("_ipp._tcp.local", 12) }, src: "192.168.1.10", sport: 53123),
            mdns(
                browseAnswer("Den", id: 0x04D2), src: "192.168.1.30", dst: "192.168.1.10", dport: 53123, at: 0.01),
        ]
        if unicastFrom20 {
            out.append(mdns(browseAnswer("Office", id: 0x04D2), dst: "192.168.1.10", dport: 53123, at: 0.02))
        }
        out.append(mdns(browseAnswer("Office"), at: 0.1))
        // The capture runs past the query's second.
        out.append(mdns(ask("printer.local", 1), src: "192.168.1.5", at: 2))
        return out
    }

    /// `_ipp._tcp.local. PTR <instance>._ipp._tcp.local.`, with the question echoed when `id`
    /// is given (a legacy answer).
    static func browseAnswer(_ instance: String, id: UInt16? = nil) -> DNSBuilder {
        var b = response { b in
            if id != nil { b.question("_ipp._tcp.local", 12) }
            b.record(
                .answer, "_ipp._tcp.local", 12, ttl: id == nil ? 4500 : 10, rdata: B.name("\(instance)._ipp._tcp.local")
            )
        }
        b.id = id ?? 0
        return b
    }

    /// A legacy query waiting for its answer.
    struct Query {
        var frame: Int
        var time: Timestamp
        var id: UInt16
    }

    /// A legacy query's second (an element of `MDNSVerdicts.legacyAnswers`): who answered it
    /// by unicast, and the multicast answers that may owe it one.
    struct Exchange {
        var query: MDNSFrameTime
        var querier: Endpoint
        var querierMAC: MACBytes
        /// The query's destination: a host's address, or the group.
        var destination: IPAddress
        var questions: [MDNSQuestionID]
        /// The sources of unicast responses to the querier's endpoint, and their records
        /// (the first 64 of each).
        var unicastFrom: [IPAddress] = []
        var unicastRecords: [MDNSRecordKey] = []
        /// Multicast answers to a question, one per responder (the first 8 responders).
        var multicast: [MulticastAnswer] = []
        var time: Timestamp { query.time }
    }

    struct MulticastAnswer {
        var responder: IPAddress
        var mac: MACBytes
        var frame: Int
        var time: Timestamp
        var record: MDNSRecordKey
        /// `_ipp._tcp.local. PTR`: what it answered.
        var text: String
    }

    /// A responder that answered a legacy query only by multicast (an element of
    /// `MDNSVerdicts.legacyMulticastOnly`, reported at the end of the input).
    struct MulticastOnly {
        var exchange: Exchange
        var answer: MulticastAnswer
        var time: Timestamp { answer.time }
    }

    /// How long a legacy query waits for its answer.
    static let window = 1.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        if e.atEnd {
            conclude(by: e.time, in: &store, into: &out)
            return
        }
        closeExchanges(at: e.time, &store, &out)
        if let i = e.input { noteExchange(e, i, &store, &out) }
        if e.isLegacyQuery {
            store.verdicts.legacyQueries.insert(
                Query(frame: e.frame, time: e.time, id: e.id), for: Endpoint(address: e.src, port: e.srcPort),
                at: e.time, evicted: &out.evictions)
        } else if e.isLegacyResponse, let q = store.verdicts.legacyQueries[Endpoint(address: e.dst, port: e.dstPort)] {
            let delay = Timestamp.seconds(from: q.time, to: e.time)
            guard delay >= 0, delay <= Self.window, e.id != q.id else { return }
            out.report(
                Self.descriptor,
                "legacy unicast response has ID \(MDNSRuleSupport.hex16(e.id)), but the query it answers (frame \(q.frame)) has ID \(MDNSRuleSupport.hex16(q.id))",
                related: [q.frame])
        }
    }

    /// Responders that answered a legacy query only by multicast, in a capture that shows
    /// unicast to the querier.
    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        closeExchanges(at: now, &store, &out)
        for m in store.verdicts.legacyMulticastOnly.elements {
            let x = m.exchange
            guard store.windows.unicastReceivers[x.querier.address] != nil,
                !sameHost(x.querier.address, x.querierMAC, m.answer.responder, m.answer.mac, store.model)
            else { continue }
            out.reportAtEnd(
                Self.descriptor,
                "legacy query (frame \(x.query.frame), from \(x.querier.address) port \(x.querier.port)) was answered by \(m.answer.responder) only by multicast (\(m.answer.text), frame \(m.answer.frame)): a legacy querier gets its answer by unicast to its address and port",
                frames: [m.answer.frame, x.query.frame], time: m.answer.time, source: m.answer.responder)
        }
        store.verdicts.legacyMulticastOnly.removeAll()
    }

    /// Takes a legacy query in, or a response into the exchanges it may belong to.
    private static func noteExchange(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        if i.isQuery {
            guard e.isLegacyQuery, !i.questionIDs.isEmpty else { return }
            store.verdicts.legacyAnswers.append(
                Exchange(
                    query: MDNSFrameTime(frame: e.frame, time: e.time),
                    querier: Endpoint(address: e.src, port: e.srcPort),
                    querierMAC: i.datagram.sourceMAC, destination: e.dst, questions: i.questionIDs),
                evicted: &out.evictions)
            return
        }
        guard e.srcPort == 5353, !store.verdicts.legacyAnswers.isEmpty else { return }
        let to = Endpoint(address: e.dst, port: e.dstPort)
        for k in store.verdicts.legacyAnswers.elements.indices {
            let x = store.verdicts.legacyAnswers[k]
            guard MDNSSession.since(x.query.time, e.time) <= Self.window else { continue }
            if !e.dst.isMulticast {
                guard to == x.querier else { continue }
                store.verdicts.legacyAnswers[k].unicastFrom.append(e.src)
                for r in i.records.prefix(64) where r.section != .authority {
                    store.verdicts.legacyAnswers[k].unicastRecords.append(MDNSRecordKey(r))
                }
                continue
            }
            // A multicast answer: over the query's family, from the host it was sent to (when
            // sent to one), not from the querier's own address.
            guard e.src.isIPv6 == x.querier.address.isIPv6, e.src != x.querier.address,
                x.destination.isMulticast || x.destination == e.src, x.multicast.count < 8,
                !x.multicast.contains(where: { $0.responder == e.src })
            else { continue }
            guard
                let r = i.records.first(where: { r in
                    r.section == .answer && r.record.ttl > 0
                        && x.questions.contains { $0.isAnswered(by: MDNSRecordKey(r).set) }
                })
            else { continue }
            store.verdicts.legacyAnswers[k].multicast.append(
                MulticastAnswer(
                    responder: e.src, mac: i.datagram.sourceMAC, frame: e.frame, time: e.time,
                    record: MDNSRecordKey(r), text: "\(i.name(r.record.name)) \(r.record.type)"))
        }
    }

    /// Closes the exchanges whose second is over: a multicast answer from a responder that
    /// sent no unicast response, of a record nobody unicast to the querier, is kept for the
    /// end (the first `cap`).
    private static func closeExchanges(at now: Timestamp, _ store: inout MDNSSessionStore, _ out: inout SessionReports)
    {
        guard !store.verdicts.legacyAnswers.isEmpty else { return }
        for x in store.verdicts.legacyAnswers.elements {
            guard MDNSSession.since(x.query.time, now) > Self.window else { break }
            for m in x.multicast
            where !x.unicastFrom.contains(m.responder) && !x.unicastRecords.contains(m.record) {
                guard store.verdicts.legacyMulticastOnly.elements.count < store.verdicts.legacyMulticastOnly.cap
                else { break }
                store.verdicts.legacyMulticastOnly.append(
                    MulticastOnly(exchange: x, answer: m), evicted: &out.evictions)
            }
        }
        store.verdicts.legacyAnswers.age(to: now)
    }

    /// Whether two addresses are one host's: the same MAC when both are known, or addresses
    /// of one host name the capture showed.
    private static func sameHost(
        _ a: IPAddress, _ macA: MACBytes, _ b: IPAddress, _ macB: MACBytes, _ model: borrowing MDNSSessionModel
    ) -> Bool {
        if macA.count > 0, macB.count > 0 { return macA == macB }
        return model.hosts.values.contains { h in
            (h.addresses.contains(a) || h.sources.contains(a)) && (h.addresses.contains(b) || h.sources.contains(b))
        }
    }
}
