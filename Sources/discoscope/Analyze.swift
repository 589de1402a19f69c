import Analyzer
import ArgumentParser
import Capture
import Findings
import Glibc
import Reporting
import Rules

extension DiscoScope {
    /// `discoscope analyze FILE… [options] [BPF filter]`.
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Analyse capture files (pcap, pcapng, .gz; `-` for standard input).",
            discussion: """
                Arguments after the files form a BPF filter, as tcpdump takes it \
                (e.g. `discoscope analyze lan.pcapng udp port 1900`). An argument is taken as a file \
                when it exists, is `-`, or ends in .pcap, .pcapng, .cap or .gz; the first other \
                argument starts the filter. Frame numbers count every record of a file, as Wireshark's do, \
                also when a filter is given.
                """
        )

        @Argument(help: ArgumentHelp("Capture files, then an optional BPF filter expression.", valueName: "file… [filter]"))
        var arguments: [String]

        @Option(name: [.customShort("F"), .long], help: "BPF filter expression (instead of trailing arguments).")
        var filter: String?

        @Option(
            name: [.customShort("j", allowingJoined: true), .long],
            help: ArgumentHelp(
                "Threads for decoding, rules and formatting (default: the number of CPUs, at most 8). Output is the same for any number.",
                valueName: "n"))
        var jobs: Int?

        @OptionGroup var output: OutputOptions
        @OptionGroup var rules: RuleOptions

        func validate() throws {
            if arguments.isEmpty { throw ValidationError("Give at least one capture file (or - for standard input).") }
            if let j = jobs, j < 1 || j > 256 { throw ValidationError("--jobs takes a number from 1 to 256.") }
        }

        /// Splits the positional arguments into files and the trailing filter words.
        static func split(_ args: [String]) -> (files: [String], filter: [String]) {
            var files: [String] = []
            var i = 0
            while i < args.count {
                let a = args[i]
                if files.isEmpty || a == "-" || looksLikeFile(a) {
                    files.append(a)
                    i += 1
                } else {
                    break
                }
            }
            return (files, Array(args[i...]))
        }

        static func looksLikeFile(_ a: String) -> Bool {
            var st = stat()
            if stat(a, &st) == 0 { return true }
            for ext in [".pcap", ".pcapng", ".cap", ".gz", ".dmp", ".ntar"] where a.hasSuffix(ext) { return true }
            return false
        }

        func run() throws {
            let (files, words) = Self.split(arguments)
            var filterExpression = words.joined(separator: " ")
            if let f = filter {
                filterExpression = filterExpression.isEmpty ? f : "(\(f)) and (\(filterExpression))"
            }
            let status = try Frontend.analyze(
                files: files, filter: filterExpression.isEmpty ? nil : filterExpression, output: output, rules: rules,
                jobs: jobs ?? min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 8))
            throw ExitCode(status)
        }
    }
}
