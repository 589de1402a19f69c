import TestSupport
import Testing

/// `--jobs`: per-message work runs on worker threads in batches, and the results are written
/// in capture order, so every format is byte-for-byte the same for any number of jobs.
@Suite struct ParallelOutputTests {
    /// The testbed capture holds 1001 messages; the second input checks that
    /// batches do not cross files; SSDP responses there pair with earlier M-SEARCHes; the third
    /// ends its session with findings of the end of the input.
    static let inputs = [
        "captures/testbed/lan-dualstack.pcapng", "captures/public/CESNET__ipfixprobe__ssdp.pcap",
        "captures/session/ssdp-stateful.pcap", "captures/session/mdns-testbed-lifecycle.pcap",
    ]

    static let variants: [[String]] = [
        ["--format", "text"], ["--format", "text", "-v"], ["--format", "text", "-q"], ["--format", "jsonl"],
        ["--format", "sarif"], ["--format", "junit"],
        ["--format", "text", "--disable", "SSDP-011,MDNS-312", "--min-severity", "warning"],
    ]

    @Test(arguments: variants)
    func outputDoesNotDependOnTheNumberOfJobs(_ variant: [String]) throws {
        var outputs: [String] = []
        for jobs in ["1", "2", "5"] {
            let r = try run(
                ["analyze"] + Self.inputs + variant + ["--fail-on", "never", "-j", jobs], cwd: Fixtures.packageRoot)
            #expect(r.status == 0)
            outputs.append(GoldenFileTests.stable(r.stdout, format: variant[1]))
        }
        #expect(outputs[0].count > 1000)
        #expect(outputs[1] == outputs[0], "-j 2 differs from -j 1 for \(variant)")
        #expect(outputs[2] == outputs[0], "-j 5 differs from -j 1 for \(variant)")
    }

    @Test func jobsMustBeAPositiveNumber() throws {
        let r = try run(["analyze", Self.inputs[0], "-j", "0"], cwd: Fixtures.packageRoot)
        #expect(r.status == 2)  // usage errors exit 2 (CONTRACT)
        #expect(r.stderr.contains("--jobs"))
    }
}
