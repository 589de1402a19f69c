import Foundation
import TestSupport
import Testing

/// A LAN of namespaces: a bridge (in a namespace of its own, IPv6 off) and one host per
/// role, each with eth0 on the bridge, 10.213.0.N/24, a link-local IPv6 address, and no route
/// out. Everything runs inside; teardown kills what is left in them and deletes them.
final class ProbeLAN {
    let tag: String
    let hosts: [String]
    var bridge: String { "dsL\(tag)" }

    init(hosts: [String]) throws {
        tag = String(getpid() % 10_000) + String(Int.random(in: 0..<100))
        self.hosts = hosts
        var steps: [[String]] = [
            ["netns", "add", bridge], ["-n", bridge, "link", "set", "lo", "up"],
            [
                "-n", bridge, "link", "add", "br0", "type", "bridge", "stp_state", "0", "forward_delay", "0",
                "mcast_snooping", "0",
            ],
        ]
        for (k, h) in hosts.enumerated() {
            let ns = name(h)
            let n = k + 1
            steps += [
                ["netns", "add", ns], ["-n", ns, "link", "set", "lo", "up"],
                ["-n", bridge, "link", "add", "p\(n)", "type", "veth", "peer", "name", "eth0", "netns", ns],
                ["-n", bridge, "link", "set", "p\(n)", "master", "br0"], ["-n", bridge, "link", "set", "p\(n)", "up"],
                ["-n", ns, "link", "set", "eth0", "address", "02:55:00:00:00:0\(n)"],
                ["-n", ns, "addr", "add", address(h) + "/24", "dev", "eth0"], ["-n", ns, "link", "set", "eth0", "up"],
                ["-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0"],
            ]
        }
        steps.append(["-n", bridge, "link", "set", "br0", "up"])
        _ = try? runProcess(
            "/usr/sbin/ip",
            ["netns", "exec", bridge, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
        for s in steps {
            let r = try runProcess("/usr/sbin/ip", s)
            if r.status != 0 {
                teardown()
                throw VethPair.SetupError(description: "ip \(s.joined(separator: " ")): \(r.stderr)")
            }
        }
        // IPv6 duplicate address detection on the link-local addresses (about 2 s).
        for h in hosts {
            for _ in 0..<60 {
                let r = try runProcess(
                    "/usr/sbin/ip", ["-n", name(h), "-6", "addr", "show", "dev", "eth0", "tentative"])
                if r.stdout.isEmpty { break }
                usleep(100_000)
            }
        }
    }

    func name(_ host: String) -> String { "ds\(host)\(tag)" }
    func address(_ host: String) -> String { "10.213.0.\((hosts.firstIndex(of: host) ?? 0) + 1)" }

    /// Starts `arguments` inside `host`'s namespace, output to `log`.
    @discardableResult
    func start(_ host: String, _ arguments: [String], log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = ["netns", "exec", name(host)] + arguments
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = h
        p.standardError = h
        p.environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TZ": "UTC"]
        try p.run()
        return p
    }

    /// Starts a long-running responder inside `host`'s namespace, detached (not a child of
    /// the test process: daemons that fork, such as minidlna, otherwise keep Foundation from
    /// noticing that other children ended). Teardown kills it with the namespace's processes.
    func daemon(_ host: String, _ arguments: [String], log: String) throws {
        // Python's Popen closes every inherited descriptor (close_fds) and starts a session of
        // its own; the shell's `&` would leave the test's pipes open in the daemon.
        let spawn = """
            import subprocess, sys
            log = open(sys.argv[1], "ab")
            subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=True,
                             start_new_session=True)
            """
        let r = try runProcess(
            "/usr/bin/python3", ["-c", spawn, log, "/usr/sbin/ip", "netns", "exec", name(host)] + arguments,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TZ": "UTC"])
        if r.status != 0 { throw VethPair.SetupError(description: "cannot start \(arguments[0]): \(r.stderr)") }
    }

    func teardown() {
        deleteNamespaces(hosts.map(name) + [bridge])
    }

    deinit { teardown() }
}

/// The `Uid:` lines of a running process's status, as they were read.
final class UIDLog {
    var lines: [String] = []
}

/// `discoscope probe` against real responders and a deliberately broken one, in namespaces.
@Suite(
    .serialized,
    .enabled(if: canUseNamespaces, "probe tests need root, iproute2 and permission to create network namespaces")
)
struct ProbeLiveTests {
    static let live = Fixtures.packageRoot + "/Tests/CLITests/Live/"
    static let hasZeroconf: Bool =
        (try? runProcess("/usr/bin/python3", ["-c", "import zeroconf"]))?.status == 0
    static let minimal = ProcessInfo.processInfo.environment["PROBE_TEST_MINIMAL"] != nil
    static let hasAvahi = !minimal && FileManager.default.isExecutableFile(atPath: "/usr/sbin/avahi-daemon")
    static let hasMiniDLNA = !minimal && FileManager.default.isExecutableFile(atPath: "/usr/sbin/minidlnad")
    static let brokenUUID = "b0b0b0b0-0000-4000-8000-00000000b0b0"
    static let redirectUUID = "c0c0c0c0-0000-4000-8000-00000000c0c0"

    func tempDir() throws -> String {
        let d = "/tmp/discoscope-probe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        chmod(d, 0o777)
        return d
    }

    /// The LAN with its responders started: the broken UPnP device always, python-zeroconf,
    /// avahi-daemon and minidlna where installed.
    func lan(_ dir: String) throws -> ProbeLAN {
        let net = try ProbeLAN(hosts: ["p", "b", "z", "a", "m"])
        try net.daemon(
            "b", ["/usr/bin/python3", Self.live + "broken_upnp.py", net.address("b"), "120"], log: dir + "/b.log")
        if Self.hasZeroconf {
            try net.daemon(
                "z", ["/usr/bin/python3", Self.live + "zc_service.py", net.address("z"), "120"], log: dir + "/z.log")
        }
        if Self.hasAvahi {
            let conf = """
                [server]
                host-name=probe-avahi
                use-ipv4=yes
                use-ipv6=yes
                allow-interfaces=eth0
                enable-dbus=no
                [wide-area]
                enable-wide-area=no
                [publish]
                publish-workstation=yes
                publish-hinfo=yes

                """
            try conf.write(toFile: dir + "/avahi.conf", atomically: true, encoding: .utf8)
            try net.daemon(
                "a",
                [
                    "unshare", "-m", "sh", "-c",
                    "mount -t tmpfs probe-test /run && mkdir -p /run/avahi-daemon && exec avahi-daemon -f \(dir)/avahi.conf --no-drop-root --no-chroot --no-rlimits",
                ], log: dir + "/a.log")
        }
        if Self.hasMiniDLNA {
            for sub in ["media", "db", "log"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
            }
            let conf = """
                port=8200
                network_interface=eth0
                media_dir=A,\(dir)/media
                friendly_name=probe-minidlna
                db_dir=\(dir)/db
                log_dir=\(dir)/log
                inotify=no
                notify_interval=30

                """
            try conf.write(toFile: dir + "/minidlna.conf", atomically: true, encoding: .utf8)
            try net.daemon(
                "m", ["minidlnad", "-f", dir + "/minidlna.conf", "-P", dir + "/m.pid", "-S"], log: dir + "/m.log")
        }
        // The responders start up and announce (zeroconf probes for about 1.5 s).
        usleep(3_000_000)
        return net
    }

    /// Runs `discoscope probe` in the probe host; returns the exit status (nil: it did not
    /// end within 40 s and was killed). The exit is read with waitpid: Foundation's Process
    /// does not always notice the end of a child that changed its user ID.
    func probe(_ net: ProbeLAN, _ args: [String], dir: String, uids: UIDLog? = nil) throws
        -> Int32?
    {
        let p = try net.start("p", [Fixtures.binary, "probe", "-i", "eth0"] + args, log: dir + "/probe.err")
        let pid = p.processIdentifier
        for _ in 0..<(40 * 20) {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return (status >> 8) & 0xFF }
            if r < 0 {
                // Reaped by Foundation first: it records the status (give it a moment).
                for _ in 0..<100 where p.isRunning { usleep(20_000) }
                return p.isRunning ? nil : p.terminationStatus
            }
            // The user IDs it runs as (real, effective, saved, file system), as it runs.
            if let uids, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })
            {
                uids.lines.append(String(line))
            }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        return nil
    }

    func objects(_ path: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func findsTheDevicesFlagsTheBrokenOneAndKeepsItsLimits() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let net = try lan(dir)
        let out = dir + "/out.jsonl"
        let pcap = dir + "/probe.pcap"
        let duration = 10.0
        let uids = UIDLog()
        let status = try probe(
            net, ["--duration", "10", "--format", "jsonl", "-o", out, "-w", pcap], dir: dir, uids: uids)
        // Privileges are dropped to nobody once the capture and the sockets are open.
        let nobody = getpwnam("nobody").map { String($0.pointee.pw_uid) } ?? "65534"
        let last = uids.lines.last?.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst() ?? []
        #expect(last.count == 4 && last.allSatisfy { $0 == nobody }, "\(uids.lines.suffix(2))")
        let err = (try? String(contentsOfFile: dir + "/probe.err", encoding: .utf8)) ?? ""
        // The broken device has errors: exit status 1 with the default --fail-on error.
        #expect(status == 1, "\(err)")
        let records = objects(out)
        let findings = records.filter { $0["type"] as? String == "finding" }
        let broken = findings.filter { $0["device"] as? String == "uuid:\(Self.brokenUUID)" }
        let brokenRules = Set(broken.compactMap { $0["rule"] as? String })
        // Wrong UDN in the description, a service without controlURL, an ssdp:all search
        // answered with half of the announced set, unicast searches never answered.
        #expect(brokenRules.isSuperset(of: ["SSDP-603", "SSDP-605", "SSDP-505", "SSDP-519"]), "\(brokenRules) \(err)")
        // A LOCATION that redirects off the link: reported, never followed.
        let moved = findings.filter { $0["device"] as? String == "uuid:\(Self.redirectUUID)" }
        #expect(
            moved.contains {
                $0["rule"] as? String == "SSDP-601" && ($0["message"] as? String)?.contains("302") == true
            })
        let devices = records.filter { $0["type"] as? String == "device" }.compactMap { $0["id"] as? String }
        #expect(devices.contains(Self.brokenUUID), "\(devices)")
        if Self.hasZeroconf { #expect(devices.contains("probe-zc.local."), "\(devices)") }
        if Self.hasAvahi { #expect(devices.contains("probe-avahi.local."), "\(devices)") }
        if Self.hasMiniDLNA {
            let dlna = devices.filter { $0.hasPrefix("4d696e69-444c-164e-9d41-") }
            #expect(dlna.count == 1, "\(devices)")
            // minidlna's description is consistent with its announcements.
            let dlnaRules = findings.filter { ($0["device"] as? String)?.hasPrefix("uuid:4d696e69") == true }
                .compactMap { $0["rule"] as? String }
            #expect(!dlnaRules.contains { $0.hasPrefix("SSDP-60") }, "\(dlnaRules)")
        }
        // Our messages are marked.
        let messages = records.filter { $0["type"] as? String == "message" }
        let ours = messages.filter { $0["ours"] as? Bool == true }
        #expect(ours.count >= 10)
        #expect(
            ours.allSatisfy {
                $0["src"] as? String == net.address("p") || ($0["src"] as? String)?.hasPrefix("fe80:") == true
            })

        // The -w file holds our probes: count them (by source address) and check the rate
        // (at most 20 in any one-second window) and the duration limit.
        let offline = try run(["analyze", pcap, "--format", "jsonl", "--fail-on", "never"])
        let probeV6 = ours.compactMap { $0["src"] as? String }.first { $0.hasPrefix("fe80:") }
        let sent = offline.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "message" }
            .filter { ($0["src"] as? String) == net.address("p") || ($0["src"] as? String) == probeV6 }
            .compactMap { $0["time"] as? Double }.sorted()
        #expect(sent.count == ours.count, "the -w file and the live report disagree on what we sent")
        #expect(sent.count >= 10)
        var maxInWindow = 0
        for (k, t) in sent.enumerated() {
            maxInWindow = max(maxInWindow, sent[k...].prefix { $0 < t + 1.0 }.count)
        }
        #expect(maxInWindow <= 20, "\(maxInWindow) packets within one second")
        if let first = sent.first, let last = sent.last {
            #expect(last - first <= duration, "sent over \(last - first) s")
        }
        // Sent only to the groups and the devices of this link.
        let allowed: Set<String> = ["239.255.255.250", "224.0.0.251", "ff02::c", "ff02::fb"]
        let dsts = offline.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["type"] as? String == "message" && $0["src"] as? String == net.address("p") }
            .compactMap { $0["dst"] as? String }
        #expect(dsts.allSatisfy { allowed.contains($0) || $0.hasPrefix("10.213.0.") }, "\(Set(dsts))")
    }

    /// #53: `--profile` gates probe's exit status. minidlna is a MediaServer whose
    /// description has ContentDirectory and ConnectionManager (PROF-501): the gate passes;
    /// nothing on the LAN is a Roku: that gate fails. `--fail-on never`: the broken device's
    /// own errors do not decide the status.
    @Test(.enabled(if: hasMiniDLNA, "needs minidlna (Debian package minidlna)"))
    func aProfileGateDecidesProbesExitStatus() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let net = try lan(dir)
        let out = dir + "/gate.jsonl"
        let args = ["--duration", "5", "--protocol", "ssdp", "--fail-on", "never", "--format", "jsonl", "-o", out]
        let met = try probe(net, args + ["--profile", "upnp-mediaserver"], dir: dir)
        let err = (try? String(contentsOfFile: dir + "/probe.err", encoding: .utf8)) ?? ""
        #expect(met == 0, "\(err)")
        let summary = objects(out).first { $0["type"] as? String == "summary" } ?? [:]
        let profiles = summary["profiles"] as? [[String: Any]] ?? []
        let server = profiles.first { $0["profile"] as? String == "upnp-mediaserver" }
        #expect(server?["gated"] as? Bool == true && server?["passed"] as? Bool == true, "\(profiles)")
        #expect(try probe(net, args + ["--profile", "roku-ecp"], dir: dir) == 1)
    }

    @Test func junitHasASuitePerDeviceAndSARIFValidates() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let net = try lan(dir)
        let junit = dir + "/probe.xml"
        #expect(
            try probe(net, ["--duration", "5", "--protocol", "ssdp", "--format", "junit", "-o", junit], dir: dir) == 1)
        let p = try runProcess("/usr/bin/python3", [Fixtures.packageRoot + "/scripts/parse-junit.py", junit])
        #expect(p.status == 0, "\(p.stderr)")
        let suite = p.lines.first { $0.hasPrefix("suite ssdp uuid:\(Self.brokenUUID)") }
        #expect(suite != nil, "\(p.stdout)")
        #expect(p.lines.contains { $0.hasPrefix("failure ssdp uuid:\(Self.brokenUUID)") && $0.contains("SSDP-603") })
        let sarif = dir + "/probe.sarif"
        _ = try probe(net, ["--duration", "4", "--protocol", "ssdp", "--format", "sarif", "-o", sarif], dir: dir)
        let v = try runProcess(
            "/usr/bin/python3",
            [
                Fixtures.packageRoot + "/scripts/validate-sarif.py",
                Fixtures.packageRoot + "/Tests/Schemas/sarif-schema-2.1.0.json", sarif,
            ])
        #expect(v.status == 0 && v.stdout.hasPrefix("valid"), "\(v.stdout) \(v.stderr)")
        let text = (try? String(contentsOfFile: sarif, encoding: .utf8)) ?? ""
        #expect(text.contains("SSDP-603"))
    }
}
