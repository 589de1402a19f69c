import Findings
import WireFormat

/// `--format junit`: JUnit XML as CI test-report parsers read it. One `<testsuite>` per
/// capture file, one `<testcase>` per rule checked; a test case fails when the file has a
/// finding of that rule at or above `--fail-on` (its frames and messages in the failure
/// body); findings below the threshold go to `<system-out>`. A test case whose only findings
/// at or above the threshold are accepted by `--baseline` is `<skipped>`, with their lines. A
/// file that could not be read completely carries an `<error>` test case.
///
/// The totals in `<testsuites>` come first, so the document is written at `finish`; each
/// finding's line is escaped when it arrives and kept as bytes in a `SpillStore`, with its
/// severity and place in a small index per file and rule, and `finish` writes the suites
/// piece by piece from there.
public final class JUnitReporter: Reporter {
    let sink: any OutputSink
    /// Each finding's escaped line (`escape(line(f))`), back to back.
    private let spill: any SpillStore
    /// Per file (position among the files opened) and rule: each finding's severity and
    /// where its line is in `spill`, in arrival order. Bounded like SARIF's results.
    private var byFile: [Int: [RuleID: [Entry]]] = [:]
    private typealias Entry = (severity: Severity, accepted: Bool, line: Range<Int>)
    private var kept = 0
    public static let maxFindings = 100_000
    /// Position among the files opened (`RunSummary.files`) of each input by command-line
    /// index (`beginFile`): an input that could not be opened has no suite of its own.
    private var positions: [Int: Int] = [:]
    private var opened = 0
    /// The escaped line of the finding being kept, reused from finding to finding.
    private var scratch: [UInt8] = []

    public init(sink: any OutputSink, spill: any SpillStore = MemorySpill()) {
        self.sink = sink
        self.spill = spill
    }
    public var isStreaming: Bool { false }

