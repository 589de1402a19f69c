import Findings
import WireFormat

/// `--format jsonl`: one JSON object per line, exactly the CONTRACT's records. Every decoded
/// message is emitted (jsonl always carries messages), each followed by its findings; the
/// summary is the last line.
public final class JSONLinesReporter: Reporter {
    let sink: any OutputSink
    /// The inputs as given on the command line (the interface for live capture), indexed by
    /// a record's `fileIndex`: each message and finding names its `file`.
    let files: [String]
    /// The run's segment names (`Segments`), for the records and findings this reporter
    /// serialises itself.
    private var segments: [String] = []
    public init(sink: any OutputSink, files: [String] = []) {
        self.sink = sink
        self.files = files
    }
    public var isStreaming: Bool { true }

    /// Lines are serialised on the worker threads; this reporter only writes them.
    public func makeRenderer() -> (any MessageRenderer)? { JSONLinesRenderer(files: files) }

    public func setSegmentNames(_ names: [String]) { segments = names }

    public func emit(_ chunk: RenderedChunk) {
        chunk.bytes.withUnsafeBytes { sink.write(bytes: $0) }
    }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        var c = RenderedChunk()
        var renderer = JSONLinesRenderer(files: files)
        renderer.setSegmentNames(segments)
        renderer.render(m, findings: findings, into: &c)
        emit(c)
    }

    public func finding(_ f: Finding) {
        sink.write(
            Self.findingObject(
                f, file: JSONLinesRenderer.name(files, f.fileIndex), segment: Segments.name(f.segment, in: segments)
            ).serialized() + "\n")
    }

    public func inventory(_ inventory: Inventory) {
        sink.write(InventoryRecords.lines(inventory))
    }

    public func finish(_ s: RunSummary) {
        sink.write(Self.summaryObject(s).serialized() + "\n")
        sink.flush()
    }

    /// `file`: the input the record came from (null when unknown, as in unit tests);
    /// `segment`: the name of its segment, when the run names one for it.
    public static func messageObject(_ m: MessageRecord, file: String? = nil, segment: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("message")), ("file", file.map { .string($0) } ?? .null)]
        if let segment { fields.append(("segment", .string(segment))) }
        fields += [
            ("frame", .int(m.frame)),
            ("time", .rawNumber(m.time.microsecondText)),
            ("src", .string(m.src)), ("sport", .int(m.sport)), ("dst", .string(m.dst)), ("dport", .int(m.dport)),
            ("ip_ttl", .int(m.ipTTL)), ("protocol", .string(m.proto.rawValue)), ("kind", .string(m.kind)),
        ]
        fields += m.fields
        if m.truncated { fields.append(("truncated", .bool(true))) }
        if !m.fragmentFrames.isEmpty { fields.append(("fragment_frames", .array(m.fragmentFrames.map { .int($0) }))) }
        return .object(fields)
    }

    public static func findingObject(_ f: Finding, file: String? = nil, segment: String? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("finding")), ("file", file.map { .string($0) } ?? .null)]
        if let segment { fields.append(("segment", .string(segment))) }
        fields += [
            ("rule", .string(f.rule.rawValue)), ("name", .string(f.name)),
            ("severity", .string(f.severity.rawValue)), ("frames", .array(f.frames.map { .int($0) })),
            ("time", .rawNumber(f.time.microsecondText)), ("message", .string(f.message)), ("spec", .string(f.spec)),
            ("interop", f.interop.map { .string($0) } ?? .null), ("source", .string(f.source)),
        ]
        if let d = f.device { fields.append(("device", .string(d))) }
        if let fld = f.field { fields.append(("field", .string(fld))) }
        if f.atEnd { fields.append(("at_end", .bool(true))) }
        return .object(fields)
    }

    public static func summaryObject(_ s: RunSummary) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("summary")), ("files", .array(s.files.map { .string($0) })),
        ]
        if !s.segments.isEmpty { fields.append(("segments", .array(s.segments.map { .string($0) }))) }
        fields += [
            ("frames", .int(s.framesRead)),
            ("datagrams", .int(s.datagrams)), ("port_datagrams", .int(s.portDatagrams)),
            ("ssdp_messages", .int(s.ssdpMessages)), ("mdns_messages", .int(s.mdnsMessages)),
            ("truncated", .int(s.truncatedDatagrams)), ("reassembled", .int(s.reassembledDatagrams)),
            ("devices", .int(s.devices)), ("services", .int(s.services)),
            (
                "findings",
                .object([
                    ("error", .int(s.findingsBySeverity[.error] ?? 0)),
                    ("warning", .int(s.findingsBySeverity[.warning] ?? 0)),
                    ("info", .int(s.findingsBySeverity[.info] ?? 0)),
                ])
            ),
            ("findings_by_rule", .object(s.findingsByRule.map { ($0.rule.rawValue, .int($0.count)) })),
            ("suppressed", .int(s.suppressed)), ("below_min_severity", .int(s.belowMinSeverity)),
            ("skipped", .object(s.skipped.map { ($0.reason, .int($0.count)) })),
            ("input_errors", .array(s.inputErrors.map { .string($0) })),
            ("result", .string(s.verdict.rawValue)),
        ]
        if let i = s.interface { fields.append(("interface", .string(i))) }
        if s.stateEvicted > 0 { fields.append(("state_evicted", .int(s.stateEvicted))) }
        if s.timeWentBack > 0 { fields.append(("time_went_back", .int(s.timeWentBack))) }
        if !s.limitsReached.isEmpty {
            fields.append(
                (
                    "limits_reached",
                    .array(
                        s.limitsReached.map { l in
                            .object([
                                ("limit", .string(l.limit)), ("value", .int(l.value)), ("message", .string(l.message)),
                            ])
                        })
                ))
        }
        if let r = s.packetsReceived { fields.append(("packets_received", .int(Int(clamping: r)))) }
        if let d = s.packetsDropped { fields.append(("packets_dropped", .int(Int(clamping: d)))) }
        if let d = s.packetsDroppedByInterface {
            fields.append(("packets_dropped_by_interface", .int(Int(clamping: d))))
        }
        return .object(fields)
    }
}

/// One JSON line per message, then one per finding.
public struct JSONLinesRenderer: MessageRenderer {
    let files: [String]
    /// The run's segment names (`Segments`).
    private var segments: [String] = []
    public init(files: [String] = []) { self.files = files }

    public mutating func setSegmentNames(_ names: [String]) { segments = names }

    static func name(_ files: [String], _ index: Int) -> String? {
        index >= 0 && index < files.count ? files[index] : nil
    }

    func line(_ f: Finding, into c: inout RenderedChunk) {
        JSONLinesReporter.findingObject(
            f, file: Self.name(files, f.fileIndex), segment: Segments.name(f.segment, in: segments)
        ).write(into: &c.bytes)
        c.append(byte: 0x0A)
    }

    public mutating func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        JSONLinesReporter.messageObject(
            m, file: Self.name(files, m.fileIndex), segment: Segments.name(m.segment, in: segments)
        ).write(into: &c.bytes)
        c.append(byte: 0x0A)
        for f in findings { line(f, into: &c) }
    }

    public mutating func render(finding f: Finding, into c: inout RenderedChunk) { line(f, into: &c) }
}
