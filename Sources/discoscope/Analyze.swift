import Analyzer
import ArgumentParser
import Capture
import Driver
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
                Each file is a session of its own (the session rules start afresh for each), unless \
                --segments makes them the segments (links) of one network: one session, the files merged \
                in time order, each message and finding naming its segment. A pcapng file with several \
                interfaces is one session whose interfaces are its segments.
                tcpdump habits work: -r FILE, -c COUNT, -n, -t to -ttttt, -e, -X, -A, -w FILE.
                With -o FILE, the summary's result line is also told on standard error.
                Exit status: 0 pass (no finding at or above --fail-on); 1 findings at or above it; \
                2 usage or input error; 3 fewer SSDP and mDNS messages than --min-messages (a capture \
                without the evidence to judge). 2 outranks 3, and 3 outranks 1.
                """,
            aliases: ["analyse"]
        )

        @Argument(
            help: ArgumentHelp("Capture files, then an optional BPF filter expression.", valueName: "file… [filter]"))
        var arguments: [String] = []

        @Option(
            name: .customShort("r"),
            help: ArgumentHelp(
                "Read FILE (as tcpdump -r; repeatable). The files may also be given without -r.", valueName: "file"))
        var readFiles: [String] = []

        @Option(
            name: .customShort("c", allowingJoined: true),
            help: ArgumentHelp(
                "Stop after COUNT packets, as tcpdump -c (-c 100 or -c100): those the BPF filter passes (every packet without one), counted over all the files.",
                valueName: "count"))
        var count: Int?

        @Option(
            name: .customShort("w"),
            help: ArgumentHelp(
                "Write the packets that carry SSDP or mDNS messages to FILE (pcap, for Wireshark; - for standard output, with -o FILE for the report).",
                discussion:
                    "FILE.pcapng: pcapng, each packet with the findings that name it as packet comments (Wireshark: frame.comment contains \"SSDP-005\"), end-of-input findings included.",
                valueName: "file"))
        var writeFile: String?

        @Flag(name: .long, help: "With -w: write only the packets that findings name.")
        var onlyFindings = false

        @OptionGroup var segments: SegmentOptions
        @OptionGroup var subnets: SubnetOptions

        @Option(name: [.customShort("F"), .long], help: "BPF filter expression (instead of trailing arguments).")
        var filter: String?

        @OptionGroup var jobs: JobsOptions

        @OptionGroup var output: OutputOptions
        @OptionGroup var rules: RuleOptions

        func validate() throws {
            if arguments.isEmpty && readFiles.isEmpty {
                throw ValidationError("Give at least one capture file (or - for standard input).")
            }
            if let c = count, c < 1 { throw ValidationError("-c needs a positive count.") }
            if onlyFindings && writeFile == nil { throw ValidationError("--only-findings goes with -w FILE.") }
            if writeFile == "-" && output.output == nil {
                throw ValidationError(
                    "-w - writes the packets to standard output, where the report goes too: give -o FILE for the report"
                )
            }
            try output.check()
        }

        /// Splits the positional arguments into files and the trailing filter words; with
        /// `-r` files, the first positional argument may already start the filter.
        static func split(_ args: [String], haveFiles: Bool = false) -> (files: [String], filter: [String]) {
            var files: [String] = []
            var i = 0
            while i < args.count {
                let a = args[i]
                if (files.isEmpty && !haveFiles) || a == "-" || looksLikeFile(a) {
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
            let (positional, words) = Self.split(arguments, haveFiles: !readFiles.isEmpty)
            let files = readFiles + positional
            var filterExpression = words.joined(separator: " ")
            if let f = filter {
                filterExpression = filterExpression.isEmpty ? f : "(\(f)) and (\(filterExpression))"
            }
            let names = try segments.names(for: files)
            let status = try Frontend.analyze(
                files: files, filter: filterExpression.isEmpty ? nil : filterExpression, output: output, rules: rules,
                jobs: jobs.count, count: count,
                writePackets: writeFile, onlyFindings: onlyFindings, segments: names,
                subnets: subnets.bySegment(among: names))
            throw ExitCode(status)
        }
    }
}
