import Analyzer
import Capture
import Driver
import Findings
import Glibc
import NetLayers
import Reporting
import Rules
import Synchronization
import WireFormat

/// The work behind `analyze` and `capture`: output sink, reporter, rule policy and the
/// analysis, shared by both thin commands.
final class Frontend {
    /// One line on standard error; a line feed inside `message` (a file name can hold one)
    /// is escaped with the rest.
    static func warn(_ message: String) {
        FileHandleStderr.write("discoscope: \(TerminalText.escaped(message))\n")
    }

    let sink: any ReportSink
    let analysis: Analysis
    let rules: RuleOptions
    /// The text reporter, when the format is text: its summary is left out when no input
    /// could be read.
    private var textReporter: TextReporter? = nil
    /// Where the report goes: a file (`-o`) or standard output (nil).
    let reportPath: String?
    private(set) var inputError = false
    /// Inputs opened (files, or the live capture); none: every input failed.
    private var sourcesRun = 0
    /// Findings dropped by `--min-severity` (the policy counts them apart from suppressions).
    let belowMinimum = SharedCounter()
    /// `analyze -w`: where the SSDP and mDNS frames go.
    var packetOutput: PacketOutput? = nil
    /// Where SARIF and JUnit keep their results until `finish`.
    private(set) var spill: FileSpill? = nil

