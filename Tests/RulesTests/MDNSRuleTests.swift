import DNS
import Findings
import NetLayers
@testable import Rules
import Testing
import TestSupport
import WireFormat

private typealias B = DNSBuilder

/// A multicast mDNS datagram from 192.168.1.20:5353 to 224.0.0.251:5353, TTL 255, unless told
/// otherwise.
private func mdns(_ payload: [UInt8], src: String = "192.168.1.20", sport: UInt16 = 5353, dst: String = "224.0.0.251",
    dport: UInt16 = 5353, ttl: UInt8 = 255, ipLength: Int? = nil, fragments: [Int] = []) -> Datagram
{
    var d = makeDatagram(payload, src: src, srcPort: sport, dst: dst, dstPort: dport, hopLimit: ttl)
    if let ipLength { d.ipPacketLength = ipLength }
    d.fragmentFrames = fragments
    return d
}

private func mdns(_ b: DNSBuilder, src: String = "192.168.1.20", sport: UInt16 = 5353, dst: String = "224.0.0.251",
    dport: UInt16 = 5353, ttl: UInt8 = 255, ipLength: Int? = nil, fragments: [Int] = []) -> Datagram
{
    mdns(b.bytes, src: src, sport: sport, dst: dst, dport: dport, ttl: ttl, ipLength: ipLength, fragments: fragments)
}

/// Findings of the mDNS analyzer on one datagram.
func mdnsFindings(_ d: Datagram) -> [Finding] {
    var analyzer = MDNSAnalyzer()
    var sink = FindingSink(datagram: d)
    if analyzer.claims(d) { _ = analyzer.analyze(d, into: &sink) }
    return sink.findings
}

// MARK: - Building blocks

private func response(_ build: (inout DNSBuilder) -> Void) -> DNSBuilder {
    var b = B()
    build(&b)
    return b
}

private func query(id: UInt16 = 0, flags: UInt16 = 0, _ build: (inout DNSBuilder) -> Void) -> DNSBuilder {
    var b = B(id: id, flags: flags)
    build(&b)
    return b
}

private func hostA(_ b: inout DNSBuilder, _ section: DNSBuilder.Section = .answer, name: String = "printer.local", ttl: UInt32 = 120) {
    b.record(section, name, 1, flush: true, ttl: ttl, rdata: B.a("192.168.1.20"))
}

/// One service announced as RFC 6763 §12.1 wants: PTR + SRV + TXT + A + NSEC.
private func service(ptrFlush: Bool = false, srvFlush: Bool = true) -> DNSBuilder {
    response { b in
        b.record(.answer, "_ipp._tcp.local", 12, flush: ptrFlush, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
        b.record(.additional, "Office._ipp._tcp.local", 33, flush: srvFlush, rdata: B.srv(631, "printer.local"))
        b.record(.additional, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
        hostA(&b, .additional)
        b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1]))
    }
}

private func txtResponse(_ rdata: [UInt8], owner: String = "Office._ipp._tcp.local") -> DNSBuilder {
    response { $0.record(.answer, owner, 16, flush: true, ttl: 4500, rdata: rdata) }
}

private func aResponse(_ addr: String, owner: String = "printer.local") -> DNSBuilder {
    response { b in
        b.record(.answer, owner, 1, flush: true, rdata: B.a(addr))
        b.record(.additional, owner, 47, flush: true, rdata: B.nsec(owner, [1]))
    }
}

/// A query from 5353 for `name`.
private func ask(_ name: String, _ type: UInt16 = 12, qu: Bool = false, qclass: UInt16 = 1) -> DNSBuilder {
    query { $0.question(name, type, qu: qu, qclass: qclass) }
}

/// A header with a question at offset 12, then `tail` as extra raw name/record bytes.
private func rawQuery(_ nameBytes: [UInt8]) -> [UInt8] {
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0] + nameBytes + B.u16(1) + B.u16(1)
}

private let longLabel = String(repeating: "a", count: 63)

