import Findings
import Foundation
import Testing
import WireFormat

@testable import Reporting

/// The data records of a page: the JSON array between the data block's tags.
private func records(_ html: String) throws -> [[Any]] {
    let open = #"<script type="application/json" id="ds-data">"#
    guard let a = html.firstRange(of: open), let b = html[a.upperBound...].firstRange(of: "</script>") else {
        Issue.record("no data block")
        return []
    }
    let json = String(html[a.upperBound..<b.lowerBound])
    return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]] ?? []
}

/// `ms` milliseconds into the capture.
private func at(_ ms: Int) -> Timestamp {
    Timestamp(seconds: 1_700_000_000 + Int64(ms / 1000), nanoseconds: UInt32(ms % 1000) * 1_000_000)
}

private func ssdp(
    _ frame: Int, _ ms: Int, kind: String, src: String, sport: UInt16, dst: String, dport: UInt16,
    headers: [(String, String)]
) -> MessageRecord {
    var m = MessageRecord(
        frame: frame, time: at(ms), src: src,
        sport: sport, dst: dst, dport: dport, ipTTL: 2, proto: .ssdp, kind: kind, summary: "\(kind) \(frame)",
        fields: [("headers", .array(headers.map { .array([.string($0.0), .string($0.1)]) }))])
    m.payload = Array("X \(frame)\r\n\r\n".utf8)
    return m
}

private func mdns(_ frame: Int, _ ms: Int, src: String, questions: [String] = [], answers: [(String, String, Int)] = [])
    -> MessageRecord
{
    var m = MessageRecord(
        frame: frame, time: at(ms), src: src,
        sport: 5353, dst: "224.0.0.251", dport: 5353, ipTTL: 255, proto: .mdns,
        kind: questions.isEmpty ? "response" : "query", summary: "mdns \(frame)",
        fields: [
            ("questions", .array(questions.map { .object([("name", .string($0)), ("type", .string("PTR"))]) })),
            (
                "answers",
                .array(
                    answers.map {
                        .object([
                            ("name", .string($0.0)), ("type", .string($0.1)), ("ttl", .int($0.2)),
                            ("rdata", .object([("address", .string("10.0.0.9"))])),
                        ])
                    })
            ),
        ])
    m.payload = [0, 0, 0x84, 0, UInt8(frame)]
    return m
}