    /// Sets up output and rules; throws `InputError` (exit 2) for an unwritable output or a
    /// bad configuration. `inputs` are the files as given (the interface when live).
    init(
        output: OutputOptions, rules: RuleOptions, live: Bool = false, jobs: Int = 1, inputs: [String] = [],
        packetOutput: PacketOutput? = nil,
        wrapReporter: ((OutputFormatOption, any Reporter, any ReportSink) -> any Reporter)? = nil,
        ownSources: Set<String> = [], subnets: [String: LinkSubnets] = [:], reportSink: (any ReportSink)? = nil,
        findingComments: FindingComments? = nil
    ) throws {
        self.rules = rules
        reportPath = output.output
        let settings = try Settings(rules)
        self.settings = settings
        // `capture`'s JSON lines to a file: its own sink, which rotates and reopens.
        sink = try reportSink ?? FileSink.open(output.output)
        sink.flushEachWrite = live
        self.packetOutput = packetOutput
        var reporter: any Reporter
        var jobs = jobs
        switch output.format {
        case .text:
            var o = TextReporter.Options()
            o.quiet = output.quiet
            o.verbose = output.verbose
            o.color = output.wantsColor(
                toTerminal: output.output == nil && sink.isTerminal, noColorEnv: getenv("NO_COLOR") != nil)
            let utc = getenv("TZ").map { String(cString: $0) == "UTC" || String(cString: $0) == "UTC0" } ?? false
            o.utcOffset = utc ? nil : LocalTime.offset
            o.timeStyle = TimestampFlags.style(output.timestampStyle)
            o.showMAC = output.linkHeader
            o.hexDump = output.hexDump
            o.asciiDump = output.asciiDump
            o.files = live ? [] : inputs
            o.summary = !output.noSummary
            // Times relative to the previous or first message need the messages in one
            // sequence: one renderer, on the reading thread.
            if o.timeStyle.isRelative { jobs = 1 }
            let text = TextReporter(sink: sink, options: o)
            textReporter = text
            reporter = text
        case .jsonl:
            reporter = JSONLinesReporter(sink: sink, files: inputs)
        // The documents' results wait in a temporary file, created here with the output:
        // `capture` drops privileges after `Frontend.init`, and the open file stays usable.
        case .sarif:
            let spill = try FileSpill.create()
            self.spill = spill
            reporter = SARIFReporter(sink: sink, toolVersion: DiscoScope.version, spill: spill)
        case .junit:
            let spill = try FileSpill.create()
            self.spill = spill
            reporter = JUnitReporter(sink: sink, spill: spill)
        case .html:
            reporter = HTMLReporter(
                sink: sink, files: inputs, toolVersion: DiscoScope.version, deflater: ZlibDeflater())
        }
        // `probe`: its own JUnit layout (a suite per device) and its messages marked as ours.
        if let wrapReporter { reporter = wrapReporter(output.format, reporter, sink) }
        var options = Analysis.Options()
        // HTML shows each message as `-v` prints it, with its hex dump, and reads the JSON
        // fields for the timeline's lanes and query → answer pairs.
        let html = output.format == .html
        options.verbose = output.verbose || html
        options.messageFields = output.format == .jsonl || html
        options.wantMessages = (output.format == .text && !output.quiet) || output.format == .jsonl || html
        options.disabledRules = settings.disabled
        options.subnets = subnets
        options.jobs = jobs
        if live { options.repeatTables = .sensor }
        options.recordMAC = output.format == .text && output.linkHeader
        options.recordPayload = (output.format == .text && (output.hexDump || output.asciiDump)) || html
        options.reportsInventory = output.format == .text || output.format == .jsonl || html || wrapReporter != nil
        let collector: BaselineCollector? = rules.writeBaseline == nil ? nil : baselineOut
        let marked = packetOutput?.findingFrames
        // `-w FILE.pcapng`: each reported finding's comment on the frames it names.
        let commented = packetOutput?.comments ?? findingComments
        let below = belowMinimum
        let own = ownFindings
        // SARIF and JUnit list what the baseline accepts, as suppressed or skipped; the other
        // reports leave it out (and count it as suppressed).
        let listsAccepted = (output.format == .sarif || output.format == .junit) && wrapReporter == nil
        let policy: (@Sendable (Finding) -> Finding?)?
        if settings.isIdentity && collector == nil && marked == nil && commented == nil && ownSources.isEmpty {
            policy = nil
        } else {
            policy = { f in
                // `probe`: findings on the messages it sent judge the probe, not the devices
                // (a finding that names a device, such as an unanswered search, is the device's).
                if !ownSources.isEmpty, f.device == nil, ownSources.contains(f.source) {
                    own.add(f)
                    return nil
                }
                guard let kept = settings.apply(f) else {
                    if settings.isBelowMinimum(f) { below.add() }
                    return nil
                }
                collector?.insert(kept)
                if let b = settings.baseline, b.contains(kept) {
                    guard listsAccepted else { return nil }
                    var accepted = kept
                    accepted.baselined = true
                    return accepted
                }
                marked?.insert(kept)
                commented?.insert(kept)
                return kept
            }
        }
        options.findingDetails = output.format != .text || policy != nil
        analysis = Analysis(reporter: reporter, options: options, policy: policy, makePool: workerThreads)
        analysis.onWarning = { Frontend.warn($0) }
        analysis.onInputError = { Frontend.warn($0) }
        if let packetOutput {
            analysis.frameTap = { kind, frame, bytes in packetOutput.take(kind, frame, bytes) }
        }
        started = Self.now()
        showProgress = !live && isatty(2) != 0 && getenv("CI") == nil && (output.output != nil || !sink.isTerminal)
    }

    let settings: Settings
    /// `probe`: the description rules run (they are listed as checked in JUnit and SARIF).
    var checksDescriptions = false
    /// `probe`: findings about its own messages, left out of the report.
    let ownFindings = OwnFindings()
    /// A progress line on standard error: only when it is a terminal, the report does not go
    /// to that same terminal, and not in CI.
    var showProgress = false
    let baselineOut = BaselineCollector()
    var started = 0.0

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Analyses one opened source to its end (or until `shouldStop`).
    func run(_ source: any FrameSource, fileIndex: Int, shouldStop: () -> Bool = { false }) {
        sourcesRun += 1
        if let p = packetOutput, let problem = p.begin(source, fileIndex: fileIndex) { Frontend.warn(problem) }
        // Each error was said as it happened (`onInputError`).
        if !analysis.run(source, fileIndex: fileIndex, shouldStop: shouldStop).isEmpty { inputError = true }
    }

