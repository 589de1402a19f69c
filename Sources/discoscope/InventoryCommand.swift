import ArgumentParser
import Findings
import Reporting

/// `--format text|jsonl` of `inventory`, `diff` and `explain`.
enum ReportFormat: String, CaseIterable, ExpressibleByArgument {
    case text, jsonl
}

extension DiscoScope {
    /// `discoscope inventory FILE…`: what each capture showed.
    struct InventoryCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inventory",
            abstract: "List every device, host and service instance the captures show.",
            discussion: """
                Each SSDP root device (embedded devices under it), with its addresses, MACs, SERVER, \
                UPnP version, types, LOCATIONs, BOOTIDs, max-age values, first and last message, \
                message and finding counts; each mDNS host with its addresses and services, and \
                under it each DNS-SD service instance with its type, SRV target and port, TXT and \
                finding counts. Each file is its own session, unless --segments makes them the segments \
                (links) of one network, as `analyze --segments` does: each device, host and service \
                is then listed once, with the segments it was seen on (a pcapng file with several \
                interfaces is such a session by itself). --format jsonl writes \
                `device` and `service` records followed by the `finding` records (what `diff` \
                compares); docs/FORMATS.md describes them.
                Exit status: 0, or 2 when an input could not be read.
                """)

        @Argument(help: ArgumentHelp("Capture files (pcap, pcapng, .gz).", valueName: "file"))
        var files: [String] = []

        @OptionGroup var segments: SegmentOptions

        @Option(name: .long, help: "Output format: text or jsonl.")
        var format: ReportFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to PATH instead of standard output.", valueName: "path"))
        var output: String?

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one capture file.") }
        }

        func run() throws {
            try refuseOutputOntoInput(output, inputs: files)
            let names = try segments.names(for: files)
            let r = Survey.run(files, segments: names)
            // The inputs findings name: the files, or the one merged session.
            let inputs = names == nil ? files : [MergedSession.name(files)]
            let text: String
            switch format {
            case .jsonl:
                text =
                    InventoryRecords.lines(r.inventory)
                    + r.findings.map {
                        JSONLinesReporter.findingLine(
                            $0, file: inputs.indices.contains($0.fileIndex) ? inputs[$0.fileIndex] : nil)
                    }.joined()
            case .text:
                text = Self.text(r)
            }
            guard writeReport(text, to: output) else { throw ExitCode(2) }
            throw ExitCode(r.inputError ? 2 : 0)
        }

        static func text(_ r: Survey.Result) -> String {
            var out = "Inventory (\(coverageNote(r.inventory)))\n"
            let body = InventoryRecords.text(r.inventory, timeText: LocalTime.dateTime)
            out += body.isEmpty ? "\nNo SSDP device, mDNS host or DNS-SD service was seen.\n" : body
            return out
        }
    }
}
