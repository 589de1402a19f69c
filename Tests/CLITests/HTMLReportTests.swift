import Foundation
import TestSupport
import Testing

/// Headless Chromium (Debian package `chromium`, installed by `scripts/setup.sh --test` and in
/// CI), or nil.
let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The browser tests run where Chromium is installed, and in CI (which installs it, so a
/// missing browser fails there instead of being skipped).
let runsBrowserTests = chromium != nil || ProcessInfo.processInfo.environment["DISCOSCOPE_REQUIRE_SHARED"] != nil

/// `--format html` in a real browser: the page of each capture is loaded by headless Chromium
/// with `#selftest`, which makes the page click a mark, select a finding with related frames
/// and write what it saw into the DOM (`<pre id="ds-selftest">`) for `--dump-dom`.
@Suite(.serialized) struct HTMLReportBrowserTests {
    static let captures = [
        "captures/testbed/lan-dualstack.pcapng", "captures/testbed/lan-dualstack-without-h3.pcapng",
        "captures/testbed/h4-any-sll2.pcap", "captures/public/zeek__zeek__mdns.pcap",
        "captures/public/CESNET__ipfixprobe__ssdp.pcap", "captures/public/lemontree55__packetgen__mdns.pcapng",
        "captures/hostile/html-injection.pcap", "captures/hostile/terminal-injection.pcap",
    ]

    /// Messages and findings in the JSON lines output of the same capture.
    static func jsonLinesCounts(_ capture: String) throws -> (messages: Int, findings: Int) {
        let r = try run(["analyze", capture, "--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        var messages = 0
        var findings = 0
        for line in r.lines {
            if line.hasPrefix(#"{"type":"message""#) { messages += 1 }
            if line.hasPrefix(#"{"type":"finding""#) { findings += 1 }
        }
        return (messages, findings)
    }

    /// Loads `page` in headless Chromium and returns the page's self-check and the browser's
    /// log (console messages, CSP reports).
    static func load(_ page: String, dir: String) throws -> (check: [String: Any], log: String) {
        guard let chromium else {
            throw BrowserMissing()
        }
        let r = try runProcess(
            "/usr/bin/timeout",
            [
                "120", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--user-data-dir=\(dir)/profile", "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=5000", "--dump-dom", "file://\(page)#selftest",
            ], environment: ["HOME": dir, "PATH": "/usr/bin:/bin"])
        let dom = r.stdout
        guard let start = dom.firstRange(of: #"<pre id="ds-selftest">"#),
            let end = dom[start.upperBound...].firstRange(of: "</pre>")
        else {
            Issue.record("no self-check in the page (status \(r.status)):\n\(r.stderr.suffix(2000))")
            return ([:], r.stderr)
        }
        let text = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(dom.contains(#"data-ready="1""#))
        return (object ?? [:], r.stderr)
    }

    struct BrowserMissing: Error, CustomStringConvertible {
        var description: String { "Chromium is not installed (apt-get install chromium; scripts/setup.sh --test)" }
    }

    @Test(
        .enabled(if: runsBrowserTests, "needs headless Chromium (Debian package chromium; scripts/setup.sh --test)"),
        arguments: captures)
    func pageShowsWhatJSONLinesHasAndRunsNothingFromTheCapture(_ capture: String) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = dir + "/report.html"
        let w = try run(
            ["analyze", capture, "--format", "html", "-o", page, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(w.status == 0, "\(w.stderr)")
        let expected = try Self.jsonLinesCounts(capture)
        let (c, log) = try Self.load(page, dir: dir)

        // Every message is a mark, every finding is listed: as many as JSON lines has.
        #expect(c["messages"] as? Int == expected.messages)
        #expect(c["findings"] as? Int == expected.findings)
        // At the fitted view every message of the lanes shown is drawn (or counted in a mark
        // that stands for several).
        if let rows = c["rowsAtFit"] as? Int, rows <= 30 {
            #expect(c["accountedAtFit"] as? Int == expected.messages)
        }
        // A click on a mark shows its message as the text report prints it, its hex dump and
        // its findings.
        if expected.messages > 0 {
            #expect((c["clicked"] as? Int ?? -1) >= 0)
            #expect(c["detailShowsMessage"] as? Bool == true)
            #expect((c["hexLines"] as? Int ?? 0) > 0)
            #expect(c["detailFindings"] as? Int == c["expectedFindings"] as? Int)
        }
        // A finding's related frames are highlighted when it is selected.
        if let checked = c["relatedChecked"] as? Int, checked > 0 {
            #expect(c["relatedHighlighted"] as? Int == checked)
        }
        // Tables make their rows as they are scrolled: the findings table grows at its end.
        let lazy = c["lazyRows"] as? [Int] ?? []
        #expect(lazy.count == 2 && lazy[0] == min(expected.findings, 100))
        if expected.findings > 100 { #expect(lazy.count == 2 && lazy[1] > lazy[0]) }
        // A row of the inventory leads to its device's marks.
        if let linked = c["inventoryLinks"] as? Bool { #expect(linked) }
        // Nothing from the capture ran or loaded: no element, handler or script of its own,
        // no network request, no CSP violation (an attempt would be one).
        #expect(c["pwned"] as? Bool == false)
        #expect(c["scripts"] as? Int == 2)
        #expect(c["foreignElements"] as? Int == 0)
        #expect(c["inlineHandlers"] as? Int == 0)
        #expect((c["resources"] as? [Any])?.isEmpty == true)
        #expect((c["violations"] as? [Any])?.isEmpty == true)
        #expect(c["title"] as? String == "DiscoScope report")
        // #55 impact first: the header lists what the text summary opens with, line by line.
        let text = try run(["analyze", "-q", capture, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let opening = text.lines.filter { $0.hasPrefix("  invisible   ") || $0.hasPrefix("  unanswered  ") }.map {
            $0.hasPrefix("  invisible") ? "invisible: " + $0.dropFirst(14) : "unanswered: " + $0.dropFirst(14)
        }
        // (The text escapes control bytes for the terminal; the page shows them as text.)
        if capture.contains("hostile/") {
            #expect((c["impact"] as? [String])?.count == opening.count)
        } else {
            #expect(c["impact"] as? [String] == opening)
        }
        #expect(!log.contains("Content Security Policy"), "\(log.suffix(2000))")
        #expect(!log.contains("Uncaught"), "\(log.suffix(2000))")
    }

    /// A report whose data is larger than 1 MiB has it compressed (zlib in base64), and the
    /// page, which inflates it with `DecompressionStream`, shows what JSON lines has.
    @Test(.enabled(if: runsBrowserTests, "needs headless Chromium (Debian package chromium; scripts/setup.sh --test)"))
    func aLargeReportsDataIsCompressedAndThePageInflatesIt() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = dir + "/large.pcap"
        let page = dir + "/report.html"
        let g = try runProcess(
            "/usr/bin/python3", [Fixtures.packageRoot + "/Benchmarks/make_capture.py", "-n", "12000", "-o", capture])
        #expect(g.status == 0, "\(g.stderr)")
        let w = try run(
            ["analyze", capture, "--format", "html", "-o", page, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(w.status == 0, "\(w.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains(#"<script type="application/octet-stream" id="ds-data" data-encoding="deflate-base64">"#))
        #expect(!html.contains("application/json"))
        let expected = try Self.jsonLinesCounts(capture)
        let (c, log) = try Self.load(page, dir: dir)
        #expect(expected.messages > 10000)
        #expect(c["messages"] as? Int == expected.messages)
        #expect(c["findings"] as? Int == expected.findings)
        #expect(c["detailShowsMessage"] as? Bool == true)
        #expect((c["violations"] as? [Any])?.isEmpty == true)
        #expect((c["resources"] as? [Any])?.isEmpty == true)
        #expect(!log.contains("Uncaught"), "\(log.suffix(2000))")
    }

    /// Counts that agree: one host's findings are the same in the text summary, the JSON
    /// lines inventory (`analyze` and `inventory`), the findings that name it and the HTML
    /// page's table of findings by device, on the reflector recordings, where a finding
    /// without a device (MDNS-504 on the reflector's copies, from its address) sits on the
    /// message of a host's lane, and on the #52 recordings, where an mDNS finding that names
    /// no host but comes from an address of exactly one host counts for that host.
    @Test(
        .enabled(if: runsBrowserTests, "needs headless Chromium (Debian package chromium; scripts/setup.sh --test)"),
        arguments: [
            [
                "--segments", "captures/testbed/reflector/filtered-lan.pcap",
                "captures/testbed/reflector/filtered-iot.pcap",
            ],
            [
                "--segments", "captures/testbed/reflector/working-lan.pcap",
                "captures/testbed/reflector/working-iot.pcap",
            ],
            ["captures/testbed/reflector/working-both.pcapng"], ["captures/testbed/lan-dualstack.pcapng"],
            // systemd-resolved's probes (MDNS-207) and its answers that name no host (MDNS-303,
            // MDNS-308, MDNS-507) come from its addresses: they count for it.
            ["captures/testbed/newstacks/resolved.pcap"], ["captures/testbed/newstacks/mdnsd.pcap"],
        ])
    func everyReportGivesAHostTheSameFindingCounts(_ input: [String]) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = dir + "/report.html"
        let w = try run(
            ["analyze"] + input + ["--format", "html", "-o", page, "--fail-on", "never"], cwd: Fixtures.packageRoot)
        #expect(w.status == 0, "\(w.stderr)")
        let jsonl = try run(
            ["analyze"] + input + ["--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
        let records = jsonRecords(jsonl)
        var inventory: [String: [Int]] = [:]
        for d in records where d["type"] as? String == "device" && d["protocol"] as? String == "mdns" {
            let c = d["findings"] as? [String: Any] ?? [:]
            inventory[d["id"] as? String ?? ""] = ["error", "warning", "info"].map { c[$0] as? Int ?? 0 }
        }
        #expect(!inventory.isEmpty)
        // Each address of exactly one host ("": of several).
        var claims: [String: String] = [:]
        for d in records where d["type"] as? String == "device" && d["protocol"] as? String == "mdns" {
            let id = d["id"] as? String ?? ""
            for a in d["addresses"] as? [String] ?? [] { claims[a] = claims[a].map { $0 == id ? id : "" } ?? id }
        }
        // The findings that name each host, and the mDNS findings (of the MDNS rules and the
        // profile rules on DNS-SD instances) that name none from an address of exactly one
        // host, counted.
        let rules = try JSONSerialization.jsonObject(
            with: Data(try run(["rules", "--format", "json"], cwd: Fixtures.packageRoot).stdout.utf8))
        let mdnsRules = Set(
            (rules as? [[String: Any]] ?? []).filter { $0["protocol"] as? String == "mdns" }.compactMap {
                $0["id"] as? String
            }.filter { $0.hasPrefix("MDNS-") || $0.hasPrefix("PROF-") })
        #expect(mdnsRules.contains("MDNS-001") && mdnsRules.contains("PROF-210") && !mdnsRules.contains("PROF-506"))
        var named: [String: [Int]] = [:]
        for f in records where f["type"] as? String == "finding" {
            let device =
                f["device"] as? String
                ?? (mdnsRules.contains(f["rule"] as? String ?? "") ? claims[f["source"] as? String ?? ""] : nil)
            guard let device, inventory[device] != nil else { continue }
            let k = ["error", "warning", "info"].firstIndex(of: f["severity"] as? String ?? "") ?? 0
            named[device, default: [0, 0, 0]][k] += 1
        }
        // The text summary's line of each host.
        let text = try run(["analyze", "-q"] + input + ["--fail-on", "never"], cwd: Fixtures.packageRoot)
        var summary: [String: [Int]] = [:]
        for line in text.lines where line.hasPrefix("    mdns ") {
            // The host's name (it may hold spaces: `Mdnsd Web.local.`), then two spaces or one
            // and an address.
            let rest = line.dropFirst(9)
            let id =
                inventory.keys.filter { rest.hasPrefix($0 + " ") }.max { $0.count < $1.count }
                ?? String(rest.prefix { $0 != " " })
            // `6 errors, 22 warnings, 9 info`: the number before each word.
            let words = line.split(separator: " ").map(String.init)
            summary[id] = ["error", "warning", "info"].map { word in
                let k = words.indices.dropFirst().first { words[$0].hasPrefix(word) && Int(words[$0 - 1]) != nil }
                return k.flatMap { Int(words[$0 - 1]) } ?? 0
            }
        }
        let inventoryCommand = jsonRecords(
            try run(["inventory"] + input + ["--format", "jsonl"], cwd: Fixtures.packageRoot))
        let (c, _) = try Self.load(page, dir: dir)
        let html = c["deviceCounts"] as? [String: [Int]] ?? [:]
        for (host, counts) in inventory {
            #expect(named[host, default: [0, 0, 0]] == counts, "\(host): the findings that name it")
            #expect(summary[host] == counts, "\(host): text summary")
            #expect(html[host, default: [0, 0, 0]] == counts, "\(host): HTML findings by device \(html)")
            let listed = inventoryCommand.first { $0["id"] as? String == host }?["findings"] as? [String: Any]
            #expect(["error", "warning", "info"].map { listed?[$0] as? Int ?? 0 } == counts, "\(host): inventory")
        }
    }

    /// #53: the profile filter lists the profiles the findings were judged for, and shows
    /// one profile's findings and the messages that have them, nothing else. A capture
    /// without profile findings has no filter to show.
    @Test(.enabled(if: runsBrowserTests, "needs headless Chromium (Debian package chromium; scripts/setup.sh --test)"))
    func theProfileFilterShowsOneProfilesFindings() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func check(_ capture: String) throws -> [String: Any] {
            let page = dir + "/report-\(UUID().uuidString).html"
            let w = try run(
                ["analyze", capture, "--format", "html", "-o", page, "--fail-on", "never"], cwd: Fixtures.packageRoot)
            #expect(w.status == 0, "\(w.stderr)")
            return try Self.load(page, dir: dir).check
        }
        // The testbed's printer (avahi) and Cast receiver (python-zeroconf) claim profiles.
        let c = try check("captures/testbed/lan-dualstack.pcapng")
        #expect(c["profiles"] as? [String] == ["bonjour-printing", "cast", "ipp-everywhere"], "\(c["profiles"] ?? "")")
        let f = c["profileFiltered"] as? [Any] ?? []
        #expect(f.count == 4, "\(f)")
        if f.count == 4 {
            #expect((f[0] as? Int) == (f[2] as? Int) && (f[0] as? Int ?? 0) > 0, "messages: \(f)")
            #expect((f[1] as? String) == (f[3] as? String), "findings: \(f)")
        }
        let plain = try check("captures/link/ethernet.pcap")
        #expect((plain["profiles"] as? [String])?.isEmpty == true)
        #expect(plain["profileFiltered"] == nil)
    }

    /// Segments on the page: each lane says which segments its messages were on, the message
    /// panel names the selected message's segment, and the segment filter shows that
    /// segment's messages only. One host, one lane: lan-nas's queries and probes (from
    /// 10.98.1.30 and fe80::98:1ff:fe00:30) are on its host lane, not on client lanes of its
    /// addresses; the reflector's IPv4 copies of another link's host are on the reflector's
    /// lane. A run without segments shows none.
    @Test(.enabled(if: runsBrowserTests, "needs headless Chromium (Debian package chromium; scripts/setup.sh --test)"))
    func thePageShowsSegmentsAndJoinsAHostsAddressesIntoOneLane() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func check(_ input: [String]) throws -> [String: Any] {
            let page = dir + "/report-\(UUID().uuidString).html"
            let w = try run(
                ["analyze"] + input + ["--format", "html", "-o", page, "--fail-on", "never"], cwd: Fixtures.packageRoot)
            #expect(w.status == 0, "\(w.stderr)")
            return try Self.load(page, dir: dir).check
        }
        let files = ["lan", "iot"].map { "captures/testbed/reflector/working-\($0).pcap" }
        let c = try check(["--segments"] + files)
        #expect(c["segments"] as? [String] == ["working-lan", "working-iot"])
        let lanes = c["laneSegments"] as? [String: [String]] ?? [:]
        #expect(lanes["host lan-nas.local."] == ["working-lan", "working-iot"], "\(lanes)")
        #expect(lanes["host iot-printer.local."] == ["working-lan", "working-iot"], "\(lanes)")
        for own in ["10.98.1.30", "fe80::98:1ff:fe00:30", "10.98.2.10", "fe80::98:2ff:fe00:10"] {
            #expect(lanes["client " + own] == nil && lanes["sender " + own] == nil, "\(own) has a lane: \(lanes)")
        }
        #expect(lanes["sender 10.98.2.1"] == ["working-iot"], "\(lanes)")
        #expect(c["panelSegment"] as? Bool == true)
        let filtered = c["segmentFiltered"] as? [Int] ?? []
        #expect(filtered.count == 2 && filtered[0] == filtered[1] && filtered[0] > 0, "\(filtered)")
        let plain = try check(["captures/testbed/lan-dualstack.pcapng"])
        #expect((plain["segments"] as? [String])?.isEmpty == true)
        #expect(plain["segmentFiltered"] == nil)
    }

    /// The report of the hostile capture keeps its data inside the data block: no raw
    /// markup from the wire, no line separator, and the page still parses.
    @Test func hostileStringsAreEscapedInTheFile() throws {
        let r = try run(
            ["analyze", "captures/hostile/html-injection.pcap", "--format", "html", "--fail-on", "never"],
            cwd: Fixtures.packageRoot)
        #expect(r.status == 0)
        let html = r.stdout
        // Two blocks close: the data block and the page's script.
        #expect(html.components(separatedBy: "</script>").count == 3)
        #expect(!html.contains("<img"))
        #expect(!html.contains("<svg"))
        #expect(!html.contains("<!--"))
        #expect(!html.contains("\u{2028}") && !html.contains("\u{2029}"))
        #expect(html.contains(#"\u003cscript\u003ewindow.pwned=1\u003c/script\u003e"#))
        #expect(
            html.contains(
                #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-"#))
    }
}

/// A new directory for one test's page (the test removes it).
private func temporaryDirectory() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-html-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}
