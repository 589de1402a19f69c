import Foundation
import TestSupport
import Testing

/// A finding keeps its identity (baseline key, SARIF fingerprint, `diff` key) across
/// recordings of the same traffic: frame numbers, times and measured values are not part of
/// it, so a CI gate with a baseline fails only on new problems.
@Suite struct BaselineIdentityTests {
    static let testbed = Fixtures.capture("testbed/h4-any-sll2.pcap")

    func tempDir() throws -> String {
        let d = NSTemporaryDirectory() + "discoscope-identity-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// `path` without its `frame`th record (1-based), as `editcap` would write it.
    func withoutFrame(_ frame: Int, of path: String, to out: String) throws {
        let b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ o: Int) -> Int {
            Int(b[o]) | Int(b[o + 1]) << 8 | Int(b[o + 2]) << 16 | Int(b[o + 3]) << 24
        }
        var kept = Array(b[0..<24])
        var o = 24
        var n = 0
        while o + 16 <= b.count {
            let end = o + 16 + u32(o + 8)
            n += 1
            if n != frame { kept += b[o..<end] }
            o = end
        }
        #expect(n > frame)
        try Data(kept).write(to: URL(fileURLWithPath: out))
    }

    /// Every result's fingerprint in a SARIF log, and whether each carries a suppression.
    func results(_ sarif: String) throws -> [(fingerprint: String, suppressed: Bool)] {
        let log = try #require(JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        return results.map { r in
            let fp = (r["partialFingerprints"] as? [String: String])?["discoscopeFinding/v2"] ?? ""
            return (fp, !((r["suppressions"] as? [Any]) ?? []).isEmpty)
        }
    }

    func findings(_ jsonl: String) -> Int {
        jsonl.split(separator: "\n").filter { $0.contains(#""type":"finding""#) }.count
    }

    @Test func deletingAnUnrelatedFrameBringsNoNewFindingAndKeepsEveryFingerprint() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // Frame 13 is an ICMPv6 router solicitation: every later frame number moves by one.
        let trimmed = d + "/trimmed.pcap"
        try withoutFrame(13, of: Self.testbed, to: trimmed)
        let base = d + "/known.tsv"
        let w = try discoscope(["analyze", Self.testbed, "-q", "--fail-on", "never", "--write-baseline", base])
        #expect(w.status == 0)
        let again = try discoscope(["analyze", trimmed, "--format", "jsonl", "--fail-on", "info", "--baseline", base])
        #expect(again.status == 0, "\(again.stdout.suffix(2000))")
        #expect(findings(again.stdout) == 0)
        let before = try results(
            discoscope(["analyze", Self.testbed, "--format", "sarif", "--fail-on", "never"]).stdout)
        let after = try results(discoscope(["analyze", trimmed, "--format", "sarif", "--fail-on", "never"]).stdout)
        #expect(!before.isEmpty)
        #expect(Set(after.map(\.fingerprint)) == Set(before.map(\.fingerprint)))
    }

    @Test func filesInAnotherOrderKeepTheirFindingsIdentities() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let other = Fixtures.capture("link/ethernet.pcap")
        let base = d + "/known.tsv"
        _ = try discoscope(["analyze", Self.testbed, other, "-q", "--fail-on", "never", "--write-baseline", base])
        let swapped = try discoscope([
            "analyze", other, Self.testbed, "--format", "jsonl", "--fail-on", "info", "--baseline", base,
        ])
        #expect(swapped.status == 0)
        #expect(findings(swapped.stdout) == 0)
        let ab = try results(
            discoscope(["analyze", Self.testbed, other, "--format", "sarif", "--fail-on", "never"]).stdout)
        let ba = try results(
            discoscope(["analyze", other, Self.testbed, "--format", "sarif", "--fail-on", "never"]).stdout)
        #expect(ab.map(\.fingerprint).sorted() == ba.map(\.fingerprint).sorted())
    }

    /// The same testbed recorded again without one of its hosts: the others' findings are
    /// the ones the first recording's baseline holds.
    @Test func theSameDevicesRecordedAgainBringNoNewFinding() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let base = d + "/known.tsv"
        _ = try discoscope([
            "analyze", Fixtures.capture("testbed/lan-dualstack.pcapng"), "-q", "--fail-on", "never",
            "--write-baseline", base,
        ])
        let again = try discoscope([
            "analyze", Fixtures.capture("testbed/lan-dualstack-without-h3.pcapng"), "--format", "jsonl", "--fail-on",
            "info", "--baseline", base,
        ])
        #expect(again.status == 0)
        #expect(findings(again.stdout) == 0, "\(again.stdout.split(separator: "\n").filter { $0.contains("finding") })")
    }

    @Test func findingsTheBaselineAcceptsStayInSARIFAsSuppressedAndInJUnitAsSkipped() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let base = d + "/known.tsv"
        let plain = try discoscope(["analyze", Self.testbed, "--format", "sarif", "-q", "--write-baseline", base])
        #expect(plain.status == 1)
        let fresh = try results(plain.stdout)
        let noneSuppressed = fresh.allSatisfy { !$0.suppressed }
        #expect(!fresh.isEmpty && noneSuppressed)
        // -q is accepted with SARIF: it has no per-message lines to leave out.
        let known = try discoscope(["analyze", Self.testbed, "--format", "sarif", "-q", "--baseline", base])
        #expect(known.status == 0)
        let accepted = try results(known.stdout)
        #expect(accepted.count == fresh.count)
        let allSuppressed = accepted.allSatisfy(\.suppressed)
        #expect(allSuppressed)
        #expect(known.stdout.contains(#""kind" : "external""#) || known.stdout.contains(#""kind":"external""#))

        let junitFresh = try discoscope(["analyze", Self.testbed, "--format", "junit"]).stdout
        let junit = try discoscope(["analyze", Self.testbed, "--format", "junit", "--baseline", base])
        #expect(junit.status == 0)
        let failed = junitFresh.components(separatedBy: "<failure ").count - 1
        #expect(failed > 0)
        #expect(!junit.stdout.contains("<failure "))
        #expect(junit.stdout.components(separatedBy: "<skipped message=").count - 1 == failed)
    }

    @Test func aVersion1BaselineIsStillRead() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let base = d + "/v1.tsv"
        // A line of the first format: rule, source, device, message with its frame number.
        try """
        # discoscope baseline v1: rule<TAB>source<TAB>device<TAB>message
        MDNS-309\t192.168.1.20\tfixture-host.local.\tA answer for fixture-host.local. without AAAA or an NSEC denying it

        """.write(toFile: base, atomically: true, encoding: .utf8)
        let r = try discoscope([
            "analyze", Fixtures.capture("link/ethernet.pcap"), "--format", "jsonl", "--fail-on", "info",
            "--baseline", base,
        ])
        #expect(r.status == 0)
        #expect(findings(r.stdout) == 0)
    }
}
