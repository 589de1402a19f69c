import Foundation
import TestSupport
import Testing

private let root = Fixtures.packageRoot
private let filteredLAN = "captures/testbed/reflector/filtered-lan.pcap"
private let testbed = "captures/testbed/lan-dualstack.pcapng"
/// tshark, when installed (scripts/test-setup.sh installs it).
private let tshark: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// #55: the run summary lists the questions nothing answered on their link, from the session
/// stages' state, and the text summary shows the most asked of them.
@Suite struct UnansweredSummaryTests {
    func summary(_ file: String) throws -> [String: Any] {
        let r = try run(["analyze", "--format", "jsonl", "--fail-on", "never", file], cwd: root)
        return jsonRecords(r).last { $0["type"] as? String == "summary" } ?? [:]
    }
    func unanswered(_ s: [String: Any]) -> [[String: Any]] { s["unanswered"] as? [[String: Any]] ?? [] }

    @Test(.enabled(if: tshark != nil, "needs tshark (scripts/test-setup.sh installs it)"))
    func anMDNSQuestionNoResponseAnsweredIsListedAndAnsweredOnesAreNot() throws {
        // tshark: no response on the link carries a _ipp._tcp.local record; _http and _smb ones do.
        func responses(_ name: String) throws -> Int {
            try runProcess(
                tshark ?? "", ["-r", filteredLAN, "-Y", "dns.flags.response==1 && dns.resp.name==\"\(name)\""],
                currentDirectory: root
            ).lines.count
        }
        #expect(try responses("_ipp._tcp.local") == 0)
        #expect(try responses("_http._tcp.local") > 0)
        #expect(try responses("_smb._tcp.local") > 0)
        let qs = unanswered(try summary(filteredLAN))
        // The reflector's probes for the names it relays are not lookups: nobody answering
        // them is success, and they are not listed.
        #expect(qs.count == 1, "\(qs)")
        #expect(qs.first?["name"] as? String == "_ipp._tcp.local.")
        #expect(qs.first?["qtype"] as? String == "PTR")
        #expect(qs.first?["asked"] as? Int == 6)
        #expect(qs.first?["askers"] as? [String] == ["10.98.1.20"])
        let text = try run(["analyze", "-q", "--fail-on", "never", filteredLAN], cwd: root)
        #expect(text.stdout.contains("\n  unanswered  _ipp._tcp.local. PTR asked 6× by 10.98.1.20\n"))
    }

    @Test(.enabled(if: tshark != nil, "needs tshark (scripts/test-setup.sh installs it)"))
    func ssdpSearchesWithNoResponseToTheirEndpointAreListedWithACountOfTheRest() throws {
        // tshark: the M-SEARCH endpoints no datagram went back to.
        let searches = try runProcess(
            tshark ?? "",
            [
                "-r", testbed, "-Y", "http.request.method==\"M-SEARCH\"", "-T", "fields", "-e", "ip.src", "-e",
                "ipv6.src", "-e", "udp.srcport",
            ], currentDirectory: root)
        var endpoints: Set<String> = []
        for line in searches.lines {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 3 else { continue }
            endpoints.insert(c[0].isEmpty ? "[\(c[1])]:\(c[2])" : "\(c[0]):\(c[2])")
        }
        let back = try runProcess(
            tshark ?? "",
            ["-r", testbed, "-Y", "udp", "-T", "fields", "-e", "ip.dst", "-e", "ipv6.dst", "-e", "udp.dstport"],
            currentDirectory: root)
        var reached: Set<String> = []
        for line in back.lines {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count == 3 else { continue }
            reached.insert(c[0].isEmpty ? "[\(c[1])]:\(c[2])" : "\(c[0]):\(c[2])")
        }
        let silent = endpoints.subtracting(reached)
        #expect(!silent.isEmpty)
        let s = try summary(testbed)
        let ssdp = unanswered(s).filter { $0["protocol"] as? String == "ssdp" }
        #expect(Set(ssdp.flatMap { $0["askers"] as? [String] ?? [] }) == silent)
        // The text line shows the three most asked and counts the rest.
        let total = s["unanswered_total"] as? Int ?? 0
        #expect(total == unanswered(s).count && total > 3)
        let text = try run(["analyze", "-q", "--fail-on", "never", testbed], cwd: root)
        let line = text.lines.first { $0.hasPrefix("  unanswered  ") }.map(String.init) ?? ""
        #expect(line.hasPrefix("  unanswered  urn:schemas-upnp-org:device:DimmableLight:1 searched 3× by "))
        #expect(line.hasSuffix("; +\(total - 3) more"))
        #expect(line.components(separatedBy: "; ").count == 4)
    }