@Suite struct HTMLReporterTests {
    @Test func sha256AndBase64MatchTheStandardVectors() {
        let abc = SHA256.hash(Array("abc".utf8))
        #expect(
            abc.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([]).first == 0xe3)
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fooba".utf8)) == "Zm9vYmE=")
        #expect(Base64.encode(Array("foob".utf8)) == "Zm9vYg==")
    }

    /// The policy names the sums of the very script and style the page carries.
    @Test func contentSecurityPolicyAllowsOnlyThePagesOwnScriptAndStyle() {
        let csp = HTMLPage.contentSecurityPolicy
        #expect(csp.hasPrefix("default-src 'none'; "))
        #expect(csp.contains("script-src 'sha256-\(Base64.encode(SHA256.hash(Array(HTMLPage.script.utf8))))'"))
        #expect(csp.contains("style-src 'sha256-\(Base64.encode(SHA256.hash(Array(HTMLPage.style.utf8))))'"))
        #expect(csp.contains("connect-src 'none'"))
        #expect(!csp.contains("unsafe"))
        #expect(HTMLPage.head.contains("<style>" + HTMLPage.style + "</style>"))
        #expect(HTMLPage.tail.contains("<script>" + HTMLPage.script + "</script>"))
        // The page's code carries no inline handler and no markup written from data.
        #expect(!HTMLPage.script.contains("innerHTML") && !HTMLPage.script.contains("insertAdjacentHTML"))
        #expect(!(HTMLPage.head + HTMLPage.tail).contains(/<[^>]*\son[a-z]+\s*=/))
    }

    @Test func scriptBlockEscapingLeavesNothingThatEndsTheBlock() throws {
        let hostile = "</script><script>alert(1)</script><!-- & \u{2028}\u{2029} \"><img src=x onerror=x>"
        var out: [UInt8] = []
        HTMLReporter.appendScriptSafe(Array(JSONValue.string(hostile).serialized().utf8), to: &out)
        let text = String(decoding: out, as: UTF8.self)
        #expect(!text.contains("<") && !text.contains(">") && !text.contains("&"))
        #expect(!text.contains("\u{2028}") && !text.contains("\u{2029}"))
        #expect(text.contains(#"\u003c/script\u003e"#) && text.contains(#"\u2028\u2029"#))
        // JSON still reads it back as the same string.
        let back = try JSONSerialization.jsonObject(with: Data(("[" + text + "]").utf8)) as? [String]
        #expect(back == [hostile])
    }

    @Test func responsesPairWithTheirSearchAndQueryAndLanesFollowTheSender() throws {
        let sink = StringSink()
        let r = HTMLReporter(sink: sink, files: ["a.pcap"], toolVersion: "test")
        let usn = "uuid:ABCD-1::upnp:rootdevice"
        r.message(
            ssdp(
                1, 0, kind: "m-search", src: "10.0.0.5", sport: 50000, dst: "239.255.255.250", dport: 1900,
                headers: [("MX", "2")]), findings: [])
        r.message(
            ssdp(
                2, 300, kind: "response", src: "10.0.0.7", sport: 1900, dst: "10.0.0.5", dport: 50000,
                headers: [("USN", usn)]), findings: [])
        // Too late for MX 2 (plus the slack): not an answer.
        r.message(
            ssdp(
                3, 9000, kind: "response", src: "10.0.0.7", sport: 1900, dst: "10.0.0.5", dport: 50000,
                headers: [("USN", usn)]), findings: [])
        r.message(
            ssdp(
                4, 9100, kind: "notify", src: "10.0.0.7", sport: 1900, dst: "239.255.255.250", dport: 1900,
                headers: [("USN", usn)]), findings: [])
        r.message(mdns(5, 9200, src: "10.0.0.5", questions: ["_http._tcp.local."]), findings: [])
        r.message(mdns(6, 9300, src: "10.0.0.9", answers: [("_http._tcp.local.", "PTR", 4500)]), findings: [])
        r.message(mdns(7, 9400, src: "10.0.0.9", answers: [("h.local.", "A", 0)]), findings: [])
        r.finish(RunSummary())
        let recs = try records(sink.text)
        let messages = recs.filter { $0.first as? String == "m" }
        let lanes = recs.filter { $0.first as? String == "l" }.map { $0[1] as? String ?? "" }
        #expect(messages.count == 7)
        #expect(messages.map { $0[12] as? Int } == [-1, 0, -1, -1, -1, 4, -1])
        #expect(
            messages.map { $0[9] as? String } == [
                "m-search", "ssdp-response", "ssdp-response", "notify", "query", "mdns-response", "goodbye",
            ])
        // The searcher's lane, the device's (by USN, as the inventory names it), the mDNS host's.
        #expect(lanes == ["10.0.0.5", "abcd-1", "10.0.0.9", "h.local."])
        #expect(messages.map { $0[11] as? Int } == [0, 1, 1, 1, 0, 2, 3])
        #expect(sink.text.hasSuffix("</html>\n"))
    }

    @Test func repeatedPayloadsAreWrittenOnceAndSSDPLinesComeFromThePayload() throws {
        let sink = StringSink()
        let r = HTMLReporter(sink: sink)
        var m = ssdp(
            1, 0, kind: "notify", src: "10.0.0.7", sport: 1900, dst: "239.255.255.250", dport: 1900, headers: [])
        m.payload = Array("NOTIFY * HTTP/1.1\r\nHOST:239.255.255.250:1900 \r\nEXT:\r\n\r\n".utf8)
        m.detail = ["NOTIFY * HTTP/1.1", "HOST: 239.255.255.250:1900", "EXT: "]
        #expect(HTMLReporter.headerLines(m.payload) == ["NOTIFY * HTTP/1.1", "HOST: 239.255.255.250:1900", "EXT: "])
        r.message(m, findings: [])
        m.frame = 2
        r.message(m, findings: [])
        r.finish(RunSummary())
        let recs = try records(sink.text)
        // A text payload is written as text (`P`), once.
        let payloads = recs.filter { $0.first as? String == "P" }
        #expect(payloads.count == 1)
        #expect(payloads.first?[1] as? String == String(decoding: m.payload, as: UTF8.self))
        #expect(payloads.first?[3] is NSNull)
        #expect(!recs.contains { $0.first as? String == "p" })
        #expect(HTMLReporter.headerLines([0x41, 0xFF, 0x0A]) == nil)
        #expect(HTMLReporter.plainText([0x41, 0xFF, 0x0A]) == nil)
        #expect(HTMLReporter.plainText([0x41, 0x00, 0x0A]) == nil)
        #expect(HTMLReporter.plainText(Array("M-SEARCH * HTTP/1.1\r\n\tÄ\r\n".utf8)) != nil)
    }

    /// Data above `deflateAbove` goes through the deflater and is written in base64; below it
    /// the page stays plain JSON (the deflater is not asked).
    @Test func dataAboveTheLimitIsDeflatedAndWrittenInBase64() throws {
        // A stand-in that "compresses" by copying: the block is then the JSON in base64.
        final class Copy: DataDeflater {
            var calls = 0
            func deflate(_ input: UnsafeRawBufferPointer, finish: Bool) -> [UInt8] {
                calls += 1
                return Array(input)
            }
        }
        func page(limit: Int) -> (String, Int) {
            let sink = StringSink()
            let copy = Copy()
            let r = HTMLReporter(sink: sink, deflater: copy, deflateAbove: limit)
            for k in 0..<50 {
                var m = ssdp(
                    k, k, kind: "notify", src: "10.0.0.\(k)", sport: 1900, dst: "239.255.255.250", dport: 1900,
                    headers: [])
                m.payload = Array("NOTIFY * HTTP/1.1\r\nX-N: \(k)<&>\r\n\r\n".utf8)
                r.message(m, findings: [])
            }
            r.finish(RunSummary())
            return (sink.text, copy.calls)
        }
        let (plain, asked) = page(limit: 1 << 20)
        #expect(asked == 0)
        let expected = try records(plain)
        let (packed, calls) = page(limit: 100)
        #expect(calls > 0)
        let open = #"<script type="application/octet-stream" id="ds-data" data-encoding="deflate-base64">"#
        let a = try #require(packed.firstRange(of: open))
        let b = try #require(packed[a.upperBound...].firstRange(of: "</script>"))
        let block = String(packed[a.upperBound..<b.lowerBound])
        #expect(block.allSatisfy { $0.isLetter && $0.isASCII || $0.isNumber || "+/=\n".contains($0) })
        let data = try #require(Data(base64Encoded: block.filter { $0 != "\n" }))
        let recs = try JSONSerialization.jsonObject(with: data) as? [[Any]] ?? []
        #expect(recs.count == expected.count)
        #expect(packed.hasSuffix("</script>\n</body>\n</html>\n"))
    }
}
