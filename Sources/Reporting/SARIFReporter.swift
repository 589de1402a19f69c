import Findings
import WireFormat

/// `--format sarif`: one SARIF 2.1.0 log with one run. `tool.driver.rules` lists the rules
/// checked (id, name, short/full description, help with the spec reference, default level);
/// each result names its rule, level, message, and a location: the capture file as the
/// artifact and the frame as a logical location (plus line 1, which GitHub code scanning
/// requires of every result).
///
/// The header (rules, invocations, artifacts) precedes the results and is known only at
/// `finish`, so each result is serialised when its finding arrives and kept as bytes in a
/// `SpillStore`; `finish` writes the header and copies the results out in order. What is
/// kept per result is its rule: its `ruleIndex` (position in `rulesChecked`) is written at
/// `finish`, from the same list as `tool.driver.rules`.
public final class SARIFReporter: Reporter {
    let sink: any OutputSink
    let toolVersion: String
    /// Each result's text after `ruleId` and `ruleIndex` (`,"level":…}`), back to back.
    private let spill: any SpillStore
    /// Per result: its rule, and where its text ends in `spill` (it starts where the one
    /// before it ends).
    private var results: [(rule: RuleID, end: Int)] = []
    /// Results are bounded: a pathological capture cannot grow the document without end.
    public static let maxResults = 100_000
    private var dropped = 0
    /// Inputs by command-line index (`beginFile`): the name, and the physical location every
    /// result from it has (`physicalLocation`).
    private var inputs: [Int: (name: String, location: [UInt8])] = [:]
    private var opened = 0
    private var lastName: String? = nil
    private var scratch: [UInt8] = []
    /// A result's identity key (`FindingIdentity.appendKey`), made again for each result.
    private var key: [UInt8] = []
    /// The run's segment names (`Segments`): a result whose finding has one carries it.
    private var segments: [String] = []

    public init(sink: any OutputSink, toolVersion: String, spill: any SpillStore = MemorySpill()) {
        self.sink = sink
        self.toolVersion = toolVersion
        self.spill = spill
    }
    public var isStreaming: Bool { false }

    public func beginFile(_ index: Int, name: String) {
        inputs[index] = (name, Self.physicalLocation(name, artifact: opened))
        opened += 1
        lastName = name
    }

