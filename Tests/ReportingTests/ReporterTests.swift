import Findings
import Reporting
import Testing
import WireFormat

final class StringSink: OutputSink {
    var text = ""
    func write(_ t: String) { text += t }
    func flush() {}
}

private let descriptor = RuleDescriptor(
    id: "SSDP-104", name: "mx-range", title: "MX is at most 5", severity: .error, proto: .ssdp,
    spec: "UDA 1.1 §1.3.2", description: "Devices treat MX above 5 as 5.", interop: "gssdp waits MX seconds",
    example: "MX: 10")

private func finding(_ severity: Severity = .warning, frame: Int = 7, message: String = "MX 10 is above 5") -> Finding {
    Finding(
        descriptor: descriptor, severity: severity, frames: [frame, 3],
        time: Timestamp(seconds: 1_700_000_000, nanoseconds: 5000),
        message: message, source: "192.168.1.10")
}

private let record = MessageRecord(
    frame: 7, time: Timestamp(seconds: 1_700_000_000, nanoseconds: 5000), src: "fe80::1", sport: 50000, dst: "ff02::c",
    dport: 1900, ipTTL: 2, proto: .ssdp, kind: "m-search", summary: "M-SEARCH ST=ssdp:all MX=10", detail: ["MX: 10"])

@Suite struct ReporterTests {
    @Test func textLineIsTcpdumpLikeWithFindingsIndentedUnderIt() {
        let sink = StringSink()
        var o = TextReporter.Options()
        let r = TextReporter(sink: sink, options: o)
        r.message(record, findings: [finding()])
        let lines = sink.text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "7 22:13:20.000005 [fe80::1]:50000 > [ff02::c]:1900 SSDP M-SEARCH ST=ssdp:all MX=10")
        #expect(lines[1] == "    warning SSDP-104 mx-range: MX 10 is above 5 [UDA 1.1 §1.3.2] (frames 7, 3)")
        #expect(lines[2] == "        interop: gssdp waits MX seconds")
        #expect(!sink.text.contains("\u{1B}"))
    }

    /// Worker threads each format their batches with their own renderer; the reporter writes
    /// the chunks in capture order and prints a rule's interop note once, after its first
    /// finding in that order, whichever renderer formatted it.
    @Test func interopNoteFollowsTheFirstFindingOfItsRuleAcrossRenderers() {
        let sink = StringSink()
        var o = TextReporter.Options()
        let r = TextReporter(sink: sink, options: o)
        var early = TextRenderer(options: o)
        var late = TextRenderer(options: o)
        var second = RenderedChunk()
        late.render(record, findings: [finding(message: "third")], into: &second)
        late.render(record, findings: [finding(message: "fourth")], into: &second)
        var first = RenderedChunk()
        early.render(record, findings: [finding(message: "first")], into: &first)
        early.render(record, findings: [finding(message: "second")], into: &first)
        // A renderer passes on one note place per rule, at the first finding it formats.
        #expect(first.notes.count == 1)
        #expect(second.notes.count == 1)
        r.emit(first)
        r.emit(second)
        let lines = sink.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 9)
        #expect(lines[1].hasSuffix("first [UDA 1.1 §1.3.2] (frames 7, 3)"))
        #expect(lines[2] == "        interop: gssdp waits MX seconds")
        #expect(lines.filter { $0.contains("interop:") }.count == 1)
        #expect(lines[8].hasSuffix("fourth [UDA 1.1 §1.3.2] (frames 7, 3)"))
    }

    @Test func verboseShowsDetailAndQuietShowsOnlyFindings() {
        var o = TextReporter.Options()
        o.verbose = true
        let v = StringSink()
        TextReporter(sink: v, options: o).message(record, findings: [])
        #expect(v.text.contains("\n        MX: 10\n"))
        o = TextReporter.Options()
        o.quiet = true
        let q = StringSink()
        TextReporter(sink: q, options: o).message(record, findings: [finding()])
        // The sender too: a finding line stands on its own without the message line.
        #expect(q.text.hasPrefix("frame 7 from 192.168.1.10: warning SSDP-104"))
    }

    @Test func colourOnlyWhenAsked() {
        var o = TextReporter.Options()
        o.color = true
        let s = StringSink()
        TextReporter(sink: s, options: o).message(record, findings: [finding(.error)])
        #expect(s.text.contains("\u{1B}[31merror\u{1B}[0m"))
    }

    @Test func summaryCountsFindingsByRuleAndSeverityAndGivesTheVerdict() {
        var s = RunSummary()
        s.files = ["a.pcap"]
        s.count(finding(.warning))
        s.count(finding(.error))
        s.count(finding(.info))
        s.failOn = .error
        s.skip("unsupported link type USER0", count: 3)
        let sink = StringSink()
        TextReporter(sink: sink).finish(s)
        #expect(sink.text.contains("findings    1 error(s), 1 warning(s), 1 info"))
        #expect(sink.text.contains("SSDP-104 mx-range"))
        #expect(sink.text.contains("skipped     3 × unsupported link type USER0"))
        #expect(sink.text.contains("result      fail: 1 finding(s) at or above error"))
        #expect(s.findingsByRule.count == 1 && s.findingsByRule[0].count == 3 && s.findingsByRule[0].severity == .error)
    }

    @Test func jsonFindingCarriesContractFields() {
        let j = JSONLinesReporter.findingLine(finding(), file: "a.pcap")
        #expect(
            j.hasPrefix(
                #"{"type":"finding","file":"a.pcap","rule":"SSDP-104","name":"mx-range","severity":"warning","frames":[7,3],"time":1700000000.000005,"message":"MX 10 is above 5","spec":"UDA 1.1 §1.3.2","interop":"gssdp waits MX seconds""#
            ))
    }

    @Test func xmlEscapingCoversMarkupAndForbiddenCharacters() {
        #expect(JUnitReporter.escape(#"a<b>&"c""#) == "a&lt;b&gt;&amp;&quot;c&quot;")
        #expect(JUnitReporter.escape("x\u{1}y\nz") == "x\u{FFFD}y&#10;z")
        #expect(
            JUnitReporter.escape("\u{FFFE}\u{FFFF}\u{FFFD}\u{EFBF}\t\r") == "\u{FFFD}\u{FFFD}\u{FFFD}\u{EFBF}&#9;&#13;")
    }

    /// The escaping works on UTF-8 bytes; it must change exactly the characters the reading
    /// by Unicode scalars changes, on text of every kind of character it treats apart.
    @Test func xmlEscapingOnBytesAgreesWithTheScalarReading() {
        func byScalars(_ s: String) -> String {
            var out = ""
            for u in s.unicodeScalars {
                switch u {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "\n": out += "&#10;"
                case "\t", "\r": out += "&#\(u.value);"
                default:
                    if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                        out += "\u{FFFD}"
                    } else {
                        out.unicodeScalars.append(u)
                    }
                }
            }
            return out
        }
        let pieces: [Unicode.Scalar] = [
            "a", "&", "<", ">", "\"", "'", "\n", "\t", "\r", "\u{0}", "\u{1F}", "\u{7F}", "é", "\u{FFFD}", "\u{FFFE}",
            "\u{FFFF}", "\u{FFEF}", "\u{EFBF}", "\u{1F642}", "§",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            var s = ""
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                s.unicodeScalars.append(pieces.randomElement(using: &generator) ?? "a")
            }
            #expect(JUnitReporter.escape(s) == byScalars(s), "\(Array(s.unicodeScalars))")
        }
    }

    @Test func sarifURIsArePercentEncodedAndFingerprintsIgnoreFrames() {
        #expect(SARIFReporter.uri("caps/my file#1.pcap") == "caps/my%20file%231.pcap")
        #expect(SARIFReporter.uri("-") == "stdin")
        #expect(SARIFReporter.fingerprint(finding(frame: 7)) == SARIFReporter.fingerprint(finding(frame: 99)))
        #expect(SARIFReporter.fingerprint(finding(message: "a")) != SARIFReporter.fingerprint(finding(message: "b")))
        #expect(SARIFReporter.level(.info) == "note")
    }

    @Test func junitMarksOnlyRulesAtOrAboveFailOnAsFailures() {
        let sink = StringSink()
        let r = JUnitReporter(sink: sink)
        r.finding(finding(.warning))
        var s = RunSummary()
        s.files = ["a.pcap"]
        s.rulesChecked = [descriptor]
        s.failOn = .error
        r.finish(s)
        #expect(sink.text.contains(#"failures="0""#))
        #expect(sink.text.contains("<system-out>frame 7,3 warning"))
        let sink2 = StringSink()
        let r2 = JUnitReporter(sink: sink2)
        r2.finding(finding(.warning))
        s.failOn = .warning
        r2.finish(s)
        #expect(sink2.text.contains(#"<failure type="warning" message="1 finding(s): MX is at most 5">"#))
    }
}

/// A finding is a value: it names its rule by ID and carries the rule's texts it is printed
/// with, so it outlives any descriptor it was made from.
@Suite struct FindingValueTests {
    @Test func aFindingCarriesItsRulesTextsByValue() {
        var kept: Finding? = nil
        do {
            let d = RuleDescriptor(
                id: "MDNS-999", name: "temporary", title: "t", severity: .info, proto: .mdns, spec: "s",
                description: "d",
                interop: "i", example: "e")
            kept = Finding(descriptor: d, frame: 1, time: .zero, message: "m", source: "::1")
        }
        #expect(kept?.rule == "MDNS-999")
        #expect(kept?.name == "temporary" && kept?.spec == "s" && kept?.interop == "i")
    }

    @Test func equalityAndHashCoverEveryField() {
        let a = finding()
        #expect(a == finding())
        #expect(a.hashValue == finding().hashValue)
        #expect(a != finding(message: "MX 6 is above 5"))
        #expect(a != finding(.error))
        #expect(a != finding(frame: 8))
        var b = a
        b.field = "header MX"
        #expect(a != b)
        #expect(Set([a, finding(), b]).count == 2)
    }
}
