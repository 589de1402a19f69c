import Findings
import WireFormat

/// `--format html`: one self-contained page (no network, no external file) with a timeline of
/// the messages, their findings and the query → answer pairs, the findings grouped by rule and
/// by device, and the inventory.
///
/// The data streams: each record is written as it arrives, as one element of the JSON array
/// in a `<script type="application/json">` block (the page's code comes after it). Memory stays
/// bounded: the tables that make the data compact (lanes, payloads already written, pending
/// queries) have fixed bounds. Every string from the wire is JSON-escaped and then has `<`,
/// `>`, `&`, U+2028 and U+2029 written as `\uXXXX`, so nothing in it can end the block or
/// start markup; the page shows data with `textContent` only, under a Content-Security-Policy
/// that allows just its own script and style (by hash) and no network access.
///
/// Given a deflater, data of more than `deflateAbove` bytes is written compressed instead: the
/// same JSON text as a zlib stream in base64 (nothing but `A-Z a-z 0-9 + / =` and line feeds
/// in the block), which the page inflates with the browser's `DecompressionStream`. The data
/// is held until it is known which: a smaller page stays plain text.
public final class HTMLReporter: Reporter {
    let sink: any OutputSink
    let files: [String]
    let toolVersion: String
    private let deflater: (any DataDeflater)?
    private let deflateAbove: Int
    /// Nil until the page's head is written: then whether its data is compressed.
    private var compressed: Bool? = nil
    /// Compressed bytes not yet in base64 (fewer than three).
    private var base64Carry: [UInt8] = []
    private var out: [UInt8] = []
    private var scratch: [UInt8] = []
    private var started = false
    private var records = 0
    private var t0: Timestamp? = nil
    private var messages = 0
    /// Lanes of the timeline by key (`d:` device, `h:` host, `c:` client); bounded, then one
    /// lane holds the rest.
    private var lanes: [String: Int] = [:]
    private var overflowLane: Int? = nil
    static let maxLanes = 20000
    private var ruleSlots: [RuleID: Int] = [:]
    /// Segment names written so far (`setSegmentNames`).
    private var segmentsWritten = 0
    /// Recurring texts by number (`interned`).
    private var stringSlots: [String: Int] = [:]
    static let maxStrings = 65536
    /// Payloads written already (with their verbose lines), by hash: a repeated announcement
    /// refers to the earlier copy. Cleared when it holds too much.
    private var payloadSlots: [Int: [Int]] = [:]
    private var heldPayloads: [Int: (payload: [UInt8], summary: [UInt8], detail: [String])] = [:]
    private var heldBytes = 0
    private var payloadCount = 0
    static let maxHeldBytes = 16 << 20
    static let maxHeldPayloads = 65536
    /// M-SEARCHes waiting for responses, by the searcher's address and port.
    private var searches: [String: (index: Int, time: Timestamp, window: Int64)] = [:]
    /// mDNS questions waiting for answers, by lower-cased name.
    private var questions: [String: (index: Int, time: Timestamp, type: String)] = [:]
    static let maxPending = 8192
    /// How long after a query an mDNS answer still counts as its answer (RFC 6762 §6: 20-120
    /// ms, up to 500 ms for a truncated query's; a second of slack).
    static let mdnsAnswerWindow: Int64 = 1_000_000

    public init(
        sink: any OutputSink, files: [String] = [], toolVersion: String = "", deflater: (any DataDeflater)? = nil,
        deflateAbove: Int = 1 << 20
    ) {
        self.sink = sink
        self.files = files
        self.toolVersion = toolVersion
        self.deflater = deflater
        self.deflateAbove = deflateAbove
    }

    public var isStreaming: Bool { false }

    // MARK: Writing

    private func start() {
        guard !started else { return }
        started = true
        out.append(string: "[\n")
        record(
            .array([
                .string("meta"),
                .object([
                    ("files", .array(files.map { .string($0) })), ("tool", .string(toolVersion)), ("version", .int(1)),
                ]),
            ]))
    }

    /// One element of the data array, escaped for the script block.
    private func record(_ v: JSONValue) {
        scratch.removeAll(keepingCapacity: true)
        v.write(into: &scratch)
        appendScratch()
    }

    /// An `["inv", record]` element, the record written by `write`.
    private func inventoryRecord(_ write: (inout JSONWriter) -> Void) {
        var w = JSONWriter()
        scratch.removeAll(keepingCapacity: true)
        swap(&w.bytes, &scratch)
        w.beginArray()
        w.string("inv")
        write(&w)
        w.endArray()
        swap(&w.bytes, &scratch)
        appendScratch()
    }

