import ArgumentParser
import Capture
import Driver
import Findings
import Glibc
import NetLayers
import Reporting
import Rules

extension OutputFormatOption: ExpressibleByArgument {}

/// `--format text|jsonl|sarif|junit|html`.
enum OutputFormatOption: String, CaseIterable {
    case text, jsonl, sarif, junit, html

    /// Parses `--format`, pointing a near miss (`json`, `xml`) at the format meant.
    static func parse(_ text: String) throws -> OutputFormatOption {
        if let f = OutputFormatOption(rawValue: text.lowercased()) { return f }
        let hint: String
        switch text.lowercased() {
        case "json", "ndjson", "jsonlines", "json-lines", "jsonl2":
            hint = "; did you mean jsonl (one JSON object per line)?"
        case "xml", "junit-xml": hint = "; did you mean junit (JUnit XML)?"
        case "sarif2", "sarif-2.1.0": hint = "; did you mean sarif?"
        case "txt", "plain": hint = "; did you mean text?"
        case "htm", "xhtml", "web": hint = "; did you mean html?"
        default: hint = ""
        }
        throw ValidationError("unknown format '\(text)' (text, jsonl, sarif, junit, html)\(hint)")
    }
}

/// `--color auto|always|never`.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, always, never
}

/// tcpdump's `-t` family, by how often it is given.
enum TimestampFlags {
    static func style(_ count: Int) -> TextReporter.TimeStyle {
        switch count {
        case 0: .clock
        case 1: .none
        case 2: .epoch
        case 3: .sincePrevious
        case 4: .date
        default: .sinceFirst
        }
    }
}

/// Completion words for `--enable` / `--disable`: every rule ID and name.
let ruleCompletion = CompletionKind.list(RuleCatalog.all.flatMap { [$0.id.rawValue, $0.name] })

extension Severity: ExpressibleByArgument {}

/// `--fail-on error|warning|info|never`.
enum FailOn: String, CaseIterable, ExpressibleByArgument {
    case error, warning, info, never

    var threshold: Severity? {
        switch self {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .never: nil
        }
    }
}

/// Output options shared by `analyze` and `capture`.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Output format: text, jsonl, sarif, junit or html.", valueName: "format"),
        transform: OutputFormatOption.parse)
    var format: OutputFormatOption = .text

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write the report to PATH instead of standard output.", valueName: "path"))
    var output: String?

    @Flag(name: .shortAndLong, help: "Show every header and DNS section under each message.")
    var verbose = false

    @Flag(
        name: .shortAndLong,
        help:
            "Text output: print only findings (with frame and sender) and the summary, not every message (sarif and junit hold only findings: accepted, no effect)."
    )
    var quiet = false

    @Flag(
        name: .long,
        help: "Text output only: leave out the Summary block at the end (the exit status is the same).")
    var noSummary = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Text output: colour severities and rule IDs: auto (on a terminal, unless NO_COLOR is set), always (e.g. for less -R), never.",
            valueName: "when"))
    var color: ColorChoice = .auto

    @Flag(name: .long, help: "Same as --color never.")
    var noColor = false

    @Flag(
        name: .customShort("t"),
        help:
            "Text output, as tcpdump: -t no time, -tt seconds since 1970, -ttt since the previous message, -tttt date and time, -ttttt since the first message."
    )
    var timestampStyle: Int

    @Flag(
        name: .customShort("e"),
        help:
            "Text output: show the link-layer (MAC) addresses on each message line, as tcpdump -e: source > destination (the source alone where the link header has no destination)."
    )
    var linkHeader = false

    @Flag(name: .customShort("X"), help: "Text output: dump each message's UDP payload in hex and ASCII under it.")
    var hexDump = false

    @Flag(
        name: .customShort("A"),
        help: "Text output: print each message's UDP payload as text under it (SSDP reads as sent).")
    var asciiDump = false

    @Flag(
        name: .customShort("n"),
        help: "Accepted for tcpdump habits: DiscoScope never resolves addresses or ports (-nn too).")
    var noResolve: Int

    /// Checks made before anything is opened.
    func check() throws {
        // SARIF and JUnit list findings only: -q has nothing to leave out and is accepted.
        if quiet && (format == .jsonl || format == .html) {
            throw ValidationError(
                "-q/--quiet applies to --format text (and is accepted, with no effect, by sarif and junit); \(format.rawValue) output keeps its per-message records: filter them with jq or in the page"
            )
        }
        if noSummary && format != .text {
            throw ValidationError(
                "--no-summary applies to --format text only (the summary is part of \(format.rawValue) output)")
        }
    }

    /// Whether text output is coloured, given where it goes.
    func wantsColor(toTerminal: Bool, noColorEnv: Bool) -> Bool {
        if noColor { return false }
        switch color {
        case .always: return true
        case .never: return false
        case .auto: return toTerminal && !noColorEnv
        }
    }
}

/// `-Z USER` and `--no-drop`: the privilege drop of `capture` and `probe`, once everything
/// privileged is open.
struct PrivilegeOptions: ParsableArguments {
    @Option(
        name: .customShort("Z"),
        help: ArgumentHelp(
            "Drop privileges to USER once the capture (and probe's sockets) are open (default nobody when root).",
            valueName: "user"))
    var user: String?

    @Flag(name: .long, help: "Keep root privileges (not recommended: packets are hostile input).")
    var noDrop = false

    /// Drops root privileges as asked; false (with a warning) when that failed. Not as root,
    /// `-Z` is said to be ignored.
    func drop() -> Bool {
        if geteuid() == 0 && !noDrop {
            do { try Privileges.drop(to: user ?? "nobody") } catch {
                Frontend.warn("\(error)")
                return false
            }
        } else if let user, geteuid() != 0 {
            Frontend.warn("not running as root: -Z \(user) ignored")
        }
        return true
    }
}

