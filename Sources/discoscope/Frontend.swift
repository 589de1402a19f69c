import Analyzer
import Capture
import Findings
import Glibc
import Reporting
import Rules
import WireFormat

/// The work behind `analyze` (and, with a live source, `capture`): everything the thin
/// commands share.
enum Frontend {
    static func warn(_ message: String) {
        FileHandleStderr.write("discoscope: \(message)\n")
    }

    static func analyze(files: [String], filter: String?, output: OutputOptions, rules: RuleOptions) throws -> Int32 {
        let sink: FileSink
        do {
            sink = try FileSink.open(output.output)
        } catch let e as InputError {
            warn(e.description)
            return 2
        }
        let reporter = TemporaryReporter(sink: sink, format: output.format)
        var options = Analysis.Options()
        options.verbose = output.verbose
        options.wantMessages = output.format == .text || output.format == .jsonl
        let analysis = Analysis(reporter: reporter, options: options)
        analysis.onWarning = { warn($0) }
        var inputError = false
        for (index, path) in files.enumerated() {
            let handle: PcapHandle
            do {
                handle = try OfflineSource.open(path)
                if let filter { try handle.setOfflineFilter(filter) }
            } catch {
                warn(error.description)
                analysis.inputFailed(error)
                inputError = true
                continue
            }
            if let err = analysis.run(handle, fileIndex: index) {
                warn(err.description)
                inputError = true
            }
        }
        _ = analysis.finish()
        sink.flush()
        if inputError { return 2 }
        if let t = rules.failOn.threshold, analysis.count(atLeast: t) > 0 { return 1 }
        return 0
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
