import Findings
import Reporting
import Testing
import WireFormat

/// A spill that counts what it is given.
private final class CountingSpill: SpillStore {
    let store = MemorySpill()
    var appends = 0
    var count: Int { store.count }
    func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int> {
        appends += 1
        return store.append(bytes)
    }
    func copy(_ range: Range<Int>, to sink: any OutputSink) { store.copy(range, to: sink) }
}

private let checked = RuleDescriptor(
    id: "SSDP-104", name: "mx-range", title: "MX is at most 5", severity: .error, proto: .ssdp,
    spec: "UDA 1.1 §1.3.2", description: "Devices treat MX above 5 as 5.", interop: "gssdp waits MX seconds",
    example: "MX: 10")
private let other = RuleDescriptor(
    id: "MDNS-104", name: "query-aa-clear", title: "Queries have AA clear", severity: .warning, proto: .mdns,
    spec: "RFC 6762 §18.4", description: "", interop: nil, example: "AA=1 in a query")
/// Not in `rulesChecked`: its results have no `ruleIndex` and it has no test case.
private let unchecked = RuleDescriptor(
    id: "MDNS-999", name: "unlisted", title: "Unlisted", severity: .info, proto: .mdns, spec: "none",
    description: "", interop: nil, example: "-")

/// Findings of every shape the reports print differently: each severity, several rules,
/// two files, frames or none (end of capture), text that needs escaping in JSON and XML.
private func findings(_ n: Int, messageSize: Int = 0) -> [Finding] {
    let texts = ["MX 10 is above 5", "a <b> & \"c\"\nline two\ttab", "bell \u{7} and \u{FFFE}", "§ ünïcode 🙂"]
    let padding = String(repeating: "x", count: messageSize)
    return (0..<n).map { k in
        let d = [checked, other, unchecked][k % 3]
        let message = texts[k % texts.count] + padding
        let time = Timestamp(seconds: 1_700_000_000 + Int64(k), nanoseconds: 5000)
        var f =
            k % 7 == 0
            ? Finding(
                descriptor: d, severity: Severity.allCases[k % 3], frames: [], time: time, message: message,
                source: "fe80::1", fileIndex: k % 2)
            : Finding(
                descriptor: d, severity: Severity.allCases[k % 3], frame: k + 1, related: k % 5 == 0 ? [k, k - 1] : [],
                time: time, message: message, source: "192.168.1.\(k % 250)", device: k % 4 == 0 ? "uuid:\(k)" : nil,
                fileIndex: k % 2)
        f.atEnd = k % 7 == 0
        return f
    }
}

private func summary() -> RunSummary {
    var s = RunSummary()
    s.files = ["a dir/a.pcap", "b&c.pcap"]
    s.rulesChecked = [checked, other]
    s.inputErrors = ["b&c.pcap: truncated record"]
    s.failOn = .warning
    return s
}

