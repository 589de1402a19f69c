import Foundation
import TestSupport
import Testing

/// Two network namespaces joined by a veth pair, torn down on every path (deinit runs even
/// when an expectation fails or the test throws). Nothing is routed out of them.
final class VethPair {
    let a: String, b: String, ifA: String, ifB: String
    let addrA = "10.211.0.1", addrB = "10.211.0.2"

    init() throws {
        let tag = String(getpid() % 100_000) + String(Int.random(in: 0..<1000))
        a = "dsA\(tag)"
        b = "dsB\(tag)"
        ifA = "vA\(tag)"
        ifB = "vB\(tag)"
        let steps: [[String]] = [
            ["netns", "add", a], ["netns", "add", b],
            ["link", "add", ifA, "type", "veth", "peer", "name", ifB],
            ["link", "set", ifA, "netns", a], ["link", "set", ifB, "netns", b],
            ["-n", a, "addr", "add", addrA + "/24", "dev", ifA], ["-n", b, "addr", "add", addrB + "/24", "dev", ifB],
            ["-n", a, "link", "set", ifA, "up"], ["-n", b, "link", "set", ifB, "up"],
            ["-n", a, "link", "set", "lo", "up"], ["-n", b, "link", "set", "lo", "up"],
            ["-n", b, "route", "add", "224.0.0.0/4", "dev", ifB],
        ]
        for s in steps {
            let r = try runProcess("/usr/sbin/ip", s)
            if r.status != 0 {
                teardown()
                throw SetupError(description: "ip \(s.joined(separator: " ")): \(r.stderr)")
            }
        }
    }

    struct SetupError: Error, CustomStringConvertible { var description: String }

    func teardown() {
        deleteNamespaces([a, b])
    }

    deinit { teardown() }
}

@Suite(
    .serialized,
    .enabled(if: canUseNamespaces, "live capture tests need root, iproute2 and permission to create network namespaces")
)
struct LiveCaptureTests {
    /// A filter for tests that count frames: the default one also takes IGMP and MLD.
    static let discoveryOnly = "udp port 1900 or udp port 5353"

    func tempDir() throws -> String {
        let d = "/tmp/discoscope-live-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        chmod(d, 0o777)
        return d
    }