    /// `scratch`, the element just written, after the others.
    private func appendScratch() {
        if records > 0 { out.append(",\n") }
        records += 1
        Self.appendScriptSafe(scratch, to: &out)
        if out.count >= 1 << 18 { drain() }
    }

    /// Writes the data so far: held while it is not yet known whether the page compresses it.
    private func drain(last: Bool = false) {
        if compressed == nil {
            guard last || deflater == nil || out.count > deflateAbove else { return }
            let deflate = deflater != nil && out.count > deflateAbove
            compressed = deflate
            sink.write(HTMLPage.head + (deflate ? HTMLPage.openCompressedData : HTMLPage.openData))
        }
        if compressed == true, let deflater {
            var bytes = base64Carry
            bytes += out.withUnsafeBytes { deflater.deflate($0, finish: last) }
            let whole = last ? bytes.count : bytes.count - bytes.count % 3
            base64Carry = Array(bytes[whole...])
            guard whole > 0 else { return out.removeAll(keepingCapacity: true) }
            var text: [UInt8] = []
            text.reserveCapacity(whole / 3 * 4 + 1)
            Base64.append(Array(bytes[..<whole]), to: &text)
            text.append(0x0A)
            text.withUnsafeBytes { sink.write(bytes: $0) }
        } else {
            out.withUnsafeBytes { sink.write(bytes: $0) }
        }
        out.removeAll(keepingCapacity: true)
    }

