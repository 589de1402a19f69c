import Foundation
import TestSupport
import Testing

/// `--min-messages`: a CI gate fails (exit status 3) on a capture without the discovery
/// traffic to judge, instead of passing it for want of findings.
@Suite struct MinMessagesTests {
    static let ethernet = Fixtures.capture("link/ethernet.pcap")  // 5 SSDP and mDNS messages

    @Test func fewerMessagesThanAskedForExitsThreeWithOneLineSayingSo() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--min-messages", "6"])
        #expect(r.status == 3)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("discoscope: 5 SSDP/mDNS message(s) seen, fewer than --min-messages 6") == true)
        #expect(r.stdout.contains("result      too few messages: 5 SSDP/mDNS message(s)"))
    }

    @Test func exactlyEnoughMessagesPass() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--min-messages", "5"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
    }

    @Test func aFilterThatPassesNothingLeavesNoEvidence() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--min-messages", "1", "udp", "port", "9"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("0 SSDP/mDNS message(s) seen, fewer than --min-messages 1"))
    }

    @Test func anInputErrorOutranksTooFewMessages() throws {
        let r = try discoscope(["analyze", Fixtures.capture("damaged/garbage.pcap"), "--min-messages", "1"])
        #expect(r.status == 2)
        #expect(!r.stderr.contains("--min-messages"))
    }

    @Test func tooFewMessagesOutranksFindings() throws {
        // ethernet.pcap has an MDNS-309 warning: exit 1 with --fail-on warning alone.
        let findings = try discoscope(["analyze", Self.ethernet, "--fail-on", "warning"])
        #expect(findings.status == 1)
        let r = try discoscope(["analyze", Self.ethernet, "--fail-on", "warning", "--min-messages", "6"])
        #expect(r.status == 3)
    }

    @Test func jsonLinesSummaryNamesTheVerdict() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--format", "jsonl", "--min-messages", "6"])
        #expect(r.status == 3)
        #expect(r.lines.last?.contains("\"result\":\"too_few_messages\"") == true)
    }

    @Test func aNegativeCountIsAUsageError() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--min-messages=-1"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--min-messages takes a count of 0 or more"))
    }
}

/// tcpdump's `-c` and the text summary's options.
@Suite struct CountAndSummaryTests {
    static let ethernet = Fixtures.capture("link/ethernet.pcap")

    func messageFrames(_ r: ProcessResult) -> [Int] {
        r.lines.filter { $0.contains("\"type\":\"message\"") }.compactMap { line -> Int? in
            guard let data = line.data(using: .utf8),
                let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return obj["frame"] as? Int
        }
    }

    @Test(arguments: [["-c1"], ["-c", "1"]])
    func countIsTakenJoinedOrApartAndCountsThePacketsTheFilterPasses(count: [String]) throws {
        // The first packet of udp port 5353 is frame 4: -c counts what the filter passes.
        let r = try discoscope(
            ["analyze", Self.ethernet, "--format", "jsonl"] + count + ["--fail-on", "never", "udp", "port", "5353"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(messageFrames(r) == [4])
    }

    @Test func countWithoutAFilterCountsEveryPacket() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--format", "jsonl", "-c2", "--fail-on", "never"])
        #expect(messageFrames(r) == [1, 2])
    }

    @Test func noSummaryLeavesOutTheSummaryAndKeepsTheExitStatus() throws {
        let with = try discoscope(["analyze", Self.ethernet, "--fail-on", "warning"])
        let without = try discoscope(["analyze", Self.ethernet, "--fail-on", "warning", "--no-summary"])
        #expect(with.stdout.contains("Summary"))
        #expect(!without.stdout.contains("Summary"))
        #expect(!without.stdout.contains("result"))
        #expect(without.status == with.status)
        #expect(without.status == 1)
        #expect(with.stdout.hasPrefix(without.stdout))
    }

    @Test func noSummaryIsForTextOutputOnly() throws {
        let r = try discoscope(["analyze", Self.ethernet, "--format", "jsonl", "--no-summary"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--no-summary applies to --format text only"))
    }

    @Test func whenNoInputCouldBeReadNoSummaryFollowsTheError() throws {
        let r = try discoscope(["analyze", Fixtures.capture("damaged/garbage.pcap")])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("not a pcap or pcapng"))
    }

    @Test func aReportToAFileTellsItsResultOnStandardError() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pass = try discoscope(["analyze", Self.ethernet, "-o", dir + "/report.txt"])
        #expect(pass.status == 0)
        #expect(
            pass.stderr == "discoscope: result: pass (no finding at or above error) (report in \(dir)/report.txt)\n")
        let fail = try discoscope([
            "analyze", Self.ethernet, "--format", "sarif", "--fail-on", "warning", "-o", dir + "/report.sarif",
        ])
        #expect(fail.status == 1)
        #expect(fail.stderr.hasPrefix("discoscope: result: fail: 1 finding(s) at or above warning"))
    }

    @Test func aReportOnStandardOutputSaysNothingOnStandardError() throws {
        let r = try discoscope(["analyze", Self.ethernet])
        #expect(r.stderr.isEmpty)
    }
}
