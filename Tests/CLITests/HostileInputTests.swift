import Foundation
import TestSupport
import Testing

/// Bytes a terminal would act on: C0 controls other than line feed, DEL, C1 controls
/// (U+0080–U+009F) and the invisible controls that reorder text. Returns the first found.
func terminalControl(in text: String, allowing allowed: Set<UInt32> = [0x0A]) -> UInt32? {
    for s in text.unicodeScalars {
        let v = s.value
        if allowed.contains(v) { continue }
        if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || [0x200B, 0x200E, 0x200F].contains(v)
            || (0x2028...0x202E).contains(v) || (0x2060...0x2069).contains(v) || v == 0xFEFF
        {
            return v
        }
    }
    return nil
}

/// Packets anyone on the LAN can send must not drive the reader's terminal: every byte that
/// is not printable is shown escaped (`cat -v` style) in text output, with or without colour,
/// on a terminal or in a pipe; valid UTF-8 letters stay readable.
@Suite struct TerminalInjectionTests {
    static let capture = Fixtures.capture("hostile/terminal-injection.pcap")

    @Test(arguments: [["-v"], [], ["-q"]])
    func textOutputEscapesControlBytesFromPackets(_ extra: [String]) throws {
        let r = try run(["analyze", Self.capture, "--fail-on", "never"] + extra)
        #expect(r.status == 0)
        #expect(
            terminalControl(in: r.stdout) == nil, "control U+\(String(terminalControl(in: r.stdout) ?? 0, radix: 16))")
        #expect(r.stderr.isEmpty)
        if extra == ["-v"] {
            // SSDP start line, header names and values.
            #expect(r.stdout.contains("SERVER: ^[]0;pwned^G^[[2J"))
            #expect(r.stdout.contains("X-^[[1mBOLD: value with NUL ^@ DEL ^? BEL ^G CR ^M in it"))
            #expect(r.stdout.contains("X-C1: M-BM-^[2J"))
            #expect(r.stdout.contains("X-LETTERS: Küche — café ✓"))
            #expect(r.stdout.contains("SSDP other \"^[[2J^[[HM-bM-^@M-.GET / HTTP/1.1\""))
            // TXT and HINFO strings.
            #expect(r.stdout.contains("path=/^[]0;pwned^G^[[2J"))
            #expect(r.stdout.contains("note=Küche M-bM-^@M-.txt.exe"))
            #expect(r.stdout.contains("HINFO class 1 (flush) TTL 120 \"CPU^[]0;x^G\" \"OS^[[2J^M^J\""))
        }
        if extra != ["-q"] {
            #expect(r.stdout.contains("M-SEARCH ST=urn:^[]2;title^G:device:x:1 MX=2"))
        }
        // Finding messages that quote packet data.
        #expect(
            r.stdout.contains("MDNS-312 txt-key-syntax: TXT Bad Printer._ip\\027p._tcp.local. key \"k^[]0;pwned^G\""))
        #expect(r.stdout.contains("MDNS-316 service-name-syntax: service label _ip^[p:"))
        #expect(r.stdout.contains("MDNS-320 host-name-characters: host name host\\027[2J.local. has label host^[[2J"))
    }

    /// On a terminal, with colour: DiscoScope's own colour sequences are the only escape
    /// sequences that reach it.
    @Test func colouredTerminalOutputCarriesOnlyDiscoScopesOwnSequences() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-tty-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try runProcess(
            "/usr/bin/python3",
            [
                Fixtures.packageRoot + "/Tests/CLITests/Live/ttycapture.py", out, Fixtures.binary, "analyze",
                Self.capture, "-v", "--fail-on", "never",
            ],
            environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC", "TERM": "xterm"])
        #expect(r.status == 0)
        let seen = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        #expect(seen.contains("\u{1B}[31merror\u{1B}[0m"), "colour is on for a terminal")
        let withoutOwnColour = seen.replacingOccurrences(of: #"\x1B\[[0-9]+m"#, with: "", options: .regularExpression)
        #expect(terminalControl(in: withoutOwnColour) == nil)
        #expect(withoutOwnColour.contains("SERVER: ^[]0;pwned^G^[[2J"))
    }

    /// JSON lines keep the exact text (JSON escapes are lossless) and still parse; control
    /// characters JSON allows raw (DEL, C1) are escaped too.
    @Test func jsonLinesEscapeEveryControlCharacterAndParse() throws {
        let r = try run(["analyze", Self.capture, "--format", "jsonl", "--fail-on", "never"])
        #expect(r.status == 0)
        #expect(terminalControl(in: r.stdout) == nil)
        var server: String?
        for line in r.lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil)
            if let headers = object?["headers"] as? [[String]] {
                server = server ?? headers.first { $0.first == "SERVER" }?.last
            }
        }
        #expect(server == "\u{1B}]0;pwned\u{07}\u{1B}[2J")
        #expect(r.stdout.contains(#"\u009b2J"#))
    }

    /// A hostile capture file name echoed in a message on standard error.
    @Test func hostileFileNameIsEscapedOnStandardError() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-name-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = dir + "/x\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}1m.pcap"
        try Data((0..<64).map { UInt8($0) }).write(to: URL(fileURLWithPath: name))
        // A readable file after it, so that a summary is printed (none follows when no input
        // could be read).
        let r = try run(["analyze", name, Fixtures.capture("link/ethernet.pcap"), "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(terminalControl(in: r.stderr) == nil)
        #expect(r.stderr.contains("x^[]0;pwned^G^[[2JM-BM-^[1m.pcap: not a pcap or pcapng capture file"))
        // The summary's "files" and "input error" rows name it escaped too.
        #expect(terminalControl(in: r.stdout) == nil)
        #expect(r.stdout.contains("x^[]0;pwned^G^[[2JM-BM-^[1m.pcap"))
    }
}