    /// Records an input that could not be opened.
    func failed(_ error: CaptureError) {
        Frontend.warn(error.description)
        analysis.inputFailed(error)
        inputError = true
    }

    /// Finishes the report and returns the exit status: 2 after an input error, 3 when the
    /// run saw fewer messages than `--min-messages`, 1 when a finding reaches `--fail-on`,
    /// else 0 (the first that applies).
    func finish(extra: (inout RunSummary) -> Void = { _ in }) -> Int32 {
        let settings = self.settings
        let checksDescriptions = self.checksDescriptions
        let started = self.started
        let belowMinimum = self.belowMinimum
        let packetOutput = self.packetOutput
        let minMessages = rules.minMessages
        let gatedProfiles = rules.profile
        // Nothing was read: the error lines said why, and an all-zero summary would add
        // nothing but noise.
        if sourcesRun == 0 && inputError { textReporter?.showsSummary = false }
        var packetProblem: String? = nil
        let summary = analysis.finish { s in
            // The packet file is completed here: every message has been judged (the findings
            // that `--only-findings` keeps are known), and a write problem still reaches the
            // summary.
            if let p = packetOutput, let problem = p.finish() {
                packetProblem = problem
                Frontend.warn(problem)
            }
            // The description rules (SSDP-6xx) run only where a description is fetched (`probe`).
            let fetched = checksDescriptions
            s.rulesChecked = RuleCatalog.all.filter {
                !settings.disabled.contains($0.id) && (fetched || !DescriptionChecks.ids.contains($0.id))
            }
            s.failOn = settings.failOn
            s.profiles = ProfileGate.results(
                analysis.inventory, gates: gatedProfiles, threshold: settings.failOn ?? .error)
            s.minMessages = minMessages
            s.elapsedSeconds = Frontend.now() - started
            // The workers count every finding the policy dropped as suppressed; read once
            // every batch and the end-of-capture findings have been through the policy.
            let below = belowMinimum.value
            s.belowMinSeverity = below
            s.suppressed = max(0, s.suppressed - below)
            if let packetProblem { s.inputErrors.append(packetProblem) }
            extra(&s)
        }
        if packetProblem != nil { inputError = true }
        if let failure = sink.close() ?? spill?.failure {
            Frontend.warn(failure)
            return 2
        }
        // The report went to a file: the verdict is told at the terminal too (too few
        // messages has a line of its own, below).
        if let path = reportPath, !summary.tooFewMessages || inputError, let result = TextReporter.resultText(summary) {
            Frontend.warn("result: \(result) (report in \(path))")
        }
        if let path = rules.writeBaseline {
            if !writeFile(path, baselineOut.baseline.text) {
                Frontend.warn("\(path): cannot write the baseline (\(String(cString: strerror(errno))))")
                return 2
            }
            if baselineOut.isFull {
                Frontend.warn(
                    "\(path): the baseline holds the first \(BaselineCollector.maxKeys) distinct findings (a bound on memory); the rest were left out: narrow the run with --enable, --disable or --min-severity"
                )
            }
        }
        if inputError { return 2 }
        if summary.tooFewMessages, let m = minMessages {
            Frontend.warn(
                "\(summary.messages) SSDP/mDNS message(s) seen, fewer than --min-messages \(m): the capture holds too little discovery traffic to judge (exit status 3)"
            )
            return 3
        }
        if let t = settings.failOn, analysis.count(atLeast: t) > 0 { return 1 }
        if summary.failsProfileGate { return 1 }
        return 0
    }