    public func beginFile(_ index: Int, name: String) {
        positions[index] = opened
        opened += 1
    }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        for f in findings { finding(f) }
    }

    public func finding(_ f: Finding) {
        guard kept < Self.maxFindings else { return }
        kept += 1
        scratch.removeAll(keepingCapacity: true)
        Self.writeLine(f, into: &scratch)
        let line = spill.append(scratch)
        // Without `beginFile` (findings given directly), the index is taken as the position.
        byFile[positions[f.fileIndex] ?? f.fileIndex, default: [:]][f.rule, default: []].append(
            (f.severity, f.baselined, line))
    }

    public func finish(_ s: RunSummary) {
        var files = s.files
        if files.isEmpty { files = ["(no input)"] }
        let failOn = s.failOn
        func failing(_ severity: Severity) -> Bool { failOn.map { severity >= $0 } ?? false }
        // Input errors for files that never opened have no entry in `files`.
        let errors = files.map { file in s.inputErrors.filter { $0.hasPrefix(file + ":") } }
        let orphan = s.inputErrors.filter { e in !files.contains { e.hasPrefix($0 + ":") } }
        // The totals first (from the index alone), then each suite.
        let failures = files.indices.map { index in
            let found = byFile[index] ?? [:]
            return s.rulesChecked.count { d in found[d.id]?.contains { !$0.accepted && failing($0.severity) } ?? false }
        }
        let totalTests = files.count * s.rulesChecked.count + errors.map(\.count).reduce(0, +) + orphan.count
        let totalErrors = errors.map(\.count).reduce(0, +) + orphan.count
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        sink.write(
            "<testsuites name=\"discoscope\" tests=\"\(totalTests)\" failures=\"\(failures.reduce(0, +))\" errors=\"\(totalErrors)\" time=\"\(Self.seconds(s.elapsedSeconds))\">\n"
        )
        // The lines of a list, joined by an escaped line feed as `escape` writes one.
        func writeLines(_ list: [Entry]) {
            for (k, entry) in list.enumerated() {
                if k > 0 { sink.write("&#10;") }
                spill.copy(entry.line, to: sink)
            }
        }
        for (index, file) in files.enumerated() {
            let found = byFile[index] ?? [:]
            let errs = errors[index]
            let skipped = s.rulesChecked.count { d in
                let list = found[d.id] ?? []
                return list.contains { $0.accepted && failing($0.severity) }
                    && !list.contains { !$0.accepted && failing($0.severity) }
            }
            sink.write(
                "  <testsuite name=\"\(Self.escape(file))\" tests=\"\(s.rulesChecked.count + errs.count)\" failures=\"\(failures[index])\" errors=\"\(errs.count)\" skipped=\"\(skipped)\" time=\"0\">\n"
            )
            for d in s.rulesChecked {
                let list = found[d.id] ?? []
                let failed = list.filter { !$0.accepted && failing($0.severity) }
                let accepted = list.filter { $0.accepted && failing($0.severity) }
                // Below the threshold nothing fails, accepted or not; with a failure, what the
                // baseline accepts is listed beside it.
                let other = list.filter { !failing($0.severity) } + (failed.isEmpty ? [] : accepted)
                sink.write(
                    "    <testcase classname=\"discoscope.\(d.proto.rawValue)\" name=\"\(Self.escape(d.id.rawValue + " " + d.name))\" time=\"0\">\n"
                )
                if let worst = failed.map(\.severity).max() {
                    sink.write(
                        "      <failure type=\"\(worst.rawValue)\" message=\"\(Self.escape("\(failed.count) finding(s): \(d.title)"))\">"
                    )
                    writeLines(failed)
                    sink.write("</failure>\n")
                } else if !accepted.isEmpty {
                    sink.write(
                        "      <skipped message=\"\(Self.escape("\(accepted.count) finding(s) accepted by the baseline: \(d.title)"))\">"
                    )
                    writeLines(accepted)
                    sink.write("</skipped>\n")
                }
                if !other.isEmpty {
                    sink.write("      <system-out>")
                    writeLines(other)
                    sink.write("</system-out>\n")
                }
                sink.write("    </testcase>\n")
            }
            for e in errs {
                sink.write(
                    "    <testcase classname=\"discoscope.input\" name=\"read \(Self.escape(file))\" time=\"0\">\n")
                sink.write("      <error type=\"input\" message=\"\(Self.escape(e))\"/>\n    </testcase>\n")
            }
            sink.write("  </testsuite>\n")
        }
        // Errors for inputs that never opened (not in `files`).
        if !orphan.isEmpty {
            sink.write(
                "  <testsuite name=\"inputs\" tests=\"\(orphan.count)\" failures=\"0\" errors=\"\(orphan.count)\" skipped=\"0\" time=\"0\">\n"
            )
            for e in orphan {
                sink.write("    <testcase classname=\"discoscope.input\" name=\"\(Self.escape(e))\" time=\"0\">\n")
                sink.write("      <error type=\"input\" message=\"\(Self.escape(e))\"/>\n    </testcase>\n")
            }
            sink.write("  </testsuite>\n")
        }
        sink.write("</testsuites>\n")
        sink.flush()
    }

    /// A finding's line in a test case (`frame 7,3 warning from 192.168.1.7: … [spec]`, or
    /// `end of capture …`), escaped, written into `out` piece by piece: the fixed words and
    /// numbers need no escaping, the finding's own texts are escaped as they are copied.
    static func writeLine(_ f: Finding, into out: inout [UInt8]) {
        if f.frames.isEmpty {
            out.append("end of capture")
        } else {
            out.append("frame ")
            for (k, frame) in f.frames.enumerated() {
                if k > 0 { out.append(0x2C) }
                out.append(decimal: frame)
            }
        }
        out.append(0x20)
        out.append(string: f.severity.rawValue)
        out.append(" from ")
        appendEscaped(f.source, into: &out)
        out.append(": ")
        appendEscaped(f.message, into: &out)
        out.append(" [")
        appendEscaped(f.spec, into: &out)
        out.append("]")
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// The findings' lines, escaped, joined by an escaped line feed (as `escape` writes one).
    static func escapedLines(_ findings: [Finding]) -> String {
        var out: [UInt8] = []
        for (k, f) in findings.enumerated() {
            if k > 0 { out.append("&#10;") }
            writeLine(f, into: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// XML 1.0 text and attribute escaping; characters XML 1.0 cannot carry become U+FFFD.
    public static func escape(_ s: String) -> String {
        var out: [UInt8] = []
        appendEscaped(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `escape(s)`, appended to `out` as UTF-8. Works on the string's UTF-8 (every character
    /// it changes is ASCII, or U+FFFE or U+FFFF, whose encodings are `EF BF BE` and
    /// `EF BF BF`); runs of bytes that need nothing are copied whole.
    static func appendEscaped(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { u in
            var run = 0
            var i = 0
            while i < u.count {
                let b = u[i]
                let width: Int
                let replacement: StaticString
                switch b {
                case 0x26: (width, replacement) = (1, "&amp;")
                case 0x3C: (width, replacement) = (1, "&lt;")
                case 0x3E: (width, replacement) = (1, "&gt;")
                case 0x22: (width, replacement) = (1, "&quot;")
                case 0x0A: (width, replacement) = (1, "&#10;")
                case 0x09: (width, replacement) = (1, "&#9;")
                case 0x0D: (width, replacement) = (1, "&#13;")
                case ..<0x20: (width, replacement) = (1, "\u{FFFD}")
                case 0xEF where i + 2 < u.count && u[i + 1] == 0xBF && u[i + 2] >= 0xBE:
                    (width, replacement) = (3, "\u{FFFD}")
                default:
                    i += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: u[run..<i]))
                out.append(replacement)
                i += width
                run = i
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: u[run..<u.count]))
        }
    }
}
