import Findings
import Glibc
import WireFormat

/// `--format text` (default): one tcpdump-like line per message, its findings indented under
/// it, and a summary block at the end. Colour (severity words, rule IDs) only when asked to
/// (the CLI decides from the terminal and `NO_COLOR`).
public final class TextReporter: Reporter {
    public struct Options: Sendable {
        /// Print only findings and the summary.
        public var quiet = false
        /// Print every header / section under each message.
        public var verbose = false
        public var color = false
        /// Times as UTC instead of local time (tests, CI logs).
        public var utc = false
        public init() {}
    }

    let sink: any OutputSink
    let options: Options
    /// Rules whose interop note was already printed (once per rule per run, like a
    /// compiler's notes; -v prints it every time).
    private var interopShown: Set<RuleID> = []
    private var renderer: TextRenderer
    private var scratch = RenderedChunk()
    public init(sink: any OutputSink, options: Options = Options()) {
        self.sink = sink
        self.options = options
        self.renderer = TextRenderer(options: options)
    }
    public var isStreaming: Bool { true }

    public func makeRenderer() -> (any MessageRenderer)? { TextRenderer(options: options) }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        scratch.removeAll()
        renderer.render(m, findings: findings, into: &scratch)
        emit(scratch)
    }

    public func finding(_ f: Finding) {
        scratch.removeAll()
        renderer.render(finding: f, into: &scratch)
        emit(scratch)
    }

    /// Writes a rendered chunk, inserting each rule's interop note after its first finding.
    public func emit(_ chunk: RenderedChunk) {
        var start = 0
        chunk.bytes.withUnsafeBytes { all in
            for n in chunk.notes where interopShown.insert(n.descriptor.id).inserted {
                sink.write(bytes: UnsafeRawBufferPointer(rebasing: all[start..<n.offset]))
                var note = String(repeating: " ", count: n.indent + 4) + "interop: "
                note += n.descriptor.interop ?? ""
                note += "\n"
                sink.write(note)
                start = n.offset
            }
            sink.write(bytes: UnsafeRawBufferPointer(rebasing: all[start...]))
        }
    }

    static func color(_ s: Severity) -> StaticString {
        switch s {
        case .error: "31"
        case .warning: "33"
        case .info: "36"
        }
    }

    func paint(_ text: String, _ code: StaticString) -> String {
        options.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    public func finish(_ s: RunSummary) {
        var out = "\n" + paint("Summary", "1") + "\n"
        func row(_ k: String, _ v: String) { out += "  " + k.padding(12) + v + "\n" }
        if !s.files.isEmpty { row("files", s.files.joined(separator: ", ")) }
        row("frames", "\(s.framesRead) read; \(s.portDatagrams) UDP datagram(s) on ports 1900/5353")
        var msg = "\(s.ssdpMessages) SSDP, \(s.mdnsMessages) mDNS"
        var notes: [String] = []
        if s.truncatedDatagrams > 0 { notes.append("\(s.truncatedDatagrams) truncated by the snap length") }
        if s.reassembledDatagrams > 0 { notes.append("\(s.reassembledDatagrams) reassembled from IP fragments") }
        if !notes.isEmpty { msg += " (" + notes.joined(separator: ", ") + ")" }
        row("messages", msg)
        row("seen", "\(s.devices) device(s) or host(s), \(s.services) DNS-SD service type(s)")
        let e = s.findingsBySeverity[.error] ?? 0, w = s.findingsBySeverity[.warning] ?? 0, i = s.findingsBySeverity[.info] ?? 0
        var fl = "\(e) error(s), \(w) warning(s), \(i) info"
        if s.suppressed > 0 { fl += "; \(s.suppressed) suppressed by configuration or baseline" }
        row("findings", fl)
        for r in s.findingsByRule.sorted(by: { $0.rule < $1.rule }) {
            out += "    " + paint(r.rule.rawValue, "1") + " " + r.name.padding(28) + " " + paint(r.severity.rawValue.padding(8), Self.color(r.severity)) + String(r.count) + "\n"
        }
        for k in s.skipped { row("skipped", "\(k.count) × \(k.reason)") }
        for err in s.inputErrors { row("input error", err) }
        if let rcv = s.packetsReceived {
            var c = "\(rcv) packet(s) received by the filter, \(s.packetsDropped ?? 0) dropped by the kernel"
            if let d = s.packetsDroppedByInterface { c += ", \(d) by the interface" }
            row("capture", c)
        }
        if let t = s.failOn {
            let n = s.findings(atLeast: t)
            row("result", n == 0 ? "pass (no finding at or above \(t.rawValue))" : "fail: \(n) finding(s) at or above \(t.rawValue)")
        }
        sink.write(out)
        sink.flush()
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

/// The text format of one message and its findings, written as bytes (no intermediate
/// strings per field).
public struct TextRenderer: MessageRenderer {
    let options: TextReporter.Options
    /// Rules whose interop note place this renderer has already passed on. The reporter prints
    /// a note after the first finding of its rule in the run; that finding is the first this
    /// renderer sees of the rule too (each renderer formats its batches in capture order), so
    /// later ones need no note place (and the reporter no set lookup per finding).
    private var notesPassed: Set<ObjectIdentifier> = []
    public init(options: TextReporter.Options) { self.options = options }

    public mutating func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        if options.quiet {
            for f in findings { render(finding: f, into: &c) }
            return
        }
        c.append(decimal: m.frame)
        c.append(byte: 0x20)
        clock(m.time, into: &c)
        c.append(byte: 0x20)
        endpoint(m.src, m.sport, into: &c)
        c.append(" > " as StaticString)
        endpoint(m.dst, m.dport, into: &c)
        c.append(m.proto == .ssdp ? " SSDP " as StaticString : " mDNS ")
        // Through the buffer: `append(contentsOf:)` takes its argument owned (a retain).
        m.summaryUTF8.withUnsafeBufferPointer { c.bytes.append(contentsOf: $0) }
        if m.truncated { c.append(" [truncated]" as StaticString) }
        if !m.fragmentFrames.isEmpty {
            c.append(" [reassembled from frames" as StaticString)
            for (k, f) in m.fragmentFrames.enumerated() {
                c.append(byte: k == 0 ? 0x20 : 0x2C)
                c.append(decimal: f)
            }
            c.append(byte: 0x5D)
        }
        c.append(byte: 0x0A)
        if options.verbose {
            for d in m.detail {
                c.append("        " as StaticString)
                c.append(d)
                c.append(byte: 0x0A)
            }
        }
        for f in findings { findingLines(f, indent: 4, frameDescription: false, into: &c) }
    }

    public mutating func render(finding f: Finding, into c: inout RenderedChunk) {
        findingLines(f, indent: 0, frameDescription: true, into: &c)
    }

    private func paint(_ text: String, _ code: StaticString, into c: inout RenderedChunk) {
        if options.color {
            c.append("\u{1B}[" as StaticString)
            c.append(code)
            c.append(byte: 0x6D)
            c.append(text)
            c.append("\u{1B}[0m" as StaticString)
        } else {
            c.append(text)
        }
    }

    mutating func findingLines(_ f: Finding, indent: Int, frameDescription: Bool, into c: inout RenderedChunk) {
        for _ in 0..<indent { c.append(byte: 0x20) }
        if frameDescription {
            if let first = f.firstFrame {
                c.append("frame " as StaticString)
                c.append(decimal: first)
            } else {
                c.append("end of capture" as StaticString)
            }
            c.append(": " as StaticString)
        }
        paint(f.severity.rawValue, TextReporter.color(f.severity), into: &c)
        c.append(byte: 0x20)
        paint(f.rule.rawValue, "1", into: &c)
        c.append(byte: 0x20)
        c.append(f.descriptor.name)
        c.append(": " as StaticString)
        c.append(f.message)
        c.append(" [" as StaticString)
        c.append(f.descriptor.spec)
        c.append(byte: 0x5D)
        if let first = f.firstFrame, !f.relatedFrames.isEmpty {
            c.append(" (frames " as StaticString)
            c.append(decimal: first)
            for fr in f.relatedFrames {
                c.append(", " as StaticString)
                c.append(decimal: fr)
            }
            c.append(byte: 0x29)
        }
        c.append(byte: 0x0A)
        if let i = f.descriptor.interop, !i.isEmpty {
            if options.verbose {
                for _ in 0..<(indent + 4) { c.append(byte: 0x20) }
                c.append("interop: " as StaticString)
                c.append(i)
                c.append(byte: 0x0A)
            } else if notesPassed.insert(ObjectIdentifier(f.descriptor)).inserted {
                c.notes.append(NotePoint(offset: c.bytes.count, indent: indent, descriptor: f.descriptor))
            }
        }
    }

    func endpoint(_ addr: String, _ port: UInt16, into c: inout RenderedChunk) {
        // Through the contiguous UTF-8 buffer: `addr.utf8.contains` goes the generic,
        // per-character way, and this runs twice per line.
        func put(_ u: UnsafeBufferPointer<UInt8>, _ c: inout RenderedChunk) {
            if u.contains(0x3A) {
                c.append(byte: 0x5B)
                c.bytes.append(contentsOf: u)
                c.append("]:" as StaticString)
            } else {
                c.bytes.append(contentsOf: u)
                c.append(byte: 0x3A)
            }
        }
        if addr.utf8.withContiguousStorageIfAvailable({ put($0, &c) }) == nil {
            var a = addr
            a.withUTF8 { put($0, &c) }
        }
        c.append(decimal: Int(port))
    }

    /// `HH:MM:SS.uuuuuu` as tcpdump prints it (local time unless `utc`). The broken-down
    /// time is computed once per second of capture time.
    private var clockSecond: Int64 = .min
    private var clockFields: (Int32, Int32, Int32) = (0, 0, 0)
    mutating func clock(_ t: Timestamp, into c: inout RenderedChunk) {
        if t.seconds != clockSecond {
            var secs = time_t(t.seconds)
            var tmv = tm()
            if options.utc { gmtime_r(&secs, &tmv) } else { localtime_r(&secs, &tmv) }
            clockFields = (tmv.tm_hour, tmv.tm_min, tmv.tm_sec)
            clockSecond = t.seconds
        }
        c.append(zeroPadded: Int(clockFields.0), width: 2)
        c.append(byte: 0x3A)
        c.append(zeroPadded: Int(clockFields.1), width: 2)
        c.append(byte: 0x3A)
        c.append(zeroPadded: Int(clockFields.2), width: 2)
        c.append(byte: 0x2E)
        c.append(zeroPadded: Int(t.nanoseconds / 1000), width: 6)
    }
}
