import Foundation
import TestSupport
import Testing

/// Runs the built binary with a fixed time zone (text times are local, as tcpdump's are).
func run(_ args: [String], cwd: String? = nil) throws -> ProcessResult {
    try runProcess(Fixtures.binary, args, currentDirectory: cwd, environment: ["TZ": "UTC", "PATH": "/usr/bin:/bin"])
}

/// Golden files: the output of each format on fixture captures, under
/// Tests/CLITests/Golden/<format>/<capture path>.<ext>. Regenerate on purpose with
/// `UPDATE_GOLDEN=1 swift test --filter GoldenFileTests`, then review the diff.
@Suite struct GoldenFileTests {
    /// The captures whose text and JSON lines output is recorded: those with a golden text
    /// file. The list comes from the golden files, not from the captures folder, so a
    /// missing or emptied folder fails each of their tests instead of running none
    /// (`goldenFilesExistAndEveryBundledCaptureHasOne` checks the other direction). With
    /// `UPDATE_GOLDEN=1`, the bundled captures without one are added.
    static let textCaptures: [String] = {
        let root = Fixtures.packageRoot + "/Tests/CLITests/Golden/text/"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        let recorded = files.filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(".txt".count)) }
        return Array(Set(recorded + (update ? bundledCaptures : []))).sorted()
    }()
    /// The fixture folders whose every capture has golden files.
    static let goldenFolders = ["link", "format", "ip", "public", "session", "segments"]
    static var bundledCaptures: [String] {
        goldenFolders.flatMap { dir in
            let folder = Fixtures.packageRoot + "/captures/" + dir
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") || $0.hasSuffix(".gz") }.map {
                "captures/\(dir)/\($0)"
            }
        }
    }
    static let documentCaptures = [
        "captures/public/CESNET__ipfixprobe__ssdp.pcap", "captures/public/zeek__zeek__mdns.pcap",
        "captures/ip/mdns-fragmented-ipv4.pcap",
    ]
    static var update: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    /// Output with what legitimately varies between runs removed (elapsed time); SARIF
    /// pretty-printed with sorted keys, so that a difference shows where it is.
    static func stable(_ s: String, format: String) -> String {
        switch format {
        case "junit":
            return s.replacingOccurrences(of: #"time="[0-9.]+""#, with: #"time="_""#, options: .regularExpression)
        case "sarif":
            guard let object = try? JSONSerialization.jsonObject(with: Data(s.utf8)),
                let pretty = try? JSONSerialization.data(
                    withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            else { return s }
            return String(decoding: pretty, as: UTF8.self) + "\n"
        default:
            return s
        }
    }

    func check(_ capture: String, format: String, ext: String) throws {
        guard FileManager.default.fileExists(atPath: Fixtures.packageRoot + "/" + capture) else {
            Issue.record("\(capture) is missing: its golden files cannot be checked")
            return
        }
        let r = try run(["analyze", capture, "--format", format, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        // Status and standard error are part of the golden record (a damaged file ends with a
        // clear error, for example).
        let errors = r.stderr.split(separator: "\n").map {
            "# stderr " + $0.replacingOccurrences(of: Fixtures.packageRoot + "/", with: "")
        }
        let actual =
            (["# status \(r.status)"] + errors).joined(separator: "\n") + "\n" + Self.stable(r.stdout, format: format)
        let path = Fixtures.packageRoot + "/Tests/CLITests/Golden/\(format)/\(capture).\(ext)"
        if Self.update {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first =
                zip(a, e).enumerated().first { $0.element.0 != $0.element.1 }.map { $0.offset } ?? min(a.count, e.count)
            Issue.record(
                "\(capture) \(format) differs from \(path) at line \(first + 1):\n  got:      \(first < a.count ? String(a[first]) : "<end>")\n  expected: \(first < e.count ? String(e[first]) : "<end>")"
            )
        }
    }

    @Test func goldenFilesExistAndEveryBundledCaptureHasOne() throws {
        #expect(Self.textCaptures.count >= 32, "golden text files found: \(Self.textCaptures.count)")
        let bundled = Self.bundledCaptures
        for dir in Self.goldenFolders {
            #expect(bundled.contains { $0.hasPrefix("captures/\(dir)/") }, "captures/\(dir) holds no capture")
        }
        for c in bundled { #expect(Self.textCaptures.contains(c), "\(c) has no golden file") }
    }

    @Test(arguments: textCaptures)
    func textOutputMatchesGolden(_ capture: String) throws { try check(capture, format: "text", ext: "txt") }

    @Test(arguments: textCaptures)
    func jsonLinesOutputMatchesGolden(_ capture: String) throws { try check(capture, format: "jsonl", ext: "jsonl") }

    @Test(arguments: documentCaptures)
    func sarifOutputMatchesGolden(_ capture: String) throws { try check(capture, format: "sarif", ext: "sarif") }

    @Test(arguments: documentCaptures)
    func junitOutputMatchesGolden(_ capture: String) throws { try check(capture, format: "junit", ext: "xml") }
}

/// SARIF and JUnit are read by real consumers: the official schema, and junitparser.
@Suite struct ReportConsumerTests {
    static let schema = Fixtures.packageRoot + "/Tests/Schemas/sarif-schema-2.1.0.json"
    static let testbed = "captures/testbed/lan-dualstack.pcapng"

    func tempPath(_ ext: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-\(UUID().uuidString).\(ext)").path
    }

    @Test func sarifValidatesAgainstTheSARIF210Schema() throws {
        for args in [
            [Self.testbed], ["captures/link/ethernet.pcap"],
            [Self.testbed, "captures/damaged/cut-mid-record.pcap", "captures/public/zeek__zeek__mdns.pcap"],
        ] {
            let out = tempPath("sarif")
            defer { try? FileManager.default.removeItem(atPath: out) }
            let r = try run(["analyze"] + args + ["--format", "sarif", "-o", out], cwd: Fixtures.packageRoot)
            #expect(r.status != 64)
            let v = try runProcess(
                "/usr/bin/python3", [Fixtures.packageRoot + "/scripts/validate-sarif.py", Self.schema, out])
            #expect(v.status == 0, "\(args): \(v.stdout) \(v.stderr)")
            #expect(v.stdout.hasPrefix("valid"))
        }
    }

    @Test func sarifResultsNameTheCaptureAndFrame() throws {
        let r = try run(
            ["analyze", Self.testbed, "--format", "sarif", "--enable", "MDNS-104"], cwd: Fixtures.packageRoot)
        let log = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let run0 = (log?["runs"] as? [[String: Any]])?.first
        let results = run0?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 42)
        let first = results.first
        #expect(first?["ruleId"] as? String == "MDNS-104")
        #expect(first?["level"] as? String == "error")
        let loc = (first?["locations"] as? [[String: Any]])?.first
        let uri =
            ((loc?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String
        #expect(uri == Self.testbed)
        let logical = (loc?["logicalLocations"] as? [[String: Any]])?.first?["name"] as? String
        #expect(logical?.hasPrefix("frame ") == true)
        let rules = ((run0?["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]]
        #expect(rules?.count == 1)
        #expect((rules?.first?["help"] as? [String: Any])?["text"].map { "\($0)".contains("RFC 6762 §18.4") } == true)
    }

    @Test func junitIsReadByJunitparserWithOneSuitePerFileAndFailuresFromFailOn() throws {
        let out = tempPath("xml")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try run(
            ["analyze", Self.testbed, "captures/damaged/cut-mid-record.pcap", "--format", "junit", "-o", out],
            cwd: Fixtures.packageRoot)
        #expect(r.status == 2)  // the damaged file is an input error
        let p = try runProcess("/usr/bin/python3", [Fixtures.packageRoot + "/scripts/parse-junit.py", out])
        #expect(p.status == 0, "\(p.stderr)")
        let lines = p.lines.map(String.init)
        // Every rule but those only `probe` runs: the description rules (SSDP-601..606) and
        // the profile rules of probe scope (PROF-501..505, 507).
        let rules = try Self.ruleCount() - 6 - Self.ruleCount(scope: "probe")
        // SSDP-018 on minidlna's urn:microsoft.com type is info, not a failure. The testbed's
        // own records fail 3 profile rules at error: avahi's "Testbed Laser Printer" claims IPP
        // Everywhere (`_print`) with no image/pwg-raster in pdl (PROF-207; its
        // rp=printers/testbed is PROF-203's warning); python-zeroconf's Cast receiver has
        // id=0123456789abcdef and no ca (PROF-301, 303).
        #expect(lines.contains("suite \(Self.testbed) tests=\(rules) failures=7 errors=0"), "\(lines)")
        #expect(lines.contains("failure \(Self.testbed) PROF-301 cast-receiver-id error"))
        #expect(lines.contains("failure \(Self.testbed) MDNS-104 query-aa-clear error"))
        // python-zeroconf sends the same records again within milliseconds, avahi within 0.5 s.
        #expect(lines.contains("failure \(Self.testbed) MDNS-506 record-once-per-second error"))
        // miniupnpd (UPnP/1.1) never answers the testbed's unicast M-SEARCHes to port 1900,
        // which gupnp's socket on the same host receives: info, not a failure.
        #expect(!lines.contains { $0.contains("SSDP-519") })
        #expect(lines.contains("error captures/damaged/cut-mid-record.pcap read captures/damaged/cut-mid-record.pcap"))
        let w = try run(
            ["analyze", Self.testbed, "--format", "junit", "--fail-on", "warning", "-o", out], cwd: Fixtures.packageRoot
        )
        #expect(w.status == 1)
        let pw = try runProcess("/usr/bin/python3", [Fixtures.packageRoot + "/scripts/parse-junit.py", out])
        // 19: MDNS-507 counts python-zeroconf answering a shared PTR 1 ms after a QU query;
        // SSDP-501 minidlna answering every search at once (15-32 ms, MX 2-4 s); PROF-201 the
        // printer's TLS key with no _ipps instance, PROF-203 its rp; SSDP-018 (info on
        // urn:microsoft.com types) does not.
        #expect(pw.lines.contains { $0 == "suite \(Self.testbed) tests=\(rules) failures=19 errors=0" }, "\(pw.stdout)")
    }

    /// An input that cannot be opened has no artifact and no suite: the findings of the
    /// next one name that one (the position among the files opened, not on the command line).
    @Test func documentsNameTheFileAfterOneThatCouldNotBeOpened() throws {
        let args = ["analyze", "captures/no-such.pcap", Self.testbed, "--enable", "MDNS-104"]
        let s = try run(args + ["--format", "sarif"], cwd: Fixtures.packageRoot)
        #expect(s.status == 2)
        let log = try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any]
        let results = (log?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 42)
        let artifacts = Set(
            results.map { r -> String in
                let loc = (r["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
                let a = loc?["artifactLocation"] as? [String: Any]
                return "\(a?["uri"] ?? "-") \(a?["index"] ?? "-")"
            })
        #expect(artifacts == ["\(Self.testbed) 0"])
        let j = try run(args + ["--format", "junit"], cwd: Fixtures.packageRoot)
        #expect(j.stdout.contains(#"<testsuite name="\#(Self.testbed)" tests="1" failures="1" errors="0""#))
        #expect(j.stdout.contains(#"<testsuite name="inputs" tests="1""#))
    }

    /// SARIF and JUnit keep results in an unnamed temporary file: nothing is left in
    /// `TMPDIR`, and a `TMPDIR` that cannot hold it is a clear error before any input is read.
    @Test func documentResultsWaitInATemporaryFileThatIsNeverLeftBehind() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for format in ["sarif", "junit"] {
            let r = try runProcess(
                Fixtures.binary, ["analyze", Self.testbed, "--format", format, "--fail-on", "never"],
                currentDirectory: Fixtures.packageRoot, environment: ["TZ": "UTC", "TMPDIR": dir])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
            let bad = try runProcess(
                Fixtures.binary, ["analyze", Self.testbed, "--format", format],
                currentDirectory: Fixtures.packageRoot, environment: ["TZ": "UTC", "TMPDIR": dir + "/missing"])
            #expect(bad.status == 2)
            #expect(
                bad.stderr.contains("cannot create a temporary file in \(dir)/missing for the report"), "\(bad.stderr)")
        }
    }

    /// Rules `discoscope rules` lists (JUnit has one test case each).
    /// How many rules `rules` lists (of `scope` only, when given).
    static func ruleCount(scope: String? = nil) throws -> Int {
        let r = try run(["rules", "--format", "json"])
        let all = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        return scope.map { s in all.filter { $0["scope"] as? String == s }.count } ?? all.count
    }
}

/// Exit status, --fail-on, rule selection, configuration, suppressions, baseline.
@Suite struct GatingTests {
    static let testbed = "captures/testbed/lan-dualstack.pcapng"

    func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func summary(_ r: ProcessResult) -> String { r.lines.last.map(String.init) ?? "" }

    @Test func exitStatusFollowsFailOn() throws {
        let root = Fixtures.packageRoot
        #expect(try run(["analyze", Self.testbed, "-q"], cwd: root).status == 1)  // errors present, default error
        #expect(try run(["analyze", Self.testbed, "-q", "--fail-on", "never"], cwd: root).status == 0)
        #expect(try run(["analyze", "captures/link/ethernet.pcap", "-q"], cwd: root).status == 0)
        #expect(try run(["analyze", "captures/link/ethernet.pcap", "-q", "--fail-on", "info"], cwd: root).status == 1)
        // Disabling the rules that report errors (by ID and by name) passes the gate.
        // Options before the file (as tcpdump users write them), comma lists and repetition.
        let off = try run(
            [
                "analyze", "--disable", "MDNS-103,query-aa-clear", "--disable", "MDNS-109,MDNS-506", "-q", Self.testbed,
                "--disable", "urn-form,unicast-search-answered",
                "--disable", "print-pdl-formats,cast-receiver-id,cast-capabilities",
            ],
            cwd: root)
        #expect(off.status == 0, "\(off.stdout.suffix(600))")
        #expect(try run(["analyze", Self.testbed, "--fail-on", "bogus"], cwd: root).status == 2)
        let unknown = try run(["analyze", Self.testbed, "--disable", "SSDP-999"], cwd: root)
        #expect(unknown.status == 2 && unknown.stderr.contains("SSDP-999"))
    }

    @Test func enableAndMinSeverityFilterFindings() throws {
        let r = try run(
            ["analyze", Self.testbed, "--format", "jsonl", "--enable", "MDNS-309,SSDP-022", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        let rules = Set(
            r.lines.filter { $0.contains(#""type":"finding""#) }.compactMap { l -> String? in
                l.range(of: #""rule":"[A-Z]+-[0-9]+""#, options: .regularExpression).map {
                    String(l[$0].dropFirst(8).dropLast())
                }
            })
        #expect(rules == ["MDNS-309", "SSDP-022"])
        let m = try run(
            ["analyze", Self.testbed, "--format", "jsonl", "--min-severity", "error", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        #expect(!m.stdout.contains(#""severity":"warning""#) && !m.stdout.contains(#""severity":"info""#))
        #expect(m.stdout.contains(#""severity":"error""#))
    }

    @Test func configurationErrorsNameTheLine() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try "fail-on: warning\ndisable:\n  - SSDP-011\ncolour: yes\n".write(
            toFile: d + "/.discoscope.yml", atomically: true, encoding: .utf8)
        let r = try run(["analyze", Fixtures.capture("link/ethernet.pcap")], cwd: d)
        #expect(r.status == 2)
        #expect(r.stderr.contains(".discoscope.yml:4: unknown key 'colour'"), "\(r.stderr)")
        try "disable:\n  - SSDP-011\n  - SSDP-777\n".write(toFile: d + "/other.yml", atomically: true, encoding: .utf8)
        let u = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--config", d + "/other.yml"], cwd: d)
        #expect(u.status == 2 && u.stderr.contains("other.yml:3: disable: unknown rule 'SSDP-777'"), "\(u.stderr)")
        try "suppress:\n  - rule: MDNS-104\n".write(toFile: d + "/noreason.yml", atomically: true, encoding: .utf8)
        let n = try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--config", d + "/noreason.yml"], cwd: d)
        #expect(
            n.status == 2 && n.stderr.contains("noreason.yml:2: suppress: entry for MDNS-104 without a reason"),
            "\(n.stderr)")
    }

    @Test func configurationSetsFailOnSeverityAndSuppressions() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let capture = Fixtures.packageRoot + "/" + Self.testbed
        // Baseline numbers from the same capture without configuration.
        let plain = try run(["analyze", capture, "--format", "jsonl", "--fail-on", "never"], cwd: d)
        let aa = plain.lines.filter { $0.contains(#""rule":"MDNS-104""#) }
        #expect(aa.count == 42)
        let zeroconfHost =
            aa.first.flatMap { l in
                l.range(of: #""source":"[^"]+""#, options: .regularExpression).map {
                    String(l[$0].dropFirst(10).dropLast())
                }
            } ?? ""
        let fromHost = aa.filter { $0.contains(#""source":"\#(zeroconfHost)""#) }.count
        try """
        fail-on: never
        severity:
          SSDP-018: warning
          MDNS-103: info
          MDNS-109: info
        suppress:
          - rule: MDNS-104
            source: \(zeroconfHost)
            reason: python-zeroconf 0.47 probes with AA set; fixed upstream
        """.write(toFile: d + "/.discoscope.yml", atomically: true, encoding: .utf8)
        let r = try run(["analyze", capture, "--format", "jsonl"], cwd: d)
        #expect(r.status == 0)
        #expect(r.lines.filter { $0.contains(#""rule":"MDNS-104""#) }.count == 42 - fromHost)
        #expect(
            r.lines.filter { $0.contains(#""rule":"SSDP-018""#) }.allSatisfy { $0.contains(#""severity":"warning""#) })
        #expect(summary(r).contains(#""suppressed":\#(fromHost)"#), "\(summary(r))")
        // The command line overrides the file's fail-on.
        #expect(try run(["analyze", capture, "-q", "--fail-on", "error"], cwd: d).status == 1)
    }

    /// Text output does not show a finding's device, so the analysis skips building it; a
    /// suppression by device must still see it.
    @Test func suppressionByDeviceAppliesToTextOutput() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let capture = Fixtures.packageRoot + "/" + Self.testbed
        let plain = try run(["analyze", capture, "--format", "jsonl", "--fail-on", "never"], cwd: d)
        func field(_ name: String, _ l: Substring) -> String? {
            l.range(of: #""\#(name)":"[^"]+""#, options: .regularExpression).map {
                String(l[$0].dropFirst(name.count + 4).dropLast())
            }
        }
        let findings = plain.lines.filter { $0.contains(#""type":"finding""#) }
        guard let first = findings.first(where: { field("device", $0) != nil }), let rule = field("rule", first),
            let device = field("device", first)
        else {
            Issue.record("no finding with a device in \(Self.testbed)")
            return
        }
        let ofRule = findings.filter { field("rule", $0) == rule }.count
        let ofDevice = findings.filter { field("rule", $0) == rule && field("device", $0) == device }.count
        try """
        suppress:
          - rule: \(rule)
            device: \(device)
            reason: test
        """.write(toFile: d + "/.discoscope.yml", atomically: true, encoding: .utf8)
        let text = try run(["analyze", capture, "-q", "--fail-on", "never"], cwd: d)
        #expect(text.lines.filter { $0.contains(" \(rule) ") && $0.hasPrefix("frame ") }.count == ofRule - ofDevice)
        #expect(text.stdout.contains("; \(ofDevice) suppressed by configuration"), "\(text.stdout.suffix(800))")
    }

    @Test func baselineFailsOnlyOnNewFindings() throws {
        let d = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let root = Fixtures.packageRoot
        let base = d + "/known.tsv"
        let w = try run(["analyze", Self.testbed, "-q", "--write-baseline", base], cwd: root)
        #expect(w.status == 1)
        let text = try String(contentsOfFile: base, encoding: .utf8)
        #expect(text.hasPrefix("# discoscope baseline v2"))
        // Same capture against its baseline: nothing new, exit 0, no findings printed.
        let again = try run(["analyze", Self.testbed, "--format", "jsonl", "--baseline", base], cwd: root)
        #expect(again.status == 0)
        #expect(!again.stdout.contains(#""type":"finding""#))
        // Another capture's findings are new.
        let other = try run(
            [
                "analyze", "captures/public/zeek__zeek__mdns.pcap", "--format", "jsonl", "--baseline", base,
                "--fail-on", "warning",
            ], cwd: root)
        #expect(other.stdout.contains(#""type":"finding""#))
        #expect(other.status == 1)
        try "SSDP-104 only two fields\n".write(toFile: d + "/bad.tsv", atomically: true, encoding: .utf8)
        let bad = try run(["analyze", Self.testbed, "--baseline", d + "/bad.tsv"], cwd: root)
        #expect(bad.status == 2 && bad.stderr.contains("bad.tsv:1"))
    }

    @Test func rulesCommandListsTheWholeCatalog() throws {
        let r = try run(["rules", "--format", "json"])
        #expect(r.status == 0)
        let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
        let ids = list.compactMap { $0["id"] as? String }
        // Every rule of the catalog's copy that is stateless, and nothing outside it.
        let catalog = try String(
            contentsOfFile: Fixtures.packageRoot + "/Tests/RulesTests/catalog-ids.txt", encoding: .utf8
        )
        .split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let stateless = Set(catalog.filter { $0.last == "Stateless" }.compactMap(\.first))
        #expect(Set(ids).count == ids.count && stateless.isSubset(of: Set(ids)))
        // The repository's own additions (docs/SSDP-RULES.md: SSDP-520, 521; docs/PROBE-RULES.md:
        // probe's description checks; docs/SEGMENT-RULES.md: across segments; docs/MDNS-RULES.md:
        // issues #52 and #54's mDNS rules).
        let additions =
            ["SSDP-520", "SSDP-521"] + (601...606).map { "SSDP-\($0)" } + [
                "SEG-001", "SEG-002", "SEG-003", "SEG-101", "SEG-102", "SEG-103", "SEG-104",
            ]
            + ["MDNS-323", "MDNS-520", "MDNS-521", "MDNS-522"]
        #expect(Set(ids).isSubset(of: Set(catalog.compactMap(\.first) + additions)))
        for key in ["id", "name", "severity", "spec", "scope"] {
            #expect(list.allSatisfy { $0[key] is String }, "\(key)")
        }
        let e = try run(["rules", "explain", "mx-range"])
        #expect(
            e.status == 0 && e.stdout.contains("SSDP-104") && e.stdout.contains("Example:")
                && e.stdout.contains("Interop:"))
        #expect(try run(["rules", "explain", "NOPE-1"]).status == 2)
        let t = try run(["rules"])
        #expect(t.lines.count == ids.count + 2)  // header, the rules, footer (blank lines not counted)
        // A rule whose findings range over severities shows the range beside its default.
        #expect(
            t.lines.contains { $0.hasPrefix("SSDP-104 ") && $0.contains(" error ") && $0.contains("warning–error") })
    }

    @Test func textOutputHasNoColourWhenNotATerminal() throws {
        let r = try run(["analyze", Self.testbed, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(!r.stdout.contains("\u{1B}["))
        #expect(r.stdout.contains("\nSummary\n"))
        // avahi's answers to other hosts' queries are not announcements, so MDNS-504 no longer
        // counts h1-avahi.local. "announced 10 times". A responder's first answer is judged
        // (MDNS-507: python-zeroconf answers a shared PTR 1 ms after a QU query, over IPv4 and
        // IPv6). SSDP-519 on miniupnpd is info (its port 1900 is shared), minidlna's overdue
        // refresh is SSDP-507 and its ssdp:all burst SSDP-501. MDNS-501 judges the probing at
        // the capture's start (avahi's 200 ms wait) and python-zeroconf's type-PTR "probes".
        // avahi's answers to those "probes" need 250 ms since the record's last multicast, not
        // 1 s (MDNS-506, RFC 6762 §6). minidlna answers all 21 multicast searches 15-32 ms
        // after them, MX 2-4 s: SSDP-501 says it does not randomise its delay (a warning).
        // SSDP-018 on minidlna's urn:microsoft.com type (27) is info, with the note that clients
        // require it. The profile rules judge the testbed's own records: its printer claims
        // IPP Everywhere without image/pwg-raster (PROF-207) and with a CUPS-style rp (PROF-203,
        // a warning), its Cast receiver's id is no UUID and it has no ca (PROF-301, 303), its
        // LPR queue has no txtvers (PROF-210, info).
        #expect(r.stdout.contains("findings    157 error(s), 584 warning(s), 425 info"), "\(r.stdout.suffix(900))")
    }
}

/// The progress line appears only on a terminal, never in pipes or CI logs.
@Suite struct ProgressLineTests {
    @Test func progressOnATerminalOnly() throws {
        // A capture large enough to take a moment (generated, deterministic).
        let big = FileManager.default.temporaryDirectory.appendingPathComponent(
            "discoscope-progress-\(UUID().uuidString).pcap"
        ).path
        defer { try? FileManager.default.removeItem(atPath: big) }
        let gen = try runProcess(
            "/usr/bin/python3", [Fixtures.packageRoot + "/Benchmarks/make_capture.py", "-n", "30000", "-o", big])
        #expect(gen.status == 0)
        let script = Fixtures.packageRoot + "/Tests/CLITests/Live/ptyrun.py"
        let tty = try runProcess(
            "/usr/bin/python3", [script, Fixtures.binary, "analyze", big, "--fail-on", "never"],
            currentDirectory: Fixtures.packageRoot, environment: ["PATH": "/usr/bin:/bin"])
        #expect(tty.stdout.contains("packets/s"), "\(tty.stdout)")
        #expect(tty.stdout.contains("% ("))
        let ci = try runProcess(
            "/usr/bin/python3", [script, Fixtures.binary, "analyze", big, "--fail-on", "never"],
            currentDirectory: Fixtures.packageRoot, environment: ["PATH": "/usr/bin:/bin", "CI": "true"])
        #expect(!ci.stdout.contains("packets/s"))
        let piped = try run(["analyze", big, "--fail-on", "never", "-q"], cwd: Fixtures.packageRoot)
        #expect(piped.stderr.isEmpty)
    }
}
