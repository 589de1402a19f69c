import Foundation
import TestSupport
import Testing

/// `capture --metrics` end to end: the real capture in one namespace of a veth pair,
/// announcements from the other (one SSDP device goes silent), and a real Prometheus server
/// beside the capture scraping it every second with an alert on silent devices and error
/// findings.
/// Debian's prometheus (for the metrics test), and whether CI asks every test to run.
let prometheusBinary: String? = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
let requiresShared = ProcessInfo.processInfo.environment["DISCOSCOPE_REQUIRE_SHARED"] == "1"

@Suite(
    .serialized,
    .enabled(if: canUseNamespaces, "the metrics test needs root, iproute2 and permission to create network namespaces"),
    .enabled(
        if: prometheusBinary != nil || requiresShared,
        "Debian's prometheus package is not installed (CI installs it)")
)
struct LiveMetricsTests {
    /// The UUIDs send_metrics_traffic.py announces.
    static let steadyUUID = "2fac1234-31f8-11b4-a222-08002b34c003"
    static let quitUUID = "2fac1234-31f8-11b4-a222-08002b34c004"
    /// Ports on the capture namespace's own loopback (nothing else listens there).
    static let metricsPort = 9464
    static let prometheusPort = 9090

    static let rules = """
        groups:
          - name: discoscope
            rules:
              - alert: DiscoveryDeviceSilent
                expr: discoscope_device_present{device!="_other"} == 0
              - alert: DiscoveryErrorFindings
                expr: sum(discoscope_findings_total{severity="error"}) > 0
        """

    static func config(rules: String) -> String {
        """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files:
          - \(rules)
        scrape_configs:
          - job_name: discoscope
            static_configs:
              - targets: ["127.0.0.1:\(metricsPort)"]
        """
    }

    /// Starts `arguments` inside namespace `ns`, its output to `log`.
    func start(_ ns: String, _ arguments: [String], log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", ns] + arguments
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = out
        p.standardError = out
        p.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        try p.run()
        return p
    }

    /// An HTTP GET from inside namespace `ns` (its loopback): the body, or nil.
    func get(_ ns: String, _ url: String) -> String? {
        let script =
            "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=3).read().decode())"
        guard let r = try? runProcess("/usr/sbin/ip", ["netns", "exec", ns, "/usr/bin/python3", "-c", script, url]),
            r.status == 0
        else { return nil }
        return r.stdout
    }

    /// A Prometheus API answer's `data`, or nil.
    func api(_ ns: String, _ path: String) -> Any? {
        guard let body = get(ns, "http://127.0.0.1:\(Self.prometheusPort)\(path)"),
            let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            json["status"] as? String == "success"
        else { return nil }
        return json["data"]
    }

    /// An instant query's samples: labels and value.
    func query(_ ns: String, _ expr: String) -> [(labels: [String: String], value: Double)] {
        let q = expr.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expr
        guard let data = api(ns, "/api/v1/query?query=\(q)") as? [String: Any],
            let result = data["result"] as? [[String: Any]]
        else { return [] }
        return result.compactMap { r in
            guard let labels = r["metric"] as? [String: String], let v = r["value"] as? [Any], v.count == 2,
                let text = v[1] as? String, let value = Double(text)
            else { return nil }
            return (labels, value)
        }
    }

    /// The alerts firing now, each by its name and labels.
    func firing(_ ns: String) -> [(name: String, labels: [String: String])] {
        guard let data = api(ns, "/api/v1/alerts") as? [String: Any], let alerts = data["alerts"] as? [[String: Any]]
        else { return [] }
        return alerts.compactMap { a in
            guard a["state"] as? String == "firing", let labels = a["labels"] as? [String: String],
                let name = labels["alertname"]
            else { return nil }
            return (name, labels)
        }
    }