    /// `analyze`: each file a session of its own, or, with `segments` (the name of each
    /// file's segment, in order), all files one session merged in time order; `subnets`: the
    /// subnets known on each segment, by name.
    static func analyze(
        files: [String], filter: String?, output: OutputOptions, rules: RuleOptions, jobs: Int, count: Int? = nil,
        writePackets: String? = nil, onlyFindings: Bool = false, segments: [String]? = nil,
        subnets: [String: LinkSubnets] = [:]
    ) throws -> Int32 {
        // An output onto an input would truncate the capture before it is read: refused
        // before anything is opened.
        let outputs = [("-w", writePackets), ("-o", output.output), ("--write-baseline", rules.writeBaseline)]
        if let problem = OutputGuard.problem(outputs: outputs, inputs: files) {
            warn(problem)
            return 2
        }
        // A filter that cannot compile is a usage error, reported once before any file is
        // read (as tcpdump does), not an input error per file.
        if let filter, let problem = FilterCheck.problem(filter) {
            warn("invalid filter '\(filter)': \(problem)")
            return 2
        }
        // The inputs the report names: the files, or the one merged session.
        let sessions = segments == nil ? files : [MergedSession.name(files)]
        let frontend: Frontend
        do {
            let packets = try writePackets.map { try PacketOutput(path: $0, onlyFindings: onlyFindings) }
            frontend = try Frontend(
                output: output, rules: rules, jobs: jobs, inputs: sessions, packetOutput: packets, subnets: subnets)
        } catch let e as InputError {
            warn(e.description)
            return 2
        }
        /// Opens one file, with the filter; nil (the run told why) when it cannot be read.
        func open(_ path: String) -> (any FrameSource)? {
            do {
                let source = try OfflineSource.open(path)
                if let filter { try source.setOfflineFilter(filter) }
                return source
            } catch {
                frontend.failed(error)
                return nil
            }
        }
        func run(_ source: any FrameSource, fileIndex: Int) {
            let progress = Progress(source: source, enabled: frontend.showProgress)
            let sink = frontend.sink
            frontend.run(source, fileIndex: fileIndex) {
                if let count, frontend.analysis.summary.framesRead >= count { return true }
                return progress.tick(frames: frontend.analysis.summary.framesRead) || sink.failure != nil
            }
            progress.clear()
        }
        if let segments {
            // Every file is opened first: the merge reads them side by side. One that cannot
            // be opened is an input error; the session goes on with the others.
            var parts: [(source: any FrameSource, name: String)] = []
            for (path, name) in zip(files, segments) {
                if let source = open(path) { parts.append((source, name)) }
            }
            if !parts.isEmpty { run(MergedSource(parts, input: sessions[0]), fileIndex: 0) }
            return frontend.finishProcess()
        }
        // A report that can no longer be written ends the run (finish says why).
        for (index, path) in files.enumerated() where frontend.sink.failure == nil {
            if let count, frontend.analysis.summary.framesRead >= count { break }
            guard let source = open(path) else { continue }
            run(source, fileIndex: index)
        }
        return frontend.finishProcess()
    }

    /// `finish`, for the run that is the process's whole work (`analyze`): what the run
    /// built (session tables, decoding caches, the inventory) is left to the process's exit,
    /// which returns it to the system at once, instead of being freed object by object first
    /// (Benchmarks/README.md, "Measurements behind the code"). Everything is written and
    /// closed by then: `finish` closed the report and the packet file.
    private func finishProcess() -> Int32 {
        let status = finish()
        _ = Unmanaged.passRetained(self)
        return status
    }
}

/// Collects the findings a run would report without its baseline (for --write-baseline),
/// bounded at a million distinct identities. Worker threads insert concurrently.
final class BaselineCollector: Sendable {
    static let maxKeys = 1_000_000
    private let state = Mutex((baseline: Baseline(), full: false))
    var baseline: Baseline { state.withLock { $0.baseline } }
    /// Whether findings were left out because the bound was reached.
    var isFull: Bool { state.withLock { $0.full } }
    func insert(_ f: Finding) {
        state.withLock { s in
            guard s.baseline.keys.count < Self.maxKeys else {
                s.full = true
                return
            }
            s.baseline.insert(f)
        }
    }
}

/// Findings about `probe`'s own messages: counted, the first few kept for standard error.
final class OwnFindings: Sendable {
    private let state = Mutex((count: 0, first: [Finding]()))
    func add(_ f: Finding) {
        state.withLock { s in
            s.count += 1
            if s.first.count < 5 { s.first.append(f) }
        }
    }
    var count: Int { state.withLock { $0.count } }
    var first: [Finding] { state.withLock { $0.first } }
}

