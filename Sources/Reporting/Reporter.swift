import Findings
import WireFormat

/// Where a reporter writes text (standard output or a file); the CLI provides it.
public protocol OutputSink: AnyObject {
    func write(_ text: String)
    /// Raw UTF-8 bytes (rendered chunks); by default passed on as a `String`.
    func write(bytes: UnsafeRawBufferPointer)
    func flush()
}

extension OutputSink {
    public func write(bytes: UnsafeRawBufferPointer) {
        write(String(decoding: bytes, as: UTF8.self))
    }
}

/// What a run saw, for the summary at the end of every format.
public struct RunSummary: Sendable {
    public var files: [String] = []
    /// The run's named segments (links), in the order they were first seen (`Segments`);
    /// empty when every input had one unnamed segment.
    public var segments: [String] = []
    public var framesRead: Int = 0
    /// UDP datagrams to or from port 1900 / 5353 (and candidate SSDP responses).
    public var datagrams: Int = 0
    /// UDP datagrams with source or destination port 1900 or 5353, counted as tshark's
    /// `udp.port==1900 || udp.port==5353` counts them (reassembled datagrams once).
    public var portDatagrams: Int = 0
    public var ssdpMessages: Int = 0
    public var mdnsMessages: Int = 0
    /// Datagrams cut short by the snap length (decoded as far as they go).
    public var truncatedDatagrams: Int = 0
    /// Datagrams reassembled from IP fragments.
    public var reassembledDatagrams: Int = 0
    /// Reasons frames were skipped, with counts (`unsupported link type IEEE802_11`, …), in
    /// first-seen order.
    public var skipped: [(reason: String, count: Int)] = []
    /// Input errors that ended reading a file early (`file.pcap: truncated record …`).
    public var inputErrors: [String] = []
    /// Bounds on memory or work that this run reached, each once: what was left out, and
    /// how to raise the bound when that is possible.
    public var limitsReached: [LimitReached] = []
    /// Distinct SSDP devices (root UUIDs) and mDNS hosts seen; distinct DNS-SD service types.
    public var devices: Int = 0
    public var services: Int = 0
    /// Entries of stateful tables (the SSDP session model, recent searches, rules' own state)
    /// dropped because their table was full: findings that needed them were not made.
    public var stateEvicted: Int = 0
    /// Packets whose timestamp was earlier than one before them (judged at the latest time;
    /// no interval ending at them is judged).
    public var timeWentBack: Int = 0
    /// Questions nothing answered on their link (mDNS questions, SSDP searches by searcher
    /// and ST), most asked first, at most `maxUnanswered`; `unansweredTotal` counts them all.
    public var unanswered: [UnansweredQuestion] = []
    public var unansweredTotal = 0
    public static let maxUnanswered = 64
    /// Live capture statistics from libpcap, when capturing.
    public var packetsReceived: UInt64? = nil
    public var packetsDropped: UInt64? = nil
    public var packetsDroppedByInterface: UInt64? = nil
    /// The rules that were enabled for this run (JUnit has one test case per rule checked).
    public var rulesChecked: [RuleDescriptor] = []
    /// Findings that were suppressed by configuration or baseline (not counting those below
    /// the minimum severity).
    public var suppressed: Int = 0
    /// Findings left out because they were below `--min-severity`.
    public var belowMinSeverity: Int = 0
    /// Live capture: the interface captured on (`files` holds it too).
    public var interface: String? = nil

    /// The run's verdict: an input error outranks too few messages, which outranks findings.
    public enum Verdict: String, Sendable {
        case pass, fail
        case inputError = "input_error"
        case tooFewMessages = "too_few_messages"
    }
    public var verdict: Verdict {
        if !inputErrors.isEmpty { return .inputError }
        if tooFewMessages { return .tooFewMessages }
        if let t = failOn, findings(atLeast: t) > 0 { return .fail }
        if failsProfileGate { return .fail }
        return .pass
    }
    /// Each service profile the run's instances claim, and each `--profile` asked for, with
    /// how its instances fared (`ProfileGate`).
    public var profiles: [ProfileResult] = []
    /// A profile `--profile` asked for did not pass.
    public var failsProfileGate: Bool { profiles.contains { $0.gated && !$0.passed } }
    /// Reported findings per severity and per rule (rule order: first seen).
    public var findingsBySeverity: [Severity: Int] = [:]
    public var findingsByRule: [(rule: RuleID, name: String, severity: Severity, count: Int)] = []
    /// The `--fail-on` threshold (nil: never); JUnit marks test cases failed from it.
    public var failOn: Severity? = .error
    /// `--min-messages`: the SSDP and mDNS messages the run must see (nil: any number).
    public var minMessages: Int? = nil

    /// SSDP and mDNS messages seen.
    public var messages: Int { ssdpMessages + mdnsMessages }
    /// Whether the run saw fewer messages than `--min-messages` asks for.
    public var tooFewMessages: Bool { minMessages.map { messages < $0 } ?? false }

