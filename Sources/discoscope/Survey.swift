import Analyzer
import Capture
import Driver
import Findings
import Glibc
import Reporting
import Rules
import WireFormat

/// A quiet run of the analysis for `inventory`, `diff` and `explain`: no report is written;
/// the findings (bounded) and, when asked, the message records a filter keeps are collected,
/// with the inventory the analysis builds.
final class Survey: Reporter {
    /// Findings kept at most (the rest are counted).
    static let maxFindings = 200_000
    /// Message records kept at most for `explain`.
    static let maxRecords = 5000

    private(set) var findings: [Finding] = []
    private(set) var findingsLeftOut = 0
    private(set) var records: [(record: MessageRecord, findings: [Finding])] = []
    private(set) var recordsLeftOut = 0
    let keep: ((MessageRecord) -> Bool)?

    init(keep: ((MessageRecord) -> Bool)? = nil) { self.keep = keep }

    var isStreaming: Bool { false }

    func message(_ message: MessageRecord, findings: [Finding]) {
        for f in findings { finding(f) }
        guard let keep, keep(message) else { return }
        if records.count < Self.maxRecords {
            records.append((message, findings))
        } else {
            recordsLeftOut += 1
        }
    }

    func finding(_ finding: Finding) {
        if findings.count < Self.maxFindings {
            findings.append(finding)
        } else {
            findingsLeftOut += 1
        }
    }

    func finish(_ summary: RunSummary) {}

    /// What a survey of some files found.
    struct Result {
        var inventory: Inventory
        var findings: [Finding]
        var records: [(record: MessageRecord, findings: [Finding])]
        /// Records the filter kept beyond `maxRecords`, not collected.
        var recordsLeftOut = 0
        var summary: RunSummary
        var inputError: Bool
    }

    /// Analyses `files` in order (each its own session, or, with `segments` (the name of
    /// each file's segment), one session merged by time as `analyze --segments` does); input
    /// problems are reported on standard error, as `analyze` reports them.
    static func run(_ files: [String], segments: [String]? = nil, keep: ((MessageRecord) -> Bool)? = nil) -> Result {
        let survey = Survey(keep: keep)
        var options = Analysis.Options()
        options.wantMessages = keep != nil
        options.messageFields = keep != nil
        options.findingDetails = true
        options.jobs = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 4)
        let analysis = Analysis(reporter: survey, options: options, policy: nil, makePool: workerThreads)
        analysis.onWarning = { Frontend.warn($0) }
        var inputError = false
        if let segments {
            var parts: [(source: any FrameSource, name: String)] = []
            for (path, name) in zip(files, segments) {
                do {
                    parts.append((try OfflineSource.open(path), name))
                } catch {
                    Frontend.warn(error.description)
                    analysis.inputFailed(error)
                    inputError = true
                }
            }
            if !parts.isEmpty {
                for err in analysis.run(MergedSource(parts, input: MergedSession.name(files)), fileIndex: 0) {
                    Frontend.warn(err.description)
                    inputError = true
                }
            }
        }
        for (index, path) in files.enumerated() where segments == nil {
            do {
                let source = try OfflineSource.open(path)
                for err in analysis.run(source, fileIndex: index) {
                    Frontend.warn(err.description)
                    inputError = true
                }
            } catch {
                Frontend.warn(error.description)
                analysis.inputFailed(error)
                inputError = true
            }
        }
        let summary = analysis.finish()
        return Result(
            inventory: analysis.inventory, findings: survey.findings, records: survey.records,
            recordsLeftOut: survey.recordsLeftOut, summary: summary, inputError: inputError)
    }
}

/// Writes a command's text to `--output` or standard output; false (after saying why) when
/// it cannot.
func writeReport(_ text: String, to path: String?) -> Bool {
    let sink: FileSink
    do { sink = try FileSink.open(path) } catch let e as InputError {
        Frontend.warn(e.description)
        return false
    } catch {
        Frontend.warn("\(path ?? "standard output"): cannot write")
        return false
    }
    sink.write(text)
    if let failure = sink.close() {
        Frontend.warn(failure)
        return false
    }
    return true
}

/// What an inventory lists, for the text header.
func coverageNote(_ inventory: Inventory) -> String {
    "SSDP root devices, mDNS hosts and DNS-SD service instances"
}
