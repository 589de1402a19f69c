import DNS
import Driver
import Findings
import NetLayers
import Reporting
import TestSupport
import Testing
import WireFormat

@testable import Analyzer

/// Segments (links) through the whole pipeline: records and findings carry their segment's
/// name, the inventory lists where each device, host and service was seen, and a run without
/// named segments writes nothing of them.
@Suite struct SegmentTests {
    /// A DNS-SD announcement of `Office._ipp._tcp.local.` on `office.local.` (A record).
    static let announcement: [UInt8] = {
        var b = DNSBuilder()
        b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: DNSBuilder.name("Office._ipp._tcp.local"))
        b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: DNSBuilder.srv(631, "office.local"))
        b.record(.answer, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: DNSBuilder.txt(["txtvers=1"]))
        b.record(.answer, "office.local", 1, flush: true, rdata: DNSBuilder.a("192.168.1.20"))
        return b.bytes
    }()

    /// An SSDP NOTIFY with bare LF line ends (SSDP-005), from a device seen on one segment.
    static let notify: [UInt8] = Array(
        ("NOTIFY * HTTP/1.1\nHOST: 239.255.255.250:1900\nCACHE-CONTROL: max-age=1800\n"
            + "LOCATION: http://192.168.2.30:8080/d.xml\nNT: upnp:rootdevice\nNTS: ssdp:alive\n"
            + "SERVER: Linux/6.1 UPnP/1.1 seg/1.0\nUSN: uuid:4d696e69-444c-164e-9d41-b827eb00aa01::upnp:rootdevice\n\n")
            .utf8)

    /// The announcement on segment `lan` and, reflected, on `iot`; the NOTIFY on `iot`.
    static func run(
        _ reporter: (CollectingSink) -> any Reporter, jobs: Int, named: Bool = true, inventory: Bool = true
    ) -> (text: String, analysis: Analysis) {
        let sink = CollectingSink()
        var options = Analysis.Options()
        options.jobs = jobs
        options.reportsInventory = inventory
        let analysis = Analysis(reporter: reporter(sink), options: options, policy: nil, makePool: workerThreads)
        analysis.beginInput("lan.pcap+iot.pcap", fileIndex: 0)
        let lan = named ? analysis.segment(named: "lan") : 0
        let iot = named ? analysis.segment(named: "iot") : 0
        let t = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)
        var first = makeDatagram(announcement, frame: 1, time: t)
        first.segment = lan
        var reflected = makeDatagram(announcement, src: "192.168.2.1", frame: 2, time: t)
        reflected.segment = iot
        var n = makeDatagram(
            notify, src: "192.168.2.30", srcPort: 1900, dst: "239.255.255.250", dstPort: 1900, frame: 3, time: t)
        n.segment = iot
        for d in [first, reflected, n] { analysis.datagram(d) }
        analysis.endInput()
        _ = analysis.finish()
        return (sink.text, analysis)
    }

    static func jsonl(jobs: Int, named: Bool = true) -> [String] {
        run({ JSONLinesReporter(sink: $0, files: ["lan.pcap+iot.pcap"]) }, jobs: jobs, named: named).text.split(
            separator: "\n"
        ).map(String.init)
    }

    @Test(arguments: [1, 4])
    func recordsFindingsAndTheInventoryNameTheirSegments(jobs: Int) throws {
        let lines = Self.jsonl(jobs: jobs)
        let messages = lines.filter { $0.contains(#""type":"message""#) }
        #expect(messages.count == 3)
        #expect(messages[0].hasPrefix(#"{"type":"message","file":"lan.pcap+iot.pcap","segment":"lan","frame":1,"#))
        #expect(messages[1].contains(#""segment":"iot","frame":2,"#))
        let bareLF = try #require(lines.first { $0.contains(#""rule":"SSDP-005""#) })
        #expect(bareLF.hasPrefix(#"{"type":"finding","file":"lan.pcap+iot.pcap","segment":"iot","rule""#))
        // Every finding names a segment (the one of the frame it is about).
        #expect(lines.filter { $0.contains(#""type":"finding""#) }.allSatisfy { $0.contains(#""segment":""#) })
        // The host and the service were seen on both links, the SSDP device on one.
        let host = try #require(lines.first { $0.contains(#""type":"device""#) && $0.contains("office.local.") })
        #expect(host.contains(#""segments":["lan","iot"]"#), "\(host)")
        let service = try #require(lines.first { $0.contains(#""type":"service""#) })
        #expect(service.contains(#""segments":["lan","iot"]"#), "\(service)")
        let device = try #require(
            lines.first { $0.contains(#""protocol":"ssdp""#) && $0.contains(#""type":"device""#) })
        #expect(device.contains(#""segments":["iot"]"#), "\(device)")
        #expect(lines.last?.contains(#""files":["lan.pcap+iot.pcap"],"segments":["lan","iot"],"#) == true)
    }

    @Test func oneJobAndFourWriteTheSameLines() {
        #expect(Self.jsonl(jobs: 1) == Self.jsonl(jobs: 4))
    }

    @Test func withoutNamedSegmentsNothingOfThemIsWritten() {
        let lines = Self.jsonl(jobs: 1, named: false)
        #expect(!lines.isEmpty)
        #expect(!lines.contains { $0.contains("segment") })
    }

    @Test func textLinesStartWithTheSegmentAndSARIFCarriesIt() throws {
        var o = TextReporter.Options()
        o.utcOffset = nil
        let text = Self.run({ TextReporter(sink: $0, options: o) }, jobs: 1).text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("[lan] 1 22:13:20.000000 192.168.1.20:5353 > 224.0.0.251:5353 mDNS ") })
        #expect(lines.contains { $0.hasPrefix("[iot] 3 22:13:20.000000 192.168.2.30:1900 > ") })
        // A finding under its message has no prefix: it belongs to the line above.
        #expect(lines.contains { $0.hasPrefix("    error SSDP-005 ") || $0.hasPrefix("    warning SSDP-005 ") })
        #expect(lines.contains { $0.hasPrefix("  segments    lan, iot") })
        #expect(lines.contains { $0.contains("office.local.") && $0.hasSuffix("[lan, iot]") })

        var q = o
        q.quiet = true
        let quiet = Self.run({ TextReporter(sink: $0, options: q) }, jobs: 1).text
        #expect(
            quiet.split(separator: "\n").contains { $0.hasPrefix("[iot] frame 3 from 192.168.2.30: ") }, "\(quiet)")

        let sarif = Self.run({ SARIFReporter(sink: $0, toolVersion: "test") }, jobs: 1).text
        #expect(sarif.contains(#""segment":"iot""#))
    }
}