    /// The first finding that hides a device (`Finding.hides`) of each rule, in capture
    /// order, which the summary's `invisible` lines quote.
    public var hidingExamples: [RuleID: HidingExample] = [:]

    /// Position of each rule in `findingsByRule`.
    private var ruleSlot: [RuleID: Int] = [:]

    /// Counts one reported finding.
    public mutating func count(_ f: Finding) { count(rule: f.rule, name: f.name, f.severity) }

    /// Counts `n` reported findings of rule `rule` (named `name`) at `severity`.
    public mutating func count(rule: RuleID, name: String, _ severity: Severity, times n: Int = 1) {
        findingsBySeverity[severity, default: 0] += n
        if let i = ruleSlot[rule] {
            findingsByRule[i].count += n
            if severity > findingsByRule[i].severity { findingsByRule[i].severity = severity }
        } else {
            ruleSlot[rule] = findingsByRule.count
            findingsByRule.append((rule, name, severity, n))
        }
    }

    public var totalFindings: Int { findingsBySeverity.values.reduce(0, +) }

    /// Reported findings at or above `threshold` (the `--fail-on` verdict).
    public func findings(atLeast threshold: Severity) -> Int {
        findingsBySeverity.filter { $0.key >= threshold }.values.reduce(0, +)
    }
    /// Wall-clock seconds the run took.
    public var elapsedSeconds: Double = 0

    public init() {}

    /// Records that a limit was reached (once per limit).
    public mutating func reached(_ limit: LimitReached) {
        if !limitsReached.contains(where: { $0.limit == limit.limit }) { limitsReached.append(limit) }
    }

    /// Whether the named limit was reached.
    public func reached(_ limit: String) -> Bool { limitsReached.contains { $0.limit == limit } }

    /// Takes in a session's unanswered questions, keeping the most asked.
    public mutating func add(unanswered qs: [UnansweredQuestion]) {
        guard !qs.isEmpty else { return }
        unansweredTotal &+= qs.count
        unanswered = Array((unanswered + qs).sorted(by: UnansweredQuestion.ranked).prefix(Self.maxUnanswered))
    }

    public mutating func skip(_ reason: String, count: Int = 1) {
        if let i = skipped.firstIndex(where: { $0.reason == reason }) {
            skipped[i].count += count
        } else {
            skipped.append((reason, count))
        }
    }
}

/// A bound DiscoScope keeps (memory under floods, size of a document) that a run reached.
public struct LimitReached: Sendable {
    /// Short stable name (`devices`, `reassembly_datagrams`, …).
    public var limit: String
    /// The bound.
    public var value: Int
    /// One sentence: what the bound is, what was left out, how to raise it if one can.
    public var message: String
    public init(limit: String, value: Int, message: String) {
        self.limit = limit
        self.value = value
        self.message = message
    }
}

/// A report format. Streaming reporters (text, JSON lines) print each message as it arrives;
/// document reporters (SARIF, JUnit) keep their results as text in a `SpillStore` and write
/// the document in `finish`.
public protocol Reporter {
    /// Whether output appears as packets are analysed (live capture streams these).
    var isStreaming: Bool { get }
    /// One decoded message and the findings on it (already filtered by configuration).
    mutating func message(_ message: MessageRecord, findings: [Finding])
    /// A finding not printed with a message (stateful rules that conclude later, or when
    /// messages are not shown).
    mutating func finding(_ finding: Finding)
    /// End of the run: the summary, and for document formats the whole document.
    mutating func finish(_ summary: RunSummary)
    /// A formatter that may run on worker threads, for formats whose text for a message
    /// depends only on that message and its findings; nil when the reporter must see every
    /// message itself, in order (document formats).
    func makeRenderer() -> (any MessageRenderer)?
    /// Writes what a renderer from `makeRenderer` produced, in capture order.
    mutating func emit(_ chunk: RenderedChunk)
    /// An input starts (`index` as on the command line); everything of the previous one has
    /// been written.
    mutating func beginFile(_ index: Int, name: String)
    /// What the run saw, just before `finish` (when the analysis was asked to report it).
    mutating func inventory(_ inventory: Inventory)
    /// The run's segment names by index (`Segments`), given again whenever one is added,
    /// before any record or finding of that segment arrives.
    mutating func setSegmentNames(_ names: [String])
}

extension Reporter {
    public mutating func inventory(_ inventory: Inventory) {}
    public mutating func setSegmentNames(_ names: [String]) {}
    public func makeRenderer() -> (any MessageRenderer)? { nil }
    public mutating func emit(_ chunk: RenderedChunk) {}
    public mutating func beginFile(_ index: Int, name: String) {}
}

/// A compressor for the HTML report's data block, in zlib's format (RFC 1950), which the page
/// inflates with the browser's `DecompressionStream("deflate")`. Reporting has no C: the
/// caller that links zlib supplies one (the command line, `Capture.ZlibDeflater`).
public protocol DataDeflater: AnyObject {
    /// The compressed bytes for `input` that are ready; with `finish`, the rest of the stream.
    func deflate(_ input: UnsafeRawBufferPointer, finish: Bool) -> [UInt8]
}
