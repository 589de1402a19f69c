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

    /// Two interfaces: the file has an interface each, and the packets of the findings keep
    /// their interface and get their comments.
    @Test func withTwoInterfacesEachCommentedPacketKeepsItsInterface() throws {
        let net = try TwoLinks()
        let segments = LiveSegmentTests()
        let dir = try segments.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try segments.startCapture(net, dir: dir)
        for s in [try segments.send(net, lan: true), try segments.send(net, lan: false)] {
            s.waitUntilExit()
            #expect(s.terminationStatus == 0)
        }
        usleep(700_000)
        segments.stop(p)
        #expect(p.terminationStatus == 0)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        let findings = out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["type"] as? String == "finding" && ["SSDP-104", "MDNS-102"].contains($0["rule"] as? String) }
        #expect(findings.count == 4)
        let t = try runProcess(
            commentReader ?? "",
            [
                "-r", dir + "/segments.pcapng", "-Y", #"frame.comment contains "DiscoScope""#, "-T", "fields", "-e",
                "frame.number", "-e", "frame.interface_name", "-e", "frame.comment", "-E", "separator=|",
            ])
        var commented: [Int: (interface: String, text: String)] = [:]
        for line in t.lines {
            let cols = line.split(separator: "|", maxSplits: 2).map(String.init)
            guard cols.count == 3, let n = Int(cols[0]) else { continue }
            commented[n] = (cols[1], cols[2])
        }
        for f in findings {
            let frame = (f["frames"] as? [Int])?.first ?? 0
            let rule = f["rule"] as? String ?? ""
            #expect(commented[frame]?.text.contains(rule) == true, "frame \(frame) lacks \(rule)")
            #expect(commented[frame]?.interface == f["segment"] as? String, "frame \(frame)")
        }
    }
}
