import ArgumentParser
import Glibc
import WireFormat

/// `discoscope`: capture, decode and lint SSDP and mDNS / DNS-SD traffic.
@main
struct DiscoScope: ParsableCommand {
    /// The release version: SARIF's `semanticVersion`, and the tarball's name.
    static let version = "0.1.0"
    /// What `--version` prints. The commit (`BuildInfo`, generated before each build by
    /// Plugins/BuildInfo) stays out of reports, so their output is the same at every commit.
    static let versionLine = "discoscope \(version) (commit \(BuildInfo.commit))"
    static let configuration = CommandConfiguration(
        commandName: "discoscope",
        abstract:
            "Decode and lint local-network service discovery: SSDP (UPnP, UDP 1900) and mDNS / DNS-SD (UDP 5353).",
        discussion: """
            Reads captures (pcap, pcapng, gzip-compressed, or standard input) or sniffs an interface, \
            shows every SSDP and mDNS message typed, and checks each against the UPnP Device \
            Architecture and RFC 6762/6763 rule catalog (`discoscope rules`).
            Exit status (analyze, capture, probe): 0 pass (no finding at or above --fail-on); 1 findings at \
            or above it; 2 usage or input error; 3 fewer SSDP and mDNS messages than --min-messages. \
            2 outranks 3, and 3 outranks 1.
            """,
        version: DiscoScope.versionLine,
        subcommands: [
            Analyze.self, CaptureCommand.self, RulesCommand.self, InventoryCommand.self, DiffCommand.self,
            ExplainCommand.self, ProbeCommand.self,
        ],
        defaultSubcommand: nil
    )

    /// ArgumentParser exits with 64 on usage errors; our contract says 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Glibc.exit(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            let message = usageErrorLines(fullMessage(for: error))
            if !message.isEmpty {
                FileHandleStderr.write(message)
            }
            Glibc.exit(code == .failure || code == .validationFailure ? 2 : (code.rawValue == 1 ? 2 : code.rawValue))
        }
    }
}

/// ArgumentParser's usage error in DiscoScope's one error style: each line starts
/// `discoscope: ` (`Error: ` dropped, `Usage:` and `See '… --help'` kept as hints), and its
/// `Help:` line, which repeats the option's help, is left out (the message lists the values
/// accepted).
func usageErrorLines(_ message: String) -> String {
    var out = ""
    for line in message.split(separator: "\n") {
        var text = Substring(line.drop { $0 == " " })
        if text.isEmpty || text.hasPrefix("Help:") { continue }
        if text.hasPrefix("Error: ") { text = text.dropFirst("Error: ".count) }
        if text.hasPrefix("Usage: ") { text = "usage: " + text.dropFirst("Usage: ".count) }
        if text.hasPrefix("See '") { text = "see" + text.dropFirst("See".count) }
        out += "discoscope: " + text + "\n"
    }
    return out
}

/// Writes to standard error without Foundation. Messages echo file names, arguments and
/// libpcap's text: every line is escaped for the terminal (see `TerminalText`), line feeds
/// kept.
enum FileHandleStderr {
    static func write(_ s: String) { writeRaw(TerminalText.escapedLines(s)) }

    /// Text whose control sequences are DiscoScope's own (the progress line's redraw).
    static func writeRaw(_ s: String) {
        var s = s
        s.withUTF8 { buf in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(2, buf.baseAddress.map { $0 + off }, buf.count - off)
                if n <= 0 { break }
                off += n
            }
        }
    }
}
