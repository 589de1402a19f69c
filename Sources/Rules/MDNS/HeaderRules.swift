import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-1xx: header rules for mDNS.

/// MDNS-101: Multicast queries from port 5353 have ID 0.
struct QueryIDZeroRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-101", "query-id-zero", .warning, "Multicast queries from port 5353 have ID 0", spec: "RFC 6762 §18.1",
        "Legacy one-shot queriers (other source ports) use IDs legitimately.", example: "query ID 0x1A2B from port 5353"
    )
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(query(id: 0x1A2B) { $0.question("_ipp._tcp.local", 12) }), severity: .warning)],
        nonTriggering: [RuleExample(mdns(query(id: 0x1A2B) { $0.question("_ipp._tcp.local", 12) }, sport: 53000))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isQuery, i.isMulticast, i.datagram.srcPort == 5353, i.header.id != 0 {
            out.report(
                Self.descriptor, "multicast query from port 5353 has ID \(MDNSRuleSupport.hex16(i.header.id)), not 0")
        }
    }
}

/// MDNS-102: Multicast responses have ID 0.
struct ResponseIDZeroRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-102", "response-id-zero", .error, "Multicast responses have ID 0", spec: "RFC 6762 §18.1",
        "Legacy unicast responses echo the query ID instead.", example: "response to 224.0.0.251 with ID 0x1234")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.id = 0x1234
                        return b
                    }()))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.id = 0x1234
                        b.question("_ipp._tcp.local", 12)
                        return b
                    }(), dst: "192.168.1.10", dport: 53000))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isResponse, i.isMulticast, i.header.id != 0 {
            out.report(Self.descriptor, "multicast response has ID \(MDNSRuleSupport.hex16(i.header.id)), not 0")
        }
    }
}

/// MDNS-103: Responses set AA.
struct ResponseAARule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-103", "response-aa", .error, "Responses set AA", spec: "RFC 6762 §18.4", "", example: "flags 0x8000")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.flags = 0x8000
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        if i.isResponse, !i.header.aa {
            out.report(Self.descriptor, "response without the AA bit (flags \(MDNSRuleSupport.hex16(i.header.flags)))")
        }
    }
}

/// MDNS-104: Queries clear AA.
struct QueryAAClearRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-104", "query-aa-clear", .error, "Queries clear AA", spec: "RFC 6762 §18.4",
        "RFC 6762 §18.4: \"In query messages, the Authoritative Answer bit MUST be zero on transmission, and MUST be ignored on reception.\" Conforming receivers ignore it, so it rarely breaks discovery by itself; it is a MUST on the sender all the same, and shows a query built with a response's flags (Wireshark and TShark print such a query as \"Flags: 0x0400 Standard query\"). Reported for each query (QR = 0) with AA (flags 0x0400) set.",
        interop: "tcpdump marks such a query [b2&3=0x400] (a flag set that a query should not have)",
        example: "query with AA")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(query(flags: 0x0400) { $0.question("a.local", 1) }))],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        if i.isQuery, i.header.aa {
            out.report(
                Self.descriptor,
                "query with the AA bit set (flags \(MDNSRuleSupport.hex16(i.header.flags))); AA MUST be zero in queries, receivers ignore it"
            )
        }
    }
}

/// MDNS-105: OPCODE is 0.
struct OpcodeZeroRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-105", "opcode-zero", .error, "OPCODE is 0", spec: "RFC 6762 §18.3",
        "Receivers silently ignore other opcodes.", interop: "avahi drops it; python-zeroconf does not check",
        example: "OPCODE 5 to 224.0.0.251")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(query(flags: 0x2800) { $0.question("a.local", 1) }))],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.header.opcode != 0 && i.datagram.dstPort == 5353 {
            out.report(Self.descriptor, "OPCODE \(i.header.opcode); receivers ignore the message")
        }
    }
}

/// MDNS-106: RCODE is 0.
struct RCodeZeroRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-106", "rcode-zero", .error, "RCODE is 0", spec: "RFC 6762 §18.11",
        "Receivers silently ignore messages with another RCODE.",
        interop: "avahi drops it; python-zeroconf processes it", example: "response with RCODE 3")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.flags = 0x8403
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.header.rcode != 0 && !i.isLegacyResponse {
            out.report(Self.descriptor, "RCODE \(i.header.rcode); receivers ignore the message")
        }
    }
}

/// MDNS-107: Multicast responses clear TC.
struct ResponseTCClearRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-107", "response-tc-clear", .error, "Multicast responses clear TC", spec: "RFC 6762 §18.5", "",
        example: "multicast response with TC")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.flags = 0x8600
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(query(flags: 0x0200) { $0.question("a.local", 1) }))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isResponse, i.isMulticast, i.header.tc { out.report(Self.descriptor, "multicast response with TC set") }
    }
}

/// MDNS-108: RD is 0.
struct RDClearRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-108", "rd-clear", .warning, "RD is 0", spec: "RFC 6762 §18.6", "Legacy stub resolvers set it (info).",
        example: "query with RD", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(query(flags: 0x0100) { $0.question("a.local", 1) }), severity: .warning)],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.header.rd {
            out.report(Self.descriptor, severity: i.isLegacyQuery || i.isLegacyResponse ? .info : .warning, "RD is set")
        }
    }
}

/// MDNS-109: RA, Z, AD and CD are 0.
struct ReservedFlagsClearRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-109", "ra-z-ad-cd-clear", .error, "RA, Z, AD and CD are 0", spec: "RFC 6762 §18.7–§18.10", "",
        example: "flags 0x8480")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.flags = 0x8480
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isMulticast else { return }
        let h = i.header
        let set = [("RA", h.ra), ("Z", h.z), ("AD", h.ad), ("CD", h.cd)].filter(\.1).map(\.0)
        if !set.isEmpty {
            out.report(
                Self.descriptor,
                "\(set.joined(separator: ", ")) set in a multicast message (flags \(MDNSRuleSupport.hex16(h.flags)))")
        }
    }
}