/// A count that worker threads add to.
final class SharedCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Rule selection merged from `.discoscope.yml` and the command line (the command line wins).
struct Settings: Sendable {
    var config = Configuration()
    var disabled: Set<RuleID> = []
    var failOn: Severity? = .error
    var minSeverity: Severity? = nil
    var baseline: Baseline? = nil

    init(_ o: RuleOptions, announce: (String) -> Void = { Frontend.warn($0) }) throws {
        var path = o.config
        if path == nil, access(".discoscope.yml", F_OK) == 0 { path = ".discoscope.yml" }
        if let path {
            // Settings that change the verdict never apply silently.
            announce(
                "using configuration \(path)\(o.config == nil ? " (found in the current directory; --config FILE names another)" : "")"
            )
            guard let text = readFile(path) else {
                throw InputError("\(path): cannot read the configuration (\(String(cString: strerror(errno))))")
            }
            do { config = try Configuration.parse(text, path: path) } catch let e as Configuration.ConfigError {
                throw InputError(e.description)
            }
        }
        func resolve(_ names: [String], _ flag: String) throws -> [RuleID] {
            try names.flatMap { $0.split(separator: ",").map(String.init) }.map { n in
                guard let d = RuleCatalog.find(n) else { throw InputError("\(flag): " + RuleSuggestion.unknownRule(n)) }
                return d.id
            }
        }
        let enable = config.enable + (try resolve(o.enable, "--enable"))
        let disable = config.disable + (try resolve(o.disable, "--disable"))
        let all = Set(RuleCatalog.all.map(\.id))
        var enabled = enable.isEmpty ? all : Set(enable)
        enabled.subtract(disable)
        disabled = all.subtracting(enabled)
        if let f = o.failOn { failOn = f.threshold } else if let f = config.failOn { failOn = f }
        minSeverity = o.minSeverity ?? config.minSeverity
        if let b = o.baseline {
            guard let text = readFile(b) else {
                throw InputError("\(b): cannot read the baseline (\(String(cString: strerror(errno))))")
            }
            do { baseline = try Baseline.parse(text, path: b) } catch let e as Configuration.ConfigError {
                throw InputError(e.description)
            }
        }
    }

    /// Whether `apply` keeps every finding as it is (no overrides, minimum, suppressions or
    /// baseline), so the analysis can skip it.
    var isIdentity: Bool {
        config.severity.isEmpty && minSeverity == nil && config.suppressions.isEmpty && baseline == nil
    }

    /// Whether `apply` drops `raw` for being below the minimum severity (rather than for a
    /// suppression or the baseline), counted apart in the summary.
    func isBelowMinimum(_ raw: Finding) -> Bool {
        guard let m = minSeverity else { return false }
        let s = config.severity[raw.rule] ?? raw.severity
        return s < m
    }

    /// Severity override, minimum severity and suppressions; nil when the finding is dropped.
    func apply(_ raw: Finding) -> Finding? {
        var f = raw
        if !config.severity.isEmpty, let s = config.severity[f.rule] { f.severity = s }
        if let m = minSeverity, f.severity < m { return nil }
        if !config.suppressions.isEmpty, config.suppresses(f) { return nil }
        return f
    }
}

