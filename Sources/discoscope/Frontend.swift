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

/// Built-in output used until the Reporting formats are wired in: tcpdump-like text lines
/// and the CONTRACT's JSON-lines records.
final class TemporaryReporter: Reporter {
    let sink: any OutputSink
    let format: OutputFormatOption
    init(sink: any OutputSink, format: OutputFormatOption) {
        self.sink = sink
        self.format = format
    }
    var isStreaming: Bool { true }

    func message(_ m: MessageRecord, findings: [Finding]) {
        if format == .jsonl {
            var fields: [(String, JSONValue)] = [
                ("type", .string("message")), ("frame", .int(m.frame)), ("time", .rawNumber(m.time.microsecondText)),
                ("src", .string(m.src)), ("sport", .int(m.sport)), ("dst", .string(m.dst)), ("dport", .int(m.dport)),
                ("ip_ttl", .int(m.ipTTL)), ("protocol", .string(m.proto.rawValue)), ("kind", .string(m.kind)),
            ]
            fields += m.fields
            if m.truncated { fields.append(("truncated", .bool(true))) }
            if !m.fragmentFrames.isEmpty { fields.append(("fragment_frames", .array(m.fragmentFrames.map { .int($0) }))) }
            sink.write(JSONValue.object(fields).serialized() + "\n")
            for f in findings { finding(f) }
            return
        }
        sink.write("\(m.frame) \(m.time.microsecondText) \(m.src).\(m.sport) > \(m.dst).\(m.dport) \(m.proto.rawValue): \(m.summary)\n")
        for f in findings { sink.write("  \(f.rule) \(f.severity.rawValue): \(f.message)\n") }
    }

    func finding(_ f: Finding) {
        if format == .jsonl {
            let obj: JSONValue = .object([
                ("type", .string("finding")), ("rule", .string(f.rule.rawValue)), ("name", .string(f.name)),
                ("severity", .string(f.severity.rawValue)), ("frames", .array(f.frames.map { .int($0) })),
                ("time", .rawNumber(f.time.microsecondText)), ("message", .string(f.message)), ("spec", .string(f.spec)),
                ("interop", f.interop.map { .string($0) } ?? .null), ("source", .string(f.source)),
            ])
            sink.write(obj.serialized() + "\n")
            return
        }
        sink.write("\(f.rule) \(f.severity.rawValue): \(f.message)\n")
    }

    func finish(_ s: RunSummary) {
        if format == .jsonl {
            let obj: JSONValue = .object([
                ("type", .string("summary")), ("frames", .int(s.framesRead)), ("datagrams", .int(s.datagrams)),
                ("port_datagrams", .int(s.portDatagrams)), ("ssdp_messages", .int(s.ssdpMessages)),
                ("mdns_messages", .int(s.mdnsMessages)), ("truncated", .int(s.truncatedDatagrams)),
                ("reassembled", .int(s.reassembledDatagrams)),
                ("skipped", .object(s.skipped.map { ($0.reason, .int($0.count)) })),
                ("input_errors", .array(s.inputErrors.map { .string($0) })),
            ])
            sink.write(obj.serialized() + "\n")
            return
        }
        sink.write("summary frames=\(s.framesRead) datagrams=\(s.datagrams) port_datagrams=\(s.portDatagrams) ssdp=\(s.ssdpMessages) mdns=\(s.mdnsMessages)\n")
    }
}