/// `-j N`: the analysis threads of `analyze` and `capture`.
struct JobsOptions: ParsableArguments {
    @Option(
        name: [.customShort("j", allowingJoined: true), .long],
        help: ArgumentHelp(
            "Threads for decoding, rules and formatting (default: the number of CPUs, at most 8); above 1, one more runs the mDNS session rules. Output is the same for any number.",
            valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let j = jobs, j < 1 || j > 256 { throw ValidationError("--jobs takes a number from 1 to 256.") }
    }

    /// The threads asked for, or the number of CPUs (at most 8).
    var count: Int { jobs ?? min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 8) }
}

/// Rule selection and CI gating options shared by `analyze` and `capture`.
struct RuleOptions: ParsableArguments {
    @Option(name: .long, help: "Exit with status 1 when a finding at or above this severity remains (default: error).")
    var failOn: FailOn?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run only these rules: IDs such as SSDP-104 or names, comma-separated; repeatable.", valueName: "rules"),
        completion: ruleCompletion)
    var enable: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Do not run these rules: IDs or names, comma-separated; repeatable.", valueName: "rules"),
        completion: ruleCompletion)
    var disable: [String] = []

    @Option(name: .long, help: "Report only findings at or above this severity.")
    var minSeverity: Severity?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Exit with status 1 unless the capture shows an instance of this service profile and every instance meets it (no finding of its rules at --fail-on or above; printers of _ipp/_ipps must claim ipp-everywhere or airprint when asked); repeatable. Profiles: \(ServiceProfile.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "profile"))
    var profile: [ServiceProfile] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Configuration file (default: .discoscope.yml in the current directory, if present).", valueName: "file"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Known findings to ignore (written earlier with --write-baseline).", valueName: "file"))
    var baseline: String?

    @Option(name: .long, help: ArgumentHelp("Write the findings of this run to FILE as a baseline.", valueName: "file"))
    var writeBaseline: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Exit with status 3 when the run saw fewer than N SSDP and mDNS messages (a capture without the evidence to judge).",
            valueName: "n"))
    var minMessages: Int?

    func validate() throws {
        if let n = minMessages, n < 0 { throw ValidationError("--min-messages takes a count of 0 or more.") }
    }
}

/// `--subnet [NAME=]CIDR`: the subnets of a segment (the unnamed one without NAME), which
/// MDNS-407 and MDNS-310 judge source and record addresses by (`analyze`, `capture`).
struct SubnetOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A subnet of a link, e.g. 192.168.1.0/24 or fd00::/64, or of segment NAME (a --segments file's segment, a pcapng or -i interface); repeatable. MDNS-407 and MDNS-310 then judge addresses by the link's subnets instead of a /24 heuristic.",
            valueName: "[name=]cidr"))
    var subnet: [String] = []

    func validate() throws {
        if case .failure(let e) = Self.subnets(subnet) { throw ValidationError("--subnet \(e.description)") }
    }

    /// The subnets by segment name (`""`: the unnamed segment), or what is wrong with a value.
    static func subnets(_ values: [String]) -> Result<[String: LinkSubnets], IPPrefix.ParseError> {
        var out: [String: LinkSubnets] = [:]
        for v in values {
            switch IPPrefix.parse(named: v) {
            case .failure(let e): return .failure(e)
            case .success(let (name, prefix)):
                guard out[name, default: LinkSubnets()].add(prefix) else {
                    return .failure(
                        IPPrefix.ParseError(
                            description: "more than \(LinkSubnets.maxPrefixes) subnets for one segment"))
                }
            }
        }
        return .success(out)
    }

    /// The subnets by segment name; a name that is none of `segments` (when the segments are
    /// known before reading) is a usage error (said, exit 2).
    func bySegment(among segments: [String]? = nil) throws -> [String: LinkSubnets] {
        guard case .success(let out) = Self.subnets(subnet) else { return [:] }
        if let segments {
            let named = segments.filter { !$0.isEmpty }.joined(separator: ", ")
            for name in out.keys.sorted() where !segments.contains(name) {
                Frontend.warn(
                    name.isEmpty
                        ? "--subnet without NAME= applies to a capture of one link; with several segments, name one of: \(named)"
                        : "--subnet \(name)=…: no segment is named \(name) (the segments: \(named))")
                throw ExitCode(2)
            }
        }
        return out
    }
}

/// `--segments` and `--segment-name FILE=NAME`: the files as the segments (links) of one
/// network, analysed as one session (`analyze`, `explain`).
struct SegmentOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: ArgumentHelp(
            "The files are segments (links) of one network, e.g. VLANs joined by an mDNS reflector: analyse them as one session, merged by time (ties in file order), frames numbered in that order. Each segment is named by its file's base name without extension."
        ))
    var segments = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --segments: name FILE's segment NAME instead of its base name (repeatable).", valueName: "file=name"))
    var segmentName: [String] = []

    func validate() throws {
        if !segmentName.isEmpty && !segments { throw ValidationError("--segment-name goes with --segments.") }
    }

    /// Each file's segment name with `--segments` (nil without); a usage error (said, exit 2)
    /// for names that cannot be told apart.
    func names(for files: [String]) throws -> [String]? {
        guard segments else { return nil }
        switch MergedSession.segmentNames(files, names: segmentName) {
        case .success(let n): return n
        case .failure(let e):
            Frontend.warn(e.description)
            throw ExitCode(2)
        }
    }
}