/// Reads a whole (small) text file without Foundation; nil when it cannot be read.
func readFile(_ path: String, limit: Int = 64 << 20) -> String? {
    guard let f = fopen(path, "r") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n <= 0 { break }
        bytes += chunk[0..<n]
        // Larger than any configuration or baseline should be: an error, not a silent cut.
        if bytes.count > limit {
            errno = EFBIG
            return nil
        }
    }
    if ferror(f) != 0 { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

func writeFile(_ path: String, _ text: String) -> Bool {
    guard let f = fopen(path, "w") else { return false }
    var t = text
    let ok = t.withUTF8 { fwrite($0.baseAddress, 1, $0.count, f) == $0.count }
    return fclose(f) == 0 && ok
}

/// `file.pcap: 41 % (56.1 of 136.3 MB), 812345 packets, 301234 packets/s` on standard error
/// (`file.pcap.gz: 41 % (0.8 of 2.0 MB; gzip: 950.2 MB uncompressed), …` for compressed
/// input), redrawn at most four times a second.
final class Progress {
    let handle: any FrameSource
    let enabled: Bool
    private var counter = 0
    private var last = 0.0
    private let start = Frontend.now()
    private var drawn = false

    init(source: any FrameSource, enabled: Bool) {
        self.handle = source
        self.enabled = enabled
    }

    /// Called before each record; returns false (never stops the run).
    func tick(frames: Int) -> Bool {
        guard enabled else { return false }
        counter &+= 1
        guard counter & 0xFFF == 0 else { return false }
        let now = Frontend.now()
        guard now - last >= 0.25 else { return false }
        last = now
        let rate = Int(Double(frames) / max(now - start, 0.001))
        var line = "\r\(TerminalText.escaped(handle.input)): "
        let mb = { (b: Int64) in String(Double(b / 100_000) / 10) }
        // Compressed input shows what it expanded to: a small file of millions of records
        // takes its time visibly, not mysteriously.
        let expanded = handle.expandedBytes.map { "gzip: \(mb($0)) MB uncompressed" }
        if let total = handle.totalBytes, let done = handle.bytesRead, total > 0 {
            line += "\(min(done, total) * 100 / total) % (\(mb(done)) of \(mb(total)) MB"
            line += expanded.map { "; " + $0 } ?? ""
            line += "), "
        } else if let expanded {
            line += "(\(expanded)), "
        }
        line += "\(frames) packets, \(rate) packets/s\u{1B}[K"
        FileHandleStderr.writeRaw(line)
        drawn = true
        return false
    }

    func clear() {
        if drawn { FileHandleStderr.writeRaw("\r\u{1B}[K") }
    }
}

/// `analyze --segments`: the files of one session, each a segment of the same network.
enum MergedSession {
    /// The session's name in the report (its `file`): the files joined by `+`.
    static func name(_ files: [String]) -> String { files.joined(separator: "+") }

    /// A file's segment name: its base name without the extension (`captures/lan.pcap.gz`
    /// is `lan`; standard input is `stdin`), or the name `--segment-name FILE=NAME` gives.
    static func segmentName(_ path: String, given: [String: String]) -> String {
        if let name = given[path] { return name }
        let base = String(path.split(separator: "/").last ?? Substring(path))
        if let name = given[base] { return name }
        return path == "-" ? "stdin" : OfflineSource.stem(of: path)
    }

    /// The segment names of `files`, or why they cannot be used (a `--segment-name` for no
    /// file, an empty name, two segments with the same name).
    static func segmentNames(_ files: [String], names: [String]) -> Result<[String], InputError> {
        var given: [String: String] = [:]
        for n in names {
            guard let eq = n.firstIndex(of: "=") else {
                return .failure(InputError("--segment-name \(n): give FILE=NAME"))
            }
            let file = String(n[..<eq])
            let name = String(n[n.index(after: eq)...])
            guard !name.isEmpty else { return .failure(InputError("--segment-name \(n): the name is empty")) }
            guard files.contains(where: { $0 == file || $0.split(separator: "/").last.map(String.init) == file })
            else {
                return .failure(InputError("--segment-name \(n): \(file) is not one of the files"))
            }
            given[file] = name
        }
        let result = files.map { segmentName($0, given: given) }
        var seen: [String: String] = [:]
        for (file, name) in zip(files, result) {
            if let other = seen[name] {
                return .failure(
                    InputError(
                        "two segments are named \(name) (\(other) and \(file)): name them with --segment-name FILE=NAME"
                    ))
            }
            seen[name] = file
        }
        return .success(result)
    }
}

/// The HTML report's data block is compressed by zlib, which only Capture's side links.
extension ZlibDeflater: DataDeflater {}
