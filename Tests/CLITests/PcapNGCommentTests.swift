import Foundation
import TestSupport
import Testing

/// tshark, when installed (scripts/test-setup.sh installs it).
let commentReader: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Each packet of `file` as tshark reads it: its number and its comments (`frame.comment`,
/// Wireshark 4.x's field; JSON keeps the comments apart, which contain commas).
func packetComments(_ file: String) throws -> [(number: Int, comments: [String])] {
    let t = try runProcess(
        commentReader ?? "", ["-r", file, "-T", "json", "-e", "frame.number", "-e", "frame.comment"])
    guard t.status == 0 else {
        Issue.record("tshark -r \(file): \(t.stderr)")
        return []
    }
    let packets = (try? JSONSerialization.jsonObject(with: Data(t.stdout.utf8))) as? [[String: Any]] ?? []
    return packets.map { p in
        let layers = (p["_source"] as? [String: Any])?["layers"] as? [String: Any] ?? [:]
        let number = ((layers["frame.number"] as? [String])?.first).flatMap { Int($0) } ?? 0
        return (number, layers["frame.comment"] as? [String] ?? [])
    }
}

/// The rule a finding comment names: `DiscoScope: frame 11 from 10.99.0.1: warning MDNS-501 …`.
func commentRule(_ comment: String) -> String? {
    guard
        let r = comment.range(
            of: #"^DiscoScope: frame [0-9]+( from [^ ]+)?: [a-z]+ [A-Z]+-[0-9]+ "#, options: .regularExpression)
    else { return nil }
    return comment[r].split(separator: " ").last.map(String.init)
}

/// #54: `-w FILE.pcapng` writes each packet with its findings as packet comments, which
/// Wireshark filters with `frame.comment contains "SSDP-005"`.
@Suite(.enabled(if: commentReader != nil, "needs tshark (scripts/test-setup.sh installs it)"))
struct PcapNGCommentTests {
    static let capture = "captures/testbed/lan-dualstack.pcapng"

    @Test func eachPacketCarriesExactlyTheFindingsThatNameItsFrameAndNoOtherPacketHasAComment() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.pcapng"
        let r = try run(
            ["analyze", Self.capture, "-w", out, "--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let records = jsonRecords(r)
        // The frames -w writes, in order: each message's fragments, then its own frame.
        var written: [(frame: Int, isMessage: Bool)] = []
        for m in records where m["type"] as? String == "message" {
            guard let frame = m["frame"] as? Int else { continue }
            for f in m["fragment_frames"] as? [Int] ?? [] where f != frame { written.append((f, false)) }
            written.append((frame, true))
        }
        // What the report says of each frame: the rule of each finding that names it.
        var expected: [Int: [String]] = [:]
        var related = 0
        for f in records where f["type"] as? String == "finding" {
            let frames = f["frames"] as? [Int] ?? []
            related += max(0, Set(frames).count - 1)
            for frame in Set(frames) { expected[frame, default: []].append(f["rule"] as? String ?? "") }
        }
        #expect(expected.count > 100 && related > 100, "the capture should have many findings, some on several frames")

        let packets = try packetComments(out)
        #expect(packets.count == written.count)
        var commented = 0
        for (p, w) in zip(packets, written) {
            let rules = p.comments.map { commentRule($0) ?? "unparsed: \($0)" }.sorted()
            let want = w.isMessage ? (expected[w.frame] ?? []).sorted() : []
            #expect(rules == want, "packet \(p.number) (frame \(w.frame) of the input)")
            if !p.comments.isEmpty { commented += 1 }
        }
        let writtenMessages = Set(written.filter(\.isMessage).map(\.frame))
        #expect(commented == expected.keys.filter { writtenMessages.contains($0) }.count)

        // The Wireshark filter of the issue finds the same packets.
        let filtered = try runProcess(
            commentReader ?? "",
            ["-r", out, "-Y", #"frame.comment contains "DiscoScope""#, "-T", "fields", "-e", "frame.number"])
        #expect(filtered.lines.count == commented, "\(filtered.stderr)")
    }

    @Test func aCommentIsTheTextReportsLineForTheFinding() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/out.pcapng"
        let q = try run(
            ["analyze", Self.capture, "-w", out, "-q", "--no-summary", "--color", "never", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        #expect(q.status == 0, "\(q.stderr)")
        let lines = Set(q.lines.map { $0.trimmingCharacters(in: .whitespaces) })
        let comments = try packetComments(out).flatMap(\.comments)
        #expect(!comments.isEmpty)
        for c in comments {
            #expect(c.hasPrefix("DiscoScope: ") && lines.contains(String(c.dropFirst("DiscoScope: ".count))), "\(c)")
        }
    }

    @Test func theFileIsTheSameForEveryJobCountAndAPcapNameStaysPcap() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, jobs) in [("one.pcapng", "1"), ("three.pcapng", "3"), ("plain.pcap", "3")] {
            let r = try run(
                ["analyze", Self.capture, "-w", dir + "/" + name, "-q", "-j", jobs, "--fail-on", "never"],
                cwd: Fixtures.packageRoot)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let one = try Data(contentsOf: URL(fileURLWithPath: dir + "/one.pcapng"))
        let three = try Data(contentsOf: URL(fileURLWithPath: dir + "/three.pcapng"))
        #expect(one == three)
        // pcapng starts with a section header block; pcap with its magic (nanosecond or not).
        #expect(Array(one.prefix(4)) == [0x0A, 0x0D, 0x0D, 0x0A])
        let plain = try Data(contentsOf: URL(fileURLWithPath: dir + "/plain.pcap"))
        #expect(Array(plain.prefix(4)) != [0x0A, 0x0D, 0x0D, 0x0A] && plain.count > 24)
        #expect(try packetComments(dir + "/plain.pcap").allSatisfy(\.comments.isEmpty))
        #expect(!FileManager.default.fileExists(atPath: dir + "/one.pcapng.discoscope-partial"))
    }

    @Test func withOnlyFindingsEveryPacketWrittenHasItsComments() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/only.pcapng"
        let r = try run(
            ["analyze", Self.capture, "-w", out, "--only-findings", "--format", "jsonl", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        var named = Set<Int>()
        for f in jsonRecords(r) where f["type"] as? String == "finding" {
            for frame in f["frames"] as? [Int] ?? [] { named.insert(frame) }
        }
        let packets = try packetComments(out)
        #expect(!packets.isEmpty && packets.allSatisfy { !$0.comments.isEmpty })
        #expect(packets.count <= named.count)
    }

    @Test func theCommentedFileReadsBackWithTheFindingsOfThePcapOfTheSamePackets() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var found: [[String]] = []
        for name in ["out.pcapng", "out.pcap"] {
            let w = try run(
                ["analyze", Self.capture, "-w", dir + "/" + name, "-q", "--fail-on", "never"], cwd: Fixtures.packageRoot
            )
            #expect(w.status == 0, "\(w.stderr)")
            let back = try run(["analyze", dir + "/" + name, "--format", "jsonl", "--fail-on", "never"])
            #expect(back.status == 0, "\(back.stderr)")
            found.append(
                jsonRecords(back).filter { $0["type"] as? String == "finding" }.map {
                    "\($0["rule"] as? String ?? "") \($0["frames"] as? [Int] ?? []) \($0["message"] as? String ?? "")"
                })
        }
        #expect(!found[0].isEmpty && found[0] == found[1])
    }

    @Test func commentsOnHostilePacketTextAreEscapedToPrintableUTF8() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/t.pcapng"
        let r = try run([
            "analyze", Fixtures.capture("hostile/terminal-injection.pcap"), "-w", out, "-q", "--fail-on", "never",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let comments = try packetComments(out).flatMap(\.comments)
        #expect(!comments.isEmpty)
        for c in comments {
            #expect(!c.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(c)")
        }
    }
}
