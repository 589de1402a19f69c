import Foundation
import TestSupport
import Testing

/// Two links into one capturing namespace: namespaces L and I each hold one end of a veth
/// pair whose other end is in namespace C (the capture's), torn down on every path. Nothing
/// is routed out of them.
final class TwoLinks {
    let capture: String, lanNS: String, iotNS: String
    let lan: String, iot: String, lanPeer: String, iotPeer: String
    let lanAddress = "10.212.1.2", iotAddress = "10.212.2.2"

    init() throws {
        let tag = String(getpid() % 100_000) + String(Int.random(in: 0..<1000))
        capture = "dsC\(tag)"
        lanNS = "dsL\(tag)"
        iotNS = "dsI\(tag)"
        lan = "vL\(tag)"
        iot = "vI\(tag)"
        lanPeer = "vLp\(tag)"
        iotPeer = "vIp\(tag)"
        var steps: [[String]] = [["netns", "add", capture], ["netns", "add", lanNS], ["netns", "add", iotNS]]
        for (mine, peer, ns, net) in [(lan, lanPeer, lanNS, "10.212.1"), (iot, iotPeer, iotNS, "10.212.2")] {
            steps += [
                ["link", "add", mine, "type", "veth", "peer", "name", peer], ["link", "set", mine, "netns", capture],
                ["link", "set", peer, "netns", ns], ["-n", capture, "addr", "add", net + ".1/24", "dev", mine],
                ["-n", ns, "addr", "add", net + ".2/24", "dev", peer], ["-n", capture, "link", "set", mine, "up"],
                ["-n", ns, "link", "set", peer, "up"], ["-n", ns, "link", "set", "lo", "up"],
                ["-n", ns, "route", "add", "224.0.0.0/4", "dev", peer],
            ]
        }
        steps.append(["-n", capture, "link", "set", "lo", "up"])
        for s in steps {
            let r = try runProcess("/usr/sbin/ip", s)
            if r.status != 0 {
                teardown()
                throw VethPair.SetupError(description: "ip \(s.joined(separator: " ")): \(r.stderr)")
            }
        }
    }

    func teardown() {
        deleteNamespaces([capture, lanNS, iotNS])
    }

    deinit { teardown() }
}

/// `capture -i A -i B`: one handle per interface, merged in time order as the segments of one
/// session, each message and finding naming its interface; `-w` writes pcapng with one
/// interface description per interface, which `analyze` reads back as the same segments.
@Suite(
    .serialized,
    .enabled(if: canUseNamespaces, "live capture tests need root, iproute2 and permission to create network namespaces")
)
struct LiveSegmentTests {
    /// Starts `capture -i LAN -i IOT -w DIR/segments.pcapng` in the capturing namespace and
    /// waits until the -w file exists (every handle open, privileges dropped).
    func startCapture(_ net: TwoLinks, dir: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = [
            "netns", "exec", net.capture, Fixtures.binary, "capture", "-i", net.lan, "-i", net.iot, "-w",
            dir + "/segments.pcapng", "--format", "jsonl", "--fail-on", "never", "-F", LiveCaptureTests.discoveryOnly,
        ]
        _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out"))
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/err"))
        p.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
        try p.run()
        for _ in 0..<100 where p.isRunning && !FileManager.default.fileExists(atPath: dir + "/segments.pcapng") {
            usleep(50_000)
        }
        usleep(300_000)
        return p
    }

    func temporaryDirectory() throws -> String {
        let dir = "/tmp/discoscope-live-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o777)
        return dir
    }

    func send(_ net: TwoLinks, lan: Bool) throws -> Process {
        let s = Process()
        s.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        s.arguments = [
            "netns", "exec", lan ? net.lanNS : net.iotNS, "/usr/bin/python3",
            Fixtures.packageRoot + "/Tests/CLITests/Live/send_segment.py", lan ? net.lanAddress : net.iotAddress,
            lan ? "lan" : "iot",
        ]
        s.standardOutput = FileHandle.nullDevice
        try s.run()
        return s
    }

