import Analyzer
import DNS
import Findings
import NetLayers
import Reporting
import TestSupport
import Testing
import WireFormat

/// Discards output but touches every string (so rendering runs in full).
final class CountingSink: OutputSink {
    var bytes = 0
    func write(_ text: String) { bytes &+= text.utf8.count }
    func flush() {}
}

/// Valid SSDP and mDNS payloads to mutate: the whole pipeline (decoders, all 110 rules, every
/// reporter, verbose rendering) must survive any corruption of them without trapping.
private let seeds: [(payload: [UInt8], port: UInt16)] = {
    var b = DNSBuilder()
    b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: DNSBuilder.name("Office._ipp._tcp.local"))
    b.record(.additional, "Office._ipp._tcp.local", 33, flush: true, rdata: DNSBuilder.srv(631, "printer.local"))
    b.record(
        .additional, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500,
        rdata: DNSBuilder.txt(["rp=ipp/print", "ty=Office", "Color"]))
    b.record(.additional, "printer.local", 1, flush: true, rdata: DNSBuilder.a("192.168.1.30"))
    b.record(.additional, "printer.local", 28, flush: true, rdata: DNSBuilder.aaaa([0xfe80, 0, 0, 0, 0, 0, 0, 1]))
    b.record(.additional, "printer.local", 47, flush: true, rdata: DNSBuilder.nsec("printer.local", [1, 28]))
    b.record(
        .additional, "", 41, ttl: 0, rrclass: 1440,
        rdata: DNSBuilder.u16(4) + DNSBuilder.u16(14) + [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    var q = DNSBuilder.query()
    q.question("_services._dns-sd._udp.local", 12, qu: true)
    q.question("Office._sub._ipp._tcp.local", 255)
    q.record(.authority, "Office._sub._ipp._tcp.local", 33, rdata: DNSBuilder.srv(631, "printer.local"))
    let notify = Array(
        ("NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age=1800\r\n"
            + "LOCATION: http://[fe80::1]:8200/rootDesc.xml\r\nNT: urn:schemas-upnp-org:device:MediaServer:1\r\nNTS: ssdp:alive\r\n"
            + "SERVER: Linux/6.1 UPnP/1.1 MiniDLNA/1.3\r\nUSN: uuid:4d696e69-444c-164e-9d41-b827eb000001::urn:schemas-upnp-org:device:MediaServer:1\r\n"
            + "BOOTID.UPNP.ORG: 7\r\nCONFIGID.UPNP.ORG: 1\r\nSEARCHPORT.UPNP.ORG: 49152\r\nX-User-Agent: redsonic\r\n\r\n")
            .utf8)
    let search = Array(
        ("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 10\r\n"
            + "ST: urn:dial-multiscreen-org:service:dial:1\r\nUSER-AGENT: Linux/6.1 UPnP/1.1 cp/1.0\r\nCPFN.UPNP.ORG: Living room\r\n\r\n")
            .utf8)
    let response = Array(
        ("HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nDATE: Sun, 06 Nov 1994 08:49:37 GMT\r\nEXT:\r\n"
            + "LOCATION: http://192.168.1.20:8200/rootDesc.xml\r\nSERVER: Linux/6.1 UPnP/1.1 x/1\r\nST: upnp:rootdevice\r\n"
            + "USN: uuid:4d696e69-444c-164e-9d41-b827eb000001::upnp:rootdevice\r\nBOOTID.UPNP.ORG: 7\r\n\r\n").utf8)
    return [(b.bytes, 5353), (q.bytes, 5353), (notify, 1900), (search, 1900), (response, 1900)]
}()

@Suite struct MutationFuzzTests {
    @Test func corruptedMessagesNeverTrapAnyStage() {
        var rng = SplitMix64(seed: 0xD15C0)
        let sinks = (0..<5).map { _ in CountingSink() }
        var textOptions = TextReporter.Options()
        textOptions.verbose = true
        let reporters: [any Reporter] = [
            TextReporter(sink: sinks[0], options: textOptions), JSONLinesReporter(sink: sinks[1]),
            SARIFReporter(sink: sinks[2], toolVersion: "test"), JUnitReporter(sink: sinks[3]),
            HTMLReporter(sink: sinks[4]),
        ]
        var analyses: [Analysis] = []
        for (k, r) in reporters.enumerated() {
            var o = Analysis.Options()
            o.verbose = true
            // The HTML report reads the JSON fields (lanes, pairs) and carries the payloads.
            o.wantMessages = k < 2 || k == 4
            o.messageFields = k == 1 || k == 4
            o.recordPayload = k == 4
            analyses.append(Analysis(reporter: r, options: o))
        }
        var frame = 0
        for round in 0..<6000 {
            let seed = seeds[round % seeds.count]
            var p = seed.payload
            // 1–8 mutations: byte flips, truncation, insertion, duplication of a run.
            for _ in 0...(Int(rng.next() % 8)) {
                guard !p.isEmpty else { break }
                let at = Int(rng.next() % UInt64(p.count))
                switch rng.next() % 5 {
                case 0: p[at] = UInt8(truncatingIfNeeded: rng.next())
                case 1: p[at] ^= 1 << UInt8(rng.next() % 8)
                case 2: p.removeSubrange(at...)
                case 3: p.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
                default:
                    let len = min(Int(rng.next() % 16) + 1, p.count - at)
                    p.insert(contentsOf: p[at..<(at + len)], at: at)
                }
            }
            frame += 1
            let multicast = seed.port == 5353 ? "224.0.0.251" : "239.255.255.250"
            let d = makeDatagram(
                p, src: round % 3 == 0 ? "fe80::1" : "192.168.1.20", srcPort: seed.port,
                dst: round % 2 == 0 ? multicast : "192.168.1.10", dstPort: round % 4 == 0 ? 50000 : seed.port,
                hopLimit: UInt8(truncatingIfNeeded: rng.next()), frame: frame,
                time: Timestamp(seconds: 1_700_000_000 + Int64(round / 50), nanoseconds: UInt32(round % 1000) * 1000))
            for a in analyses { a.datagram(d) }
        }
        var total = 0
        for a in analyses {
            let s = a.finish()
            total += s.totalFindings
            #expect(s.ssdpMessages + s.mdnsMessages == 6000)
        }
        #expect(total > 0)
        #expect(sinks.allSatisfy { $0.bytes > 0 })
    }
}