struct MDNSRuleCase: CustomTestStringConvertible, Sendable {
    var id: String
    var trigger: Datagram
    var clean: Datagram
    var severity: Severity? = nil
    var testDescription: String { id }
}

/// A triggering and a near-miss input per stateless rule. The clean input must not raise
/// this rule; it may raise others.
let mdnsCases: [MDNSRuleCase] = [
    .init(id: "MDNS-001", trigger: mdns([0, 0, 0, 0, 0, 1, 0]), clean: mdns(ask("_ipp._tcp.local"))),
    .init(id: "MDNS-002", trigger: mdns({ var b = service(); b.counts = [0, 3, 0, 5]; return b }()), clean: mdns(service())),
    .init(id: "MDNS-003", trigger: mdns(service().bytes + [1, 2, 3, 4, 5, 6, 7]), clean: mdns(service()), severity: .info),
    .init(id: "MDNS-004", trigger: mdns(rawQuery([0x41] + [UInt8](repeating: 0x61, count: 65) + [0])),
          clean: mdns(ask(longLabel + ".local", 1))),
    .init(id: "MDNS-005", trigger: mdns(ask([longLabel, longLabel, longLabel, longLabel, "local"].joined(separator: "."), 1)),
          clean: mdns(ask([longLabel, longLabel, longLabel, String(repeating: "b", count: 61)].joined(separator: "."), 1))),
    .init(id: "MDNS-006", trigger: mdns(rawQuery([0xC0, 12])), clean: mdns(ask("printer.local", 1))),
    .init(id: "MDNS-007", trigger: mdns(rawQuery([1, 0x61, 0xC0, 12])), clean: mdns(ask("a.local", 1)), severity: .error),
    .init(id: "MDNS-008", trigger: mdns(rawQuery([2, 0xC3, 0x28, 5] + Array("local".utf8) + [0])), clean: mdns(ask("Café.local", 1))),
    .init(id: "MDNS-009", trigger: mdns({ var b = B(); b.raw(.answer, B.name("h.local") + B.u16(1) + B.u16(0x8001) + B.u32(120) + B.u16(300) + [1, 2, 3, 4]); return b }()),
          clean: mdns(aResponse("192.168.1.20"))),
    .init(id: "MDNS-010", trigger: mdns(response { $0.record(.answer, "h.local", 1, flush: true, rdata: [192, 168, 1, 20, 0, 0]) }), clean: mdns(aResponse("192.168.1.20"))),
    .init(id: "MDNS-011", trigger: mdns(response { $0.record(.answer, "h.local", 1, flush: true, ttl: 0x8000_0000, rdata: B.a("192.168.1.20")) }),
          clean: mdns(response { $0.record(.answer, "h.local", 1, flush: true, ttl: 0x7FFF_FFFF, rdata: B.a("192.168.1.20")) })),
    .init(id: "MDNS-012", trigger: mdns(response { $0.record(.answer, "h.local", 255, rdata: []) }), clean: mdns(aResponse("192.168.1.20")), severity: .error),
    .init(id: "MDNS-013", trigger: mdns(response { b in hostA(&b); b.record(.answer, "", 41, ttl: 0, rrclass: 1440, rdata: []) }),
          clean: mdns(response { b in hostA(&b); b.record(.additional, "", 41, ttl: 0, rrclass: 1440, rdata: []) })),
    .init(id: "MDNS-014", trigger: mdns(query { $0.question("a.local", 1); $0.record(.additional, "", 41, ttl: 0, rrclass: 1440, rdata: B.u16(4) + B.u16(10) + [UInt8](repeating: 0, count: 10)) }),
          clean: mdns(query { $0.question("a.local", 1); $0.record(.additional, "", 41, ttl: 0, rrclass: 1440, rdata: B.u16(4) + B.u16(14) + [UInt8](repeating: 0, count: 14)) })),
    .init(id: "MDNS-015", trigger: mdns(response { b in hostA(&b); b.record(.answer, "printer.local", 65, rdata: B.u16(1) + [0xC0, 12]) }),
          clean: mdns(response { b in hostA(&b); b.record(.answer, "printer.local", 65, rdata: B.u16(1) + B.name("printer.local")) })),
    .init(id: "MDNS-016", trigger: mdns(response { b in hostA(&b); b.record(.additional, "printer.local", 47, flush: true, rdata: B.name("printer.local") + [0, 0]) }),
          clean: mdns(aResponse("192.168.1.20"))),
    .init(id: "MDNS-101", trigger: mdns(query(id: 0x1A2B) { $0.question("_ipp._tcp.local", 12) }),
          clean: mdns(query(id: 0x1A2B) { $0.question("_ipp._tcp.local", 12) }, sport: 53000), severity: .warning),
    .init(id: "MDNS-102", trigger: mdns({ var b = service(); b.id = 0x1234; return b }()),
          clean: mdns({ var b = service(); b.id = 0x1234; b.question("_ipp._tcp.local", 12); return b }(), dst: "192.168.1.10", dport: 53000)),
    .init(id: "MDNS-103", trigger: mdns({ var b = service(); b.flags = 0x8000; return b }()), clean: mdns(service())),
    .init(id: "MDNS-104", trigger: mdns(query(flags: 0x0400) { $0.question("a.local", 1) }), clean: mdns(ask("a.local", 1))),
    .init(id: "MDNS-105", trigger: mdns(query(flags: 0x2800) { $0.question("a.local", 1) }), clean: mdns(ask("a.local", 1))),
    .init(id: "MDNS-106", trigger: mdns({ var b = service(); b.flags = 0x8403; return b }()), clean: mdns(service())),
    .init(id: "MDNS-107", trigger: mdns({ var b = service(); b.flags = 0x8600; return b }()), clean: mdns(query(flags: 0x0200) { $0.question("a.local", 1) })),
    .init(id: "MDNS-108", trigger: mdns(query(flags: 0x0100) { $0.question("a.local", 1) }), clean: mdns(ask("a.local", 1)), severity: .warning),
    .init(id: "MDNS-109", trigger: mdns({ var b = service(); b.flags = 0x8480; return b }()), clean: mdns(service())),
    .init(id: "MDNS-201", trigger: mdns({ var b = service(); b.question("_ipp._tcp.local", 12); return b }()),
          clean: mdns({ var b = service(); b.question("_ipp._tcp.local", 12); return b }(), dst: "192.168.1.10", dport: 53000)),
    .init(id: "MDNS-202", trigger: mdns(ask("a.local", 1, qclass: 3)), clean: mdns(ask("a.local", 1, qclass: 255))),
    .init(id: "MDNS-203", trigger: mdns(ask("a.local", 252)), clean: mdns(ask("a.local", 255))),
    .init(id: "MDNS-204", trigger: mdns(ask("a.local", 1, qu: true), sport: 53000), clean: mdns(ask("a.local", 1), sport: 53000)),
    .init(id: "MDNS-205", trigger: mdns(query { b in b.question("printer.local", 255, qu: true); b.record(.authority, "other.local", 1, rdata: B.a("192.168.1.20")) }),
          clean: mdns(query { b in b.question("printer.local", 255, qu: true); b.record(.authority, "printer.local", 1, rdata: B.a("192.168.1.20")) }), severity: .error),
    .init(id: "MDNS-206", trigger: mdns(query { b in b.question("_ipp._tcp.local", 12); b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20")) }),
          clean: mdns(query { b in b.question("_ipp._tcp.local", 12); b.record(.answer, "_ipp._tcp.local", 12, ttl: 4000, rdata: B.name("Office._ipp._tcp.local")) })),
    .init(id: "MDNS-207", trigger: mdns(query { b in b.question("Office._ipp._tcp.local", 255, qu: true); b.record(.authority, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local")) }),
          clean: mdns(query { b in b.question("Office._ipp._tcp.local", 255, qu: true); b.record(.authority, "Office._ipp._tcp.local", 33, rdata: B.srv(631, "printer.local")) })),
    .init(id: "MDNS-208", trigger: mdns(response { hostA(&$0, .additional) }), clean: mdns(aResponse("192.168.1.20")), severity: .error),
    .init(id: "MDNS-301", trigger: mdns(service(ptrFlush: true)), clean: mdns(service(srvFlush: true))),
    .init(id: "MDNS-302", trigger: mdns(service(srvFlush: false)), clean: mdns(service(srvFlush: true))),
    .init(id: "MDNS-303", trigger: mdns(response { b in b.record(.answer, "_ipp._tcp.local", 12, ttl: 10, rdata: B.name("Office._ipp._tcp.local")) }),
          clean: mdns(response { b in b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) }), severity: .warning),
    .init(id: "MDNS-304", trigger: mdns(response { b in hostA(&b, ttl: 120); b.record(.answer, "printer.local", 1, flush: true, ttl: 4500, rdata: B.a("192.168.1.21")) }),
          clean: mdns(response { b in hostA(&b, ttl: 120); b.record(.answer, "printer.local", 1, flush: true, ttl: 120, rdata: B.a("192.168.1.21")) })),
    .init(id: "MDNS-305", trigger: mdns(response { b in hostA(&b); b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("other.local", [1])) }),
          clean: mdns(aResponse("192.168.1.20")), severity: .warning),
    .init(id: "MDNS-306", trigger: mdns(response { b in b.record(.answer, "printer.local", 28, flush: true, rdata: B.aaaa([0xfe80, 0, 0, 0, 0, 0, 0, 1])); b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1])) }),
          clean: mdns(response { b in b.record(.answer, "printer.local", 28, flush: true, rdata: B.aaaa([0xfe80, 0, 0, 0, 0, 0, 0, 1])); b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1, 28])) })),
    .init(id: "MDNS-307", trigger: mdns(response { $0.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "")) }),
          clean: mdns(response { $0.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local")) })),
    .init(id: "MDNS-308", trigger: mdns(response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) }), clean: mdns(service())),
    .init(id: "MDNS-309", trigger: mdns(response { hostA(&$0) }), clean: mdns(aResponse("192.168.1.20"))),
    .init(id: "MDNS-310", trigger: mdns(aResponse("127.0.0.1")), clean: mdns(aResponse("192.168.1.20")), severity: .error),
    .init(id: "MDNS-311", trigger: mdns(txtResponse([])), clean: mdns(txtResponse([0])), severity: .error),
    .init(id: "MDNS-312", trigger: mdns(txtResponse(B.txt(["=value"]))), clean: mdns(txtResponse(B.txt(["key=value", "flag"]))), severity: .error),
    .init(id: "MDNS-313", trigger: mdns(txtResponse(B.txt(["path=/a", "PATH=/b"]))), clean: mdns(txtResponse(B.txt(["path=/a", "paths=/b"])))),
    .init(id: "MDNS-314", trigger: mdns(txtResponse(B.txt(Array(repeating: "k=" + String(repeating: "v", count: 198), count: 9)))),
          clean: mdns(txtResponse(B.txt(Array(repeating: "k=" + String(repeating: "v", count: 98), count: 3)))), severity: .warning),
    .init(id: "MDNS-315", trigger: mdns(response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("_ipp._tcp.local")) }),
          clean: mdns(response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) })),
    .init(id: "MDNS-316", trigger: mdns(ask("_my_service._tcp.local")), clean: mdns(ask("_my-service._tcp.local"))),
    .init(id: "MDNS-317", trigger: mdns(txtResponse([0], owner: "Office\nA._ipp._tcp.local")), clean: mdns(txtResponse([0], owner: "Office A._ipp._tcp.local"))),
    .init(id: "MDNS-318", trigger: mdns(response { $0.record(.answer, "_printer._sub._http._tcp.local", 12, ttl: 4500, rdata: B.name("x._ipp._tcp.local")) }),
          clean: mdns(response { $0.record(.answer, "_printer._sub._http._tcp.local", 12, ttl: 4500, rdata: B.name("x._http._tcp.local")) })),
    .init(id: "MDNS-319", trigger: mdns(response { $0.record(.answer, "_services._dns-sd._udp.local", 12, ttl: 4500, rdata: B.name("My Printer._ipp._tcp.local")) }),
          clean: mdns(response { $0.record(.answer, "_services._dns-sd._udp.local", 12, ttl: 4500, rdata: B.name("_ipp._tcp.local")) })),
    .init(id: "MDNS-320", trigger: mdns(aResponse("192.168.1.20", owner: "My Host.local")), clean: mdns(aResponse("192.168.1.20", owner: "my-host.local")), severity: .info),
    .init(id: "MDNS-321", trigger: mdns(response { b in hostA(&b); hostA(&b, .additional) }), clean: mdns(service())),
    .init(id: "MDNS-322", trigger: mdns(ask("printer.example.com", 1)), clean: mdns(ask("printer.local", 1)), severity: .info),
    .init(id: "MDNS-401", trigger: mdns(service(), sport: 49152), clean: mdns(service())),
    .init(id: "MDNS-402", trigger: mdns(service(), dport: 5000), clean: mdns(service())),
    .init(id: "MDNS-404", trigger: mdns(response { $0.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20")) }, dst: "192.168.1.10", dport: 53123),
          clean: mdns(response { b in b.question("printer.local", 1); b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20")) }, dst: "192.168.1.10", dport: 53123)),
    .init(id: "MDNS-405", trigger: mdns(response { b in b.question("printer.local", 1); b.record(.answer, "printer.local", 1, ttl: 4500, rdata: B.a("192.168.1.20")) }, dst: "192.168.1.10", dport: 53123),
          clean: mdns(response { b in b.question("printer.local", 1); b.record(.answer, "printer.local", 1, ttl: 10, rdata: B.a("192.168.1.20")) }, dst: "192.168.1.10", dport: 53123), severity: .warning),
    .init(id: "MDNS-406", trigger: mdns(service(), ttl: 64), clean: mdns(service()), severity: .warning),
    .init(id: "MDNS-407", trigger: mdns(service(), src: "10.9.9.9", dst: "192.168.1.10"), clean: mdns(service(), src: "192.168.1.20", dst: "192.168.1.10"), severity: .info),
    .init(id: "MDNS-408", trigger: mdns(service(), ipLength: 9100), clean: mdns(service(), ipLength: 9000)),
    .init(id: "MDNS-409", trigger: mdns(service(), fragments: [1, 2]), clean: mdns(txtResponse(B.txt([String(repeating: "x", count: 200)])), fragments: [1, 2])),
    .init(id: "MDNS-410", trigger: mdns(ask("a.local", 1), dst: "224.0.0.252"), clean: mdns(ask("a.local", 1)), severity: .error),
]

@Suite struct MDNSRuleTests {
    @Test(arguments: mdnsCases)
    func ruleTriggersAndNearMissStaysClean(_ c: MDNSRuleCase) {
        expectRule(c.id, severity: c.severity, firesOn: mdnsFindings(c.trigger), notOn: mdnsFindings(c.clean))
    }

    /// The issue's named pairs, spelled out.
    @Test func singleEmptyStringTXTIsCleanButEmptyTXTIsNot() {
        #expect(mdnsFindings(mdns(txtResponse([0]))).allSatisfy { $0.rule.rawValue != "MDNS-311" })
        #expect(mdnsFindings(mdns(txtResponse([]))).contains { $0.rule.rawValue == "MDNS-311" && $0.severity == .error })
    }

    @Test func legacyQueryWithNonZeroIDFromAnEphemeralPortIsClean() {
        let f = mdnsFindings(mdns(query(id: 0x04D2) { $0.question("printer.local", 1) }, sport: 53000))
        #expect(f.filter { $0.severity >= .warning }.isEmpty, "\(f.map(\.rule))")
    }

    @Test func aWellFormedAnnouncementRaisesNothingAboveInfo() {
        let f = mdnsFindings(mdns(service()))
        #expect(f.filter { $0.severity >= .warning }.isEmpty, "\(f.map { "\($0.rule) \($0.message)" })")
    }

    @Test func nonDNSPayloadOnPort5353IsAFindingNotSilence() {
        let f = mdnsFindings(mdns(Array("HELLO from my app, v1.2 — discovery beacon".utf8)))
        #expect(f.contains { $0.rule.rawValue == "MDNS-002" && $0.message.contains("does not look like DNS") })
        let short = mdnsFindings(mdns(Array("PING".utf8)))
        #expect(short.contains { $0.rule.rawValue == "MDNS-001" && $0.message.contains("looks like text") })
    }

    @Test func truncatedDatagramIsNotReportedAsMalformed() {
        var d = mdns(Array(service().bytes.prefix(40)))
        d.udpPayloadLength = service().bytes.count
        let f = mdnsFindings(d)
        #expect(!f.contains { ["MDNS-002", "MDNS-009", "MDNS-010"].contains($0.rule.rawValue) })
    }
}

/// MDNS-316's check, read in place from a range of a larger buffer: each label's verdict
/// and, for a bad one, the reason the finding gives.
@Suite struct ServiceLabelCheckTests {
    @Test func eachLabelGetsItsProblemOrNone() {
        let expected: [(String, String?)] = [
            ("_http", nil), ("_ipp", nil), ("_a", nil), ("_1", "no letter"), ("_a-b", nil), ("_googlecast", nil),
            ("_companion-link", nil), ("_abcdefghijklmno", nil), ("_abcdefghijklmnop", "16 characters after _ (1–15)"),
            ("http", "does not start with _"), ("_", "0 characters after _ (1–15)"), ("_-ab", "leading or trailing hyphen"),
            ("_ab-", "leading or trailing hyphen"), ("_a--b", "double hyphen"), ("_123", "no letter"),
            ("_a_b", "characters other than letters, digits and hyphens"),
            ("_a.b", "characters other than letters, digits and hyphens"),
            ("_\u{e9}", "characters other than letters, digits and hyphens"), ("", "does not start with _"), ("_A-1-b", nil),
        ]
        for (text, problem) in expected {
            let bytes = Array(("xx" + text + "yy").utf8)
            let range = 2..<(bytes.count - 2)
            #expect(MDNSRules.serviceLabelProblem(bytes, range) == problem, "\(text)")
        }
    }
}

@Suite struct MDNSCatalogTests {
    /// Every stateless rule of shared/rules/mdns.md (0xx–4xx; MDNS-403 is stateful).
    static let expected: [String] =
        (1...16).map { mdnsID($0) } + (101...109).map { mdnsID($0) } + (201...208).map { mdnsID($0) }
        + (301...322).map { mdnsID($0) } + [401, 402, 404, 405, 406, 407, 408, 409, 410].map { mdnsID($0) }

    @Test func everyCatalogRuleIsImplementedOnceWithNameAndSpec() {
        expectCatalog(MDNSCatalog.descriptors, hasExactly: Self.expected)
    }

    @Test func everyRuleHasATriggerAndNearMissTest() {
        #expect(Set(mdnsCases.map(\.id)) == Set(Self.expected))
    }

    @Test func everyStatelessRuleHasACheck() {
        #expect(Set(MDNSRules.all.map(\.descriptor.id.rawValue)) == Set(Self.expected))
    }

    @Test func catalogIDsAreUniqueAcrossProtocols() {
        let all = RuleCatalog.all.map(\.id)
        #expect(all.count == Set(all).count)
        #expect(all.count == SSDPCatalog.descriptors.count + MDNSCatalog.descriptors.count)
    }
}

private func mdnsID(_ n: Int) -> String {
    let d = String(n)
    return "MDNS-" + String(repeating: "0", count: max(0, 3 - d.count)) + d
}
