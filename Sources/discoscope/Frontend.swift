import Analyzer
import Capture
import Findings
import Glibc
import Reporting
import Rules
import WireFormat

/// The work behind `analyze` and `capture`: output sink, reporter, rule policy and the
/// analysis, shared by both thin commands.
final class Frontend {
    static func warn(_ message: String) {
        FileHandleStderr.write("discoscope: \(message)\n")
    }

    let sink: FileSink
    let analysis: Analysis
    let rules: RuleOptions
    private(set) var inputError = false

    /// Sets up output and rules; throws `InputError` (exit 2) for an unwritable output or a
    /// bad configuration.
    init(output: OutputOptions, rules: RuleOptions, live: Bool = false) throws {
        self.rules = rules
        sink = try FileSink.open(output.output)
        sink.flushEachWrite = live
        let reporter = TemporaryReporter(sink: sink, format: output.format)
        var options = Analysis.Options()
        options.verbose = output.verbose
        options.wantMessages = output.format == .text || output.format == .jsonl
        analysis = Analysis(reporter: reporter, options: options)
        analysis.onWarning = { Frontend.warn($0) }
    }

    /// Analyses one opened source to its end (or until `shouldStop`).
    func run(_ handle: PcapHandle, fileIndex: Int, shouldStop: () -> Bool = { false }) {
        if let err = analysis.run(handle, fileIndex: fileIndex, shouldStop: shouldStop) {
            Frontend.warn(err.description)
            inputError = true
        }
    }

    /// Records an input that could not be opened.
    func failed(_ error: CaptureError) {
        Frontend.warn(error.description)
        analysis.inputFailed(error)
        inputError = true
    }

    /// Finishes the report and returns the exit status: 2 after an input error, 1 when a
    /// finding reaches `--fail-on`, else 0.
    func finish(extra: (inout RunSummary) -> Void = { _ in }) -> Int32 {
        _ = analysis.finish(extra: extra)
        sink.flush()
        if inputError { return 2 }
        if let t = rules.failOn.threshold, analysis.count(atLeast: t) > 0 { return 1 }
        return 0
    }

    static func analyze(files: [String], filter: String?, output: OutputOptions, rules: RuleOptions) throws -> Int32 {
        let frontend: Frontend
        do {
            frontend = try Frontend(output: output, rules: rules)
        } catch let e as InputError {
            warn(e.description)
            return 2
        }
        for (index, path) in files.enumerated() {
            let handle: PcapHandle
            do {
                handle = try OfflineSource.open(path)
                if let filter { try handle.setOfflineFilter(filter) }
            } catch {
                frontend.failed(error)
                continue
            }
            frontend.run(handle, fileIndex: index)
        }
        return frontend.finish()
    }
}

/// Minimal output until the reporters land.
final class TemporaryReporter: Reporter {
    let sink: any OutputSink
    let format: OutputFormatOption
    init(sink: any OutputSink, format: OutputFormatOption) {
        self.sink = sink
        self.format = format
    }
    var isStreaming: Bool { true }
    func message(_ m: MessageRecord, findings: [Finding]) {
        sink.write("\(m.frame) \(m.time.microsecondText) \(m.src).\(m.sport) > \(m.dst).\(m.dport) \(m.proto.rawValue): \(m.summary)\n")
        for f in findings { sink.write("  \(f.rule) \(f.severity.rawValue): \(f.message)\n") }
    }
    func finding(_ f: Finding) { sink.write("\(f.rule) \(f.severity.rawValue): \(f.message)\n") }
    func finish(_ s: RunSummary) {
        sink.write("summary frames=\(s.framesRead) datagrams=\(s.datagrams) port_datagrams=\(s.portDatagrams) ssdp=\(s.ssdpMessages) mdns=\(s.mdnsMessages)\n")
    }
}
