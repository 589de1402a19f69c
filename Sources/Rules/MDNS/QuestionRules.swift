import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-2xx: questions and section usage.

/// MDNS-201: Multicast responses carry no questions.
struct ResponseNoQuestionsRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-201", "response-no-questions", .error, "Multicast responses carry no questions", spec: "RFC 6762 §6",
        "Legacy unicast responses repeat the question instead (MDNS-404).", interop: "avahi drops the whole response",
        example: "multicast response with QDCOUNT 1")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.question("_ipp._tcp.local", 12)
                        return b
                    }()))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.question("_ipp._tcp.local", 12)
                        return b
                    }(), dst: "192.168.1.10", dport: 53000))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isResponse, !i.isLegacyResponse, i.header.qdcount > 0 {
            out.report(
                Self.descriptor, "response carries \(i.header.qdcount) question(s); avahi drops the whole packet")
        }
    }
}

/// MDNS-202: QCLASS is IN or ANY.
struct QClassInAnyRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-202", "qclass-in-any", .warning, "QCLASS is IN or ANY", spec: "RFC 6762 §6, §6.5, §18.12", "",
        example: "QCLASS 3")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("a.local", 1, qclass: 3)))],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1, qclass: 255)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for q in i.message.questions where q.qclass != 1 && q.qclass != 255 {
            out.report(Self.descriptor, "question \(i.name(q.name)) has class \(q.qclass)")
        }
    }
}

/// MDNS-203: No AXFR, IXFR, MAILA or MAILB questions.
struct QTypeNoZoneTransferRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-203", "qtype-no-zone-transfer", .error, "No AXFR, IXFR, MAILA or MAILB questions",
        spec: "RFC 6762 §6.5; RFC 1035 §3.2.3", "", example: "QTYPE 252")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("a.local", 252)))],
        nonTriggering: [RuleExample(mdns(ask("a.local", 255)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for q in i.message.questions where (251...254).contains(q.type.rawValue) {
            out.report(Self.descriptor, "question \(i.name(q.name)) asks for \(q.type)")
        }
    }
}

/// MDNS-204: Legacy queries carry no QU bit, known answers or authority.
struct LegacyQueryFormRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-204", "legacy-query-form", .info, "Legacy queries carry no QU bit, known answers or authority",
        spec: "RFC 6762 §5.4, §6.7",
        "", interop: "avahi drops legacy queries with answers or authority",
        example: "query from port 51234 with the QU bit")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("a.local", 1, qu: true), sport: 53000))],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1), sport: 53000))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isLegacyQuery else { return }
        if i.message.questions.contains(where: \.unicastResponse) {
            out.report(Self.descriptor, "legacy query (port \(i.datagram.srcPort)) sets the QU bit")
        }
        if i.header.ancount > 0 || i.header.nscount > 0 {
            out.report(
                Self.descriptor,
                "legacy query carries \(i.header.ancount) answer(s) and \(i.header.nscount) authority record(s); avahi drops it"
            )
        }
    }
}

/// MDNS-205: Authority records in a query name a question; responses carry none.
struct AuthoritySectionUseRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-205", "authority-section-use", .error,
        "Authority records in a query name a question; responses carry none", spec: "RFC 6762 §8.1, §8.2",
        "Probe records must match a question name; authority in a response is a warning.",
        interop: "avahi drops responses with authority records", example: "response with NSCOUNT 1", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("printer.local", 255, qu: true)
                        b.record(.authority, "other.local", 1, rdata: B.a("192.168.1.20"))
                    }), severity: .error)
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("printer.local", 255, qu: true)
                        b.record(.authority, "printer.local", 1, rdata: B.a("192.168.1.20"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        guard !i.message.authorities.isEmpty else { return }
        if i.isResponse {
            out.report(
                Self.descriptor, severity: .warning,
                "response carries \(i.message.authorities.count) authority record(s); avahi drops it")
            return
        }
        for a in i.records
        where a.section == .authority
            && !i.message.questions.contains(where: { $0.name.equals(a.record.name, in: i.message.payload) })
        {
            out.report(Self.descriptor, severity: .error, "probe record \(i.name(a.record.name)) matches no question")
        }
    }
}

/// MDNS-206: Known answers have no cache-flush bit.
struct KnownAnswerNoFlushRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-206", "known-answer-no-flush", .error, "Known answers have no cache-flush bit", spec: "RFC 6762 §10.2",
        "", example: "query answer of class 0x8001")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("_ipp._tcp.local", 12)
                        b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20"))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("_ipp._tcp.local", 12)
                        b.record(.answer, "_ipp._tcp.local", 12, ttl: 4000, rdata: B.name("Office._ipp._tcp.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        guard i.isQuery else { return }
        for r in i.records where r.section == .answer && r.record.cacheFlush {
            out.report(
                Self.descriptor, "known answer \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
        }
    }
}

/// MDNS-207: Probe records have no cache-flush bit.
struct ProbeNoFlushRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-207", "probe-no-flush", .info, "Probe records have no cache-flush bit (an Apple BCT check)",
        spec: "Apple BCT; not an RFC 6762 requirement (§8.2, §10.2)",
        "An Apple Bonjour Conformance Test check, not an RFC 6762 requirement, hence info. RFC 6762 gives the cache-flush bit its meaning in responses (§10.2) and does not forbid it in a probe's Authority section; its probe tiebreak compares \"the record class (excluding the cache-flush bit described in Section 10.2)\" (§8.2), so the bit changes nothing there. BCT fails a probe whose proposed records carry it. Reported per Authority record of a query that has the bit.",
        interop: "Apple BCT: CACHE FLUSH BIT NOT SET IN PROPOSED ANSWER OF PROBES",
        example: "probe authority SRV with class 0x8001")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("Office._ipp._tcp.local", 255, qu: true)
                        b.record(
                            .authority, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    query { b in
                        b.question("Office._ipp._tcp.local", 255, qu: true)
                        b.record(.authority, "Office._ipp._tcp.local", 33, rdata: B.srv(631, "printer.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        guard i.isQuery else { return }
        for r in i.records where r.section == .authority && r.record.cacheFlush {
            out.report(
                Self.descriptor, "probe record \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
        }
    }
}

/// MDNS-208: Responses have answers; queries have questions or known answers.
struct SectionSanityRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-208", "section-sanity", .error, "Responses have answers; queries have questions or known answers",
        spec: "RFC 6762 §6, §7.2",
        "A response without answers is an error; an empty query a warning.",
        interop: "avahi drops responses with no answers", example: "response with counts 0/0/0/3", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(response { hostA(&$0, .additional) }), severity: .error)],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        guard i.message.isComplete else { return }
        let h = i.header
        if i.isResponse && h.ancount == 0 {
            out.report(
                Self.descriptor, severity: .error,
                "response with no answers (counts \(h.qdcount)/\(h.ancount)/\(h.nscount)/\(h.arcount)); avahi drops it")
        } else if i.isQuery && h.qdcount == 0 && h.ancount == 0 {
            out.report(Self.descriptor, severity: .warning, "query with neither questions nor known answers")
        }
    }
}
