import Foundation
import TestSupport
import Testing

/// `capture -G/-C/-W` and SIGHUP on a live capture between two network namespaces: the files
/// tcpdump would name, every packet in exactly one of them (numbered packets, found again by
/// `analyze`), a ring of files, a reopen after a rename, and a full disk under a rotating
/// capture file that the capture survives.
@Suite(
    .serialized,
    .enabled(
        if: canUseNamespaces, "live rotation tests need root, iproute2 and permission to create network namespaces")
)
struct RotationLiveTests {
    let live = LiveCaptureTests()

    /// Sends M-SEARCHes numbered `first`… from namespace B, `gap` seconds apart.
    func sendNumbered(_ net: VethPair, from first: Int, count: Int, gap: Double = 0) throws {
        let r = try runProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.b, "/usr/bin/python3",
                Fixtures.packageRoot + "/Tests/CLITests/Live/send_numbered.py", net.addrB, String(first),
                String(count), String(gap),
            ])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The numbers of the M-SEARCHes in JSON lines text (the message records only).
    func numbers(inReport text: String) -> [Int] {
        text.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"message""#) }.compactMap { line in
            line.range(of: #"\["ST","urn:seq:[0-9]+"\]"#, options: .regularExpression).flatMap {
                Int(line[$0].dropFirst(15).dropLast(2))
            }
        }
    }

    /// The numbered packets a capture file holds, read by `analyze` (which fails on a file
    /// that is not whole).
    func numbers(inCapture path: String) throws -> [Int] {
        let r = try run(["analyze", path, "--format", "jsonl", "--fail-on", "never"])
        #expect(r.status == 0, "\(path): \(r.stderr)")
        return numbers(inReport: r.stdout)
    }

    func files(_ dir: String, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    func waitFor(_ what: () -> Bool, seconds: Double = 5) -> Bool {
        for _ in 0..<Int(seconds * 20) where !what() { usleep(50_000) }
        return what()
    }

    /// -G 1 on the capture file and the JSON lines report, names through strftime (UTC, as
    /// the test runs the capture with TZ=UTC), stopped with SIGTERM: several files of each,
    /// every packet in exactly one capture file and one report file, in order, and the
    /// summary once, at the end of the last report file.
    @Test func minusGRotatesBothOutputsByTimeWithEveryPacketOnceAndSIGTERMEndsWithTheSummary() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = try live.startCapture(
            net,
            [
                "-w", dir + "/p-%H%M%S.pcap", "-o", dir + "/r-%H%M%S.jsonl", "--format", "jsonl", "-G", "1",
                "--fail-on", "never", "-F", LiveCaptureTests.discoveryOnly,
            ], dir: dir)
        #expect(waitFor { !files(dir, prefix: "p-").isEmpty })
        usleep(300_000)
        try sendNumbered(net, from: 1, count: 36, gap: 0.1)
        usleep(300_000)
        capture.terminate()  // SIGTERM, as systemd stops a service
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 0, "\(text(dir + "/err"))")

        let pcaps = files(dir, prefix: "p-")
        let reports = files(dir, prefix: "r-")
        let name = #"^p-[0-9]{6}\.pcap$"#
        #expect(pcaps.allSatisfy { $0.range(of: name, options: .regularExpression) != nil }, "\(pcaps)")
        // 3.6 s of packets after the first file began: at least four files of each.
        #expect(pcaps.count >= 4 && reports.count >= 4, "\(pcaps) \(reports)")
        var captured: [Int] = []
        for f in pcaps { captured += try numbers(inCapture: dir + "/" + f) }
        #expect(captured == Array(1...36), "\(captured)")
        var reported: [Int] = []
        var summaries: [String] = []
        for f in reports {
            let body = text(dir + "/" + f)
            #expect(body.isEmpty || body.hasSuffix("\n"), "\(f) ends mid-line")
            reported += numbers(inReport: body)
            summaries += body.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"summary""#) }.map { _ in f }
        }
        #expect(reported == Array(1...36), "\(reported)")
        #expect(summaries == [reports.last ?? ""], "\(summaries)")
    }

    /// -C 2k -W 3: a ring of three capture files, numbered 0 to 2, each a whole capture file
    /// that was larger than the size only by its last packet; the newest packets are kept,
    /// the oldest overwritten, none twice.
    @Test func minusCWithMinusWKeepsARingOfWholeFiles() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = try live.startCapture(
            net,
            [
                "-w", dir + "/ring.pcap", "-C", "2k", "-W", "3", "--fail-on", "never", "-F",
                LiveCaptureTests.discoveryOnly,
            ],
            dir: dir)
        #expect(waitFor { !files(dir, prefix: "ring.pcap").isEmpty })
        usleep(300_000)
        try sendNumbered(net, from: 1, count: 120, gap: 0.002)
        usleep(500_000)
        capture.interrupt()
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 0, "\(text(dir + "/err"))")
        #expect(files(dir, prefix: "ring.pcap") == ["ring.pcap0", "ring.pcap1", "ring.pcap2"])
        var kept: [Int] = []
        for f in files(dir, prefix: "ring.pcap") {
            let size = (try? FileManager.default.attributesOfItem(atPath: dir + "/" + f)[.size] as? Int) ?? 0
            // One record of these is under 300 bytes.
            #expect(size <= 2048 + 300, "\(f): \(size) bytes")
            kept += try numbers(inCapture: dir + "/" + f)
        }
        kept.sort()
        #expect(Set(kept).count == kept.count, "a packet in two files: \(kept)")
        #expect(kept.last == 120 && kept.count < 120 && kept.count > 10, "\(kept)")
        // What is kept is the newest packets, without a gap.
        #expect(kept == Array((120 - kept.count + 1)...120), "\(kept)")
    }

    /// logrotate's way: rename the files, SIGHUP; the capture goes on into new files of the
    /// same names, and the renamed ones are whole (the capture file readable by tshark).
    @Test func sighupAfterARenameOpensNewFilesAndTheRenamedOnesAreWhole() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pcap = dir + "/s.pcap"
        let report = dir + "/s.jsonl"
        let capture = try live.startCapture(
            net,
            [
                "-w", pcap, "-o", report, "--format", "jsonl", "--fail-on", "never", "-F",
                LiveCaptureTests.discoveryOnly,
            ],
            dir: dir)
        live.waitForFile(pcap, capture)
        try sendNumbered(net, from: 1, count: 5)
        #expect(waitFor { numbers(inReport: text(report)).count == 5 })
        try FileManager.default.moveItem(atPath: pcap, toPath: pcap + ".1")
        try FileManager.default.moveItem(atPath: report, toPath: report + ".1")
        kill(capture.processIdentifier, SIGHUP)
        // Reopened between packets, with none arriving.
        #expect(
            waitFor { FileManager.default.fileExists(atPath: pcap) && FileManager.default.fileExists(atPath: report) })
        #expect(capture.isRunning, "SIGHUP must not end the capture")
        try sendNumbered(net, from: 6, count: 7)
        #expect(waitFor { numbers(inReport: text(report)).count == 7 })
        capture.interrupt()
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 0, "\(text(dir + "/err"))")

        #expect(try numbers(inCapture: pcap + ".1") == Array(1...5))
        #expect(try numbers(inCapture: pcap) == Array(6...12))
        let tshark = "/usr/bin/tshark"
        if FileManager.default.isExecutableFile(atPath: tshark) {
            let r = try runProcess(tshark, ["-r", pcap + ".1", "-T", "fields", "-e", "frame.number"])
            #expect(r.status == 0 && r.stdout.split(separator: "\n").count == 5, "\(r.stdout)\(r.stderr)")
        }
        #expect(numbers(inReport: text(report + ".1")) == Array(1...5))
        #expect(!text(report + ".1").contains(#""type":"summary""#))
        #expect(numbers(inReport: text(report)) == Array(6...12))
        #expect(text(report).split(separator: "\n").last?.hasPrefix(#"{"type":"summary""#) == true)
        let err = text(dir + "/err")
        #expect(err.contains("discoscope: -w \(pcap): reopened (SIGHUP)\n"), "\(err)")
        #expect(err.contains("discoscope: -o \(report): reopened (SIGHUP)\n"), "\(err)")
    }

    /// A full disk under a rotating capture file (a 64 KiB tmpfs) is said once, in one line;
    /// the capture and its report go on; once space is freed, the next file is written and
    /// that is said too. The run's exit status says packets were lost.
    @Test func aFullDiskUnderARotatingCaptureFileIsSaidOnceAndTheCaptureGoesOn() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let small = dir + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mount = try runProcess("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0777", "tmpfs", small])
        try #require(mount.status == 0, "a 64 KiB tmpfs: \(mount.stderr)")
        defer { _ = try? runProcess("/usr/bin/umount", ["-l", small]) }
        let report = dir + "/r.jsonl"
        let capture = try live.startCapture(
            net,
            [
                "-w", small + "/f-%H%M%S.pcap", "-G", "1", "-o", report, "--format", "jsonl", "--fail-on", "never",
                "-F", LiveCaptureTests.discoveryOnly,
            ], dir: dir)
        #expect(waitFor { !files(small, prefix: "f-").isEmpty })
        usleep(300_000)
        // About 90 KB of packets over two seconds: more than the disk holds.
        try sendNumbered(net, from: 1, count: 400, gap: 0.005)
        #expect(waitFor { numbers(inReport: text(report)).count == 400 })
        #expect(capture.isRunning, "the capture goes on: \(text(dir + "/err"))")
        let failures = text(dir + "/err").split(separator: "\n").filter { $0.contains("No space left on device") }
        #expect(failures.count == 1, "said once: \(failures)")
        #expect(failures.first?.hasPrefix("discoscope: -w \(small)/f-") == true, "\(failures)")
        // Space again: the next period's file is written.
        for f in files(small, prefix: "f-") { try FileManager.default.removeItem(atPath: small + "/" + f) }
        usleep(1_100_000)
        try sendNumbered(net, from: 401, count: 3, gap: 0.05)
        #expect(waitFor { numbers(inReport: text(report)).count == 403 })
        #expect(text(dir + "/err").contains(": writing again ("), "\(text(dir + "/err"))")
        capture.interrupt()
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 2, "packets were lost: \(text(dir + "/err"))")
        #expect(numbers(inReport: text(report)) == Array(1...403))
        var written: [Int] = []
        for f in files(small, prefix: "f-") { written += try numbers(inCapture: small + "/" + f) }
        #expect(written == [401, 402, 403], "\(written)")
        let err = text(dir + "/err")
        #expect(err.contains("record(s) could not be written during the capture"), "\(err)")
    }

    /// The packaged logrotate configuration, pointed at a test directory, its reload made a
    /// SIGHUP to the capture: logrotate renames the report, the capture begins a new one of
    /// the same name, and every line is in one of them, once.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/logrotate"),
            "logrotate is not installed: the packaged configuration is not exercised"))
    func thePackagedLogrotateConfigurationRotatesTheReportWithoutLosingALine() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A directory logrotate accepts (not writable by others) that the capture, running as
        // nobody, can make the new report in.
        let logs = dir + "/logs/eth"
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        chmod(logs, 0o755)
        let nobody = getpwnam("nobody")
        chown(logs, nobody?.pointee.pw_uid ?? 65534, nobody?.pointee.pw_gid ?? 65534)
        let report = logs + "/report.jsonl"
        let capture = try live.startCapture(
            net,
            [
                "-o", report, "--format", "jsonl", "--append", "--fail-on", "never", "-F",
                LiveCaptureTests.discoveryOnly,
            ],
            dir: dir)
        #expect(waitFor { FileManager.default.fileExists(atPath: report) })
        usleep(300_000)
        try sendNumbered(net, from: 1, count: 5)
        #expect(waitFor { numbers(inReport: text(report)).count == 5 })

        let packaged = try String(
            contentsOfFile: Fixtures.packageRoot + "/packaging/logrotate/discoscope", encoding: .utf8)
        #expect(packaged.contains("/var/log/discoscope/*/report.jsonl {") && packaged.contains("systemctl reload"))
        let config = packaged.replacingOccurrences(of: "/var/log/discoscope/", with: dir + "/logs/")
            .replacingOccurrences(
                of: "systemctl reload 'discoscope@*.service'", with: "/bin/kill -HUP \(capture.processIdentifier)")
        try config.write(toFile: dir + "/logrotate.conf", atomically: true, encoding: .utf8)
        chmod(dir + "/logrotate.conf", 0o644)
        let rotated = try runProcess(
            "/usr/sbin/logrotate", ["--force", "--state", dir + "/logrotate.state", dir + "/logrotate.conf"])
        #expect(rotated.status == 0 && rotated.stderr.isEmpty, "\(rotated.stdout)\(rotated.stderr)")
        #expect(waitFor { FileManager.default.fileExists(atPath: report) }, "no new report after the reload")
        try sendNumbered(net, from: 6, count: 7)
        #expect(waitFor { numbers(inReport: text(report)).count == 7 })
        capture.interrupt()
        #expect(live.waitForExit(capture))
        #expect(capture.terminationStatus == 0, "\(text(dir + "/err"))")
        // delaycompress: yesterday's file stays plain until the next rotation.
        #expect(numbers(inReport: text(report + ".1")) == Array(1...5))
        #expect(numbers(inReport: text(report)) == Array(6...12))
        #expect(text(report).split(separator: "\n").last?.hasPrefix(#"{"type":"summary""#) == true)
    }

    /// -G with -W and no -C, as tcpdump: the capture ends by itself when the COUNT files are
    /// written, with status 0 and its summary, and says why.
    @Test func minusGWithMinusWEndsTheCaptureAfterCountFiles() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let capture = try live.startCapture(
            net,
            [
                "-w", dir + "/w-%H%M%S.pcap", "-G", "1", "-W", "2", "--fail-on", "never", "-F",
                LiveCaptureTests.discoveryOnly,
            ], dir: dir)
        #expect(waitFor { !files(dir, prefix: "w-").isEmpty })
        try sendNumbered(net, from: 1, count: 40, gap: 0.1)
        #expect(live.waitForExit(capture), "the capture ends by itself")
        #expect(capture.terminationStatus == 0, "\(text(dir + "/err"))")
        #expect(files(dir, prefix: "w-").count == 2, "\(files(dir, prefix: "w-"))")
        #expect(
            text(dir + "/err").contains("the 2 file(s) of -W are written; capture stopped"), "\(text(dir + "/err"))")
        #expect(text(dir + "/out").contains("\nSummary\n"))
        var written: [Int] = []
        for f in files(dir, prefix: "w-") { written += try numbers(inCapture: dir + "/" + f) }
        // What the two files hold is the packets from the first, in order, up to the stop.
        #expect(!written.isEmpty && written == Array(1...written.count) && written.count < 40, "\(written)")
    }

    /// As the systemd unit runs it: not root, with CAP_NET_RAW and CAP_NET_ADMIN as ambient
    /// capabilities. Once the capture is open every thread holds none (they decode hostile
    /// packets), and the capture works.
    @Test func notRootWithAmbientCapabilitiesEveryThreadGivesThemUpOnceTheCaptureIsOpen() throws {
        let net = try VethPair()
        let dir = try live.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        p.arguments = [
            "netns", "exec", net.a, "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
            "--inh-caps=+net_raw,+net_admin", "--ambient-caps=+net_raw,+net_admin", Fixtures.binary, "capture", "-i",
            net.ifA, "-j", "3", "--format", "jsonl", "-o", dir + "/r.jsonl", "--fail-on", "never", "-F",
            LiveCaptureTests.discoveryOnly,
        ]
        _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/err"))
        try p.run()
        #expect(waitFor { FileManager.default.fileExists(atPath: dir + "/r.jsonl") })
        usleep(500_000)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task")) ?? []
        #expect(tasks.count >= 4, "\(tasks) \(text(dir + "/err"))")
        for t in tasks {
            let status = text("/proc/\(p.processIdentifier)/task/\(t)/status")
            for set in ["CapPrm", "CapEff", "CapAmb"] {
                #expect(status.contains("\(set):\t0000000000000000\n"), "thread \(t): \(status)")
            }
        }
        try sendNumbered(net, from: 1, count: 3)
        #expect(waitFor { numbers(inReport: text(dir + "/r.jsonl")).count == 3 }, "\(text(dir + "/err"))")
        p.interrupt()
        #expect(live.waitForExit(p))
        #expect(p.terminationStatus == 0, "\(text(dir + "/err"))")
    }
}
