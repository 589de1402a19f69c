import DNS
import Driver
import Findings
import NetLayers
import Reporting
import Rules
import TestSupport
import Testing
import WireFormat

@testable import Analyzer

/// Keeps every byte written.
final class CollectingSink: OutputSink {
    var text = ""
    func write(_ s: String) { text += s }
    func flush() {}
}

/// A datagram repeating the previous payload shares its decoding and summary; what depends on
/// the datagram itself (addresses, ports, hop limit) is still judged and shown per datagram.
@Suite struct RepeatedPayloadTests {
    static func query(_ name: String) -> [UInt8] {
        var q = DNSBuilder.query()
        q.question(name, 12)
        return q.bytes
    }

    @Test func samePayloadSharesItsDecodingAnotherDoesNot() {
        var analyzer = MDNSJudge(disabled: [])
        let p = Self.query("_ipp._tcp.local")
        var sink = FindingSink(frame: 1, time: .zero, source: .v4(0))
        let first = analyzer.judge(makeDatagram(p), into: &sink)
        let second = analyzer.judge(makeDatagram(p, src: "fe80::1", dst: "ff02::fb", hopLimit: 1), into: &sink)
        let third = analyzer.judge(makeDatagram(p, srcPort: 40000), into: &sink)
        let other = analyzer.judge(makeDatagram(Self.query("_http._tcp.local")), into: &sink)
        #expect(second.decoded === first.decoded)
        #expect(third.decoded === first.decoded)
        #expect(other.decoded !== first.decoded)
        #expect(second.datagram.hopLimit == 1 && third.datagram.srcPort == 40000)
    }

    @Test func aPayloadSeenEarlierSharesItsDecodingAndItsArray() {
        var analyzer = MDNSJudge(disabled: [])
        let a = Self.query("_ipp._tcp.local")
        let b = Self.query("_http._tcp.local")
        var sink = FindingSink(frame: 1, time: .zero, source: .v4(0))
        let first = analyzer.judge(makeDatagram(a), into: &sink)
        let other = analyzer.judge(makeDatagram(b), into: &sink)
        // The worker's way in: the payload's bytes; what it gets back is the array decoded
        // before (no copy), and that datagram shares the decoding.
        let shared = Array(a).withUnsafeBytes { analyzer.payload($0) }
        #expect(shared.withUnsafeBytes { $0.baseAddress } == first.message.payload.withUnsafeBytes { $0.baseAddress })
        let again = analyzer.judge(makeDatagram(shared, src: "fe80::1", dst: "ff02::fb"), into: &sink)
        #expect(again.decoded === first.decoded)
        #expect(other.decoded !== first.decoded)
        // Bytes never decoded: a copy of them, decoded anew.
        let c = Self.query("_ftp._tcp.local")
        let copied = c.withUnsafeBytes { analyzer.payload($0) }
        #expect(copied == c)
        #expect(analyzer.judge(makeDatagram(copied), into: &sink).decoded !== first.decoded)
    }

    @Test func aRepeatedPayloadReportsItsMessageFindingsAgainUnlessTheRuleIsDisabled() {
        // MDNS-312 (a long TXT key) is a message rule: a repeat of the payload replays it.
        var b = DNSBuilder()
        b.record(
            .answer, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: DNSBuilder.txt(["averyverylongkey=1"])
        )
        var analyzer = MDNSJudge(disabled: [])
        for frame in 1...2 {
            var sink = FindingSink(frame: frame, time: .zero, source: .v4(0))
            _ = analyzer.judge(makeDatagram(b.bytes), into: &sink)
            #expect(sink.findings.filter { $0.rule == "MDNS-312" }.map(\.firstFrame) == [frame])
        }
        var quiet = MDNSJudge(disabled: ["MDNS-312"])
        for frame in 1...2 {
            var sink = FindingSink(frame: frame, time: .zero, source: .v4(0))
            _ = quiet.judge(makeDatagram(b.bytes), into: &sink)
            #expect(!sink.findings.contains { $0.rule == "MDNS-312" })
        }
    }