    /// Starts `discoscope capture` inside namespace A; output and stderr to files. Without
    /// `interface`, no -i is given.
    func startCapture(_ net: VethPair, _ args: [String], dir: String, interface: Bool = true) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", net.a, Fixtures.binary, "capture"] + (interface ? ["-i", net.ifA] : []) + args
        // A file that cannot be made fails below, where its handle is opened (with the reason).
        _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out"))
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/err"))
        p.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
        try p.run()
        return p
    }

    /// Waits (bounded) until the -w file exists: the handle is open and privileges dropped.
    func waitForFile(_ path: String, _ p: Process) {
        for _ in 0..<100 where p.isRunning && !FileManager.default.fileExists(atPath: path) { usleep(50_000) }
        usleep(300_000)
    }

    func waitForExit(_ p: Process, seconds: Int = 20) -> Bool {
        for _ in 0..<(seconds * 20) where p.isRunning { usleep(50_000) }
        if p.isRunning {
            p.terminate()
            return false
        }
        return true
    }

    /// Crafted SSDP and mDNS, and python-zeroconf's real traffic, from namespace B.
    func sendDiscovery(_ net: VethPair) throws {
        let sender = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3",
                Fixtures.packageRoot + "/Tests/CLITests/Live/send_discovery.py", net.addrB,
            ])
        #expect(sender.status == 0, "\(sender.stderr)")
    }

    /// The findings of JSON lines output, each as its rule and frames, sorted (rule and frames
    /// identify a finding; times and text are the same anyway).
    func findingKeys(_ lines: [String]) -> [String] {
        lines.filter { $0.contains(#""type":"finding""#) }.map { l in
            let rule = l.range(of: #""rule":"[^"]+""#, options: .regularExpression).map { String(l[$0]) } ?? ""
            let frames = l.range(of: #""frames":\[[0-9,]*\]"#, options: .regularExpression).map { String(l[$0]) } ?? ""
            return rule + frames
        }.sorted()
    }

    @Test func capturesRealAndCraftedTrafficDropsPrivilegesAndStopsCleanlyOnSIGINT() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcap = dir + "/live.pcap"
        let capture = try startCapture(net, ["--format", "jsonl", "-w", pcap, "--fail-on", "never"], dir: dir)
        waitForFile(pcap, capture)
        #expect(
            capture.isRunning,
            "capture ended early: \((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")

        // Privilege drop: the capturing process now runs as nobody.
        let status = (try? String(contentsOfFile: "/proc/\(capture.processIdentifier)/status", encoding: .utf8)) ?? ""
        let uidLine = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }.map(String.init) ?? ""
        let nobody = getpwnam("nobody").map { String($0.pointee.pw_uid) } ?? "65534"
        #expect(
            uidLine.hasPrefix("Uid:") && uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).count == 5,
            "\(uidLine)")
        #expect(
            uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().allSatisfy { $0 == nobody },
            "\(uidLine)")

        try sendDiscovery(net)
        usleep(700_000)
        capture.interrupt()  // SIGINT, as Ctrl-C
        #expect(waitForExit(capture))
        #expect(capture.terminationStatus == 0)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        let lines = out.split(separator: "\n").map(String.init)

        // Decoded messages: the crafted SSDP and mDNS, and python-zeroconf's real traffic.
        #expect(lines.contains { $0.contains(#""kind":"m-search""#) && $0.contains(#""src":"10.211.0.2""#) })
        #expect(
            lines.contains { $0.contains(#""protocol":"mdns""#) && $0.contains("DiscoScope E2E._http._tcp.local.") })
        #expect(lines.contains { $0.contains(#""protocol":"mdns""#) && $0.contains(#""ttl":0"#) }, "zeroconf goodbye")
        for rule in ["SSDP-104", "SSDP-005", "MDNS-102"] {
            #expect(
                lines.contains { $0.contains(#""type":"finding""#) && $0.contains(#""rule":"\#(rule)""#) }, "\(rule)")
        }
        // A complete summary with libpcap's counts, as the last line.
        let summary = lines.last ?? ""
        #expect(summary.hasPrefix(#"{"type":"summary""#))
        #expect(summary.contains(#""packets_received":"#) && summary.contains(#""packets_dropped":0"#), "\(summary)")

        // The -w file is readable and gives the same findings offline.
        let offline = try runProcess(Fixtures.binary, ["analyze", pcap, "--format", "jsonl", "--fail-on", "never"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(!findingKeys(lines).isEmpty)
        #expect(findingKeys(lines) == findingKeys(offline.lines.map(String.init)))
    }

    /// With several analysis threads (`-j 3`): every thread runs as nobody, a message is
    /// written as soon as no packet waits (not when 1024 have come, nor at the timer's next
    /// tick), and the findings are those of the `-w` file offline.
    @Test func withSeveralThreadsEachDropsPrivilegesAndMessagesShowAsTheyArrive() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcap = dir + "/threads.pcap"
        let capture = try startCapture(
            net, ["-j", "3", "--format", "jsonl", "-w", pcap, "--fail-on", "never"], dir: dir)
        waitForFile(pcap, capture)
        #expect(capture.isRunning, "\((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")

        // Reading, two workers, the ordering thread and the signal thread, all as nobody.
        let nobody = getpwnam("nobody").map { String($0.pointee.pw_uid) } ?? "65534"
        let tasks =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(capture.processIdentifier)/task")) ?? []
        #expect(tasks.count >= 5, "\(tasks)")
        for t in tasks {
            let status =
                (try? String(contentsOfFile: "/proc/\(capture.processIdentifier)/task/\(t)/status", encoding: .utf8))
                ?? ""
            let ids = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(whereSeparator: {
                $0 == "\t" || $0 == " "
            }).dropFirst()
            #expect(ids.map { $0.count == 4 && $0.allSatisfy { $0 == nobody } } ?? false, "thread \(t): \(status)")
        }

        // One M-SEARCH at a time: each is written within 300 ms, not at the next tick of the
        // once-a-second timer (three sends 1.37 s apart meet the timer at different phases).
        func searchesWritten() -> Int {
            ((try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "").components(
                separatedBy: #""kind":"m-search""#
            ).count - 1
        }
        for round in 1...3 {
            try sendSearches(net, 1)
            var waited = 0
            while searchesWritten() < round && waited < 300 {
                usleep(10_000)
                waited += 10
            }
            #expect(searchesWritten() == round, "M-SEARCH \(round) not written within 300 ms")
            usleep(1_370_000 - UInt32(waited) * 1000)
        }
        try sendDiscovery(net)
        usleep(700_000)
        #expect(capture.isRunning)
        capture.interrupt()
        #expect(waitForExit(capture))
        #expect(capture.terminationStatus == 0)

        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8).split(separator: "\n").map(String.init)
        let offline = try runProcess(
            Fixtures.binary, ["analyze", pcap, "-j", "1", "--format", "jsonl", "--fail-on", "never"])
        #expect(!findingKeys(out).isEmpty)
        #expect(findingKeys(out) == findingKeys(offline.lines.map(String.init)))
    }

    @Test func captureWithoutPermissionSaysWhatItNeeds() throws {
        // An unprivileged user (no CAP_NET_RAW) trying to capture on loopback.
        let r = try runProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--inh-caps=-all", Fixtures.binary, "capture",
                "-i", "lo", "-c", "1",
            ])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains("permission") && r.stderr.contains("CAP_NET_RAW")
                && r.stderr.contains("sudo discoscope capture -i lo"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func countLimitEndsTheCaptureWithASummary() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Discovery only: the default filter also takes the MLD reports the veth ends send
        // when they come up, whenever that happens.
        let capture = try startCapture(
            net, ["-c", "2", "-w", dir + "/c.pcap", "--fail-on", "never", "-F", Self.discoveryOnly], dir: dir)
        waitForFile(dir + "/c.pcap", capture)
        let sender = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3",
                Fixtures.packageRoot + "/Tests/CLITests/Live/send_discovery.py", net.addrB,
            ])
        #expect(sender.status == 0)
        #expect(waitForExit(capture))
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(out.contains("frames      2 read"), "\(out)")
        #expect(out.contains("capture     "))
        // The summary labels the interface as one, not as a file.
        #expect(out.contains("  interface   \(net.ifA)\n") && !out.contains("  files "), "\(out)")
    }

    @Test func theTimerReportsADeadlineFindingWhileTheCaptureRunsAndNotAgainAtItsEnd() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcap = dir + "/tc.pcap"
        let capture = try startCapture(net, ["--format", "jsonl", "-w", pcap, "--fail-on", "never"], dir: dir)
        waitForFile(pcap, capture)
        let sender = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3",
                Fixtures.packageRoot + "/Tests/CLITests/Live/send_tc_query.py", net.addrB,
            ])
        #expect(sender.status == 0, "\(sender.stderr)")
        // The continuation's half second, and the timer's second, pass with no other packet.
        usleep(2_500_000)
        func findings511(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter {
                $0.contains(#""type":"finding""#) && $0.contains(#""rule":"MDNS-511""#)
            }
        }
        let running = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(capture.isRunning)
        #expect(findings511(running).count == 1, "\(running)")
        #expect(findings511(running).first.map { !$0.contains(#""at_end""#) } ?? false)
        capture.interrupt()
        #expect(waitForExit(capture))
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(findings511(out).count == 1, "reported once: \(out)")
        // The -w file ends with the query: nothing in it shows that the half second passed,
        // so offline analysis of it does not conclude (the live capture saw the time pass).
        let offline = try runProcess(Fixtures.binary, ["analyze", pcap, "--format", "jsonl", "--fail-on", "never"])
        #expect(offline.stdout.contains(#""mdns_messages":1"#) && findings511(offline.stdout).isEmpty)
    }

    /// Silence is news (issue #54): a device whose one alive (max-age 3) runs out and an
    /// instance whose one announcement (TTL 2) runs out are reported by the timer while the
    /// capture still runs, when that happens, and not again at its end.
    @Test func aDeviceAndAnInstanceThatGoSilentAreReportedWhenTheirAdvertisementsRunOut() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = dir + "/report.jsonl"
        let capture = try startCapture(
            net, ["--format", "jsonl", "-o", report, "-w", dir + "/silence.pcap", "--fail-on", "never"], dir: dir)
        waitForFile(dir + "/silence.pcap", capture)
        let sender = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3",
                Fixtures.packageRoot + "/Tests/CLITests/Live/send_silence.py", net.addrB,
            ])
        #expect(sender.status == 0, "\(sender.stderr)")
        let sent = Date()
        func findings(_ rule: String) -> [String] {
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter {
                $0.contains(#""type":"finding""#) && $0.contains(#""rule":"\#(rule)""#)
            }
        }
        // When each first shows in the report, polled while the capture runs.
        var seen: [String: Double] = [:]
        while Date().timeIntervalSince(sent) < 9, seen.count < 2, capture.isRunning {
            for rule in ["SSDP-521", "MDNS-522"] where seen[rule] == nil && !findings(rule).isEmpty {
                seen[rule] = Date().timeIntervalSince(sent)
            }
            usleep(100_000)
        }
        #expect(capture.isRunning, "the capture still runs")
        // max-age 3 + 1 s of jitter, then the timer's second; TTL 2 + 1 s, then the second.
        let ssdp = seen["SSDP-521"] ?? -1
        let mdns = seen["MDNS-522"] ?? -1
        #expect(ssdp > 3.5 && ssdp < 6.5, "SSDP-521 after \(ssdp) s: \(findings("SSDP-521"))")
        #expect(mdns > 2.5 && mdns < 5.5, "MDNS-522 after \(mdns) s: \(findings("MDNS-522"))")
        let live = findings("SSDP-521") + findings("MDNS-522")
        #expect(live.allSatisfy { !$0.contains(#""at_end""#) }, "concluded while running: \(live)")
        #expect(findings("SSDP-521").first?.contains("uuid:5e1e0ce0-0000-4000-8000-000000000521") == true)
        #expect(findings("MDNS-522").first?.contains("Silent._http._tcp.local") == true)
        capture.interrupt()
        #expect(waitForExit(capture))
        #expect(findings("SSDP-521").count == 1 && findings("MDNS-522").count == 1, "reported once")
    }

    @Test func liveCaptureSaysWhatItListensOnAndWithWhichFilter() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = try startCapture(net, ["--duration", "1", "--fail-on", "never"], dir: dir)
        #expect(waitForExit(capture))
        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        // As tcpdump starts: interface, link type with its description, snapshot length.
        #expect(
            err.contains("listening on \(net.ifA), link-type EN10MB (Ethernet), snapshot length 262144 bytes\n"),
            "\(err)")
        #expect(err.contains("filter: udp port 1900 or udp port 5353"), "\(err)")
        let jsonl = try startCapture(
            net, ["--duration", "1", "--format", "jsonl", "--fail-on", "never", "udp", "port", "5353"], dir: dir)
        #expect(waitForExit(jsonl))
        let err2 = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(err2.contains("filter: udp port 5353\n"), "\(err2)")
        let summary =
            try String(contentsOfFile: dir + "/out", encoding: .utf8).split(separator: "\n").last.map(String.init) ?? ""
        #expect(summary.contains(#""interface":"\#(net.ifA)""#), "\(summary)")
    }

    /// A live capture takes its interface's subnets from libpcap (MDNS-407 and MDNS-310 judge
    /// by them) unless `--subnet` gives some, and says which it uses.
    @Test func liveCaptureTakesTheInterfacesSubnetsUnlessGivenAndSaysThem() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let own = try startCapture(net, ["--duration", "1", "--fail-on", "never"], dir: dir)
        #expect(waitForExit(own))
        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(err.contains("subnets of \(net.ifA): 10.211.0.0/24"), "\(err)")
        let given = try startCapture(
            net, ["--duration", "1", "--fail-on", "never", "--subnet", "\(net.ifA)=10.9.0.0/16"], dir: dir)
        #expect(waitForExit(given))
        let err2 = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(err2.contains("subnets of \(net.ifA): 10.9.0.0/16\n"), "\(err2)")
    }

    @Test func withoutDashIItCapturesOnTheFirstUpNonLoopbackInterfaceAndSaysSo() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Namespace A has only lo and the veth end: tcpdump would pick the veth.
        let capture = try startCapture(net, ["--duration", "1", "--fail-on", "never"], dir: dir, interface: false)
        #expect(waitForExit(capture))
        #expect(capture.terminationStatus == 0)
        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(err.contains("no -i given: capturing on \(net.ifA)"), "\(err)")
        #expect(err.contains("listening on \(net.ifA), "), "\(err)")
    }

    func sendSearches(_ net: VethPair, _ count: Int) throws {
        let r = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3", Fixtures.packageRoot + "/Tests/CLITests/Live/send_ssdp.py",
                net.addrB, String(count),
            ])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The interface going down mid-capture ends it with a clear message, the summary, and a
    /// `-w` file that holds every packet captured.
    @Test func interfaceGoingDownEndsTheCaptureWithAMessageTheSummaryAndAnIntactFile() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcap = dir + "/down.pcap"
        let capture = try startCapture(net, ["-w", pcap, "--fail-on", "never", "-F", Self.discoveryOnly], dir: dir)
        waitForFile(pcap, capture)
        try sendSearches(net, 3)
        usleep(500_000)
        #expect(try runProcess("/usr/sbin/ip", ["-n", net.a, "link", "set", net.ifA, "down"]).status == 0)
        #expect(waitForExit(capture), "the capture ends by itself")
        #expect(capture.terminationStatus == 2)
        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(err.contains("discoscope: \(net.ifA): the interface went down; capture stopped"), "\(err)")
        #expect(out.contains("\nSummary\n") && out.contains("frames      3 read"), "\(out)")
        let again = try run(["analyze", pcap, "--fail-on", "never", "-q"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("frames      3 read"))
    }

    /// A full disk under `-w` is an error naming the file; the file keeps every whole record
    /// written before it (readable), and the capture ends with its summary.
    @Test func fullDiskUnderTheCaptureFileIsAnErrorNamingItWithEverythingBeforeKept() throws {
        let net = try VethPair()
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let small = dir + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mount = try runProcess("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=16k,mode=0777", "tmpfs", small])
        try #require(mount.status == 0, "a 16 KiB tmpfs: \(mount.stderr)")
        defer { _ = try? runProcess("/usr/bin/umount", ["-l", small]) }
        let pcap = small + "/full.pcap"
        let capture = try startCapture(net, ["-w", pcap, "--fail-on", "never"], dir: dir)
        waitForFile(pcap, capture)
        try sendSearches(net, 400)
        #expect(waitForExit(capture), "the capture ends by itself")
        #expect(capture.terminationStatus == 2)
        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(
            err.contains("discoscope: \(pcap): cannot write the capture file (No space left on device); it holds the "),
            "\(err)")
        #expect(out.contains("\nSummary\n"))
        // The number of packets the message promises is what the file holds, all readable.
        let promised = err.components(separatedBy: "it holds the ").dropFirst().first?.split(separator: " ").first
            .flatMap { Int($0) }
        let again = try run(["analyze", pcap, "--fail-on", "never", "-q"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(promised.map { again.stdout.contains("frames      \($0) read") } == true, "\(again.stdout)")
    }
}