/// A report that could not be written is an error naming the output (exit 2), never a
/// silent success that makes a CI job believe the report exists.
@Suite struct LostReportTests {
    @Test(arguments: ["text", "jsonl", "sarif", "junit"])
    func reportToAFullDeviceIsAnErrorNamingIt(_ format: String) throws {
        let r = try run([
            "analyze", Fixtures.capture("link/ethernet.pcap"), "--format", format, "-o", "/dev/full", "--fail-on",
            "never",
        ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/dev/full: cannot write the report (No space left on device)"), "\(r.stderr)")
    }

    @Test func standardOutputOnAFullDeviceIsAnError() throws {
        let r = try runProcess(
            "/bin/sh",
            [
                "-c", "exec \"$0\" analyze \"$1\" --fail-on never > /dev/full", Fixtures.binary,
                Fixtures.capture("link/ethernet.pcap"),
            ])
        #expect(r.status == 2)
        #expect(r.stderr.contains("standard output: cannot write the report (No space left on device)"), "\(r.stderr)")
    }
}

/// Anything that can be read as a stream is read as one (libpcap reads streams; gzip too):
/// process substitution, `/dev/stdin` on a pipe, a FIFO. A device that is not a capture gets
/// a real reason, not "empty file".
@Suite struct StreamInputTests {
    static let plain = Fixtures.capture("link/ethernet.pcap")
    static let compressed = Fixtures.capture("format/ethernet.pcap.gz")

    func messages(_ r: ProcessResult) -> Int { r.lines.filter { $0.contains("\"type\":\"message\"") }.count }

    func bash(_ script: String, _ args: [String]) throws -> ProcessResult {
        try runProcess("/bin/bash", ["-c", script, Fixtures.binary] + args)
    }

    @Test(arguments: [plain, compressed])
    func processSubstitutionIsReadAsAStream(_ capture: String) throws {
        let r = try bash(#"exec "$0" analyze <(cat "$1") --format jsonl --fail-on never"#, [capture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(messages(r) == 5)
    }

    @Test(arguments: [plain, compressed])
    func devStdinOnAPipeIsReadAsAStream(_ capture: String) throws {
        let r = try bash(#"cat "$1" | "$0" analyze /dev/stdin --format jsonl --fail-on never"#, [capture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(messages(r) == 5)
    }

    @Test func aFIFOIsReadAsAStream() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-fifo-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try bash(
            #"mkfifo "$2/in" && { cat "$1" > "$2/in" & } && exec "$0" analyze "$2/in" --format jsonl --fail-on never"#,
            [Self.plain, dir])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(messages(r) == 5)
    }

    @Test func aDeviceThatIsNotACaptureSaysWhatIsWrong() throws {
        let r = try run(["analyze", "/dev/urandom", "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(r.stderr == "discoscope: /dev/urandom: not a pcap or pcapng capture file (unknown file format)\n")
    }

    @Test func anEmptyStreamSaysItIsEmpty() throws {
        let r = try run(["analyze", "/dev/null", "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(r.stderr == "discoscope: /dev/null: empty input (no capture file header)\n")
    }
}

/// Messages say what is wrong once, in words that fit the problem.
@Suite struct InputMessageTests {
    @Test func unreadableFileNamesItsPathOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("discoscope-perm-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/secret.pcap"
        try FileManager.default.copyItem(atPath: Fixtures.capture("link/ethernet.pcap"), toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        // Root reads anything: run as nobody then (the binary and the fixtures are world-readable).
        let r =
            getuid() == 0
            ? try runProcess(
                "/usr/bin/setpriv",
                [
                    "--reuid=nobody", "--regid=nogroup", "--clear-groups", Fixtures.binary, "analyze", path,
                    "--fail-on", "never",
                ])
            : try run(["analyze", path, "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(r.stderr == "discoscope: \(path): Permission denied\n", "\(r.stderr)")
    }

    @Test func damagedGzipSaysWhatZlibFound() throws {
        let crc = try run(["analyze", Fixtures.capture("hostile/bad-crc.pcap.gz"), "--fail-on", "never"])
        #expect(crc.status == 2)
        #expect(
            crc.stderr.contains("bad-crc.pcap.gz: the gzip-compressed data is damaged (incorrect data check)"),
            "\(crc.stderr)")
        #expect(!crc.stderr.contains("ioctl"))
        let cut = try run([
            "analyze", Fixtures.capture("hostile/cut.pcap.gz"), "--format", "jsonl", "--fail-on", "never",
        ])
        #expect(cut.status == 2)
        #expect(
            cut.stderr.contains(
                "cut.pcap.gz: the gzip-compressed data is damaged (unexpected end of file); packets before it were processed"
            ), "\(cut.stderr)")
        #expect(cut.lines.contains { $0.contains("\"type\":\"message\"") })
    }

    @Test func aFileWhoseEveryFrameHasAnUnsupportedLinkTypeIsAnInputError() throws {
        let r = try run(["analyze", Fixtures.capture("link/unsupported-user0.pcap"), "--fail-on", "never"])
        #expect(r.status == 2)
        #expect(
            r.stderr.contains(
                "unsupported-user0.pcap: nothing could be analysed: all 2 frame(s) have link type USER0 (147)"),
            "\(r.stderr)")
        // A file with some frames of a supported link type is analysed as usual.
        #expect(try run(["analyze", Fixtures.capture("link/ethernet.pcap"), "--fail-on", "never"]).status == 0)
    }
}

/// A small compressed file of millions of records without data is read (it is a valid
/// capture), cheaply, and its cost is visible.
@Suite struct AmplificationTests {
    static let capture = Fixtures.capture("hostile/empty-records.pcap.gz")

    @Test func recordsWithoutDataAreCountedAsSuch() throws {
        let r = try run(["analyze", Self.capture, "--fail-on", "never"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("frames      200000 read"))
        #expect(r.stdout.contains("skipped     200000 × empty records (no captured bytes)"), "\(r.stdout)")
    }

    @Test func progressShowsHowMuchTheInputExpanded() throws {
        let tty = try runProcess(
            "/usr/bin/python3",
            [
                Fixtures.packageRoot + "/Tests/CLITests/Live/ptyrun.py", Fixtures.binary, "analyze", Self.capture,
                "--fail-on", "never",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(tty.stdout.contains("MB uncompressed)"), "\(tty.stdout)")
    }
}

/// Every bound a run reaches is reported once, with its value, in every format.
@Suite struct LimitReportTests {
    @Test func reassemblyLimitAndTimeoutAreExplained() throws {
        let capture = Fixtures.capture("hostile/fragment-flood.pcap")
        let t = try run(["analyze", capture, "--fail-on", "never"])
        #expect(t.status == 0)
        #expect(
            t.stdout.contains("skipped     44 × IP datagrams dropped from reassembly at its limit of 256 in progress"),
            "\(t.stdout)")
        #expect(
            t.stdout.contains(
                "skipped     256 × IP datagrams incomplete after 30 s of capture time (reassembly timeout, as Linux)"))
        #expect(
            t.stdout.components(
                separatedBy: "\n  limit       more than 256 IP datagrams were being reassembled at once"
            ).count == 2)
        #expect(
            t.stderr.components(separatedBy: "more than 256 IP datagrams").count == 2,
            "once on standard error: \(t.stderr)")
        let j = try run(["analyze", capture, "--format", "jsonl", "--fail-on", "never"])
        let summary = try JSONSerialization.jsonObject(with: Data((j.lines.last ?? "").utf8)) as? [String: Any]
        let limits = summary?["limits_reached"] as? [[String: Any]]
        #expect(limits?.count == 1)
        #expect(limits?.first?["limit"] as? String == "reassembly_datagrams")
        #expect(limits?.first?["value"] as? Int == 256)
        let s = try run(["analyze", capture, "--format", "sarif", "--fail-on", "never"])
        #expect(s.stdout.contains("more than 256 IP datagrams were being reassembled at once"))
    }

    @Test func deviceCountCapIsShownAsALowerBound() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "discoscope-devices-\(UUID().uuidString).pcap"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let gen = try runProcess(
            "/usr/bin/python3", [Fixtures.capture("make_hostile.py"), "--device-flood", path, "65600"])
        #expect(gen.status == 0, "\(gen.stderr)")
        // One cheap rule: the count does not depend on the rules.
        let r = try run(["analyze", path, "-q", "--enable", "SSDP-104", "--fail-on", "never"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("seen        65536+ device(s) or host(s)"), "\(r.stdout.suffix(600))")
        #expect(
            r.stdout.contains("limit       more than 65536 distinct devices or hosts: only the first 65536 are counted")
        )
        #expect(r.stderr.components(separatedBy: "more than 65536").count == 2)
    }
}

/// Inputs the fuzz targets found, kept as tests of the main package.
@Suite struct FuzzRegressionTests {
    /// Found by FuzzPipeline (FuzzTesting/Regressions/pipeline/ascii-dump-tab): a tab in a TXT
    /// string reached the terminal through `-A`.
    @Test func payloadDumpsCarryNoControlByte() throws {
        let capture = Fixtures.capture("hostile/tab-in-txt.pcap")
        for dump in [["-A"], ["-X"], ["-A", "-X", "-e", "-v"]] {
            let r = try run(["analyze", capture, "--fail-on", "never"] + dump)
            #expect(r.status == 0)
            #expect(terminalControl(in: r.stdout) == nil, "\(dump): \(r.stdout.debugDescription)")
        }
    }
}
