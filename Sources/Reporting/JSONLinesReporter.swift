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
            Self.findingLine(
                f, file: JSONLinesRenderer.name(files, f.fileIndex), segment: Segments.name(f.segment, in: segments)))
    }

    public func inventory(_ inventory: Inventory) {
        var out: [UInt8] = []
        InventoryRecords.write(inventory, into: &out)
        out.withUnsafeBytes { sink.write(bytes: $0) }
    }

    public func finish(_ s: RunSummary) {
        sink.write(Self.summaryObject(s).serialized() + "\n")
        sink.flush()
    }

    /// The start every record shares: its type, its input file and its segment.
    private static func beginRecord(_ type: StaticString, file: String?, segment: String?, to w: inout JSONWriter) {
        w.beginObject()
        w.key("type")
        w.string(type.description)
        w.member("file", orNull: file)
        if let segment {
            w.member("segment", segment)
        }
    }

    /// A message's record (`file`: the input it came from, null when unknown, as in unit
    /// tests; `segment`: the name of its segment, when the run names one for it).
    public static func writeMessage(_ m: MessageRecord, file: String?, segment: String?, to w: inout JSONWriter) {
        beginRecord("message", file: file, segment: segment, to: &w)
        w.member("frame", m.frame)
        w.key("time")
        w.time(m.time)
        w.member("src", m.src)
        w.member("sport", Int(m.sport))
        w.member("dst", m.dst)
        w.member("dport", Int(m.dport))
        w.member("ip_ttl", Int(m.ipTTL))
        w.member("protocol", m.proto.rawValue)
        w.member("kind", m.kind)
        w.members(json: m.fieldsJSON)
        if m.truncated {
            w.member("truncated", true)
        }
        if !m.fragmentFrames.isEmpty {
            w.member("fragment_frames", m.fragmentFrames)
        }
        w.endObject()
    }

    /// A finding's record (`file`, `segment` as for a message).
    public static func writeFinding(_ f: Finding, file: String?, segment: String?, to w: inout JSONWriter) {
        beginRecord("finding", file: file, segment: segment, to: &w)
        w.member("rule", f.rule.rawValue)
        w.member("name", json: f.texts.nameJSON)
        w.member("severity", f.severity.rawValue)
        w.member("frames", framesOf: f)
        w.key("time")
        w.time(f.time)
        w.member("message", f.message)
        w.member("spec", json: f.texts.specJSON)
        w.member("interop", json: f.texts.interopJSON)
        w.member("source", f.source)
        if let d = f.device {
            w.member("device", d)
        }
        if let fld = f.field {
            w.member("field", fld)
        }
        if f.atEnd {
            w.member("at_end", true)
        }
        if let p = f.profile {
            w.member("profile", p.rawValue)
        }
        w.endObject()
    }

    /// A finding's record as one line of text, line feed included.
    public static func findingLine(_ f: Finding, file: String? = nil, segment: String? = nil) -> String {
        var w = JSONWriter()
        writeFinding(f, file: file, segment: segment, to: &w)
        w.endLine()
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// One profile's result in the summary (docs/FORMATS.md, `profiles`).
    static func profileObject(_ p: ProfileResult) -> JSONValue {
        let instances: [JSONValue] = p.members.map { m in
            .object([("name", .string(m.name)), ("failed", .array(m.failed.map { .string($0.rawValue) }))])
        }
        return .object([
            ("profile", .string(p.profile.rawValue)), ("gated", .bool(p.gated)), ("passed", .bool(p.passed)),
            ("instances", .array(instances)), ("missing", .array(p.missing.map { .string($0) })),
        ])
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
        if !s.profiles.isEmpty { fields.append(("profiles", .array(s.profiles.map(profileObject)))) }
        if s.stateEvicted > 0 { fields.append(("state_evicted", .int(s.stateEvicted))) }
        if s.timeWentBack > 0 { fields.append(("time_went_back", .int(s.timeWentBack))) }
        if !s.unanswered.isEmpty {
            let named = [""] + s.segments
            fields.append(("unanswered_total", .int(s.unansweredTotal)))
            fields.append(
                (
                    "unanswered",
                    .array(
                        s.unanswered.map { q in
                            var o: [(String, JSONValue)] = [
                                ("protocol", .string(q.proto.rawValue)), ("name", .string(q.name)),
                                ("qtype", q.type.isEmpty ? .null : .string(q.type)), ("asked", .int(q.asked)),
                                ("askers", .array(q.askers.map { .string($0) })), ("more_askers", .bool(q.moreAskers)),
                                ("first_frame", .int(q.firstFrame)), ("first", .rawNumber(q.first.microsecondText)),
                                ("last", .rawNumber(q.last.microsecondText)),
                            ]
                            if let seg = Segments.name(q.segment, in: named) { o.append(("segment", .string(seg))) }
                            return .object(o)
                        })
                ))
        }
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

    func line(_ f: Finding, into w: inout JSONWriter) {
        JSONLinesReporter.writeFinding(
            f, file: Self.name(files, f.fileIndex), segment: Segments.name(f.segment, in: segments), to: &w)
        w.endLine()
    }

    /// The chunk's buffer is lent to a writer for the lines (no copy).
    private func write(into c: inout RenderedChunk, _ body: (inout JSONWriter) -> Void) {
        var w = JSONWriter()
        swap(&w.bytes, &c.bytes)
        body(&w)
        swap(&w.bytes, &c.bytes)
    }

    public mutating func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        write(into: &c) { w in
            JSONLinesReporter.writeMessage(
                m, file: Self.name(files, m.fileIndex), segment: Segments.name(m.segment, in: segments), to: &w)
            w.endLine()
            for f in findings { line(f, into: &w) }
        }
    }

    public mutating func render(finding f: Finding, into c: inout RenderedChunk) {
        write(into: &c) { line(f, into: &$0) }
    }
}
