import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-4xx: transport (UDP/IP).

/// MDNS-401: Responses come from UDP port 5353.
struct ResponseSourcePortRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-401", "response-source-port", .error, "Responses come from UDP port 5353", spec: "RFC 6762 §6",
        "Receivers must ignore responses from other ports.",
        interop: "avahi drops them; python-zeroconf does not check", example: "response from port 49152")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(), sport: 49152))],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isResponse, i.datagram.srcPort != 5353 {
            out.report(Self.descriptor, "response from port \(i.datagram.srcPort); receivers must ignore it")
        }
    }
}

/// MDNS-402: Multicast responses go to 224.0.0.251 / FF02::FB port 5353.
struct ResponseDestinationRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-402", "response-destination", .error, "Multicast responses go to 224.0.0.251 / FF02::FB port 5353",
        spec: "RFC 6762 §6", "", example: "response to 224.0.0.251:5000")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(), dport: 5000))],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse, i.isMulticast else { return }
        if i.datagram.dstPort != 5353 {
            out.report(Self.descriptor, "multicast response to port \(i.datagram.dstPort)")
        }
    }
}

/// MDNS-404: Legacy unicast responses repeat the question.
struct LegacyResponseQuestionRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-404", "legacy-response-question", .error, "Legacy unicast responses repeat the question",
        spec: "RFC 6762 §6.7", "", example: "response to port 53123 with QDCOUNT 0")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { $0.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20")) },
                    dst: "192.168.1.10", dport: 53123))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.isLegacyResponse, i.header.qdcount == 0 {
            out.report(Self.descriptor, "unicast response to port \(i.datagram.dstPort) does not repeat the question")
        }
    }
}

/// MDNS-405: Legacy unicast responses: no cache-flush, TTL ≤ 10 s.
struct LegacyResponseFormRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-405", "legacy-response-form", .error, "Legacy unicast responses: no cache-flush, TTL ≤ 10 s",
        spec: "RFC 6762 §6.7, §10.2",
        "Cache-flush is an error, a longer TTL a warning.",
        interop: "python-zeroconf does not cap the TTL; avahi and mDNSResponder use 10 s",
        example: "TTL 4500 to an ephemeral port", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 4500, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123), severity: .warning)
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.question("printer.local", 1)
                        b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20"))
                    }, dst: "192.168.1.10", dport: 53123))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isLegacyResponse else { return }
        if let r = i.records.first(where: { $0.record.cacheFlush }) {
            out.report(
                Self.descriptor, severity: .error,
                "legacy unicast response: \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
        }
        if let r = i.records.first(where: { $0.record.type != .opt && $0.record.ttl > 10 }) {
            out.report(
                Self.descriptor, severity: .warning,
                "legacy unicast response: \(i.name(r.record.name)) \(r.record.type) TTL \(r.record.ttl) (10 s at most)")
        }
    }
}

/// MDNS-406: Responses use IP TTL / hop limit 255.
struct IPTTL255Rule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-406", "ip-ttl-255", .warning, "Responses use IP TTL / hop limit 255", spec: "RFC 6762 §11",
        "Queries with another TTL are info.",
        interop: "avahi's check-response-ttl option drops other TTLs; Apple BCT: mDNS IP TTL CHECK",
        example: "response with TTL 64", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(), ttl: 64), severity: .warning)],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.datagram.hopLimit != 255 else { return }
        if i.isResponse {
            out.report(
                Self.descriptor, severity: .warning,
                "response sent with IP \(i.datagram.isIPv6 ? "hop limit" : "TTL") \(i.datagram.hopLimit); older queriers ignore anything but 255"
            )
        } else if !i.isLegacyQuery {
            out.report(
                Self.descriptor, severity: .info,
                "query sent with IP \(i.datagram.isIPv6 ? "hop limit" : "TTL") \(i.datagram.hopLimit)")
        }
    }
}