    @Test(arguments: [1, 2])
    func repeatedPayloadIsJudgedAndShownPerDatagram(jobs: Int) {
        let sink = CollectingSink()
        let text = TextReporter.Options()
        var options = Analysis.Options()
        options.jobs = jobs
        options.messageFields = false
        options.findingDetails = false
        let analysis = Analysis(
            reporter: TextReporter(sink: sink, options: text), options: options, policy: nil, makePool: workerThreads)
        let p = Self.query("_ipp._tcp.local")
        let t = Timestamp(seconds: 0, nanoseconds: 0)
        analysis.datagram(makeDatagram(p, frame: 1, time: t))
        analysis.datagram(makeDatagram(p, src: "fe80::1", dst: "ff02::fb", hopLimit: 1, frame: 2, time: t))
        analysis.datagram(makeDatagram(p, srcPort: 40000, frame: 3, time: t))
        analysis.datagram(makeDatagram(Self.query("_http._tcp.local"), frame: 4, time: t))
        _ = analysis.finish()
        let lines = sink.text.split(separator: "\n").map(String.init)
        #expect(
            lines.first { $0.hasPrefix("1 ") }
                == "1 00:00:00.000000 192.168.1.20:5353 > 224.0.0.251:5353 mDNS query PTR _ipp._tcp.local.")
        #expect(
            lines.first { $0.hasPrefix("2 ") }
                == "2 00:00:00.000000 [fe80::1]:5353 > [ff02::fb]:5353 mDNS query PTR _ipp._tcp.local.")
        #expect(
            lines.first { $0.hasPrefix("3 ") }
                == "3 00:00:00.000000 192.168.1.20:40000 > 224.0.0.251:5353 mDNS legacy query PTR _ipp._tcp.local.")
        #expect(
            lines.first { $0.hasPrefix("4 ") }
                == "4 00:00:00.000000 192.168.1.20:5353 > 224.0.0.251:5353 mDNS query PTR _http._tcp.local.")
        // The hop limit finding belongs to frame 2 alone: the line after it, and nowhere else.
        let hop = lines.indices.filter { lines[$0].hasPrefix("    info MDNS-406 ") }
        #expect(hop.count == 1)
        #expect(hop.first.map { lines[$0 - 1].hasPrefix("2 ") } == true)
    }

    @Test(arguments: [1, 2])
    func anEarlierPayloadIsShownForItsOwnDatagram(jobs: Int) {
        // A, B, then A again from a legacy port: the summary kept for A's decoding must not be
        // reused for a datagram whose ports make it another kind of query.
        let a = Self.query("_ipp._tcp.local")
        let t = Timestamp(seconds: 0, nanoseconds: 0)
        let lines = Self.text(
            [
                makeDatagram(a, frame: 1, time: t), makeDatagram(Self.query("_http._tcp.local"), frame: 2, time: t),
                makeDatagram(a, srcPort: 40000, frame: 3, time: t), makeDatagram(a, frame: 4, time: t),
            ], jobs: jobs)
        #expect(lines.first { $0.hasPrefix("3 ") }?.hasSuffix("mDNS legacy query PTR _ipp._tcp.local.") == true)
        #expect(lines.first { $0.hasPrefix("4 ") }?.hasSuffix("mDNS query PTR _ipp._tcp.local.") == true)
    }

    /// The text output of `datagrams` (UTC), one analysis.
    static func text(_ datagrams: [Datagram], jobs: Int) -> [String] {
        let sink = CollectingSink()
        let text = TextReporter.Options()
        var options = Analysis.Options()
        options.jobs = jobs
        let analysis = Analysis(
            reporter: TextReporter(sink: sink, options: text), options: options, policy: nil, makePool: workerThreads)
        for d in datagrams { analysis.datagram(d) }
        _ = analysis.finish()
        return sink.text.split(separator: "\n").map(String.init)
    }

    /// The lines of frame `n`: its message line and the findings under it.
    static func block(_ lines: [String], frame n: Int) -> [String] {
        guard let k = lines.firstIndex(where: { $0.hasPrefix("\(n) ") }) else { return [] }
        // Interop notes are left out: they follow a rule's first finding in the whole run.
        return [lines[k]] + lines[(k + 1)...].prefix { $0.hasPrefix("    ") }.filter { !$0.contains(" interop: ") }
    }

    @Test(arguments: [1, 2])
    func repeatedFindingsEqualThoseOfTheDatagramAlone(jobs: Int) {
        // Message-only findings (a long TXT key, a TXT over 400 bytes) and datagram findings
        // (hop limit, off-link unicast response) interleave in catalog order.
        var b = DNSBuilder()
        b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: DNSBuilder.name("Office._ipp._tcp.local"))
        b.record(
            .additional, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500,
            rdata: DNSBuilder.txt([
                "averyverylongkey=1", "k=" + String(repeating: "x", count: 200),
                "v=" + String(repeating: "y", count: 200),
            ]))
        let t = Timestamp(seconds: 0, nanoseconds: 0)
        let first = makeDatagram(b.bytes, frame: 1, time: t)
        let second = makeDatagram(b.bytes, src: "10.9.8.7", dst: "192.168.1.30", hopLimit: 64, frame: 2, time: t)
        let together = Self.block(Self.text([first, second], jobs: jobs), frame: 2)
        let alone = Self.block(Self.text([second], jobs: jobs), frame: 2)
        #expect(together.count >= 5)
        #expect(together == alone)
        #expect(together.contains { $0.contains("MDNS-312") } && together.contains { $0.contains("MDNS-406") })
    }
}
