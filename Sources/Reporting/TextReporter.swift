import Findings
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
        /// Local time's offset from UTC, in seconds, at a moment given in seconds since the
        /// epoch (the command line asks the C library); nil: times are shown in UTC.
        public var utcOffset: (@Sendable (_ seconds: Int64) -> Int64)? = nil
        /// How the time of a message is shown (tcpdump's `-t` family).
        public var timeStyle = TimeStyle.clock
        /// Show the link-layer (MAC) addresses, source and destination (`-e`).
        public var showMAC = false
        /// Dump the payload under each message: hex and ASCII (`-X`), or as text (`-A`).
        public var hexDump = false
        public var asciiDump = false
        /// The inputs as given on the command line; with more than one, each input's output
        /// starts with a header line naming it.
        public var files: [String] = []
        /// Print the summary block at the end (`--no-summary` leaves it out).
        public var summary = true
        public init() {}
    }

    /// tcpdump's timestamp styles: default (time of day), `-t` (none), `-tt` (seconds since
    /// the epoch), `-ttt` (since the previous message), `-tttt` (date and time of day),
    /// `-ttttt` (since the first message). The two relative styles need the messages in one
    /// sequence: the CLI formats on one thread with them.
    public enum TimeStyle: Sendable {
        case clock, none, epoch, sincePrevious, date, sinceFirst
        public var isRelative: Bool { self == .sincePrevious || self == .sinceFirst }
    }

    let sink: any OutputSink
    let options: Options
    /// Interop notes already printed (each once per run, like a compiler's notes; -v prints
    /// them every time). A rule may have several, one per kind of finding.
    private var interopShown: Set<String> = []
    private var renderer: TextRenderer
    private var scratch = RenderedChunk()
    /// The devices the summary lists.
    private var seenDevices: [InventoryDevice] = []
    private var devicesLeftOut = 0
    /// Whether `finish` prints the summary block: as the options say, unless the CLI found
    /// that no input could be read (the error lines say everything then).
    public var showsSummary: Bool
    public init(sink: any OutputSink, options: Options = Options()) {
        self.sink = sink
        self.options = options
        self.renderer = TextRenderer(options: options)
        self.showsSummary = options.summary
    }
    public var isStreaming: Bool { true }

    public func makeRenderer() -> (any MessageRenderer)? { TextRenderer(options: options) }

    public func setSegmentNames(_ names: [String]) { renderer.setSegmentNames(names) }

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

    /// `==> captures/a.pcap <==` before each input's output when several are given (as
    /// `head` and `tail` separate files), so frame numbers, which restart per file, stay
    /// attributable.
    public func beginFile(_ index: Int, name: String) {
        guard options.files.count > 1 else { return }
        let shown = index >= 0 && index < options.files.count ? options.files[index] : name
        sink.write((index > 0 ? "\n" : "") + paint("==> \(shown) <==", "1") + "\n")
    }

    /// Writes a rendered chunk, inserting each rule's interop note after its first finding.
    public func emit(_ chunk: RenderedChunk) {
        var start = 0
        chunk.bytes.withUnsafeBytes { all in
            for n in chunk.notes where interopShown.insert(n.interop).inserted {
                sink.write(bytes: UnsafeRawBufferPointer(rebasing: all[start..<n.offset]))
                var note = String(repeating: " ", count: n.indent + 4) + "interop: "
                note += n.interop
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

    public func inventory(_ inventory: Inventory) {
        seenDevices = inventory.devices
        devicesLeftOut = inventory.leftOut
    }

    /// The summary's `result` line without colour: the verdict, for standard error when the
    /// report goes to a file. Nil when there is none (`--fail-on never`, enough messages, no
    /// input error).
    public static func resultText(_ s: RunSummary) -> String? {
        if !s.inputErrors.isEmpty {
            // An input that could not be read completely fails the run whatever was found
            // in the rest: the verdict must not read as a pass.
            var text = "failed on input: \(s.inputErrors.count) input error(s) (exit status 2)"
            if let t = s.failOn, s.findings(atLeast: t) > 0 {
                text += "; also \(s.findings(atLeast: t)) finding(s) at or above \(t.rawValue) in what was read"
            }
            return text
        }
        if s.tooFewMessages, let m = s.minMessages {
            return
                "too few messages: \(s.messages) SSDP/mDNS message(s), fewer than --min-messages \(m) (exit status 3)"
        }
        let failedGates = s.profiles.filter { $0.gated && !$0.passed }.map(\.profile.rawValue)
        let gate = failedGates.isEmpty ? nil : "profile " + failedGates.joined(separator: ", ") + " not met"
        guard let t = s.failOn else { return gate.map { "fail: " + $0 } }
        let n = s.findings(atLeast: t)
        let reasons = (n > 0 ? ["\(n) finding(s) at or above \(t.rawValue)"] : []) + (gate.map { [$0] } ?? [])
        return reasons.isEmpty
            ? "pass (no finding at or above \(t.rawValue))" : "fail: " + reasons.joined(separator: "; ")
    }

    public func finish(_ s: RunSummary) {
        guard showsSummary else {
            sink.flush()
            return
        }
        var out = "\n" + paint("Summary", "1") + "\n"
        // Values name files, interfaces and input errors: escaped for the terminal.
        func row(_ k: String, _ v: String) { out += "  " + k.padding(12) + TerminalText.escaped(v) + "\n" }
        // Impact first: what hides devices from some clients, then what nobody answered.
        for line in Self.invisibleLines(s) { row("invisible", line) }
        if let line = Self.unansweredLine(s) { row("unanswered", line) }
        if let i = s.interface {
            row("interface", i)
        } else if !s.files.isEmpty {
            row("files", s.files.joined(separator: ", "))
        }
        if !s.segments.isEmpty { row("segments", s.segments.joined(separator: ", ")) }
        row("frames", "\(s.framesRead) read; \(s.portDatagrams) UDP datagram(s) on ports 1900/5353")
        var msg = "\(s.ssdpMessages) SSDP, \(s.mdnsMessages) mDNS"
        var notes: [String] = []
        if s.truncatedDatagrams > 0 { notes.append("\(s.truncatedDatagrams) truncated by the snap length") }
        if s.reassembledDatagrams > 0 { notes.append("\(s.reassembledDatagrams) reassembled from IP fragments") }
        if !notes.isEmpty { msg += " (" + notes.joined(separator: ", ") + ")" }
        row("messages", msg)
        let more = { (limit: String) in s.reached(limit) ? "+" : "" }
        // The inventory's root devices and hosts when it was built (embedded devices are listed
        // under their root); else the distinct UUIDs and host names the findings named.
        let roots = seenDevices.filter { $0.proto == .ssdp }.count
        let hosts = seenDevices.count - roots
        let devicesText =
            seenDevices.isEmpty && devicesLeftOut == 0
            ? "\(s.devices)\(more("devices")) device(s) or host(s)"
            : "\(roots) SSDP root device(s), \(hosts) mDNS host(s)"
                + (devicesLeftOut > 0 ? " (+\(devicesLeftOut))" : "")
        row("seen", devicesText + ", \(s.services)\(more("services")) DNS-SD service type(s)")
        // What `--profile` asked for, and any profile an instance fails (the inventory says
        // which profiles each instance meets).
        for p in s.profiles where p.gated || !p.passed { row(p.gated ? "gate" : "profile", p.text) }
        // The devices themselves (all with -v); `discoscope inventory` shows every field.
        let shown = options.verbose ? seenDevices[...] : seenDevices.prefix(InventoryRecords.compactLimit)
        for line in InventoryRecords.compactLines(shown) { out += "    " + line + "\n" }
        let hidden = seenDevices.count - shown.count + devicesLeftOut
        if hidden > 0 { out += "    … \(hidden) more (-v lists them all; discoscope inventory shows every field)\n" }
        let e = s.findingsBySeverity[.error] ?? 0
        let w = s.findingsBySeverity[.warning] ?? 0
        let i = s.findingsBySeverity[.info] ?? 0
        var fl = "\(e) error(s), \(w) warning(s), \(i) info"
        if s.belowMinSeverity > 0 { fl += "; \(s.belowMinSeverity) below --min-severity, not shown" }
        if s.suppressed > 0 { fl += "; \(s.suppressed) suppressed by configuration or baseline" }
        row("findings", fl)
        // By impact (what hides devices first), then severity, then rule.
        let impact = Self.impacts(s)
        for r in s.findingsByRule.sorted(by: { a, b in
            let (x, y) = (impact(a.rule, a.severity), impact(b.rule, b.severity))
            if x != y { return x < y }
            return a.severity != b.severity ? a.severity > b.severity : a.rule < b.rule
        }) {
            out +=
                "    " + paint(r.rule.rawValue, "1") + " " + TerminalText.escaped(r.name).padding(28) + " "
                + paint(r.severity.rawValue.padding(8), Self.color(r.severity)) + String(r.count) + "\n"
        }
        for k in s.skipped { row("skipped", "\(k.count) × \(k.reason)") }
        if s.stateEvicted > 0 {
            row(
                "state",
                "\(s.stateEvicted) table entries evicted (tables full); findings that needed them were not made")
        }
        if s.timeWentBack > 0 {
            row(
                "clock",
                "\(s.timeWentBack) packet(s) stamped earlier than one before them (no interval ending there judged)")
        }
        for err in s.inputErrors { row("input error", err) }
        for l in s.limitsReached { row("limit", l.message) }
        if let rcv = s.packetsReceived {
            var c = "\(rcv) packet(s) received by the filter, \(s.packetsDropped ?? 0) dropped by the kernel"
            if let d = s.packetsDroppedByInterface { c += ", \(d) by the interface" }
            row("capture", c)
        }
        if let text = Self.resultText(s) {
            let failed = !s.inputErrors.isEmpty || s.tooFewMessages
            row("result", failed ? paint(text, "31") : text)
        }
        sink.write(out)
        sink.flush()
    }
}

extension TextReporter {
    /// Rules listed at most on the summary's `invisible` lines (the rest are counted).
    static let invisibleShown = 5

    /// One line per rule whose findings hide devices from some clients (`Impact.hides`, by
    /// the severity reported and the rule's interop note), most findings first:
    /// `SSDP-005 crlf-line-endings (4 errors): gssdp and miniupnpd silently drop …`.
    static func invisibleLines(_ s: RunSummary) -> [String] {
        var interop: [RuleID: String] = [:]
        for d in s.rulesChecked { if let i = d.interop { interop[d.id] = i } }
        let impact = impacts(s)
        let hiding = s.findingsByRule.filter { impact($0.rule, $0.severity) == .hides }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.rule < $1.rule
        }
        var lines = hiding.prefix(invisibleShown).map { r in
            let n = "\(r.count) \(r.severity.rawValue)\(r.count == 1 ? "" : "s")"
            // The rule's own words about its first finding, then what clients do.
            guard let e = s.hidingExamples[r.rule] else {
                return "\(r.rule.rawValue) \(r.name) (\(n)): \(interop[r.rule] ?? "")"
            }
            let at = e.frame.map { "frame \($0)" } ?? "end of capture"
            let about = " from " + e.source + (e.device.map { " (\($0))" } ?? "")
            let note = interop[r.rule].map { " — \($0)" } ?? ""
            return "\(r.rule.rawValue) \(r.name) (\(n)), first at \(at)\(about): \(e.message)\(note)"
        }
        if hiding.count > invisibleShown { lines.append("+\(hiding.count - invisibleShown) more rule(s)") }
        return lines
    }

    /// The impact of each rule's findings as the summary counts them (by the severity
    /// reported, the rule's interop note and whether it is a visibility rule), worked out
    /// once per rule.
    static func impacts(_ s: RunSummary) -> (_ rule: RuleID, _ severity: Severity) -> Impact {
        var rules: [RuleID: RuleDescriptor] = [:]
        for d in s.rulesChecked { rules[d.id] = d }
        var known: [RuleID: Impact] = [:]
        for r in s.findingsByRule {
            let d = rules[r.rule]
            let hides = (d?.hides ?? false) || (r.severity == .error && (d?.interopLosesMessage ?? false))
            known[r.rule] = hides ? .hides : r.severity == .info ? .minor : .trouble
        }
        return { rule, severity in known[rule] ?? (severity == .info ? .minor : .trouble) }
    }

    /// Unanswered questions listed at most on the summary's line (the rest are counted).
    static let unansweredShown = 3

    /// `_ipp._tcp.local. PTR asked 6× by 10.98.1.20; ssdp:all searched 2× by …; +N more`:
    /// the most asked questions nothing answered on their link (nil: none).
    static func unansweredLine(_ s: RunSummary) -> String? {
        guard !s.unanswered.isEmpty else { return nil }
        let named = [""] + s.segments
        var parts: [String] = []
        for q in s.unanswered.prefix(unansweredShown) {
            var p = q.label + (q.proto == .ssdp ? " searched" : " asked") + " \(q.asked)× by "
            p += q.askers.joined(separator: ", ") + (q.moreAskers ? " and others" : "")
            if let seg = Segments.name(q.segment, in: named) { p += " on \(seg)" }
            parts.append(p)
        }
        let rest = s.unansweredTotal - parts.count
        if rest > 0 { parts.append("+\(rest) more") }
        return parts.joined(separator: "; ")
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
    /// Interop notes whose place this renderer has already passed on. The reporter prints a
    /// note after the first finding that carries it in the run; that finding is the first
    /// this renderer sees with the note too (each renderer formats its batches in capture
    /// order: `WorkerPool`), so later ones need no note place (and the reporter no set lookup
    /// per finding).
    private var notesPassed: Set<String> = []
    /// `[NAME] ` for each of the run's segments (escaped for the terminal; the unnamed
    /// segment 0 has none): the start of each line of a segment's message, and of a finding
    /// line that stands on its own.
    private var segmentPrefixes: [String] = []
    public init(options: TextReporter.Options) { self.options = options }

    public mutating func setSegmentNames(_ names: [String]) {
        segmentPrefixes = names.enumerated().map { k, name in k == 0 ? "" : "[" + TerminalText.escaped(name) + "] " }
    }

    /// The segment's prefix (empty for the unnamed segment).
    private func segmentPrefixText(_ segment: UInt16) -> String {
        guard segment != 0, Int(segment) < segmentPrefixes.count else { return "" }
        return segmentPrefixes[Int(segment)]
    }

    public mutating func render(_ m: MessageRecord, findings: [Finding], into c: inout RenderedChunk) {
        if options.quiet {
            Self.each(findings) { findingLines($0, indent: 0, frameDescription: true, into: &c) }
            return
        }
        if m.segment != 0 { c.append(segmentPrefixText(m.segment)) }
        // The line is sized once and written in place: frame, clock, two endpoints (address in
        // brackets, colon, port), the protocol, the summary and the notes after it.
        let summaryCount = m.summaryUTF8.withUnsafeBufferPointer { TerminalText.escapedCount($0) }
        let bound =
            20 + 1 + 15 + 1 + (m.src.utf8.count + 8) + 3 + (m.dst.utf8.count + 8) + 6 + summaryCount
            + 12 + (m.fragmentFrames.isEmpty ? 0 : 26 + 21 * m.fragmentFrames.count) + 1
        if options.timeStyle != .clock || options.showMAC {
            // The tcpdump options' forms: a prefix of text, then the rest of the line as usual.
            var prefix = String(m.frame) + " "
            if let t = timeText(m.time) { prefix += t + " " }
            // As tcpdump -e: `source > destination, ` (the source alone where the link
            // header has no destination, as Linux cooked captures).
            if options.showMAC && !m.srcMAC.isEmpty {
                prefix += Self.macText(m.srcMAC)
                if !m.dstMAC.isEmpty { prefix += " > " + Self.macText(m.dstMAC) }
                prefix += ", "
            }
            c.append(prefix)
            withUnsafePointer(to: m) { p in
                c.bytes.append(sizedFor: bound) { o in Self.writeLine(p, clock: nil, into: &o) }
            }
        } else {
            let time = clockPrefix(m.time)
            // Through a pointer: a closure that captures the record copies it (retaining each of
            // its arrays), and so does one that passes on the pointer's `pointee`.
            withUnsafePointer(to: m) { p in
                c.bytes.append(sizedFor: bound) { o in Self.writeLine(p, clock: time, into: &o) }
            }
        }
        if options.verbose {
            for d in m.detail {
                c.append("        " as StaticString)
                c.append(terminalSafe: d)
                c.append(byte: 0x0A)
            }
        }
        if options.hexDump { Self.hexDump(m.payload, into: &c) }
        if options.asciiDump { Self.asciiDump(m.payload, into: &c) }
        Self.each(findings) { findingLines($0, indent: 4, frameDescription: false, into: &c) }
    }

    /// Each finding, in place in the array's buffer (a `for` loop copies each one, retaining
    /// its strings and array).
    private static func each(_ findings: [Finding], _ body: (UnsafePointer<Finding>) -> Void) {
        findings.withUnsafeBufferPointer { fs in
            guard let base = fs.baseAddress else { return }
            for k in 0..<fs.count { body(base + k) }
        }
    }

    /// One message line (sized by the caller); without `clock`, from the source address on
    /// (the caller wrote the frame and time).
    private static func writeLine(
        _ mp: UnsafePointer<MessageRecord>, clock time: UInt64?, into o: inout OutputSpan<UInt8>
    ) {
        if let time {
            o.put(decimal: mp.pointee.frame)
            o.put(0x20)
            for k in 0..<8 { o.put(UInt8(truncatingIfNeeded: time >> UInt64(8 * k))) }
            o.put(0x2E)
            o.put(zeroPadded: Int(mp.pointee.time.nanoseconds / 1000), width: 6)
            o.put(0x20)
        }
        Self.endpoint(mp.pointee.src, mp.pointee.sport, into: &o)
        o.put(" > " as StaticString)
        Self.endpoint(mp.pointee.dst, mp.pointee.dport, into: &o)
        o.put(mp.pointee.proto == .ssdp ? " SSDP " as StaticString : " mDNS ")
        // Packet text: escaped (the one place message text reaches the output).
        mp.pointee.summaryUTF8.withUnsafeBufferPointer { o.put(terminalSafe: $0) }
        if mp.pointee.truncated { o.put(" [truncated]" as StaticString) }
        if !mp.pointee.fragmentFrames.isEmpty {
            o.put(" [reassembled from frames" as StaticString)
            for (k, f) in mp.pointee.fragmentFrames.enumerated() {
                o.put(k == 0 ? 0x20 : 0x2C)
                o.put(decimal: f)
            }
            o.put(0x5D)
        }
        o.put(0x0A)
    }

    private static func paint(_ text: String, _ code: StaticString, color: Bool, into o: inout OutputSpan<UInt8>) {
        if color {
            o.put("\u{1B}[" as StaticString)
            o.put(code)
            o.put(0x6D)
            o.put(text)
            o.put("\u{1B}[0m" as StaticString)
        } else {
            o.put(text)
        }
    }

    /// Under the message line, as its other findings; on their own with `-q`.
    public mutating func render(sessionFindings findings: [Finding], underMessage: Bool, into c: inout RenderedChunk) {
        let shown = underMessage && !options.quiet
        Self.each(findings) { findingLines($0, indent: shown ? 4 : 0, frameDescription: !shown, into: &c) }
    }

    public mutating func render(finding f: Finding, into c: inout RenderedChunk) {
        withUnsafePointer(to: f) { findingLines($0, indent: 0, frameDescription: true, into: &c) }
    }

    /// A block of its own, after the last message and before the summary: each finding names
    /// the frame that shows it, then the related ones.
    public mutating func render(endOfInput findings: [Finding], into c: inout RenderedChunk) {
        guard !findings.isEmpty else { return }
        c.append("\nAt the end of the input\n" as StaticString)
        Self.each(findings) { findingLines($0, indent: 2, frameDescription: true, into: &c) }
    }

    /// The finding by pointer: a closure that captures a finding copies it (and so does one
    /// that passes on a pointer's `pointee`).
    mutating func findingLines(
        _ fp: UnsafePointer<Finding>, indent: Int, frameDescription: Bool, into c: inout RenderedChunk
    ) {
        // Sized once: indent, frame, two painted words (colour codes), name, message, spec,
        // related frames.
        let bound =
            indent + 36 + 2 * 12 + (frameDescription ? 6 + fp.pointee.source.utf8.count : 0)
            + fp.pointee.severity.rawValue.utf8.count + fp.pointee.rule.rawValue.utf8.count
            + fp.pointee.name.utf8.count + fp.pointee.message.terminalSafeCount + fp.pointee.spec.utf8.count
            + (fp.pointee.relatedFrames.isEmpty ? 0 : 32 + 22 * fp.pointee.relatedFrames.count)
        let color = options.color
        // A line that stands on its own names its segment (one under its message does not).
        let segment = frameDescription ? segmentPrefixText(fp.pointee.segment) : ""
        c.bytes.append(sizedFor: bound + segment.utf8.count) { o in
            Self.writeFinding(
                fp, indent: indent, segment: segment, frameDescription: frameDescription, color: color, into: &o)
        }
        if let i = fp.pointee.interop, !i.isEmpty {
            if options.verbose {
                for _ in 0..<(indent + 4) { c.append(byte: 0x20) }
                c.append("interop: " as StaticString)
                c.append(i)
                c.append(byte: 0x0A)
            } else if notesPassed.insert(i).inserted {
                c.notes.append(NotePoint(offset: c.bytes.count, indent: indent, rule: fp.pointee.rule, interop: i))
            }
        }
    }

    /// One finding line (sized by the caller); also a pcapng packet comment's text
    /// (`FindingComment`).
    static func writeFinding(
        _ fp: UnsafePointer<Finding>, indent: Int, segment: String, frameDescription: Bool, color: Bool,
        into o: inout OutputSpan<UInt8>
    ) {
        o.append(repeating: 0x20, count: Swift.min(indent, o.freeCapacity))
        if !segment.isEmpty { o.put(segment) }
        if frameDescription {
            if let first = fp.pointee.firstFrame {
                o.put("frame " as StaticString)
                o.put(decimal: first)
            } else {
                o.put("end of capture" as StaticString)
            }
            // The sender, so a finding line stands on its own without the message line.
            if !fp.pointee.source.isEmpty && fp.pointee.source != "0.0.0.0" {
                o.put(" from " as StaticString)
                o.put(fp.pointee.source)
            }
            o.put(": " as StaticString)
        }
        Self.paint(fp.pointee.severity.rawValue, TextReporter.color(fp.pointee.severity), color: color, into: &o)
        o.put(0x20)
        Self.paint(fp.pointee.rule.rawValue, "1", color: color, into: &o)
        o.put(0x20)
        o.put(fp.pointee.name)
        o.put(": " as StaticString)
        // Messages quote packet data however the rule built them: escaped here.
        o.put(terminalSafe: fp.pointee.message)
        o.put(" [" as StaticString)
        o.put(fp.pointee.spec)
        o.put(0x5D)
        if let first = fp.pointee.firstFrame, !fp.pointee.relatedFrames.isEmpty {
            o.put(" (frames " as StaticString)
            o.put(decimal: first)
            for fr in fp.pointee.relatedFrames {
                o.put(", " as StaticString)
                o.put(decimal: fr)
            }
            o.put(0x29)
        }
        o.put(0x0A)
    }

    /// The time as `timeStyle` shows it; nil for `-t` (no time).
    private mutating func timeText(_ t: Timestamp) -> String? {
        let micros = Int(t.nanoseconds / 1000)
        func fraction(_ us: Int) -> String {
            let s = String(us)
            return String(repeating: "0", count: max(0, 6 - s.count)) + s
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        func since(_ earlier: Timestamp) -> String {
            // Whole microseconds, clamped at zero (captures are not always in time order).
            let (ds, o1) = t.seconds.subtractingReportingOverflow(earlier.seconds)
            guard !o1, ds >= 0, ds < 100_000_000_000 else { return "00:00:00.000000" }
            var us = ds * 1_000_000 + Int64(micros) - Int64(earlier.nanoseconds / 1000)
            if us < 0 { us = 0 }
            let secs = us / 1_000_000
            let h = secs / 3600
            let m = secs / 60 % 60
            let sec = secs % 60
            return (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)") + ":"
                + (sec < 10 ? "0\(sec)" : "\(sec)")
                + "." + fraction(Int(us % 1_000_000))
        }
        switch options.timeStyle {
        case .none:
            return nil
        case .epoch:
            return "\(t.seconds)." + fraction(micros)
        case .clock, .date:
            let c = CivilTime(seconds: t.seconds, utcOffset: options.utcOffset?(t.seconds) ?? 0)
            var text = two(c.hour) + ":" + two(c.minute) + ":" + two(c.second) + "." + fraction(micros)
            if options.timeStyle == .date {
                text = "\(c.year)-" + two(c.month) + "-" + two(c.day) + " " + text
            }
            return text
        case .sincePrevious:
            let previous = previousTime ?? t
            previousTime = t
            return since(previous)
        case .sinceFirst:
            if firstTime == nil { firstTime = t }
            return since(firstTime ?? t)
        }
    }
    private var previousTime: Timestamp? = nil
    private var firstTime: Timestamp? = nil

    /// `00:11:22:33:44:55`.
    static func macText(_ mac: [UInt8]) -> String { hexString(mac, separator: 0x3A) }

    /// tcpdump `-X`: offset, 16 bytes in groups of two, and the printable ones beside.
    /// Written straight into the chunk (no array per line).
    static func hexDump(_ payload: [UInt8], into c: inout RenderedChunk) {
        var offset = 0
        while offset < payload.count {
            let end = min(offset + 16, payload.count)
            c.append("        0x" as StaticString)
            for shift in stride(from: 12, through: 0, by: -4) { c.append(byte: hexDigit(offset >> shift)) }
            c.append(":  " as StaticString)
            for k in 0..<16 {
                if offset + k < end {
                    let b = payload[offset + k]
                    c.append(byte: hexDigit(b >> 4))
                    c.append(byte: hexDigit(b))
                } else {
                    c.append("  " as StaticString)
                }
                if k % 2 == 1 { c.append(byte: 0x20) }
            }
            c.append(byte: 0x20)
            for k in offset..<end {
                let b = payload[k]
                c.append(byte: b >= 0x20 && b < 0x7F ? b : 0x2E)
            }
            c.append(byte: 0x0A)
            offset += 16
        }
    }

    /// tcpdump `-A`: the payload as text, indented; line breaks kept, tabs (which tcpdump
    /// keeps: text output carries no control byte but line feeds), other control and
    /// non-ASCII bytes as `.` (nothing from the wire reaches the terminal as a control code).
    static func asciiDump(_ payload: [UInt8], into c: inout RenderedChunk) {
        guard !payload.isEmpty else { return }
        var atLineStart = true
        for b in payload {
            if b == 0x0D { continue }
            if b == 0x0A {
                c.append(byte: 0x0A)
                atLineStart = true
                continue
            }
            if atLineStart {
                c.append("        " as StaticString)
                atLineStart = false
            }
            c.append(byte: b >= 0x20 && b < 0x7F ? b : 0x2E)
        }
        if !atLineStart { c.append(byte: 0x0A) }
    }

    /// `addr:port`, or `[addr]:port` for an address with colons (IPv6).
    static func endpoint(_ addr: String, _ port: UInt16, into o: inout OutputSpan<UInt8>) {
        // Through the contiguous UTF-8 buffer: `addr.utf8.contains` goes the generic,
        // per-character way.
        func put(_ u: UnsafeBufferPointer<UInt8>, _ o: inout OutputSpan<UInt8>) {
            if u.contains(0x3A) {
                o.put(0x5B)
                o.put(u)
                o.put("]:" as StaticString)
            } else {
                o.put(u)
                o.put(0x3A)
            }
        }
        if addr.utf8.withContiguousStorageIfAvailable({ put($0, &o) }) == nil {
            var a = addr
            a.withUTF8 { put($0, &o) }
        }
        o.put(decimal: Int(port))
    }

    /// `HH:MM:SS` as tcpdump prints it (local time when `utcOffset` says it), its eight bytes packed first
    /// byte lowest; the broken-down time is computed once per second of capture time. A dot
    /// and the microseconds follow.
    private var clockSecond: Int64 = .min
    private var clockBytes: UInt64 = 0
    mutating func clockPrefix(_ t: Timestamp) -> UInt64 {
        if t.seconds != clockSecond {
            let c = CivilTime(seconds: t.seconds, utcOffset: options.utcOffset?(t.seconds) ?? 0)
            var b: UInt64 = 0
            var shift: UInt64 = 0
            func two(_ v: Int) {
                let x = UInt64(max(0, min(99, v)))
                b |= (0x30 + x / 10) << shift
                b |= (0x30 + x % 10) << (shift + 8)
                shift += 16
            }
            two(c.hour)
            b |= 0x3A << shift
            shift += 8
            two(c.minute)
            b |= 0x3A << shift
            shift += 8
            two(c.second)
            clockBytes = b
            clockSecond = t.seconds
        }
        return clockBytes
    }
}
