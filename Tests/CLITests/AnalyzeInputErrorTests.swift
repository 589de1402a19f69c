import Foundation
import TestSupport
import Testing

/// Damaged or missing input ends with one line naming the file and the problem, exit status
/// 2, and the packets before the damage are still analysed.
@Suite struct AnalyzeInputErrorTests {
    @Test(arguments: [
        ("damaged/cut-mid-record.pcap", "middle of a record"),
        ("damaged/garbage.pcap", "not a pcap or pcapng"),
        ("damaged/empty.pcap", "empty file"),
        ("does-not-exist.pcap", "No such file"),
        ("damaged", "is a directory"),
    ])
    func inputErrorIsOneLineNamingTheFileAndExitStatusIs2(file: String, problem: String) throws {
        let path = Fixtures.capture(file)
        let r = try discoscope(["analyze", path, "--fail-on", "never"])
        #expect(r.status == 2)
        let errorLines = r.stderr.split(separator: "\n")
        #expect(errorLines.count == 1)
        #expect(errorLines.first?.contains(path) == true)
        #expect(errorLines.first?.contains(problem) == true)
    }

    @Test func packetsBeforeTheDamageAreStillReported() throws {
        let r = try discoscope([
            "analyze", Fixtures.capture("damaged/cut-mid-record.pcap"), "--format", "jsonl", "--fail-on", "never",
        ])
        #expect(r.status == 2)
        let messages = r.lines.filter { $0.contains("\"type\":\"message\"") }
        #expect(messages.count == 2)
    }

    @Test func aGoodFileAfterABadOneIsStillAnalysed() throws {
        let r = try discoscope([
            "analyze", Fixtures.capture("damaged/garbage.pcap"), Fixtures.capture("link/ethernet.pcap"),
            "--format", "jsonl", "--fail-on", "never",
        ])
        #expect(r.status == 2)
        #expect(r.lines.filter { $0.contains("\"type\":\"message\"") }.count == 5)
    }

    @Test func cleanRunWithFailOnNeverExitsZero() throws {
        let r = try discoscope(["analyze", Fixtures.capture("link/ethernet.pcap"), "--fail-on", "never"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
    }

    @Test func trailingArgumentsAreABPFFilterAndFrameNumbersStayWiresharks() throws {
        let r = try discoscope([
            "analyze", Fixtures.capture("link/ethernet.pcap"), "--format", "jsonl", "--fail-on", "never", "udp", "port",
            "5353",
        ])
        #expect(r.status == 0)
        let frames = r.lines.filter { $0.contains("\"type\":\"message\"") }.compactMap { line -> Int? in
            guard let data = line.data(using: .utf8),
                let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return obj["frame"] as? Int
        }
        #expect(frames == [4, 5])
    }

    @Test func badFilterIsAUsageErrorWithStatus2() throws {
        let r = try discoscope(["analyze", Fixtures.capture("link/ethernet.pcap"), "-F", "udp port"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("invalid filter"))
    }

    @Test func standardInputIsReadWithDash() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture("link/ethernet.pcap")))
        let r = try discoscope(["analyze", "-", "--format", "jsonl", "--fail-on", "never"], stdin: data)
        #expect(r.status == 0)
        #expect(r.lines.filter { $0.contains("\"type\":\"message\"") }.count == 5)
    }

    @Test func gzipCompressedStandardInputIsReadToo() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture("format/ethernet.pcap.gz")))
        let r = try discoscope(["analyze", "-", "--format", "jsonl", "--fail-on", "never"], stdin: data)
        #expect(r.status == 0)
        #expect(r.lines.filter { $0.contains("\"type\":\"message\"") }.count == 5)
    }

    @Test func unknownOptionIsAUsageErrorWithStatus2() throws {
        let r = try discoscope(["analyze", Fixtures.capture("link/ethernet.pcap"), "--no-such-option"])
        #expect(r.status == 2)
    }
}
