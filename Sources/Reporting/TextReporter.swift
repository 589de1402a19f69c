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
    public init(sink: any OutputSink, options: Options = Options()) {
        self.sink = sink
        self.options = options
    }
    public var isStreaming: Bool { true }

    public func message(_ m: MessageRecord, findings: [Finding]) {
        if options.quiet {
            for f in findings { finding(f) }
            return
        }
        var line = "\(m.frame) \(clock(m.time)) \(endpoint(m.src, m.sport)) > \(endpoint(m.dst, m.dport)) "
        line += m.proto == .ssdp ? "SSDP " : "mDNS "
        line += m.summary
        if m.truncated { line += " [truncated]" }
        if !m.fragmentFrames.isEmpty { line += " [reassembled from frames \(m.fragmentFrames.map(String.init).joined(separator: ","))]" }
        sink.write(line + "\n")
        if options.verbose { for d in m.detail { sink.write("        " + d + "\n") } }
        for f in findings { sink.write(findingLines(f, indent: "    ")) }
    }

    public func finding(_ f: Finding) {
        let whereText = f.frames.first.map { "frame \($0)" } ?? "end of capture"
        sink.write(findingLines(f, indent: "", prefix: whereText + ": "))
    }

    func findingLines(_ f: Finding, indent: String, prefix: String = "") -> String {
        var s = indent + prefix + paint(f.severity.rawValue, Self.color(f.severity)) + " " + paint(f.rule.rawValue, "1")
            + " " + f.name + ": " + f.message + " [" + f.spec + "]"
        if f.frames.count > 1 { s += " (frames \(f.frames.map(String.init).joined(separator: ", ")))" }
        s += "\n"
        if let i = f.interop, !i.isEmpty, options.verbose || interopShown.insert(f.rule).inserted {
            s += indent + "    interop: " + i + "\n"
        }
        return s
    }

    static func color(_ s: Severity) -> String {
        switch s {
        case .error: "31"
        case .warning: "33"
        case .info: "36"
        }
    }

    func paint(_ text: String, _ code: String) -> String {
        options.color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func endpoint(_ addr: String, _ port: UInt16) -> String {
        addr.contains(":") ? "[\(addr)]:\(port)" : "\(addr):\(port)"
    }

    /// `HH:MM:SS.uuuuuu` as tcpdump prints it (local time unless `utc`). The `HH:MM:SS.`
    /// part is computed once per second of capture time.
    private var clockSecond: Int64 = .min
    private var clockPrefix = ""
    func clock(_ t: Timestamp) -> String {
        if t.seconds != clockSecond {
            var secs = time_t(t.seconds)
            var tmv = tm()
            if options.utc { gmtime_r(&secs, &tmv) } else { localtime_r(&secs, &tmv) }
            func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
            clockPrefix = "\(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec))."
            clockSecond = t.seconds
        }
        let micro = Int(t.nanoseconds / 1000)
        var digits: [UInt8] = [0x30, 0x30, 0x30, 0x30, 0x30, 0x30]
        var v = micro
        var k = 5
        while k >= 0 {
            digits[k] = UInt8(0x30 + v % 10)
            v /= 10
            k -= 1
        }
        return clockPrefix + String(decoding: digits, as: UTF8.self)
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
