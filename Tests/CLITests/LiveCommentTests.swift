import Foundation
import TestSupport
import Testing

/// #54 live: `capture -w FILE.pcapng` writes every captured packet, each with the findings
/// known when its message's output was written as comments.
@Suite(
    .enabled(
        if: canUseNamespaces && commentReader != nil,
        "needs root, iproute2, permission to create network namespaces, and tshark"))
struct LiveCommentTests {
    @Test func everyCapturedPacketIsWrittenWithTheFindingsOfItsMessageAsComments() throws {
        let net = try VethPair()
        let live = LiveCaptureTests()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/live.pcapng"
        let capture = try live.startCapture(
            net, ["--format", "jsonl", "-w", file, "--fail-on", "never", "-F", LiveCaptureTests.discoveryOnly],
            dir: dir)
        live.waitForFile(file, capture)
        try live.sendDiscovery(net)
        usleep(700_000)
        capture.interrupt()
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 0, "\((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        let records = out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        var reported: [Int: [String]] = [:]
        var firstFrames: [(rule: String, frame: Int)] = []
        for f in records where f["type"] as? String == "finding" {
            let frames = f["frames"] as? [Int] ?? []
            let rule = f["rule"] as? String ?? ""
            for frame in Set(frames) { reported[frame, default: []].append(rule) }
            if let first = frames.first { firstFrames.append((rule, first)) }
        }
        let frames = records.last?["frames"] as? Int ?? -1

        // Every packet the capture read, numbered as the report numbers them.
        let packets = try packetComments(file)
        #expect(packets.count == frames && frames > 0, "\(packets.count) packets, \(frames) frames read")
        var commented: [Int: [String]] = [:]
        for p in packets {
            let rules = p.comments.map { commentRule($0) ?? "unparsed: \($0)" }
            commented[p.number] = rules
            // Only findings the report has for that frame (no more of a rule than it has).
            var left = reported[p.number] ?? []
            for r in rules {
                if let k = left.firstIndex(of: r) {
                    left.remove(at: k)
                } else {
                    Issue.record("packet \(p.number): comment for \(r), which the report does not name for it")
                }
            }
        }
        // Findings of the rules that judge one message are known when its output is written:
        // the packet that shows each has it.
        let stateless = firstFrames.filter { ["SSDP-104", "SSDP-005", "MDNS-102"].contains($0.rule) }
        #expect(!stateless.isEmpty)
        for f in stateless {
            #expect(commented[f.frame]?.contains(f.rule) == true, "frame \(f.frame) lacks \(f.rule)")
        }
    }
}
