import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx: stateful and timing rules across messages, and MDNS-403.

/// MDNS-403: a legacy unicast response echoes the ID of the legacy query it answers.
///
/// Queries are paired with responses by the querier's address and port within 1 s (the
/// catalog's window); a response to an endpoint with no legacy query in the window is left
/// alone (the query may predate the capture). The pending query of each endpoint is its
/// verdict row (`MDNSVerdicts.legacyQueries`).
struct LegacyResponseIDRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-403", "legacy-response-id", .error, "A legacy unicast response echoes the query's ID",
        spec: "RFC 6762 §6.7, §18.1",
        "A legacy query (source port other than 5353) is answered by unicast to its source address and port, with the query's ID: a stub resolver drops an answer whose ID it did not ask with.",
        interop: "avahi, python-zeroconf and mDNSResponder echo the ID; a stub resolver (glibc, dig) ignores any other",
        example: "legacy query from port 53123 with ID 0x04D2 answered with ID 0", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(query(id: 0x04D2) { $0.question("printer.local", 1) }, src: "192.168.1.10", sport: 53123),
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123, at: 0.2),
            ])
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
        ])

    /// A legacy query waiting for its answer.
    struct Query {
        var frame: Int
        var time: Timestamp
        var id: UInt16
    }

    /// How long a legacy query waits for its answer.
    static let window = 1.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
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
}