    public func setSegmentNames(_ names: [String]) { segments = names }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        for f in findings { finding(f) }
    }

    public func finding(_ f: Finding) {
        guard results.count < Self.maxResults else {
            dropped += 1
            return
        }
        // Without `beginFile` for its input (findings given directly), the last input begun.
        let input = inputs[f.fileIndex]
        let file = input?.name ?? lastName ?? "-"
        let frame = f.firstFrame ?? 0
        var w = JSONWriter()
        swap(&w.bytes, &scratch)
        w.bytes.removeAll(keepingCapacity: true)
        // Held in a local while the result is written (the property's accesses are checked).
        var key: [UInt8] = []
        swap(&key, &self.key)
        defer { swap(&key, &self.key) }
        w.beginObject()
        w.member("level", Self.level(f.severity))
        w.key("message")
        w.beginObject()
        if frame > 0 {
            w.beginString("text", "Frame ")
            w.stringPart(decimal: frame)
            w.stringPart(": ")
            w.stringPart(escaping: f.message)
            w.endString()
        } else {
            w.member("text", f.message)
        }
        w.endObject()
        w.key("locations")
        w.beginArray()
        w.beginObject()
        w.members(json: input?.location ?? Self.physicalLocation(file, artifact: nil))
        if frame > 0 {
            w.key("logicalLocations")
            w.beginArray()
            w.beginObject()
            w.beginString("name", "frame ")
            w.stringPart(decimal: frame)
            w.endString()
            w.beginString("fullyQualifiedName")
            w.stringPart(escaping: file)
            w.stringPart("#frame=")
            w.stringPart(decimal: frame)
            w.endString()
            w.member("kind", "element")
            w.endObject()
            w.endArray()
        }
        w.endObject()
        w.endArray()
        w.key("partialFingerprints")
        w.beginObject()
        key.removeAll(keepingCapacity: true)
        Self.appendKey(f, to: &key)
        w.member("discoscopeFinding/v2", hex: FindingIdentity.digest(key))
        w.endObject()
        if f.baselined {
            // SARIF §3.35: accepted by the baseline, so code scanning shows it as dismissed.
            w.key("suppressions")
            w.beginArray()
            w.beginObject()
            w.member("kind", "external")
            w.member("status", "accepted")
            w.member("justification", "in the baseline (--baseline)")
            w.endObject()
            w.endArray()
        }
        w.key("properties")
        w.beginObject()
        w.member("frames", framesOf: f)
        w.key("time")
        w.time(f.time)
        w.member("source", f.source)
        w.member("device", orNull: f.device)
        w.member("spec", json: f.texts.specJSON)
        w.member("interop", json: f.texts.interopJSON)
        if f.atEnd { w.member("at_end", true) }
        if let p = f.profile { w.member("profile", p.rawValue) }
        if let segment = Segments.name(f.segment, in: segments) { w.member("segment", segment) }
        w.endObject()
        w.endObject()
        swap(&w.bytes, &scratch)
        // `{"level":…}` becomes `,"level":…}`: the members that follow `ruleId` (and
        // `ruleIndex`) in the result object.
        scratch[0] = 0x2C
        results.append((f.rule, spill.append(scratch).upperBound))
    }

    /// The `physicalLocation` member of every result from the input `name`: the capture file
    /// as the artifact, with its index when it has one (the position among the files opened,
    /// `RunSummary.files`: an input that could not be opened has none), and line 1.
    static func physicalLocation(_ name: String, artifact: Int?) -> [UInt8] {
        var w = JSONWriter()
        w.key("physicalLocation")
        w.beginObject()
        w.key("artifactLocation")
        w.beginObject()
        w.member("uri", Self.uri(name))
        if let artifact { w.member("index", artifact) }
        w.endObject()
        w.key("region")
        w.beginObject()
        w.member("startLine", 1)
        w.endObject()
        w.endObject()
        return w.bytes
    }

    public static func level(_ s: Severity) -> String {
        switch s {
        case .error: "error"
        case .warning: "warning"
        case .info: "note"
        }
    }

    public func finish(_ s: RunSummary) {
        var ruleIndex: [RuleID: Int] = [:]
        var rules: [JSONValue] = []
        for (k, d) in s.rulesChecked.enumerated() {
            ruleIndex[d.id] = k
            var help = d.title + ". " + (d.description.isEmpty ? "" : d.description + " ") + "Spec: " + d.spec + "."
            if let i = d.interop { help += " Interop: " + i + "." }
            help += " Example of a violation: " + d.example + "."
            var tags: [JSONValue] = [.string(d.proto.rawValue), .string(d.scope.rawValue)]
            // A profile rule is tagged with its profiles, so code scanning filters by product.
            tags += d.profiles.members.map { .string("profile:" + $0.rawValue) }
            rules.append(
                .object([
                    ("id", .string(d.id.rawValue)), ("name", .string(d.name)),
                    ("shortDescription", .object([("text", .string(d.title))])),
                    ("fullDescription", .object([("text", .string(d.description.isEmpty ? d.title : d.description))])),
                    ("help", .object([("text", .string(help))])),
                    ("defaultConfiguration", .object([("level", .string(Self.level(d.severity)))])),
                    (
                        "properties",
                        .object([
                            ("tags", .array(tags)),
                            ("spec", .string(d.spec)),
                            ("problem.severity", .string(d.severity == .info ? "recommendation" : d.severity.rawValue)),
                        ])
                    ),
                ]))
        }
        let artifacts: [JSONValue] = s.files.map { .object([("location", .object([("uri", .string(Self.uri($0)))]))]) }
        // Results are copied one at a time from the spill straight to the output (the document
        // is never built in memory as a whole).
        func writeResults() {
            var start = 0
            var head: [UInt8] = []
            for (k, r) in results.enumerated() {
                head.removeAll(keepingCapacity: true)
                if k > 0 { head.append(0x2C) }
                head.append(#"{"ruleId":"#)
                JSONValue.writeString(r.rule.rawValue, into: &head)
                if let i = ruleIndex[r.rule] {
                    head.append(#","ruleIndex":"#)
                    head.append(decimal: i)
                }
                head.withUnsafeBytes { sink.write(bytes: $0) }
                spill.copy(start..<r.end, to: sink)
                start = r.end
            }
        }
        var notes: [JSONValue] = s.inputErrors.map {
            .object([("level", .string("error")), ("message", .object([("text", .string($0))]))])
        }
        if dropped > 0 {
            notes.append(
                .object([
                    ("level", .string("warning")),
                    (
                        "message",
                        .object([
                            (
                                "text",
                                .string(
                                    "\(dropped) further results omitted (limit \(Self.maxResults) results per document; --format jsonl reports every finding)"
                                )
                            )
                        ])
                    ),
                ]))
        }
        for l in s.limitsReached {
            notes.append(
                .object([("level", .string("warning")), ("message", .object([("text", .string(l.message))]))]))
        }
        let tool: JSONValue = .object([
            (
                "driver",
                .object([
                    ("name", .string("DiscoScope")), ("semanticVersion", .string(toolVersion)),
                    ("version", .string(toolVersion)),
                    ("rules", .array(rules)),
                ])
            )
        ])
        let invocations: JSONValue = .array([
            .object([
                ("executionSuccessful", .bool(s.inputErrors.isEmpty)),
                ("toolExecutionNotifications", .array(notes)),
            ])
        ])
        sink.write(#"{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"tool":"#)
        sink.write(tool.serialized() + #","invocations":"# + invocations.serialized())
        sink.write(#","artifacts":"# + JSONValue.array(artifacts).serialized() + #","results":["#)
        writeResults()
        sink.write(
            #"],"properties":"# + JSONValue.object([("summary", JSONLinesReporter.summaryObject(s))]).serialized()
                + "}]}\n")
        sink.flush()
    }

    /// A relative URI reference for a path (RFC 3986: unreserved and `/` kept, the rest
    /// percent-encoded); standard input is `stdin`.
    public static func uri(_ path: String) -> String {
        if path == "-" { return "stdin" }
        var out = ""
        for b in path.utf8 {
            if ASCII.isAlpha(b) || ASCII.isDigit(b) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2F {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let h = String(b, radix: 16, uppercase: true)
                out += "%" + (h.count == 1 ? "0" + h : h)
            }
        }
        return out
    }

    /// The finding's identity (`FindingIdentity`) as a digest: the same problem from the same
    /// device or sender keeps it across runs (frame numbers, times and measured values
    /// excluded).
    public static func fingerprint(_ f: Finding) -> String {
        var key: [UInt8] = []
        appendKey(f, to: &key)
        return FindingIdentity.fingerprint(bytes: key)
    }

    private static func appendKey(_ f: Finding, to key: inout [UInt8]) {
        FindingIdentity.appendKey(
            rule: f.rule.rawValue, source: f.source, device: f.device, message: f.message, to: &key)
    }
}