/// MDNS-407: Unicast responses come from an on-link source.
///
/// Where the link's subnets are known (`--subnet`, a live interface's addresses), a unicast
/// response whose source is in none of them of its family, and not link-local, is an error;
/// a source of a family with no known subnet is judged as without them. Without them, an
/// IPv4 source outside the destination's /24 is an info (a heuristic).
struct SourceOnLinkRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-407", "source-on-link", .error, "Unicast responses come from an on-link source",
        spec: "RFC 6762 §11, §5.5",
        "With the link's subnets known (analyze --subnet, or the capture interface's addresses), a unicast response from outside them (fe80::/10 and 169.254/16 are on every link) is an error; without them an IPv4 source outside the destination's /24 is info (a heuristic).",
        interop: "avahi and mDNSResponder check the source is on-link",
        example: "unicast response from 10.9.9.9 on 192.168.1.0/24", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(service(), src: "10.9.9.9", dst: "192.168.1.10"), severity: .info),
            RuleExample(
                mdns(service(), src: "10.9.9.9", dst: "192.168.1.10"), severity: .error,
                subnets: link("192.168.1.0/24")),
            // Within the destination's /24, but not on the link as stated.
            RuleExample(
                mdns(service(), src: "192.168.1.200", dst: "192.168.1.10"), severity: .error,
                subnets: link("192.168.1.0/25")),
            RuleExample(
                mdns(service(), src: "2001:db8:9::9", dst: "fd00:1::10"), severity: .error,
                subnets: link("192.168.1.0/24", "fd00:1::/64")),
        ],
        nonTriggering: [
            RuleExample(mdns(service(), src: "192.168.1.20", dst: "192.168.1.10")),
            // A second subnet of the link, outside the destination's /24.
            RuleExample(
                mdns(service(), src: "10.9.9.9", dst: "192.168.1.10"), subnets: link("192.168.1.0/24", "10.9.0.0/16")),
            RuleExample(
                mdns(service(), src: "fe80::20", dst: "fd00:1::10"), subnets: link("192.168.1.0/24", "fd00:1::/64")),
            // Sent to the group: local whatever its source.
            RuleExample(mdns(service(), src: "10.9.9.9"), subnets: link("192.168.1.0/24")),
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse, !i.isMulticast else { return }
        let src = i.datagram.src
        if i.subnets.knowsFamily(of: src) {
            if !i.subnets.isOnLink(src) {
                out.report(
                    Self.descriptor, severity: .error,
                    "unicast response from \(src), outside the link's subnets (\(i.subnets.description)): receivers ignore it"
                )
            }
        } else if case .v4(let s) = src, case .v4(let d) = i.datagram.dst, s >> 8 != d >> 8 {
            out.report(
                Self.descriptor, severity: .info,
                "unicast response from \(src) to \(i.datagram.dst): not on the same /24, possibly off-link")
        }
    }
}

/// MDNS-408: An mDNS packet is at most 9000 bytes.
struct PacketSizeRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-408", "packet-size", .error, "An mDNS packet is at most 9000 bytes", spec: "RFC 6762 §17", "",
        interop: "python-zeroconf drops payloads over 8966 bytes", example: "IPv4 total length 9100")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(), ipLength: 9100))],
        nonTriggering: [RuleExample(mdns(service(), ipLength: 9000))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.datagram.ipPacketLength > 9000 {
            out.report(Self.descriptor, "packet of \(i.datagram.ipPacketLength) bytes (9000 at most)")
        }
    }
}

/// MDNS-409: A fragmented packet carries one record.
struct FragmentedSingleRecordRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-409", "fragmented-single-record", .error, "A fragmented packet carries one record", spec: "RFC 6762 §17",
        "", example: "3000-byte response with 12 records in fragments")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(), fragments: [1, 2]))],
        nonTriggering: [RuleExample(mdns(txtResponse(B.txt([String(repeating: "x", count: 200)])), fragments: [1, 2]))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        let n = i.message.answers.count + i.message.authorities.count + i.message.additionals.count
        if i.datagram.wasFragmented && n > 1 {
            out.report(
                Self.descriptor,
                "IP-fragmented packet carries \(n) records; a packet larger than the MTU may carry only one")
        }
    }
}

/// MDNS-410: Multicast mDNS uses 224.0.0.251 or FF02::FB.
struct MDNSGroupRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-410", "mdns-group", .error, "Multicast mDNS uses 224.0.0.251 or FF02::FB",
        spec: "RFC 6762 §3, §5, §20, §22",
        "Other FF0X::FB scopes are info.", example: "query to 224.0.0.252:5353", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("a.local", 1), dst: "224.0.0.252"), severity: .error)],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        let d = i.datagram
        guard d.dst.isMulticast, d.dstPort == 5353 else { return }
        if d.dst == .mdnsIPv4 || d.dst == .mdnsIPv6 { return }
        if case .v6(let hi, let lo) = d.dst, lo == 0xFB, hi & 0xFFF0_FFFF_FFFF_FFFF == 0xFF00_0000_0000_0000 {
            out.report(Self.descriptor, severity: .info, "mDNS to \(d.dst), a scope RFC 6762 does not use")
        } else {
            out.report(Self.descriptor, severity: .error, "UDP/5353 traffic to \(d.dst), not 224.0.0.251 or FF02::FB")
        }
    }
}
