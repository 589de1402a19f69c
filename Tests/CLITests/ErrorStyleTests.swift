import Foundation
import TestSupport
import Testing

/// Every error the CLI prints is in one style: each line on standard error starts
/// `discoscope: `, and the first names the problem (and, for a rejected value, the values
/// accepted).
@Suite struct ErrorStyleTests {
    static let ethernet = Fixtures.capture("link/ethernet.pcap")

    struct Case: CustomTestStringConvertible, Sendable {
        var args: [String]
        var status: Int32
        var problem: String
        var testDescription: String { args.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(args: ["analyze", Fixtures.capture("does-not-exist.pcap")], status: 2, problem: "No such file"),
        Case(args: ["analyze", Fixtures.capture("damaged/garbage.pcap")], status: 2, problem: "not a pcap or pcapng"),
        Case(args: ["analyze"], status: 2, problem: "Give at least one capture file"),
        Case(args: ["analyze", ethernet, "--no-such-option"], status: 2, problem: "Unknown option '--no-such-option'"),
        Case(
            args: ["analyze", ethernet, "--format", "json"], status: 2,
            problem: "(text, jsonl, sarif, junit, html); did you mean jsonl"),
        Case(
            args: ["analyze", ethernet, "--fail-on", "loud"], status: 2,
            problem: "'error', 'warning', 'info' or 'never'"),
        Case(
            args: ["analyze", ethernet, "--color", "sometimes"], status: 2, problem: "'auto', 'always' or 'never'"),
        Case(
            args: ["analyze", ethernet, "--disable", "crlf"], status: 2,
            problem: "--disable: unknown rule 'crlf'; did you mean SSDP-005 (crlf-line-endings)?"),
        Case(
            args: ["rules", "explain", "crlf"], status: 2,
            problem: "unknown rule 'crlf'; did you mean SSDP-005 (crlf-line-endings)?"),
        Case(args: ["analyze", ethernet, "-F", "udp port"], status: 2, problem: "invalid filter 'udp port'"),
        Case(args: ["analyze", ethernet, "-w", ethernet], status: 2, problem: "-w \(ethernet): refused"),
        Case(args: ["analyze", ethernet, "-w", "-"], status: 2, problem: "-w - writes the packets to standard output"),
        Case(args: ["capture", "-w", "-"], status: 2, problem: "-w - writes the packets to standard output"),
        Case(
            args: ["capture", "-G", "60", "-o", "r.txt"], status: 2,
            problem:
                "-G rotates only the -w capture file and a JSON lines report: -o r.txt with --format text cannot rotate; give --format jsonl"
        ),
        Case(
            args: ["capture", "-C", "5", "-w", "c.pcap", "-o", "r.sarif", "--format", "sarif"], status: 2,
            problem:
                "-C rotates only the -w capture file and a JSON lines report: -o r.sarif with --format sarif cannot rotate"
        ),
        Case(args: ["capture", "-G", "10"], status: 2, problem: "give -w FILE or -o FILE"),
        Case(args: ["capture", "-W", "3", "-w", "c.pcap"], status: 2, problem: "-W goes with -C or -G"),
        Case(args: ["capture", "-C", "1.5", "-w", "c.pcap"], status: 2, problem: "-C 1.5: give a size in millions"),
        Case(args: ["capture", "-G", "0", "-w", "c.pcap"], status: 2, problem: "-G needs a positive number"),
        Case(args: ["analyze", ethernet, "--min-messages=-2"], status: 2, problem: "--min-messages takes a count"),
        Case(args: ["analyze", ethernet, "--no-summary", "--format", "sarif"], status: 2, problem: "--no-summary"),
        Case(
            args: ["analyze", ethernet, "--min-messages", "6"], status: 3,
            problem: "5 SSDP/mDNS message(s) seen, fewer than --min-messages 6"),
        Case(
            args: ["analyze", ethernet, "--config", Fixtures.capture("no-such.yml")], status: 2,
            problem: "cannot read the configuration"),
    ]

    static func expectOneStyle(_ r: ProcessResult, problem: String, _ what: String) {
        let lines = r.stderr.split(separator: "\n")
        #expect(!lines.isEmpty, "\(what): nothing on standard error")
        for line in lines {
            #expect(line.hasPrefix("discoscope: "), "\(what): \(line)")
        }
        #expect(r.stderr.contains(problem), "\(what): \(r.stderr)")
    }

    @Test(arguments: cases)
    func everyErrorLineStartsWithDiscoscopeAndNamesTheProblem(_ c: Case) throws {
        let r = try discoscope(c.args)
        #expect(r.status == c.status, "\(c.testDescription): \(r.stderr)")
        Self.expectOneStyle(r, problem: c.problem, c.testDescription)
    }

    /// A broken `.discoscope.yml` is named with the line (and column, for YAML syntax) and
    /// the problem in plain words.
    @Test(arguments: [
        ("fail-on: warning\n  min-severity: info\n", "c.yml:2:15: not valid YAML: a `key: value` where none can be"),
        ("fail-on: warning\n\tdisable: [SSDP-005]\n", "c.yml:2:1: not valid YAML: a tab in the indentation"),
        ("disable: [SSDP-005\n", "not valid YAML: a list in brackets is not closed with `]` (opened at line 1"),
        ("fial-on: warning\n", "c.yml:1: unknown key 'fial-on' (fail-on, min-severity, enable, disable"),
        ("fail-on: [error]\n", "c.yml:1: fail-on: expected a single value (error, warning, info or never), not a list"),
        ("fail-on: loud\n", "c.yml:1: fail-on: unknown severity 'loud'; use one of error, warning, info or never"),
        ("severity:\n  SSDP-005: 3\n", "c.yml:2: severity: unknown severity '3'; use one of error, warning or info"),
        ("disable: [crlf]\n", "c.yml:1: disable: unknown rule 'crlf'; did you mean SSDP-005 (crlf-line-endings)?"),
        ("suppress:\n  rule: SSDP-005\n", "c.yml:2: suppress: expected a list of entries"),
        ("- fail-on\n", "c.yml:1: expected settings, one per line"),
    ])
    func aBrokenConfigurationNamesTheFileTheLineAndTheProblem(yaml: String, problem: String) throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try yaml.write(toFile: dir + "/c.yml", atomically: true, encoding: .utf8)
        let r = try discoscope(["analyze", Self.ethernet, "--config", "c.yml"], currentDirectory: dir)
        #expect(r.status == 2)
        Self.expectOneStyle(r, problem: problem, yaml)
    }

    @Test func verboseOutputNamesAnAuthorityRecordInTheSingular() throws {
        let r = try discoscope([
            "analyze", "-v", Fixtures.capture("session/mdns-testbed-lifecycle.pcap"), "--fail-on", "never",
        ])
        #expect(r.stdout.contains("        authority h1-avahi.local. AAAA class 1 TTL 120 fe80::99:ff:fe00:1"))
        #expect(!r.stdout.contains("authoritie "))
    }

    /// `rules explain` speaks to users: DiscoScope's interpretations and what was not
    /// confirmed against the specification are said as such, not as the authors' notes.
    @Test func ruleTextsSayWhoReadsTheSpecAndWhatIsNotConfirmed() throws {
        let r = try discoscope(["rules", "--format", "json"])
        #expect(r.status == 0)
        for phrase in ["Our reading", "our reading", "unverified", "tcpdump prints"] {
            #expect(!r.stdout.contains(phrase), "\(phrase)")
        }
        #expect(r.stdout.contains("DiscoScope reads this as follows:"))
        #expect(r.stdout.contains("Not confirmed: "))
    }
}
