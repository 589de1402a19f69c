import DiscoScopeKit
import Testing

/// The library's API as another package's tests use it: one datagram checked alone, a session
/// of timed datagrams, and the parse-only views.
@Suite struct DiscoScopeKitTests {
    /// A correct mDNS announcement of an IPP printer: shared PTR, unique SRV, TXT, A and AAAA
    /// (cache-flush set on the unique records), from port 5353 to the group.
    static let announcement = bytes(
        "000084000000000500000000045f697070045f746370056c6f63616c00000c0001000011940019075072696e74657204"
            + "5f697070045f746370056c6f63616c00075072696e746572045f697070045f746370056c6f63616c0000218001000000"
            + "780015000000000277077072696e746572056c6f63616c00075072696e746572045f697070045f746370056c6f63616c"
            + "000010800100001194000a09747874766572733d31077072696e746572056c6f63616c0000018001000000780004c000"
            + "0201077072696e746572056c6f63616c00001c8001000000780010fe800000000000000000000000000001")

    static let notifyLines = [
        "NOTIFY * HTTP/1.1", "HOST: 239.255.255.250:1900", "CACHE-CONTROL: max-age=1800",
        "LOCATION: http://192.0.2.1:8200/rootDesc.xml", "NT: upnp:rootdevice", "NTS: ssdp:alive",
        "SERVER: Linux/6.1 UPnP/1.1 example/1.0",
        "USN: uuid:4d696e69-444c-164e-9d41-b827eb000001::upnp:rootdevice", "BOOTID.UPNP.ORG: 1",
        "CONFIGID.UPNP.ORG: 1",
    ]
    /// A correct SSDP NOTIFY alive, and the same with bare LF line endings.
    static let notify = Array((notifyLines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    static let bareLFNotify = Array((notifyLines.joined(separator: "\n") + "\n\n").utf8)

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var high: UInt8? = nil
        for c in hex.utf8 {
            let v = c <= 0x39 ? c - 0x30 : c - 0x61 + 10
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }

    @Test func helloAllOnPort5353HasNoDNSHeader() {
        let found = check(payload: Array("helloAll".utf8), sourcePort: 5353, destinationPort: 5353)
        let header = found.filter { $0.ruleID == "MDNS-001" }
        #expect(header.count == 1, "\(found)")
        #expect(header.first?.severity == .error)
        #expect(header.first?.frames == [1])
        #expect(header.first?.specReference.contains("RFC") == true)
    }

    @Test func bareLFNotifyViolatesCRLFLineEndings() {
        let found = check(payload: Self.bareLFNotify, sourcePort: 1900, destinationPort: 1900)
        #expect(found.contains { $0.ruleID == "SSDP-005" }, "\(found)")
        #expect(
            !check(payload: Self.notify, sourcePort: 1900, destinationPort: 1900).contains { $0.ruleID == "SSDP-005" })
    }

    @Test func correctAnnouncementsHaveNoFindingAboveInfo() {
        let ssdp = check(payload: Self.notify, sourcePort: 1900, destinationPort: 1900)
        #expect(ssdp.allSatisfy { $0.severity == .info }, "\(ssdp)")
        let mdns = check(payload: Self.announcement, sourcePort: 5353, destinationPort: 5353)
        #expect(mdns.allSatisfy { $0.severity == .info }, "\(mdns)")
    }

    @Test func aSessionJudgesTimingAcrossDatagrams() throws {
        // The same record multicast again 0.4 s later: at most once per second (MDNS-506),
        // reported on the second datagram and naming the first.
        let session = Session()
        let host = try Endpoint("192.0.2.1", port: 5353)
        #expect(session.feed(payload: Self.announcement, source: host, destination: .mdnsIPv4, time: 10).isEmpty)
        let again = session.feed(payload: Self.announcement, source: host, destination: .mdnsIPv4, time: 10.4)
        let rate = try #require(again.first { $0.ruleID == "MDNS-506" }, "\(again)")
        #expect(rate.frames == [2, 1])
        #expect(rate.related == [1])
        #expect(rate.source == "192.0.2.1")
        // Spaced a second apart, no such finding.
        let calm = Session()
        calm.feed(payload: Self.announcement, source: host, destination: .mdnsIPv4, time: 10)
        #expect(
            !calm.feed(payload: Self.announcement, source: host, destination: .mdnsIPv4, time: 11.5).contains {
                $0.ruleID == "MDNS-506"
            })
    }

    @Test func finishReportsWhatOnlyTheEndShows() throws {
        // An SRV seen in two messages, never with a TXT: known only at the end (MDNS-518).
        var withoutTXT = Self.announcement
        // The TXT record's type (16) becomes 17 (RP): the instance has no TXT.
        let txtType = try #require(Self.find([0x00, 0x10, 0x80, 0x01], in: withoutTXT))
        withoutTXT[txtType + 1] = 17
        let session = Session()
        let host = try Endpoint("192.0.2.1", port: 5353)
        session.feed(payload: withoutTXT, source: host, destination: .mdnsIPv4, time: 10)
        session.feed(payload: withoutTXT, source: host, destination: .mdnsIPv4, time: 20)
        let end = session.finish()
        let missing = try #require(end.first { $0.ruleID == "MDNS-518" }, "\(end)")
        #expect(missing.atEnd)
        #expect(missing.frames.first == 1)
        // The session is over: nothing more is judged.
        #expect(session.feed(payload: Array("helloAll".utf8), source: host, destination: .mdnsIPv4, time: 30).isEmpty)
        #expect(session.finish().isEmpty)
    }

    @Test func rulesCanBeDisabledByIDOrNameAndUnknownOnesAreRefused() throws {
        let host = try Endpoint("192.0.2.1", port: 5353)
        let session = try Session(disabling: ["MDNS-001"])
        #expect(session.feed(payload: Array("helloAll".utf8), source: host, destination: .mdnsIPv4, time: 0).isEmpty)
        #expect(throws: UnknownRuleError.self) { try Session(disabling: ["MDNS-9999"]) }
        #expect(throws: EndpointError.self) { try Endpoint("printer.local", port: 5353) }
        #expect(try Endpoint("fe80::1", port: 5353).description == "[fe80::1]:5353")
    }

    @Test func messagesDecodeForCallersWhoWantTheParseOnly() {
        let notify = SSDPMessage(parsing: Self.notify)
        #expect(notify.kind == .notify)
        #expect(notify.startLine == "NOTIFY * HTTP/1.1")
        #expect(notify.value(of: "nts") == "ssdp:alive")
        #expect(notify.anomalies.isEmpty)
        #expect(SSDPMessage(parsing: Self.bareLFNotify).anomalies.contains("bare-lf"))

        let m = MDNSMessage(parsing: Self.announcement)
        #expect(m.isResponse && m.isComplete && m.anomalies.isEmpty)
        #expect(m.records.map(\.typeName) == ["PTR", "SRV", "TXT", "A", "AAAA"])
        #expect(m.records[1].name == "Printer._ipp._tcp.local.")
        #expect(m.records[1].cacheFlush && !m.records[0].cacheFlush)
        #expect(m.records[3].data == "192.0.2.1")
        let short = MDNSMessage(parsing: Array("helloAll".utf8))
        #expect(!short.isComplete && short.anomalies == ["short-header"])
    }

    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        return (0...(hay.count - needle.count)).first { Array(hay[$0..<($0 + needle.count)]) == needle }
    }
}
