import Findings
import WireFormat

/// `--format junit`: JUnit XML as CI test-report parsers read it. One `<testsuite>` per
/// capture file, one `<testcase>` per rule checked; a test case fails when the file has a
/// finding of that rule at or above `--fail-on` (its frames and messages in the failure
/// body); findings below the threshold go to `<system-out>`. A file that could not be read
/// completely carries an `<error>` test case. Written at `finish`.
public final class JUnitReporter: Reporter {
    let sink: any OutputSink
    /// Findings per file and rule, bounded like SARIF's results.
    private var byFile: [Int: [RuleID: [Finding]]] = [:]
    private var kept = 0
    public static let maxFindings = 100_000

    public init(sink: any OutputSink) { self.sink = sink }
    public var isStreaming: Bool { false }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        for f in findings { finding(f) }
    }

    public func finding(_ f: Finding) {
        guard kept < Self.maxFindings else { return }
        kept += 1
        byFile[f.fileIndex, default: [:]][f.rule, default: []].append(f)
    }

    public func finish(_ s: RunSummary) {
        var files = s.files
        if files.isEmpty { files = ["(no input)"] }
        // Input errors for files that never opened have no entry in `files`.
        var suites = ""
        var totalTests = 0
        var totalFailures = 0
        var totalErrors = 0
        for (index, file) in files.enumerated() {
            let found = byFile[index] ?? [:]
            var cases = ""
            var failures = 0
            for d in s.rulesChecked {
                let list = found[d.id] ?? []
                let failing = s.failOn.map { t in list.filter { $0.severity >= t } } ?? []
                let other = list.filter { f in s.failOn.map { f.severity < $0 } ?? true }
                cases +=
                    "    <testcase classname=\"discoscope.\(d.proto.rawValue)\" name=\"\(Self.escape(d.id.rawValue + " " + d.name))\" time=\"0\">\n"
                if !failing.isEmpty {
                    failures += 1
                    let worst = failing.map(\.severity).max() ?? .error
                    cases +=
                        "      <failure type=\"\(worst.rawValue)\" message=\"\(Self.escape("\(failing.count) finding(s): \(d.title)"))\">"
                    cases += Self.escape(failing.map(Self.line).joined(separator: "\n")) + "</failure>\n"
                }
                if !other.isEmpty {
                    cases +=
                        "      <system-out>" + Self.escape(other.map(Self.line).joined(separator: "\n"))
                        + "</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            let errs = s.inputErrors.filter { $0.hasPrefix(file + ":") }
            for e in errs {
                cases += "    <testcase classname=\"discoscope.input\" name=\"read \(Self.escape(file))\" time=\"0\">\n"
                cases += "      <error type=\"input\" message=\"\(Self.escape(e))\"/>\n    </testcase>\n"
            }
            let tests = s.rulesChecked.count + errs.count
            totalTests += tests
            totalFailures += failures
            totalErrors += errs.count
            suites +=
                "  <testsuite name=\"\(Self.escape(file))\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errs.count)\" skipped=\"0\" time=\"0\">\n"
            suites += cases
            suites += "  </testsuite>\n"
        }
        // Errors for inputs that never opened (not in `files`).
        let orphan = s.inputErrors.filter { e in !files.contains { e.hasPrefix($0 + ":") } }
        if !orphan.isEmpty {
            suites +=
                "  <testsuite name=\"inputs\" tests=\"\(orphan.count)\" failures=\"0\" errors=\"\(orphan.count)\" skipped=\"0\" time=\"0\">\n"
            for e in orphan {
                suites += "    <testcase classname=\"discoscope.input\" name=\"\(Self.escape(e))\" time=\"0\">\n"
                suites += "      <error type=\"input\" message=\"\(Self.escape(e))\"/>\n    </testcase>\n"
            }
            suites += "  </testsuite>\n"
            totalTests += orphan.count
            totalErrors += orphan.count
        }
        var doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        doc +=
            "<testsuites name=\"discoscope\" tests=\"\(totalTests)\" failures=\"\(totalFailures)\" errors=\"\(totalErrors)\" time=\"\(Self.seconds(s.elapsedSeconds))\">\n"
        doc += suites + "</testsuites>\n"
        sink.write(doc)
        sink.flush()
    }

    static func line(_ f: Finding) -> String {
        let frames = f.frames.isEmpty ? "end of capture" : "frame " + f.frames.map(String.init).joined(separator: ",")
        return "\(frames) \(f.severity.rawValue) from \(f.source): \(f.message) [\(f.spec)]"
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        let frac = String(ms % 1000)
        return "\(ms / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// XML 1.0 text and attribute escaping; characters XML 1.0 cannot carry become U+FFFD.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
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
}