    /// JSON text made safe inside `<script type="application/json">`: `<`, `>` and `&` (which
    /// JSON has only inside strings here) and the line separators U+2028 and U+2029 become
    /// `\uXXXX` escapes, which `JSON.parse` reads back as the same characters.
    static func appendScriptSafe(_ json: [UInt8], to out: inout [UInt8]) {
        var i = 0
        let n = json.count
        while i < n {
            let b = json[i]
            switch b {
            case 0x3C: out.append(string: "\\u003c")
            case 0x3E: out.append(string: "\\u003e")
            case 0x26: out.append(string: "\\u0026")
            case 0xE2 where i + 2 < n && json[i + 1] == 0x80 && (json[i + 2] == 0xA8 || json[i + 2] == 0xA9):
                out.append(string: json[i + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                i += 2
            default: out.append(b)
            }
            i += 1
        }
    }

    /// Microseconds since the first record's time (the page adds the start back).
    private func micros(_ t: Timestamp) -> JSONValue {
        if t0 == nil {
            t0 = t
            record(.array([.string("t0"), .int(Int(truncatingIfNeeded: t.seconds)), .int(Int(t.nanoseconds / 1000))]))
        }
        guard let base = t0 else { return .null }
        let (ds, o1) = t.seconds.subtractingReportingOverflow(base.seconds)
        let (us, o2) = ds.multipliedReportingOverflow(by: 1_000_000)
        guard !o1, !o2, ds.magnitude < 1 << 40 else { return .null }
        return .int(Int(truncatingIfNeeded: us + (Int64(t.nanoseconds) - Int64(base.nanoseconds)) / 1000))
    }

    // MARK: Reporter

    public func message(_ m: MessageRecord, findings: [Finding]) {
        start()
        let time = micros(m.time)
        let index = messages
        messages += 1
        // The record's fields are parsed from its JSON text: once per message.
        let messageFields = m.fields
        let (laneKey, laneLabel, role) = Self.lane(of: m, fields: messageFields)
        let laneIndex = lane(laneKey, label: laneLabel, role: role, proto: m.proto)
        let (mark, pair) = classify(m, fields: messageFields, index: index)
        let payloadRef = payload(m)
        var fields: [JSONValue] = [
            .string("m"), .int(m.fileIndex), .int(m.frame), time, interned(m.src), .int(m.sport), interned(m.dst),
            .int(m.dport), .int(m.ipTTL), .string(mark), .int(payloadRef), .int(laneIndex), .int(pair),
            .int(m.truncated ? 1 : 0),
        ]
        // Then its fragments' frames and its segment (`seg` records name them), each only when
        // there is one.
        if !m.fragmentFrames.isEmpty || m.segment != 0 { fields.append(.array(m.fragmentFrames.map { .int($0) })) }
        if m.segment != 0 { fields.append(.int(Int(m.segment))) }
        record(.array(fields))
        for f in findings { finding(f) }
    }

    public func finding(_ f: Finding) {
        start()
        let time = micros(f.time)
        let rule = ruleSlot(f)
        let interop = f.interop.map { interned($0) } ?? .int(-1)
        record(
            .array([
                .string("f"), .int(f.fileIndex), .array(f.frames.map { .int($0) }), time, .int(rule),
                .string(f.severity.rawValue), interned(f.message), interop, f.device.map { interned($0) } ?? .null,
                f.field.map { .string($0) } ?? .null, .int(f.atEnd ? 1 : 0), interned(f.source), .int(Int(f.segment)),
                .int(f.profileInstance != 0 ? 1 : 0), f.profile.map { .string($0.rawValue) } ?? .null,
            ]))
    }

    /// The run's segment names (only ever appended): each new one is written as a `seg`
    /// record, `["seg", index, name]`, before any message or finding of it.
    public func setSegmentNames(_ names: [String]) {
        guard names.count > segmentsWritten else { return }
        start()
        for k in max(segmentsWritten, 1)..<names.count {
            record(.array([.string("seg"), .int(k), .string(names[k])]))
        }
        segmentsWritten = names.count
    }

    public func inventory(_ inventory: Inventory) {
        start()
        for d in inventory.devices { inventoryRecord { InventoryRecords.writeDevice(d, to: &$0) } }
        for s in inventory.services { inventoryRecord { InventoryRecords.writeService(s, to: &$0) } }
    }

    public func finish(_ s: RunSummary) {
        start()
        // Impact first, as the text summary opens: the same lines, from the summary.
        let impact =
            TextReporter.invisibleLines(s).map { "invisible: " + $0 }
            + (TextReporter.unansweredLine(s).map { ["unanswered: " + $0] } ?? [])
        if !impact.isEmpty { record(.array([.string("impact"), .array(impact.map { .string($0) })])) }
        record(.array([.string("sum"), JSONLinesReporter.summaryObject(s)]))
        out.append(string: "\n]")
        drain(last: true)
        sink.write(HTMLPage.tail)
        sink.flush()
    }

    // MARK: Tables

    private func ruleSlot(_ f: Finding) -> Int {
        if let k = ruleSlots[f.rule] { return k }
        let k = ruleSlots.count
        ruleSlots[f.rule] = k
        record(.array([.string("r"), .string(f.rule.rawValue), .string(f.name), .string(f.spec)]))
        return k
    }

    /// A text that recurs (addresses, device names, interop notes) by number, written once;
    /// the text itself once the table is full.
    private func interned(_ s: String) -> JSONValue {
        if let k = stringSlots[s] { return .int(k) }
        guard stringSlots.count < Self.maxStrings else { return .string(s) }
        let k = stringSlots.count
        stringSlots[s] = k
        record(.array([.string("a"), .string(s)]))
        return .int(k)
    }

    private func lane(_ key: String, label: String, role: String, proto: RuleProtocol) -> Int {
        if let k = lanes[key] { return k }
        guard lanes.count < Self.maxLanes else {
            if let o = overflowLane { return o }
            let k = lanes.count
            lanes["o:"] = k
            overflowLane = k
            record(
                .array([
                    .string("l"), .string("(more than \(Self.maxLanes) senders)"), .string("other"), .string("both"),
                ]))
            return k
        }
        let k = lanes.count
        lanes[key] = k
        record(.array([.string("l"), .string(label), .string(role), .string(proto.rawValue)]))
        return k
    }

    /// The payload (as text or base64), the summary and the lines `-v` prints, written once while held
    /// (a repeated announcement refers to the earlier copy); -1 when there is no payload.
    /// SSDP's lines are left out when they are the payload's own lines (the page splits
    /// them off the payload the same way).
    private func payload(_ m: MessageRecord) -> Int {
        var h = Hasher()
        h.combine(m.payload)
        h.combine(m.summaryUTF8)
        h.combine(m.detail)
        let key = h.finalize()
        for k in payloadSlots[key] ?? [] {
            if let held = heldPayloads[k], held.payload == m.payload, held.summary == m.summaryUTF8,
                held.detail == m.detail
            {
                return k
            }
        }
        let size = m.payload.count + m.summaryUTF8.count + m.detail.reduce(0) { $0 + $1.utf8.count }
        if heldBytes + size > Self.maxHeldBytes || heldPayloads.count >= Self.maxHeldPayloads {
            payloadSlots.removeAll(keepingCapacity: true)
            heldPayloads.removeAll(keepingCapacity: true)
            heldBytes = 0
        }
        let k = payloadCount
        payloadCount += 1
        heldPayloads[k] = (m.payload, m.summaryUTF8, m.detail)
        heldBytes += size
        payloadSlots[key, default: []].append(k)
        let derivable = m.proto == .ssdp && Self.headerLines(m.payload) == m.detail
        let text = Self.plainText(m.payload)
        record(
            .array([
                .string(text == nil ? "p" : "P"), .string(text ?? Base64.encode(m.payload)),
                .string(String(decoding: m.summaryUTF8, as: UTF8.self)),
                derivable ? .null : .array(m.detail.map { .string($0) }),
            ]))
        return k
    }

    /// The payload as a string when it is text (UTF-8 with no control character but tab, CR
    /// and LF: an SSDP message), which the page encodes back to the same bytes; nil otherwise.
    static func plainText(_ p: [UInt8]) -> String? {
        guard p.allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return nil }
        return String(validating: p, as: UTF8.self)
    }

    /// An SSDP payload's lines up to the blank line that ends the headers, as the page makes
    /// them from the payload: a line feed (after an optional carriage return) ends a line;
    /// after the start line, `name: value` with the spaces and tabs around each removed. Nil
    /// when a line is not valid UTF-8 (the text would depend on how each side repairs it).
    static func headerLines(_ p: [UInt8]) -> [String]? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        func line(_ r: Range<Int>, first: Bool) -> String? {
            guard !first, let colon = p[r].firstIndex(of: 0x3A) else {
                return String(validating: p[r], as: UTF8.self)
            }
            var nameEnd = colon
            while nameEnd > r.lowerBound && isSpace(p[nameEnd - 1]) { nameEnd -= 1 }
            var v = colon + 1
            var e = r.upperBound
            while v < e && isSpace(p[v]) { v += 1 }
            while e > v && isSpace(p[e - 1]) { e -= 1 }
            guard let name = String(validating: p[r.lowerBound..<nameEnd], as: UTF8.self),
                let value = String(validating: p[v..<e], as: UTF8.self)
            else { return nil }
            return name + ": " + value
        }
        var lines: [String] = []
        var start = p.startIndex
        var i = p.startIndex
        while i < p.endIndex {
            if p[i] == 0x0A {
                var end = i
                if end > start && p[end - 1] == 0x0D { end -= 1 }
                if end == start { return lines }
                guard let s = line(start..<end, first: lines.isEmpty) else { return nil }
                lines.append(s)
                start = i + 1
            }
            i += 1
        }
        if start < p.endIndex {
            guard let s = line(start..<p.endIndex, first: lines.isEmpty) else { return nil }
            lines.append(s)
        }
        return lines
    }

