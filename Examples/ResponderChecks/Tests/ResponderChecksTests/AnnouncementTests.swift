import DiscoScopeKit
import ResponderChecks
import Testing

/// The firmware's announcements, judged by DiscoScope's rules: the correct ones raise nothing
/// above info; each broken one raises the rule that describes its bug.
@Suite struct AnnouncementTests {
    static let printer = Announcements.printer(
        instance: "Office", host: "printer", ipv4: [192, 0, 2, 1],
        ipv6: [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])

    @Test func theNotifyIsCorrect() {
        let found = check(
            payload: Announcements.notify(location: "http://192.0.2.1:8200/rootDesc.xml"), sourcePort: 1900,
            destinationPort: 1900)
        #expect(found.allSatisfy { $0.severity == .info }, "\(found)")
    }

    @Test func aNotifyWithBareLineFeedsBreaksCRLF() {
        let found = check(
            payload: Announcements.notify(location: "http://192.0.2.1:8200/rootDesc.xml", lineEnding: "\n"),
            sourcePort: 1900, destinationPort: 1900)
        #expect(found.contains { $0.ruleID == "SSDP-005" && $0.severity == .error }, "\(found)")
    }

    @Test func theAnnouncementIsCorrect() {
        let found = check(payload: Self.printer, sourcePort: 5353, destinationPort: 5353)
        #expect(found.allSatisfy { $0.severity == .info }, "\(found)")
    }

    @Test func garbageOnPort5353HasNoDNSHeader() {
        let found = check(payload: Array("helloAll".utf8), sourcePort: 5353, destinationPort: 5353)
        #expect(found.contains { $0.ruleID == "MDNS-001" }, "\(found)")
    }

    @Test func theStartUpSequenceKeepsToOncePerSecond() throws {
        // Announced at start-up, then again one and three seconds later (RFC 6762 §8.3).
        let session = Session()
        let device = try Endpoint("192.0.2.1", port: 5353)
        var found: [Finding] = []
        for t in [0.0, 1.0, 3.0] {
            found += session.feed(payload: Self.printer, source: device, destination: .mdnsIPv4, time: t)
        }
        found += session.finish()
        #expect(!found.contains { $0.ruleID == "MDNS-506" }, "\(found)")
        // A retry loop that sends it again after 200 ms breaks the once-per-second limit.
        let hasty = Session()
        hasty.feed(payload: Self.printer, source: device, destination: .mdnsIPv4, time: 0)
        let again = hasty.feed(payload: Self.printer, source: device, destination: .mdnsIPv4, time: 0.2)
        #expect(again.contains { $0.ruleID == "MDNS-506" && $0.related == [1] }, "\(again)")
    }

    @Test func anInstanceWithoutTXTIsIncomplete() throws {
        let noTXT = Announcements.printer(
            instance: "Office", host: "printer", ipv4: [192, 0, 2, 1],
            ipv6: [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], txt: nil)
        let session = Session()
        let device = try Endpoint("192.0.2.1", port: 5353)
        session.feed(payload: noTXT, source: device, destination: .mdnsIPv4, time: 0)
        session.feed(payload: noTXT, source: device, destination: .mdnsIPv4, time: 1)
        let end = session.finish()
        #expect(end.contains { $0.ruleID == "MDNS-518" && $0.atEnd }, "\(end)")
    }

    @Test func theParseIsThereForTestsThatWantIt() {
        let m = MDNSMessage(parsing: Self.printer)
        #expect(m.records.map(\.typeName) == ["PTR", "SRV", "TXT", "A", "AAAA"])
        #expect(m.records[1].data == "0 0 631 printer.local.")
    }
}