    func poll(seconds: Double, _ done: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if done() { return true }
            usleep(250_000)
        }
        return done()
    }

    @Test func prometheusScrapesSeriesThatMatchTheJSONLinesAndAlertsWhenADeviceGoesSilent() throws {
        let prometheus = try #require(prometheusBinary, "prometheus is required here (DISCOSCOPE_REQUIRE_SHARED=1)")
        let net = try VethPair()
        defer { net.teardown() }
        let dir = "/tmp/discoscope-metrics-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o777)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.rules.write(toFile: dir + "/rules.yml", atomically: true, encoding: .utf8)
        try Self.config(rules: dir + "/rules.yml").write(
            toFile: dir + "/prometheus.yml", atomically: true, encoding: .utf8)

        let capture = try start(
            net.a,
            [
                Fixtures.binary, "capture", "-i", net.ifA, "--metrics", "127.0.0.1:\(Self.metricsPort)", "-o",
                dir + "/out.jsonl", "--format", "jsonl", "-F", "udp port 1900 or udp port 5353",
            ], log: dir + "/capture.log")
        defer { if capture.isRunning { capture.terminate() } }
        let healthz = "http://127.0.0.1:\(Self.metricsPort)/healthz"
        #expect(poll(seconds: 15) { get(net.a, healthz) == "ok\n" }, "the metrics listener never answered")
        let server = try start(
            net.a,
            [
                prometheus, "--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/tsdb",
                "--web.listen-address=127.0.0.1:\(Self.prometheusPort)",
            ], log: dir + "/prometheus.log")
        defer { if server.isRunning { server.terminate() } }
        let ready = poll(seconds: 30) { get(net.a, "http://127.0.0.1:\(Self.prometheusPort)/-/ready") != nil }
        try #require(ready, "prometheus did not start: \(readFile(dir + "/prometheus.log") ?? "")")

        // 16 s of announcements; the second SSDP device stops after 2 s (max-age 5).
        let sender = try start(
            net.b,
            [
                "/usr/bin/python3", Fixtures.packageRoot + "/Tests/CLITests/Live/send_metrics_traffic.py", net.addrB,
                "16", "2",
            ], log: dir + "/sender.log")
        defer { if sender.isRunning { sender.terminate() } }

        // While the steady device still announces, the silent one's alert fires, and only its.
        let silent = poll(seconds: 20) {
            firing(net.a).contains { $0.name == "DiscoveryDeviceSilent" && $0.labels["device"] == Self.quitUUID }
        }
        #expect(silent, "no DiscoveryDeviceSilent alert for \(Self.quitUUID)")
        #expect(
            sender.isRunning, "the sender ended before the alert fired: the test proves nothing about the steady device"
        )
        let silentDevices = firing(net.a).filter { $0.name == "DiscoveryDeviceSilent" }.compactMap {
            $0.labels["device"]
        }
        #expect(!silentDevices.contains(Self.steadyUUID))
        #expect(!silentDevices.contains("steady-host.local."))
        let present = query(net.a, "discoscope_device_present{protocol=\"ssdp\"}")
        #expect(present.first { $0.labels["device"] == Self.steadyUUID }?.value == 1)
        #expect(present.first { $0.labels["device"] == Self.quitUUID }?.value == 0)
        #expect(query(net.a, "discoscope_devices_present{protocol=\"ssdp\"}").first?.value == 1)
        // The mDNS host whose one record had a TTL of 3 s is gone; the one renewing it is not.
        let hosts = query(net.a, "discoscope_device_present{protocol=\"mdns\"}")
        #expect(hosts.first { $0.labels["device"] == "quitting-host.local." }?.value == 0)
        #expect(hosts.first { $0.labels["device"] == "steady-host.local." }?.value == 1)
        #expect(firing(net.a).contains { $0.name == "DiscoveryErrorFindings" })

        // Once the traffic ends and a snapshot and a scrape have passed, Prometheus holds the
        // JSON lines' counts.
        #expect(poll(seconds: 30) { !sender.isRunning })
        let lines = (readFile(dir + "/out.jsonl") ?? "").split(separator: "\n").map(String.init)
        var messages: [String: Double] = [:]
        var findings: [String: Double] = [:]
        for l in lines {
            guard let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any] else { continue }
            if o["type"] as? String == "message", let p = o["protocol"] as? String, let k = o["kind"] as? String {
                messages["\(p) \(k)", default: 0] += 1
            }
            if o["type"] as? String == "finding", let r = o["rule"] as? String, let s = o["severity"] as? String {
                findings["\(r) \(s)", default: 0] += 1
            }
        }
        #expect(messages["ssdp notify"] ?? 0 >= 18, "\(messages)")
        #expect(messages["mdns response"] ?? 0 >= 17, "\(messages)")
        #expect(findings["MDNS-102 error"] == 1, "\(findings)")
        func scraped() -> (messages: [String: Double], findings: [String: Double]) {
            var m: [String: Double] = [:]
            for s in query(net.a, "discoscope_messages_total") where s.value > 0 {
                m["\(s.labels["protocol"] ?? "") \(s.labels["kind"] ?? "")"] = s.value
            }
            var f: [String: Double] = [:]
            for s in query(net.a, "discoscope_findings_total") where s.value > 0 {
                f["\(s.labels["rule"] ?? "") \(s.labels["severity"] ?? "")"] = s.value
            }
            return (m, f)
        }
        let settled = poll(seconds: 10) { scraped().messages == messages && scraped().findings == findings }
        let last = scraped()
        #expect(settled, "scraped \(last) but the JSON lines have \(messages), \(findings)")
        let frames = query(net.a, "discoscope_packets_read_total").first?.value ?? 0
        #expect(frames == messages.values.reduce(0, +), "one frame per message with this filter")
        #expect(query(net.a, "discoscope_kernel_packets_dropped_total").first?.value == 0)

        kill(capture.processIdentifier, SIGINT)
        #expect(poll(seconds: 20) { !capture.isRunning })
        // MDNS-102 is an error: --fail-on's default makes the exit status 1.
        #expect(capture.terminationStatus == 1)
        let log = readFile(dir + "/capture.log") ?? ""
        #expect(log.contains("metrics: http://127.0.0.1:\(Self.metricsPort)/metrics\n"), "\(log)")
    }

    func readFile(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// `--metrics` takes numeric addresses only, said before anything is opened.
@Suite struct MetricsOptionTests {
    @Test func aMetricsAddressThatIsNotNumericIsAUsageError() throws {
        for bad in ["localhost:9464", "::1:9464", "99999", "9464:"] {
            let r = try run(["capture", "-i", "lo", "--metrics", bad])
            #expect(r.status == 2, "--metrics \(bad): \(r.status)")
            #expect(r.stderr.contains("--metrics \(bad): give PORT, ADDR:PORT or [ADDR]:PORT"), "\(r.stderr)")
        }
    }
}
