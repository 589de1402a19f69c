import Foundation
import TestSupport
import Testing

/// Parsed JSON lines of a run's standard output.
func jsonRecords(_ r: ProcessResult) -> [[String: Any]] {
    r.lines.compactMap { line in
        line.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}

/// A fresh directory for files a test writes, removed by the caller.
func scratchDirectory() throws -> String {
    let d = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

/// #21 point 3: an input error is the run's verdict, never "pass".
@Suite struct InputErrorVerdictTests {
    @Test func summaryOfARunWithAnInputErrorSaysItFailedOnInput() throws {
        let text = try run(["analyze", Fixtures.capture("damaged/cut-mid-record.pcap")])
        #expect(text.status == 2)
        let result = text.lines.first { $0.hasPrefix("  result") }.map(String.init) ?? ""
        #expect(result.contains("failed on input"), "\(text.stdout)")
        #expect(!text.stdout.contains("pass ("))
    }

    /// When no input could be read at all, the error lines are the whole text report: a
    /// summary of zeros would add nothing. The JSON Lines summary record stays (it is the
    /// document's end), with the verdict.
    @Test(arguments: ["damaged/garbage.pcap", "does-not-exist.pcap", "damaged", "damaged/cut-mid-record.pcap"])
    func aRunWhoseInputsAllFailedIsNeverAPass(file: String) throws {
        let text = try run(["analyze", Fixtures.capture(file)])
        #expect(text.status == 2)
        #expect(!text.stdout.contains("pass ("))
        #expect(text.stdout.contains("Summary") == (file == "damaged/cut-mid-record.pcap"), "\(text.stdout)")
        let json = try run(["analyze", Fixtures.capture(file), "--format", "jsonl"])
        #expect(jsonRecords(json).last?["result"] as? String == "input_error")
    }

    @Test func cleanRunSaysPassInJSONToo() throws {
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--format", "jsonl"])
        #expect(r.status == 0)
        #expect(jsonRecords(r).last?["result"] as? String == "pass")
    }

    @Test func badFilterIsOneUsageErrorBeforeAnyFileIsRead() throws {
        let r = try run([
            "analyze", Fixtures.capture("link/ethernet.pcap"), Fixtures.capture("link/ipv4.pcap"), "udp", "prt", "1900",
        ])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty, "no summary for a run that never started: \(r.stdout)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("invalid filter 'udp prt 1900'"), "\(r.stderr)")
    }

    @Test func filterValidOnlyForSomeLinkTypesIsCheckedPerFile() throws {
        // `wlan` primitives compile for 802.11 only: not a usage error up front.
        let r = try run([
            "analyze", Fixtures.capture("public/zeek__zeek__wlanmon.pcap"), "wlan", "type", "data", "--fail-on",
            "never",
        ])
        #expect(r.status == 0, "\(r.stderr)")
    }
}

/// #21 point 4: with several files, every record and text block says which file it is from.
@Suite struct SeveralFilesTests {
    static let a = "captures/link/ethernet.pcap", b = "captures/link/ipv4.pcap"

    @Test func everyJSONMessageAndFindingNamesTheFileAsGiven() throws {
        let r = try run(
            ["analyze", Self.a, Self.b, "--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let records = jsonRecords(r).filter { $0["type"] as? String != "summary" }
        #expect(records.count > 4)
        #expect(records.allSatisfy { $0["file"] as? String == Self.a || $0["file"] as? String == Self.b })
        // Frame 5 exists in both files: the file tells them apart.
        let fives = records.filter { $0["type"] as? String == "finding" && ($0["frames"] as? [Int])?.first == 5 }
        #expect(Set(fives.compactMap { $0["file"] as? String }) == [Self.a, Self.b])
    }

    @Test func textOutputHeadsEachFileWhenSeveralAreGiven() throws {
        let r = try run(["analyze", Self.a, Self.b, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let headers = r.lines.filter { $0.hasPrefix("==> ") }
        #expect(headers == ["==> \(Self.a) <==", "==> \(Self.b) <=="])
        // Each header comes before its file's first message line.
        let firstA = r.lines.firstIndex { $0.hasPrefix("==> \(Self.a)") } ?? -1
        let firstB = r.lines.firstIndex { $0.hasPrefix("==> \(Self.b)") } ?? -1
        #expect(firstA == 0 && firstB > firstA + 5)
        let one = try run(["analyze", Self.a, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(!one.stdout.contains("==> "))
    }

    @Test func quietFindingLinesNameTheSender() throws {
        let r = try run(["analyze", Self.a, "-q", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(r.lines.contains { $0.hasPrefix("frame 5 from 192.168.1.20: warning MDNS-309") }, "\(r.stdout)")
    }
}

/// #21 point 6: what a tcpdump user types works.
@Suite struct TcpdumpHabitTests {
    static let file = "captures/link/ethernet.pcap"

    func messageLines(_ r: ProcessResult) -> [String] {
        r.lines.map(String.init).filter { $0.first?.isNumber == true }
    }

    @Test func readFileWithDashRAndNoResolveAndAnalyseSpelling() throws {
        let plain = try run(["analyze", Self.file, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let habit = try run(["analyse", "-n", "-r", Self.file, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let nn = try run(["analyze", "-nn", "-r", Self.file, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(habit.status == 0 && nn.status == 0, "\(habit.stderr)\(nn.stderr)")
        #expect(habit.stdout == plain.stdout && nn.stdout == plain.stdout)
    }

    @Test func dashRThenFilterWords() throws {
        let r = try run(
            ["analyze", "-r", Self.file, "udp", "port", "5353", "--format", "jsonl", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            jsonRecords(r).filter { $0["type"] as? String == "message" }.compactMap { $0["frame"] as? Int } == [4, 5])
    }

    @Test func countStopsAfterThatManyPackets() throws {
        let r = try run(
            ["analyze", Self.file, "-c", "2", "--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(jsonRecords(r).last?["frames"] as? Int == 2)
        #expect(jsonRecords(r).filter { $0["type"] as? String == "message" }.count == 2)
    }

    @Test func timestampStylesFollowTcpdump() throws {
        func first(_ flag: [String]) throws -> String {
            let r = try run(["analyze", Self.file, "--fail-on", "never"] + flag, cwd: Fixtures.packageRoot)
            return messageLines(try #require(Optional(r))).dropFirst(1).first ?? ""
        }
        // The second message of the file: 1700000000.100000 (2023-11-14 22:13:20.1 UTC).
        #expect(try first([]).hasPrefix("2 22:13:20.100000 192.168.1.20:1900"))
        #expect(try first(["-t"]).hasPrefix("2 192.168.1.20:1900"))
        #expect(try first(["-tt"]).hasPrefix("2 1700000000.100000 192.168.1.20:1900"))
        #expect(try first(["-ttt"]).hasPrefix("2 00:00:00.100000 192.168.1.20:1900"))
        #expect(try first(["-tttt"]).hasPrefix("2 2023-11-14 22:13:20.100000 192.168.1.20:1900"))
        #expect(try first(["-ttttt"]).hasPrefix("2 00:00:00.100000 192.168.1.20:1900"))
        // -ttt measures from the previous message, -ttttt from the first.
        let r3 = messageLines(try run(["analyze", Self.file, "-ttt", "--fail-on", "never"], cwd: Fixtures.packageRoot))
        let r5 = messageLines(
            try run(["analyze", Self.file, "-ttttt", "--fail-on", "never"], cwd: Fixtures.packageRoot))
        #expect(r3.count == 5 && r3[4].hasPrefix("5 00:00:00.100000 "))
        #expect(r5.count == 5 && r5[4].hasPrefix("5 00:00:00.400000 "))
    }

    @Test func dashEShowsTheSourceAndDestinationMACAddressesAsTcpdumpDoes() throws {
        let r = try run(["analyze", Self.file, "-e", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let lines = messageLines(r)
        let first = lines.first ?? ""
        #expect(
            first.contains(
                " 02:00:00:00:00:01 > 01:00:5e:7f:ff:fa, 192.168.1.10:50000 > 239.255.255.250:1900 SSDP M-SEARCH"),
            "\(first)")
        // The same addresses tcpdump -e prints for the frame (its lines are frames 1, 2, …).
        let tcpdump = try runProcess(
            "/usr/bin/tcpdump", ["-e", "-n", "-r", Fixtures.packageRoot + "/" + Self.file], environment: ["TZ": "UTC"])
        let macs = tcpdump.lines.map { line -> String in
            let words = line.split(separator: " ")
            return words.count > 3 && words[2] == ">" ? "\(words[1]) > \(words[3].dropLast())" : ""
        }
        #expect(lines.count == 5)
        for line in lines {
            guard let frame = line.split(separator: " ").first.flatMap({ Int($0) }), macs.indices.contains(frame - 1)
            else {
                Issue.record("no tcpdump line for \(line)")
                continue
            }
            #expect(line.contains(" \(macs[frame - 1]), "), "\(line) / \(macs[frame - 1])")
        }
    }

    @Test func dashEShowsOnlyTheSourceWhereTheLinkHeaderHasNoDestination() throws {
        let r = try run(
            ["analyze", "captures/link/linux-sll.pcap", "-e", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let line = messageLines(r).first ?? ""
        #expect(!line.contains(" > 01:00:5e"), "\(line)")
        #expect(line.split(separator: " ").dropFirst(2).first?.hasSuffix(",") == true, "\(line)")
    }

    @Test func dashXAndDashADumpThePayloadUnderTheMessage() throws {
        let x = try run(["analyze", Self.file, "-c", "1", "-X", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let xl = x.lines.map(String.init)
        #expect(
            xl.count > 2 && xl[1] == "        0x0000:  4d2d 5345 4152 4348 202a 2048 5454 502f  M-SEARCH * HTTP/",
            "\(x.stdout)")
        let a = try run(["analyze", Self.file, "-c", "1", "-A", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let al = a.lines.map(String.init)
        #expect(
            al.count > 3 && al[1] == "        M-SEARCH * HTTP/1.1" && al[2] == "        HOST: 239.255.255.250:1900",
            "\(a.stdout)")
        #expect(!a.stdout.contains("\r"))
    }

    @Test func dashWWritesTheDiscoveryPacketsToAPcapThatReadsBack() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The file holds 7 frames: 5 SSDP/mDNS, a DNS and an NTP packet.
        let w = try run(
            ["analyze", Self.file, "-w", dir + "/out.pcap", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(w.status == 0, "\(w.stderr)")
        let back = try run(["analyze", dir + "/out.pcap", "--format", "jsonl", "--fail-on", "never"])
        let summary = jsonRecords(back).last
        #expect(
            summary?["frames"] as? Int == 5 && summary?["ssdp_messages"] as? Int == 3
                && summary?["mdns_messages"] as? Int == 2)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/tshark") {
            let t = try runProcess("/usr/bin/tshark", ["-r", dir + "/out.pcap"])
            #expect(t.status == 0 && t.lines.count == 5, "\(t.stderr)")
        }
    }

    @Test func dashWWithOnlyFindingsKeepsThePacketsFindingsName() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try run(
            ["analyze", Self.file, "-w", dir + "/f.pcap", "--only-findings", "--fail-on", "never", "-j", "2"],
            cwd: Fixtures.packageRoot)
        #expect(w.status == 0, "\(w.stderr)")
        let back = try run(["analyze", dir + "/f.pcap", "--format", "jsonl", "--fail-on", "never"])
        let records = jsonRecords(back)
        // Only frame 5 (the DNS-SD response with MDNS-309) had a finding.
        #expect(records.last?["frames"] as? Int == 1)
        #expect(records.contains { $0["rule"] as? String == "MDNS-309" })
        #expect(!FileManager.default.fileExists(atPath: dir + "/f.pcap.discoscope-partial"))
    }

    @Test func dashWKeepsTheFragmentsOfAReassembledMessage() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try run([
            "analyze", Fixtures.capture("ip/mdns-fragmented-ipv4.pcap"), "-w", dir + "/frag.pcap", "--fail-on", "never",
        ])
        #expect(w.status == 0, "\(w.stderr)")
        let back = try run(["analyze", dir + "/frag.pcap", "--format", "jsonl", "--fail-on", "never"])
        let summary = jsonRecords(back).last
        // Three fragments, not the NTP packet between them; reassembled again on reading.
        #expect(summary?["frames"] as? Int == 3 && summary?["reassembled"] as? Int == 1, "\(back.stdout)")
    }

    @Test func colorCanBeForcedForLessDashR() throws {
        let always = try run(["analyze", Self.file, "--color=always", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(always.stdout.contains("\u{1B}[33mwarning\u{1B}[0m"))
        let never = try run(
            ["analyze", Self.file, "--color", "never", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(!never.stdout.contains("\u{1B}["))
        let auto = try run(["analyze", Self.file, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(!auto.stdout.contains("\u{1B}["), "not a terminal")
    }
}

/// #21 point 7: labels say what happened.
@Suite struct LabelTests {
    static let file = "captures/public/CESNET__ipfixprobe__ssdp.pcap"

    @Test func findingsBelowMinSeverityAreNotCountedAsSuppressed() throws {
        let r = try run(
            ["analyze", Self.file, "--min-severity", "warning", "--fail-on", "never", "-q"], cwd: Fixtures.packageRoot)
        let line = r.lines.first { $0.hasPrefix("  findings") }.map(String.init) ?? ""
        #expect(line.contains("below --min-severity"), "\(line)")
        #expect(!line.contains("suppressed"), "\(line)")
        let j = try run(
            ["analyze", Self.file, "--min-severity", "warning", "--fail-on", "never", "--format", "jsonl"],
            cwd: Fixtures.packageRoot)
        let s = jsonRecords(j).last
        #expect((s?["below_min_severity"] as? Int ?? 0) > 0 && s?["suppressed"] as? Int == 0)
    }

    @Test func configurationFileInUseIsNamedOnStandardError() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "fail-on: never\n".write(toFile: dir + "/.discoscope.yml", atomically: true, encoding: .utf8)
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap")], cwd: dir)
        #expect(r.status == 0)
        #expect(r.stderr.contains("using configuration .discoscope.yml"), "\(r.stderr)")
        let none = try run(
            ["analyze", Fixtures.capture("link/ethernet.pcap")], cwd: Fixtures.packageRoot + "/captures")
        #expect(!none.stderr.contains("configuration"))
    }

    @Test(arguments: [
        (["analyze", "captures/link/ethernet.pcap", "--disable", "mx-rang"], "did you mean SSDP-104 (mx-range)?"),
        (["analyze", "captures/link/ethernet.pcap", "--enable", "SSDP104"], "did you mean SSDP-104 (mx-range)?"),
        (["rules", "explain", "SDSP-104"], "did you mean SSDP-104 (mx-range)?"),
    ])
    func unknownRuleGetsADidYouMean(args: [String], hint: String) throws {
        let r = try run(args, cwd: Fixtures.packageRoot)
        #expect(r.status == 2)
        #expect(r.stderr.contains(hint), "\(r.stderr)")
    }

    @Test func unknownRuleInTheConfigurationGetsADidYouMean() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "disable: [mx-rnge]\n".write(toFile: dir + "/c.yml", atomically: true, encoding: .utf8)
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--config", dir + "/c.yml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("did you mean SSDP-104 (mx-range)?"), "\(r.stderr)")
    }

    @Test func nothingNearIsNoSuggestion() throws {
        let r = try run(["rules", "explain", "completely-unrelated"])
        #expect(r.status == 2 && !r.stderr.contains("did you mean"))
    }
}

/// #21 point 9: the small things.
@Suite struct CommandLineDetailTests {
    @Test func rulesHelpShowsFormat() throws {
        let r = try run(["rules", "--help"])
        #expect(r.stdout.contains("--format"))
        #expect(try run(["rules", "--format", "json"]).stdout.hasPrefix("["))
        #expect(try run(["rules", "list", "--format", "json"]).stdout.hasPrefix("["))
    }

    @Test func formatJSONSuggestsJSONL() throws {
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--format", "json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("did you mean jsonl"), "\(r.stderr)")
    }

    @Test(arguments: ["jsonl", "html"])
    func quietWithAFormatOfPerMessageRecordsIsAUsageError(format: String) throws {
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "-q", "--format", format])
        #expect(r.status == 2)
        #expect(r.stderr.contains("-q/--quiet applies to --format text"), "\(r.stderr)")
    }

    /// SARIF and JUnit hold findings only: -q has nothing to leave out, and the document is
    /// the one written without it.
    @Test(arguments: ["sarif", "junit"])
    func quietIsAcceptedWithTheDocumentsOfFindings(format: String) throws {
        let args = ["analyze", Fixtures.capture("link/ethernet.pcap"), "--format", format, "--fail-on", "never"]
        let quiet = try run(args + ["-q"])
        let plain = try run(args)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        // The documents differ only in the run's timings.
        func stable(_ s: String) throws -> String {
            let timings = try Regex(#"(time="[0-9.]+")|("elapsed_seconds":[0-9.e+-]+)"#)
            return s.replacing(timings, with: "")
        }
        #expect(try stable(quiet.stdout) == stable(plain.stdout))
        #expect(quiet.stdout.contains("MDNS-309"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionsOfferRuleIDsNamesAndInterfaces(shell: String) throws {
        let r = try run(["--generate-completion-script", shell])
        #expect(r.status == 0)
        #expect(r.stdout.contains("SSDP-104") && r.stdout.contains("mx-range"))
        // Interfaces come from the binary at completion time.
        #expect(r.stdout.contains("---completion capture -- --interface"), "\(shell)")
    }

    @Test func interfaceCompletionListsLoopback() throws {
        // What the bash script runs for `discoscope capture --interface <TAB>`.
        let r = try run([
            "---completion", "capture", "--", "--interface", "3", "0", "discoscope", "capture", "--interface", "",
        ])
        #expect(r.lines.contains("lo"), "\(r.stdout)")
    }
}

/// #21 point 9: the man page (generated from the help texts by the argument parser's
/// generate-manual plugin) renders without warnings: mdoc warns about every empty input line,
/// and a help text with a blank line becomes one.
@Suite struct ManualPageTests {
    @Test func noHelpTextHasAnEmptyLine() throws {
        let r = try run(["--experimental-dump-help"])
        #expect(r.status == 0)
        let dump = try #require(r.stdout.data(using: .utf8).flatMap { try? JSONSerialization.jsonObject(with: $0) })
        var texts: [String] = []
        func walk(_ v: Any) {
            if let o = v as? [String: Any] {
                for (k, x) in o {
                    if ["abstract", "discussion"].contains(k), let s = x as? String { texts.append(s) }
                    walk(x)
                }
            } else if let a = v as? [Any] {
                for x in a { walk(x) }
            }
        }
        walk(dump)
        #expect(texts.count > 20)
        for t in texts {
            #expect(!t.contains("\n\n") && !t.hasPrefix("\n") && !t.hasSuffix("\n"), "empty line in help text: \(t)")
        }
    }
}
