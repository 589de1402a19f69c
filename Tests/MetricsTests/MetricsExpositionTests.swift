import Analyzer
import Capture
import Driver
import Findings
import Foundation
import Reporting
import Testing
import WireFormat

/// The exposition writer and the snapshot: escaping of label values from the wire, the cap
/// on labelled entities, presence from max-age and TTL, and what promtool makes of a scrape.
@Suite struct MetricsExpositionTests {
    static let now = Timestamp(seconds: 1_800_000_000, nanoseconds: 0)

    func ssdpDevice(_ id: String, lastSeen: Int64, maxAge: UInt64? = 1800, byebye: Bool = false) -> InventoryDevice {
        var d = InventoryDevice(proto: .ssdp, id: id)
        d.lastSeen = Timestamp(seconds: lastSeen, nanoseconds: 0)
        d.maxAge = maxAge.map { [$0] } ?? []
        d.byebye = byebye
        return d
    }

    func snapshot(_ view: LiveView, at now: Timestamp = Self.now) -> MetricsSnapshot {
        MetricsSnapshot(summary: RunSummary(), tally: LiveTally(), view: view, now: now, kernel: nil)
    }

    /// The samples of `name` in `text`, each line as written.
    func samples(_ name: String, in text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }
    }

    @Test func labelValuesEscapeBackslashQuoteAndLineFeedAndLoseOtherControls() {
        #expect(MetricsExposition.escapedLabel("a\"b\\c\nd") == #"a\"b\\c\nd"#)
        #expect(MetricsExposition.escapedLabel("tab\there\u{1B}[2J") == "tab\u{FFFD}here\u{FFFD}[2J")
        var w = MetricsExposition()
        w.family("x_total", .counter, help: "line\nbreak \\ kept")
        w.sample("x_total", [("device", "evil\"} 1\nfake_metric 9")], 3)
        #expect(
            w.text == "# HELP x_total line\\nbreak \\\\ kept\n# TYPE x_total counter\n"
                + "x_total{device=\"evil\\\"} 1\\nfake_metric 9\"} 3\n")
    }

    @Test func labelValuesAreCutToTheBoundAtACharacterBoundary() {
        let long = String(repeating: "é", count: 100)  // 200 bytes of UTF-8
        let cut = MetricsExposition.cut(long)
        #expect(cut.utf8.count == MetricsExposition.maxLabelBytes)
        #expect(cut == String(repeating: "é", count: 64))
        let odd = "x" + long  // 201 bytes: the cut falls inside a character, which is left out
        #expect(MetricsExposition.cut(odd).utf8.count == MetricsExposition.maxLabelBytes - 1)
        #expect(MetricsExposition.cut("short") == "short")
    }

    @Test func devicesPastTheCapAreAddedUpInOtherAndCounted() {
        var view = LiveView()
        let extra = 44
        for k in 0..<(MetricsSnapshot.maxEntities + extra) {
            view.inventory.add(ssdpDevice("uuid-\(k)", lastSeen: Self.now.seconds - 10))
        }
        let s = snapshot(view)
        #expect(s.devices.count == MetricsSnapshot.maxEntities + 1)
        #expect(s.devicesFolded == extra)
        let other = s.devices.last
        #expect(other?.label == MetricsSnapshot.overflowLabel)
        #expect(other?.present == extra)
        #expect(s.devicesPresent[.ssdp] == MetricsSnapshot.maxEntities + extra)
        let text = s.exposition
        #expect(samples("discoscope_device_present", in: text).count == MetricsSnapshot.maxEntities + 1)
        #expect(text.contains("discoscope_device_present{protocol=\"ssdp\",device=\"_other\"} \(extra)\n"))
        #expect(text.contains("discoscope_metrics_entities_dropped{kind=\"device\"} \(extra)\n"))
    }

    @Test func aNameThatIsTheOverflowLabelOrCutsToAnotherNameJoinsOther() {
        var view = LiveView()
        let prefix = String(repeating: "a", count: MetricsExposition.maxLabelBytes)
        view.inventory.add(ssdpDevice(prefix + "-one", lastSeen: Self.now.seconds))
        view.inventory.add(ssdpDevice(prefix + "-two", lastSeen: Self.now.seconds))
        view.inventory.add(ssdpDevice("_other", lastSeen: Self.now.seconds))
        let s = snapshot(view)
        #expect(s.devices.map(\.label) == [prefix, "_other"])
        #expect(s.devicesFolded == 2)
        // Every series is written once: no two samples with the same labels.
        let lines = samples("discoscope_device_present", in: s.exposition)
        #expect(Set(lines.map { $0.split(separator: " ").dropLast().joined() }).count == lines.count)
    }

    @Test func anSSDPDeviceIsAbsentOnceItsMaxAgeRunsOutOrAfterAByebye() {
        var view = LiveView()
        view.inventory.add(ssdpDevice("fresh", lastSeen: Self.now.seconds - 4, maxAge: 5))
        view.inventory.add(ssdpDevice("expired", lastSeen: Self.now.seconds - 6, maxAge: 5))
        view.inventory.add(ssdpDevice("gone", lastSeen: Self.now.seconds, maxAge: 1800, byebye: true))
        // No CACHE-CONTROL seen: UPnP's 1800 s.
        view.inventory.add(ssdpDevice("no-max-age", lastSeen: Self.now.seconds - 1000, maxAge: nil))
        let s = snapshot(view)
        #expect(s.devices.map(\.present) == [1, 0, 0, 1])
        #expect(s.devices.map(\.goodbye) == [0, 0, 1, 0])
        #expect(s.devicesPresent[.ssdp] == 2)
    }

    @Test func anMDNSHostIsPresentWhileItsAddressRecordsAreCached() {
        var view = LiveView()
        for name in ["cached.local.", "expired.local.", "no-records.local."] {
            var d = InventoryDevice(proto: .mdns, id: name)
            d.lastSeen = Timestamp(seconds: Self.now.seconds - 100, nanoseconds: 0)
            view.inventory.add(d)
        }
        view.hostsCachedUntil["cached.local."] = Timestamp(seconds: Self.now.seconds + 1, nanoseconds: 0)
        view.hostsCachedUntil["expired.local."] = Timestamp(seconds: Self.now.seconds - 1, nanoseconds: 0)
        var service = InventoryService(instance: "Printer._ipp._tcp.local.")
        service.lastSeen = Self.now
        service.goodbye = true
        view.inventory.add(service)
        let s = snapshot(view)
        // Without records the host is taken as cached for RFC 6762's 120 s.
        #expect(s.devices.map(\.present) == [1, 0, 1])
        #expect(s.devicesPresent[.mdns] == 2)
        #expect(s.services.map(\.present) == [0])
        #expect(s.exposition.contains("discoscope_service_goodbye{instance=\"Printer._ipp._tcp.local.\"} 1\n"))
    }

    @Test func everyFamilyHasHelpAndTypeAndEveryCounterEndsInTotal() {
        var view = LiveView()
        view.inventory.add(ssdpDevice("uuid-1", lastSeen: Self.now.seconds))
        let text = snapshot(view).exposition
        var typed: [String: String] = [:]
        var helped: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("# TYPE ") { typed[String(words[2])] = String(words[3]) }
            if line.hasPrefix("# HELP ") { helped.insert(String(words[2])) }
            guard !line.hasPrefix("#") else { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(typed[name] != nil, "\(name) has no TYPE line before it")
            #expect(name.hasPrefix("discoscope_"))
        }
        #expect(Set(typed.keys) == helped)
        for (name, type) in typed where type == "counter" { #expect(name.hasSuffix("_total"), "\(name)") }
        // The six message kinds are always there, so a rate over them never starts absent.
        #expect(samples("discoscope_messages_total", in: text).count == 6)
    }

    static let promtool: String? = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let requireShared = ProcessInfo.processInfo.environment["DISCOSCOPE_REQUIRE_SHARED"] == "1"

    @Test(
        .enabled(
            if: promtool != nil || requireShared,
            "promtool is not installed (Debian's prometheus package has it; CI installs it)"))
    func promtoolAcceptsAScrapeWithHostileNames() throws {
        let promtool = try #require(Self.promtool, "promtool is required here (DISCOSCOPE_REQUIRE_SHARED=1)")
        var view = LiveView()
        view.inventory.add(ssdpDevice("uuid-\"quoted\"\\slash\nline", lastSeen: Self.now.seconds))
        var host = InventoryDevice(proto: .mdns, id: "caf\u{E9}\u{7}.local.")
        host.findings.add(.warning, times: 2)
        view.inventory.add(host)
        view.inventory.add(InventoryService(instance: String(repeating: "x", count: 300) + "._http._tcp.local."))
        var summary = RunSummary()
        summary.framesRead = 12
        summary.skip("malformed", count: 2)
        let s = MetricsSnapshot(
            summary: summary, tally: LiveTally(), view: view, now: Self.now,
            kernel: .init(received: 14, dropped: 1, droppedByInterface: 0))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: promtool)
        p.arguments = ["check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = output
        try p.run()
        input.fileHandleForWriting.write(Data(s.exposition.utf8))
        try input.fileHandleForWriting.close()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        // promtool exits 0 when the text parses and its lint (HELP, naming) finds nothing.
        #expect(p.terminationStatus == 0, "promtool: \(said)\n\(s.exposition)")
        #expect(said.isEmpty, "promtool: \(said)")
    }
}