    func stop(_ p: Process) {
        p.interrupt()
        for _ in 0..<200 where p.isRunning { usleep(50_000) }
        if p.isRunning { p.terminate() }
    }

    @Test func twoInterfacesAreTwoSegmentsOfOneSessionAndTheirFileReadsBackTheSame() throws {
        let net = try TwoLinks()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcapng = dir + "/segments.pcapng"
        let p = try startCapture(net, dir: dir)
        #expect(p.isRunning, "\((try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")")
        // Both links send at once, so their packets interleave.
        for s in [try send(net, lan: true), try send(net, lan: false)] {
            s.waitUntilExit()
            #expect(s.terminationStatus == 0)
        }
        usleep(700_000)
        stop(p)
        #expect(p.terminationStatus == 0)

        let err = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(err.contains("listening on \(net.lan), link-type EN10MB") && err.contains("listening on \(net.iot), "))
        let lines = try String(contentsOfFile: dir + "/out", encoding: .utf8).split(separator: "\n").map(String.init)
        let live = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let messages = live.filter { $0["type"] as? String == "message" }
        #expect(messages.count == 6, "\(lines)")
        // One session: frames numbered in time order over both interfaces, each naming its own.
        #expect(messages.map { $0["frame"] as? Int } == Array(1...messages.count))
        let times = messages.compactMap { $0["time"] as? Double }
        #expect(times == times.sorted())
        for m in messages {
            let src = m["src"] as? String
            #expect(m["segment"] as? String == (src == net.lanAddress ? net.lan : net.iot), "\(m)")
        }
        let findings = live.filter { $0["type"] as? String == "finding" }
        #expect(Set(findings.compactMap { $0["segment"] as? String }) == [net.lan, net.iot])
        for rule in ["SSDP-104", "SSDP-005", "MDNS-102"] {
            #expect(findings.filter { $0["rule"] as? String == rule }.count == 2, "\(rule)")
        }
        let summary = try #require(live.last)
        #expect(summary["segments"] as? [String] == [net.lan, net.iot])
        #expect(summary["interface"] as? String == "\(net.lan)+\(net.iot)")

        // The pcapng file: one interface each, read back as the same segments and findings.
        let offline = try run(["analyze", pcapng, "--format", "jsonl", "--fail-on", "never"])
        #expect(offline.status == 0, "\(offline.stderr)")
        func body(_ lines: [String]) -> [String] {
            lines.filter { !$0.contains(#""type":"summary""#) }.map {
                $0.replacingOccurrences(of: #""file":"[^"]*","#, with: "", options: .regularExpression)
            }
        }
        #expect(body(lines).count > 12)
        #expect(body(lines) == body(offline.lines.map(String.init)))
        #expect(jsonRecords(offline).last?["segments"] as? [String] == [net.lan, net.iot])
    }

    /// One interface of two going down ends its part alone, said within the second; the
    /// other is still captured, and the run exits with status 2.
    @Test func anInterfaceThatGoesDownEndsAloneAndTheOtherGoesOn() throws {
        let net = try TwoLinks()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try startCapture(net, dir: dir)
        #expect(try runProcess("/usr/sbin/ip", ["-n", net.capture, "link", "set", net.iot, "down"]).status == 0)
        usleep(1_500_000)
        let said = try String(contentsOfFile: dir + "/err", encoding: .utf8)
        #expect(said.contains("discoscope: \(net.iot): the interface went down; capture stopped"), "\(said)")
        #expect(p.isRunning)
        let s = try send(net, lan: true)
        s.waitUntilExit()
        usleep(700_000)
        stop(p)
        #expect(p.terminationStatus == 2)
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(out.components(separatedBy: #""segment":"\#(net.lan)""#).count - 1 >= 6, "\(out)")
        #expect(out.contains(#""result":"input_error""#))
    }
}