/// SARIF as the reporter wrote it when it kept every finding: the document without results,
/// with each result serialised from its finding in one piece.
private func referenceSARIF(_ list: [Finding], _ s: RunSummary) -> String {
    let empty = StringSink()
    SARIFReporter(sink: empty, toolVersion: "1.0").finish(s)
    let results = list.map { f -> String in
        let file = s.files[f.fileIndex]
        let frame = f.frames.first ?? 0
        var location: [(String, JSONValue)] = [
            (
                "physicalLocation",
                .object([
                    (
                        "artifactLocation",
                        .object([("uri", .string(SARIFReporter.uri(file))), ("index", .int(f.fileIndex))])
                    ),
                    ("region", .object([("startLine", .int(1))])),
                ])
            )
        ]
        if frame > 0 {
            location.append(
                (
                    "logicalLocations",
                    .array([
                        .object([
                            ("name", .string("frame \(frame)")),
                            ("fullyQualifiedName", .string("\(file)#frame=\(frame)")),
                            ("kind", .string("element")),
                        ])
                    ])
                ))
        }
        var result: [(String, JSONValue)] = [("ruleId", .string(f.rule.rawValue))]
        if let i = s.rulesChecked.firstIndex(where: { $0.id == f.rule }) { result.append(("ruleIndex", .int(i))) }
        result += [
            ("level", .string(SARIFReporter.level(f.severity))),
            ("message", .object([("text", .string((frame > 0 ? "Frame \(frame): " : "") + f.message))])),
            ("locations", .array([.object(location)])),
            ("partialFingerprints", .object([("discoscopeFinding/v2", .string(SARIFReporter.fingerprint(f)))])),
            (
                "properties",
                .object(
                    [
                        ("frames", .array(f.frames.map { .int($0) })), ("time", .rawNumber(f.time.microsecondText)),
                        ("source", .string(f.source)), ("device", f.device.map { .string($0) } ?? .null),
                        ("spec", .string(f.spec)), ("interop", f.interop.map { .string($0) } ?? .null),
                    ] + (f.atEnd ? [("at_end", .bool(true))] : []))
            ),
        ]
        return JSONValue.object(result).serialized()
    }
    return empty.text.replacing(#""results":[]"#, with: #""results":["# + results.joined(separator: ",") + "]")
}

/// JUnit as the reporter wrote it when it kept every finding (every file opened, so a
/// finding's file index is its suite's position).
private func referenceJUnit(_ list: [Finding], _ s: RunSummary) -> String {
    func line(_ f: Finding) -> String {
        let frames = f.frames.isEmpty ? "end of capture" : "frame " + f.frames.map(String.init).joined(separator: ",")
        return "\(frames) \(f.severity.rawValue) from \(f.source): \(f.message) [\(f.spec)]"
    }
    let esc = JUnitReporter.escape
    var suites = ""
    var tests = 0
    var failures = 0
    var errors = 0
    for (index, file) in s.files.enumerated() {
        var failed = 0
        var cases = ""
        for d in s.rulesChecked {
            let mine = list.filter { $0.fileIndex == index && $0.rule == d.id }
            let failing = mine.filter { f in s.failOn.map { f.severity >= $0 } ?? false }
            let rest = mine.filter { f in s.failOn.map { f.severity < $0 } ?? true }
            cases +=
                "    <testcase classname=\"discoscope.\(d.proto.rawValue)\" name=\"\(esc(d.id.rawValue + " " + d.name))\" time=\"0\">\n"
            if let worst = failing.map(\.severity).max() {
                failed += 1
                cases +=
                    "      <failure type=\"\(worst.rawValue)\" message=\"\(esc("\(failing.count) finding(s): \(d.title)"))\">"
                cases += esc(failing.map(line).joined(separator: "\n")) + "</failure>\n"
            }
            if !rest.isEmpty {
                cases += "      <system-out>" + esc(rest.map(line).joined(separator: "\n")) + "</system-out>\n"
            }
            cases += "    </testcase>\n"
        }
        let errs = s.inputErrors.filter { $0.hasPrefix(file + ":") }
        for e in errs {
            cases += "    <testcase classname=\"discoscope.input\" name=\"read \(esc(file))\" time=\"0\">\n"
            cases += "      <error type=\"input\" message=\"\(esc(e))\"/>\n    </testcase>\n"
        }
        tests += s.rulesChecked.count + errs.count
        failures += failed
        errors += errs.count
        suites +=
            "  <testsuite name=\"\(esc(file))\" tests=\"\(s.rulesChecked.count + errs.count)\" failures=\"\(failed)\" errors=\"\(errs.count)\" skipped=\"0\" time=\"0\">\n"
        suites += cases + "  </testsuite>\n"
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<testsuites name=\"discoscope\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"0.000\">\n"
        + suites + "</testsuites>\n"
}

/// What a reporter keeps between findings, by type: none of it may be a `Finding`.
private func retainedTypes(_ reporter: Any) -> [String] {
    Mirror(reflecting: reporter).children.map { "\(type(of: $0.value))" }
}

/// SARIF and JUnit put their header (rules, totals) before the results, so they keep the
/// results until `finish`: as bytes in a spill, with a small index, never as findings.
@Suite struct StreamingReportTests {
    @Test func sarifKeepsResultsAsBytesAndWritesTheSameDocument() {
        let list = findings(3000)
        let spill = CountingSpill()
        let sink = StringSink()
        let r = SARIFReporter(sink: sink, toolVersion: "1.0", spill: spill)
        r.beginFile(0, name: "a dir/a.pcap")
        r.beginFile(1, name: "b&c.pcap")
        for f in list { r.finding(f) }
        #expect(spill.appends == list.count)
        #expect(!retainedTypes(r).contains { $0.contains("Finding") }, "\(retainedTypes(r))")
        r.finish(summary())
        #expect(sink.text == referenceSARIF(list, summary()))
    }

    @Test func junitKeepsLinesAsBytesAndWritesTheSameDocument() {
        let list = findings(3000)
        let spill = CountingSpill()
        let sink = StringSink()
        let r = JUnitReporter(sink: sink, spill: spill)
        r.beginFile(0, name: "a dir/a.pcap")
        r.beginFile(1, name: "b&c.pcap")
        for f in list { r.finding(f) }
        #expect(spill.appends == list.count)
        #expect(!retainedTypes(r).contains { $0.contains("Finding") }, "\(retainedTypes(r))")
        var s = summary()
        for failOn in [Severity.error, .warning, .info, nil] {
            s.failOn = failOn
            let out = StringSink()
            let again = JUnitReporter(sink: out)
            for f in list { again.finding(f) }
            again.finish(s)
            #expect(out.text == referenceJUnit(list, s), "fail-on \(failOn.map(\.rawValue) ?? "never")")
        }
        r.finish(summary())
        #expect(sink.text == referenceJUnit(list, summary()))
    }

    /// The message text of each finding goes to the spill once: what the reporter holds
    /// beside it does not grow with the findings' size.
    @Test func largeFindingsGrowTheSpillNotTheReporter() {
        let list = findings(500, messageSize: 4000)
        let sarifSpill = CountingSpill()
        let junitSpill = CountingSpill()
        let sarif = SARIFReporter(sink: StringSink(), toolVersion: "1.0", spill: sarifSpill)
        let junit = JUnitReporter(sink: StringSink(), spill: junitSpill)
        for f in list {
            sarif.finding(f)
            junit.finding(f)
        }
        #expect(sarifSpill.count >= 500 * 4000)
        #expect(junitSpill.count >= 500 * 4000)
    }

    /// `fileIndex` is the input's place on the command line; an input that could not be
    /// opened has no artifact or suite, so the next one's findings belong to the first.
    @Test func findingsOfAFileAfterOneThatFailedToOpenNameTheirOwnFile() {
        var s = RunSummary()
        s.files = ["b.pcap"]
        s.rulesChecked = [checked]
        s.inputErrors = ["a.pcap: cannot open"]
        let f = Finding(
            descriptor: checked, frame: 3, time: .zero, message: "MX 10 is above 5", source: "10.0.0.1", fileIndex: 1)
        let sarifOut = StringSink()
        let sarif = SARIFReporter(sink: sarifOut, toolVersion: "1.0")
        sarif.beginFile(1, name: "b.pcap")
        sarif.finding(f)
        sarif.finish(s)
        #expect(sarifOut.text.contains(#""artifactLocation":{"uri":"b.pcap","index":0}"#))
        let junitOut = StringSink()
        let junit = JUnitReporter(sink: junitOut)
        junit.beginFile(1, name: "b.pcap")
        junit.finding(f)
        junit.finish(s)
        #expect(junitOut.text.contains(#"<testsuite name="b.pcap" tests="1" failures="1""#))
        #expect(junitOut.text.contains("frame 3 error from 10.0.0.1: MX 10 is above 5"))
    }
}
