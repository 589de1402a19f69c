import DNS
import Findings
import NetLayers
import TestSupport
import Testing
import WireFormat

@testable import Rules

@Suite struct MDNSRuleTests {
    /// A forwarder's IPv6 copy of another host's records comes from the forwarder's own
    /// link-local address; a host sends its own from the link-local address it publishes.
    @Test func anIPv6ResponseIsACopyWhenItsLinkLocalAddressRecordsAreAnotherHosts() {
        func input(from src: String, aaaa groups: [UInt16]) -> MDNSInput {
            let d = mdns(
                response { b in
                    b.record(.answer, "printer.local", 28, flush: true, ttl: 120, rdata: B.aaaa(groups))
                }, src: src, dst: "ff02::fb")
            return MDNSInput(message: DNSMessage(parsing: d.payload), datagram: d)
        }
        let printer: [UInt16] = [0xfe80, 0, 0, 0, 0x98, 0x2ff, 0xfe00, 0x10]
        #expect(input(from: "fe80::98:1ff:fe00:1", aaaa: printer).isRelayed)
        #expect(!input(from: "fe80::98:2ff:fe00:10", aaaa: printer).isRelayed)
        // A global address says nothing of who sends it, nor does a global source.
        #expect(!input(from: "fe80::98:1ff:fe00:1", aaaa: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10]).isRelayed)
        #expect(!input(from: "2001:db8::1", aaaa: printer).isRelayed)
    }

    /// The issue's named pairs, spelled out.
    @Test func singleEmptyStringTXTIsCleanButEmptyTXTIsNot() {
        #expect(mdnsFindings(mdns(txtResponse([0]))).allSatisfy { $0.rule.rawValue != "MDNS-311" })
        #expect(
            mdnsFindings(mdns(txtResponse([]))).contains { $0.rule.rawValue == "MDNS-311" && $0.severity == .error })
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
            ("http", "does not start with _"), ("_", "0 characters after _ (1–15)"),
            ("_-ab", "leading or trailing hyphen"),
            ("_ab-", "leading or trailing hyphen"), ("_a--b", "double hyphen"), ("_123", "no letter"),
            ("_a_b", "characters other than letters, digits and hyphens"),
            ("_a.b", "characters other than letters, digits and hyphens"),
            ("_\u{e9}", "characters other than letters, digits and hyphens"), ("", "does not start with _"),
            ("_A-1-b", nil),
        ]
        for (text, problem) in expected {
            let bytes = Array(("xx" + text + "yy").utf8)
            let range = 2..<(bytes.count - 2)
            #expect(MDNSRuleSupport.serviceLabelProblem(bytes, range) == problem, "\(text)")
        }
    }
}

/// SEG-002's NSEC clause beyond its examples.
@Suite struct NSECInTransitTests {
    typealias Rule = RecordsRewrittenInTransitRule

    func seg002(_ datagrams: [Datagram]) -> [Finding] { analyse(datagrams).findings.filter { $0.rule == "SEG-002" } }

    @Test func aNameIsReportedOnceThoughEveryAnnouncementLosesItsNSEC() {
        let seq = [0.0, 3, 6].flatMap { t in
            [
                on(1, mdns(aResponse("192.168.1.20"), src: "192.168.1.20", at: t)),
                on(2, mdns(response { hostA(&$0) }, src: "192.168.2.1", at: t + 0.9)),
            ]
        }
        let found = seg002(seq + [Rule.later])
        #expect(found.map(\.frames) == [[2, 1]])
    }

    @Test func anNSECAfterTheWindowDoesNotClearIt() {
        let late = on(2, mdns(Rule.nsecOnly(), src: "192.168.2.1", at: 2.5))
        #expect(seg002(Rule.nsecForwarded([response { hostA(&$0) }]).dropLast() + [late, Rule.later]).count == 1)
    }

    @Test func anotherHostsNSECOnTheSegmentDoesNotStandForTheForwarders() {
        let other = on(2, mdns(Rule.nsecOnly(), src: "192.168.2.2", at: 1.2))
        #expect(seg002(Rule.nsecForwarded([response { hostA(&$0) }]).dropLast() + [other, Rule.later]).count == 1)
    }
}
