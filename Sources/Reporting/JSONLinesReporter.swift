import Findings
import WireFormat

/// `--format jsonl`: one JSON object per line, exactly the CONTRACT's records. Every decoded
/// message is emitted (jsonl always carries messages), each followed by its findings; the
/// summary is the last line.
public final class JSONLinesReporter: Reporter {
    let sink: any OutputSink
    public init(sink: any OutputSink) { self.sink = sink }
    public var isStreaming: Bool { true }

    /// Lines are serialised on the worker threads; this reporter only writes them.
    public func makeRenderer() -> (any MessageRenderer)? { JSONLinesRenderer() }

    public func emit(_ chunk: RenderedChunk) {
        chunk.bytes.withUnsafeBytes { sink.write(bytes: $0) }
    }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        var c = RenderedChunk()
        JSONLinesRenderer.render(m, findings: findings, into: &c)
        emit(c)
    }

    public func finding(_ f: Finding) {
        sink.write(Self.findingObject(f).serialized() + "\n")
    }

    public func finish(_ s: RunSummary) {
        sink.write(Self.summaryObject(s).serialized() + "\n")
        sink.flush()
    }

    public static func messageObject(_ m: MessageRecord) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("message")), ("frame", .int(m.frame)), ("time", .rawNumber(m.time.microsecondText)),
            ("src", .string(m.src)), ("sport", .int(m.sport)), ("dst", .string(m.dst)), ("dport", .int(m.dport)),
            ("ip_ttl", .int(m.ipTTL)), ("protocol", .string(m.proto.rawValue)), ("kind", .string(m.kind)),
        ]
        fields += m.fields
        if m.truncated { fields.append(("truncated", .bool(true))) }
        if !m.fragmentFrames.isEmpty { fields.append(("fragment_frames", .array(m.fragmentFrames.map { .int($0) }))) }
        return .object(fields)
    }

    public static func findingObject(_ f: Finding) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("finding")), ("rule", .string(f.rule.rawValue)), ("name", .string(f.name)),
            ("severity", .string(f.severity.rawValue)), ("frames", .array(f.frames.map { .int($0) })),
            ("time", .rawNumber(f.time.microsecondText)), ("message", .string(f.message)), ("spec", .string(f.spec)),
            ("interop", f.interop.map { .string($0) } ?? .null), ("source", .string(f.source)),
        ]
        if let d = f.device { fields.append(("device", .string(d))) }
        if let fld = f.field { fields.append(("field", .string(fld))) }
        return .object(fields)
    }

    public static func summaryObject(_ s: RunSummary) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("type", .string("summary")), ("files", .array(s.files.map { .string($0) })), ("frames", .int(s.framesRead)),
            ("datagrams", .int(s.datagrams)), ("port_datagrams", .int(s.portDatagrams)),
            ("ssdp_messages", .int(s.ssdpMessages)), ("mdns_messages", .int(s.mdnsMessages)),
            ("truncated", .int(s.truncatedDatagrams)), ("reassembled", .int(s.reassembledDatagrams)),
            ("devices", .int(s.devices)), ("services", .int(s.services)),
            ("findings", .object([
                ("error", .int(s.findingsBySeverity[.error] ?? 0)), ("warning", .int(s.findingsBySeverity[.warning] ?? 0)),
                ("info", .int(s.findingsBySeverity[.info] ?? 0)),
            ])),
            ("findings_by_rule", .object(s.findingsByRule.map { ($0.rule.rawValue, .int($0.count)) })),
            ("suppressed", .int(s.suppressed)),
            ("skipped", .object(s.skipped.map { ($0.reason, .int($0.count)) })),
            ("input_errors", .array(s.inputErrors.map { .string($0) })),
        ]
        if let r = s.packetsReceived { fields.append(("packets_received", .int(Int(clamping: r)))) }
        if let d = s.packetsDropped { fields.append(("packets_dropped", .int(Int(clamping: d)))) }
        if let d = s.packetsDroppedByInterface { fields.append(("packets_dropped_by_interface", .int(Int(clamping: d)))) }
        return .object(fields)
    }
}

/// One JSON line per message, then one per finding.
public struct JSONLinesRenderer: MessageRenderer {
    public init() {}

    static func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        c.append(JSONLinesReporter.messageObject(m).serialized())
        c.append(byte: 0x0A)
        for f in findings { line(f, into: &c) }
    }

    static func line(_ f: Finding, into c: inout RenderedChunk) {
        c.append(JSONLinesReporter.findingObject(f).serialized())
        c.append(byte: 0x0A)
    }

    public mutating func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        Self.render(m, findings: findings, into: &c)
    }

    public mutating func render(finding f: Finding, into c: inout RenderedChunk) { Self.line(f, into: &c) }
}