    @Test func theUnansweredLineComesBeforeTheFindingsCounts() throws {
        let text = try run(["analyze", "-q", "--fail-on", "never", filteredLAN], cwd: root)
        let lines = text.lines.map(String.init)
        let u = lines.firstIndex { $0.hasPrefix("  unanswered  ") }
        let f = lines.firstIndex { $0.hasPrefix("  findings    ") }
        #expect(u != nil && f != nil && (u ?? 0) < (f ?? 0))
    }

    /// #55 impact first: the summary opens with the rules whose findings hide devices from
    /// some clients, then what nobody answered, before the files and the per-rule counts.
    @Test func theSummaryOpensWithWhatHidesDevicesThenWhatNobodyAnswered() throws {
        let text = try run(["analyze", "-q", "--fail-on", "never", "captures/segments/lan-iot.pcapng"], cwd: root)
        let lines = text.lines.map(String.init)
        guard let start = lines.firstIndex(of: "Summary") else {
            Issue.record("no summary: \(text.stdout)")
            return
        }
        let opening = Array(lines[(start + 1)...].prefix(3))
        // SSDP-005 is an error whose interop note says gssdp and miniupnpd drop the message.
        // It quotes the first such finding (where, from whom, what), then what clients do.
        #expect(
            opening.first?.hasPrefix(
                "  invisible   SSDP-005 crlf-line-endings (1 error), first at frame ") == true, "\(opening)")
        #expect(opening.first?.contains("is a bare LF, not CRLF — gssdp and miniupnpd silently drop") == true)
        #expect(opening.dropFirst().first?.hasPrefix("  unanswered  ") == true)
        #expect(opening.last?.hasPrefix("  files       ") == true)
        // Warnings (MDNS-309) and info are not visibility problems.
        #expect(!lines.contains { $0.hasPrefix("  invisible   MDNS-") })
        // A run without such errors has no invisible line.
        let clean = try run(["analyze", "-q", "--fail-on", "never", filteredLAN], cwd: root)
        #expect(!clean.stdout.contains("  invisible   "))
    }

    /// A visibility rule's finding hides a device whatever its severity: the reflector that
    /// passes questions but not their answers (SEG-001, a warning) opens the summary, and the
    /// per-rule counts rank it first, then errors, warnings and info.
    @Test func aVisibilityRulesWarningOpensTheSummaryAndLeadsTheCounts() throws {
        let text = try run(
            [
                "analyze", "-q", "--fail-on", "never", "--segments", "captures/testbed/reflector/filtered-lan.pcap",
                "captures/testbed/reflector/filtered-iot.pcap",
            ], cwd: root)
        let lines = text.lines.map(String.init)
        guard let start = lines.firstIndex(of: "Summary"),
            let counts = lines.firstIndex(where: {
                $0.hasPrefix("  findings    ")
            })
        else {
            Issue.record("no summary: \(text.stdout)")
            return
        }
        let first = lines[start + 1]
        #expect(
            first.hasPrefix("  invisible   SEG-001 answers-forwarded-back (1 warning), first at frame "), "\(first)")
        #expect(first.contains("_ipp._tcp.local. PTR") && first.contains("visible on one segment only"))
        let rules = lines[(counts + 1)...].prefix { $0.hasPrefix("    ") }.map {
            $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        #expect(rules.first?.first == "SEG-001", "\(rules)")
        // After it, by severity: every error before every warning before every info.
        let severities = rules.dropFirst().compactMap { $0.count > 2 ? $0[2] : nil }
        let rank = ["error": 0, "warning": 1, "info": 2]
        let ranks = severities.compactMap { rank[$0] }
        #expect(ranks.count == severities.count && ranks == ranks.sorted(), "\(severities)")
    }
}
