import DNS
import Findings
import NetLayers
import Reporting
import TestSupport
import Testing
import WireFormat

@testable import Rules

/// #55: what the session stages keep of questions nothing answered, and its bounds.
@Suite struct UnansweredTests {
    typealias B = DNSBuilder
    static func at(_ s: Int64) -> Timestamp { Timestamp(seconds: 1_700_000_000 + s, nanoseconds: 0) }

    static func query(_ name: String, _ type: UInt16 = 12, from src: String = "192.168.1.10", at s: Int64) -> Datagram {
        var q = B.query()
        q.question(name, type)
        return makeDatagram(q.bytes, src: src, time: at(s))
    }
    static func ptr(_ name: String, _ target: String, from src: String = "192.168.1.20", at s: Int64) -> Datagram {
        var r = B()
        r.record(.answer, name, 12, ttl: 4500, rdata: B.name(target))
        return makeDatagram(r.bytes, src: src, time: at(s))
    }
    static func names(_ s: RunSummary) -> [String] { s.unanswered.map(\.label) }

    @Test func aQuestionIsUnansweredUntilAResponseCarriesItsNameAndType() {
        let asked = analyse([Self.query("_ipp._tcp.local", at: 0), Self.query("_ipp._tcp.local", at: 2)]).summary
        #expect(Self.names(asked) == ["_ipp._tcp.local. PTR"])
        #expect(asked.unanswered.first?.asked == 2)
        #expect(asked.unanswered.first?.askers == ["192.168.1.10"])
        // From anyone, later: answered.
        let answered = analyse([
            Self.query("_ipp._tcp.local", at: 0), Self.ptr("_ipp._tcp.local", "P._ipp._tcp.local", at: 1),
        ]).summary
        #expect(answered.unanswered.isEmpty)
        // A record of the name but another type does not answer a PTR question.
        var a = B()
        a.record(.answer, "_ipp._tcp.local", 16, ttl: 4500, rdata: B.txt(["x=1"]))
        let other = analyse([
            Self.query("_ipp._tcp.local", at: 0), makeDatagram(a.bytes, src: "192.168.1.20", time: Self.at(1)),
        ]).summary
        #expect(Self.names(other) == ["_ipp._tcp.local. PTR"])
    }

    @Test func anEarlierResponseStillHeldAndAKnownAnswerCountAsAnswers() {
        let before = analyse([
            Self.ptr("_ipp._tcp.local", "P._ipp._tcp.local", at: 0), Self.query("_ipp._tcp.local", at: 3),
        ])
        .summary
        #expect(before.unanswered.isEmpty)
        var q = B.query()
        q.question("_http._tcp.local", 12)
        q.record(.answer, "_http._tcp.local", 12, ttl: 4500, rdata: B.name("W._http._tcp.local"))
        let known = analyse([makeDatagram(q.bytes, src: "192.168.1.10", time: Self.at(0))]).summary
        #expect(known.unanswered.isEmpty)
    }

    @Test func probedNamesAreNotLookups() {
        // A probe (authority records) and its questions sent again alone, as avahi's
        // reflector does: nobody answering a probe is success.
        var probe = B.query()
        probe.question("printer.local", 255)
        probe.record(.authority, "printer.local", 1, ttl: 120, rdata: B.a("192.168.1.20"))
        let bare = Self.query("printer.local", 255, from: "192.168.1.1", at: 1)
        let s = analyse([makeDatagram(probe.bytes, src: "192.168.1.20", time: Self.at(0)), bare]).summary
        #expect(s.unanswered.isEmpty, "\(Self.names(s))")
    }

    @Test func theTableIsCappedAndItsEvictionsCounted() {
        let n = 1100
        let flood = (0..<n).map { Self.query("_s\($0)._tcp.local", at: Int64($0 / 100)) }
        let s = analyse(flood).summary
        #expect(s.unansweredTotal <= 1024)
        #expect(s.unansweredTotal >= 1024 - 1024 / 8)
        #expect(s.unanswered.count == RunSummary.maxUnanswered)
        #expect(s.stateEvicted > 0)
    }

    @Test func rowsAgeOutAnHourAfterTheirLastAsk() {
        // 1024 questions fill the table; an hour and more later, new ones push out the stale
        // rows uncounted (the table's horizon), not live ones.
        var ds = (0..<1024).map { Self.query("_old\($0)._tcp.local", at: 0) }
        ds.append(Self.query("_new._tcp.local", at: 3700))
        let s = analyse(ds).summary
        #expect(Self.names(s).contains("_new._tcp.local. PTR"))
        #expect(s.unansweredTotal == 1)
    }

    static func search(_ st: String, at s: Int64) -> Datagram {
        let text =
            "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 2\r\nST: \(st)\r\n\r\n"
        return makeDatagram(
            Array(text.utf8), src: "192.168.1.10", srcPort: 50000, dst: "239.255.255.250", dstPort: 1900, time: at(s))
    }
    static func ok(_ st: String, at s: Int64) -> Datagram {
        let u = "uuid:4d696e69-444c-164e-9d41-b827eb0000e5"
        let text =
            "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\nLOCATION: http://192.168.1.25:8200/rootDesc.xml\r\nSERVER: Linux/6.1 UPnP/1.1 t/1.0\r\nST: \(st)\r\nUSN: \(u)::\(st)\r\n\r\n"
        return makeDatagram(
            Array(text.utf8), src: "192.168.1.25", srcPort: 1900, dst: "192.168.1.10", dstPort: 50000, time: at(s))
    }

    @Test func anSSDPSearchIsAnsweredByA200OKWithItsSTToItsEndpoint() {
        let none = analyse([Self.search("upnp:rootdevice", at: 0)]).summary
        #expect(Self.names(none) == ["upnp:rootdevice"])
        #expect(none.unanswered.first?.askers == ["192.168.1.10:50000"])
        #expect(
            analyse([Self.search("upnp:rootdevice", at: 0), Self.ok("upnp:rootdevice", at: 1)]).summary.unanswered
                .isEmpty)
        // Another ST does not answer it; any ST answers ssdp:all.
        let other = analyse([Self.search("upnp:rootdevice", at: 0), Self.ok("urn:schemas-upnp-org:device:X:1", at: 1)])
        #expect(Self.names(other.summary) == ["upnp:rootdevice"])
        let all = analyse([Self.search("ssdp:all", at: 0), Self.ok("urn:schemas-upnp-org:device:X:1", at: 1)])
        #expect(all.summary.unanswered.isEmpty)
    }
}
