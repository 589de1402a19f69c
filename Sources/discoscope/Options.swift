import ArgumentParser
import Findings
import Reporting

extension OutputFormatOption: ExpressibleByArgument {}

/// `--format text|jsonl|sarif|junit`.
enum OutputFormatOption: String, CaseIterable {
    case text, jsonl, sarif, junit
}

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
    @Option(name: .long, help: "Output format.")
    var format: OutputFormatOption = .text

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the report to PATH instead of standard output.", valueName: "path"))
    var output: String?

    @Flag(name: .shortAndLong, help: "Show every header and DNS section under each message.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Text output: print only findings and the summary, not every message.")
    var quiet = false

    @Flag(name: .long, help: "Text output: never colour (colour is used only on a terminal, and never when NO_COLOR is set).")
    var noColor = false
}

/// Rule selection and CI gating options shared by `analyze` and `capture`.
struct RuleOptions: ParsableArguments {
    @Option(name: .long, help: "Exit with status 1 when a finding at or above this severity remains (default: error).")
    var failOn: FailOn?

    @Option(name: .long, help: ArgumentHelp("Run only these rules: IDs such as SSDP-104 or names, comma-separated; repeatable.", valueName: "rules"))
    var enable: [String] = []

    @Option(name: .long, help: ArgumentHelp("Do not run these rules: IDs or names, comma-separated; repeatable.", valueName: "rules"))
    var disable: [String] = []

    @Option(name: .long, help: "Report only findings at or above this severity.")
    var minSeverity: Severity?

    @Option(name: .long, help: ArgumentHelp("Configuration file (default: .discoscope.yml in the current directory, if present).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Known findings to ignore (written earlier with --write-baseline).", valueName: "file"))
    var baseline: String?

    @Option(name: .long, help: ArgumentHelp("Write the findings of this run to FILE as a baseline.", valueName: "file"))
    var writeBaseline: String?
}