    // MARK: Lanes and pairs, from the record's fields

    static func field(_ fields: [(String, JSONValue)], _ key: String) -> JSONValue? {
        for (k, v) in fields where k == key { return v }
        return nil
    }

    static func member(_ v: JSONValue, _ key: String) -> JSONValue? {
        guard case .object(let o) = v else { return nil }
        return field(o, key)
    }

    static func text(_ v: JSONValue?) -> String? {
        if case .string(let s)? = v { return s }
        return nil
    }

    static func items(_ v: JSONValue?) -> [JSONValue] {
        if case .array(let a)? = v { return a }
        return []
    }

    /// The first value of an SSDP header (names compared case-insensitively).
    static func header(_ fields: [(String, JSONValue)], _ name: String) -> String? {
        for h in items(field(fields, "headers")) {
            let pair = items(h)
            guard pair.count == 2, let n = text(pair[0]), n.lowercased() == name else { continue }
            return text(pair[1])
        }
        return nil
    }

    /// The root device's UUID in a USN (`uuid:X::urn:…` → `x`), as the inventory names it.
    static func uuid(fromUSN usn: String) -> String? {
        let lower = usn.lowercased()
        guard lower.hasPrefix("uuid:") else { return nil }
        let rest = lower.dropFirst(5)
        let id = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
        let trimmed = id.trimmingSpaces
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A resource record as the record's JSON fields give it.
    struct RR {
        var name: String
        var type: String
        var ttl: Int64?
        var target: String?
    }

    /// Resource records of the given sections.
    static func rrs(_ fields: [(String, JSONValue)], _ sections: [String]) -> [RR] {
        var out: [RR] = []
        for s in sections {
            for rr in items(field(fields, s)) {
                guard let name = text(member(rr, "name")), let type = text(member(rr, "type")) else { continue }
                var ttl: Int64? = nil
                if case .int(let t)? = member(rr, "ttl") { ttl = t }
                let target = member(rr, "rdata").flatMap { text(member($0, "target")) }
                out.append(RR(name: name, type: type, ttl: ttl, target: target))
            }
        }
        return out
    }

    /// The lane a message belongs on: the SSDP root device (USN), the mDNS host (address or
    /// SRV records), or the client that searched or queried (its address); a forwarder's copy
    /// of another link's host (`MessageRecord.relayed`) is on the forwarder's lane.
    static func lane(of m: MessageRecord, fields: [(String, JSONValue)]) -> (key: String, label: String, role: String) {
        let client = ("c:" + m.src, m.src, "client")
        if m.proto == .mdns && m.relayed { return ("s:" + m.src, m.src, "sender") }
        switch m.proto {
        case .ssdp:
            if m.kind == "m-search" { return client }
            if let usn = header(fields, "usn"), let id = uuid(fromUSN: usn) { return ("d:" + id, id, "device") }
            return ("s:" + m.src, m.src, "sender")
        case .mdns:
            let sections = m.kind == "query" ? ["authorities"] : ["answers", "authorities", "additionals"]
            let records = rrs(fields, sections)
            let host =
                records.first { $0.type == "A" || $0.type == "AAAA" }?.name
                ?? records.first { $0.type == "SRV" }?.target
            if let host { return ("h:" + host.lowercased(), host, "host") }
            if m.kind == "query" { return client }
            return ("s:" + m.src, m.src, "sender")
        }
    }

    /// The mark's kind on the timeline and the index of the message this one answers (-1:
    /// none). SSDP: a response to the searcher's address and port within MX (plus slack) of
    /// its M-SEARCH. mDNS: an answer whose name (and type, unless ANY was asked) was asked
    /// within `mdnsAnswerWindow` before.
    private func classify(_ m: MessageRecord, fields: [(String, JSONValue)], index: Int) -> (mark: String, pair: Int) {
        switch m.proto {
        case .ssdp:
            switch m.kind {
            case "m-search":
                let mx = Self.header(fields, "mx").flatMap { Int64($0.trimmingSpaces) } ?? 3
                if searches.count >= Self.maxPending { searches.removeAll(keepingCapacity: true) }
                searches["\(m.src) \(m.sport)"] = (index, m.time, (min(max(mx, 1), 120) + 3) * 1_000_000)
                return ("m-search", -1)
            case "response":
                guard let s = searches["\(m.dst) \(m.dport)"] else { return ("ssdp-response", -1) }
                let dt = Self.elapsed(from: s.time, to: m.time)
                return ("ssdp-response", dt >= 0 && dt <= s.window ? s.index : -1)
            case "notify":
                let nts = Self.text(Self.field(fields, "nts")) ?? ""
                return (["alive", "byebye", "update"].contains(nts) ? nts : "notify", -1)
            default:
                return ("other", -1)
            }
        case .mdns:
            if m.kind == "query" {
                let probe = !Self.items(Self.field(fields, "authorities")).isEmpty
                if questions.count >= Self.maxPending { questions.removeAll(keepingCapacity: true) }
                for q in Self.items(Self.field(fields, "questions")) {
                    guard let name = Self.text(Self.member(q, "name")) else { continue }
                    questions[name.lowercased()] = (index, m.time, Self.text(Self.member(q, "type")) ?? "")
                }
                return (probe ? "probe" : "query", -1)
            }
            let answers = Self.rrs(fields, ["answers"])
            var pair = -1
            for a in answers {
                guard let q = questions[a.name.lowercased()], q.type == "ANY" || q.type == a.type else { continue }
                let dt = Self.elapsed(from: q.time, to: m.time)
                if dt >= 0 && dt <= Self.mdnsAnswerWindow { pair = max(pair, q.index) }
            }
            if !answers.isEmpty && answers.allSatisfy({ $0.ttl == 0 }) { return ("goodbye", pair) }
            return (pair >= 0 ? "mdns-response" : "announcement", pair)
        }
    }

    /// Microseconds from `a` to `b` (negative when time went back; clamped for wild values).
    static func elapsed(from a: Timestamp, to b: Timestamp) -> Int64 {
        let ds = b.seconds &- a.seconds
        guard ds.magnitude < 1 << 30 else { return ds < 0 ? -1 : Int64.max }
        return ds * 1_000_000 + (Int64(b.nanoseconds) - Int64(a.nanoseconds)) / 1000
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension String {
    fileprivate var trimmingSpaces: String { self[...].trimmingSpaces }
}
