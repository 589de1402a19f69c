import Foundation
import TestSupport
import Testing

/// An output path that is one of the input captures (the same path, another spelling of it,
/// a symbolic or hard link) is refused before anything is opened: exit status 2, one line
/// naming the path, and the capture left byte for byte as it was.
@Suite struct OutputOntoInputTests {
    /// A scratch directory holding a copy of captures/link/ethernet.pcap as `lan.pcap`.
    struct Scratch {
        let dir: String
        let capture: String
        let original: Data

        init() throws {
            dir = try scratchDirectory()
            try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
            capture = dir + "/lan.pcap"
            original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture("link/ethernet.pcap")))
            try original.write(to: URL(fileURLWithPath: capture))
        }

        var untouched: Bool { FileManager.default.contents(atPath: capture) == original }
    }

    /// The output paths that name the capture: itself, through `sub/..`, a hard link, a
    /// symbolic link.
    static func outputPaths(_ s: Scratch) throws -> [String] {
        try FileManager.default.linkItem(atPath: s.capture, toPath: s.dir + "/hard.pcap")
        try FileManager.default.createSymbolicLink(atPath: s.dir + "/link.pcap", withDestinationPath: s.capture)
        return [s.capture, s.dir + "/sub/../lan.pcap", s.dir + "/hard.pcap", s.dir + "/link.pcap"]
    }

    @Test(arguments: ["-w", "-o", "--write-baseline"])
    func analyzeRefusesAnOutputThatIsTheInputCapture(flag: String) throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        for path in try Self.outputPaths(s) {
            let r = try discoscope(["analyze", s.capture, flag, path, "--fail-on", "never"])
            #expect(r.status == 2, "\(flag) \(path)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(flag) \(path): \(r.stderr)")
            #expect(lines.first?.hasPrefix("discoscope: \(flag) \(path): refused") == true, "\(r.stderr)")
            #expect(lines.first?.contains("would destroy it") == true)
            #expect(r.stdout.isEmpty, "nothing is analysed")
            #expect(s.untouched, "\(flag) \(path) changed the capture")
        }
    }

    @Test func theCaptureOnStandardInputIsProtectedToo() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let r = try runProcess(
            "/bin/sh", ["-c", "\"$0\" analyze - -w \"$1\" --fail-on never < \"$1\"", Fixtures.binary, s.capture])
        #expect(r.status == 2)
        #expect(r.stderr.contains("the capture read from standard input"))
        #expect(s.untouched)
    }

    @Test(arguments: [["inventory"], ["explain", "192.168.1.20"]])
    func reportCommandsRefuseAnOutputThatIsAnInput(command: [String]) throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let r = try discoscope(command + [s.capture, "-o", s.dir + "/sub/../lan.pcap"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("discoscope: -o \(s.dir)/sub/../lan.pcap: refused"))
        #expect(s.untouched)
    }

    @Test func diffRefusesAnOutputThatIsEitherSide() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let other = Fixtures.capture("link/ipv4.pcap")
        for args in [[s.capture, other], [other, s.capture]] {
            let r = try discoscope(["diff"] + args + ["-o", s.capture])
            #expect(r.status == 2)
            #expect(r.stderr.hasPrefix("discoscope: -o \(s.capture): refused"))
            #expect(s.untouched)
        }
    }

    @Test func anOutputBesideTheInputIsWritten() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let r = try discoscope([
            "analyze", s.capture, "-w", s.dir + "/out.pcap", "-o", s.dir + "/report.txt", "--fail-on", "never",
        ])
        #expect(r.status == 0)
        #expect(FileManager.default.fileExists(atPath: s.dir + "/report.txt"))
        #expect((FileManager.default.contents(atPath: s.dir + "/out.pcap")?.count ?? 0) > 24 + 5 * 16)
    }

    @Test func twoOutputsOnOneFileAreRefused() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let out = s.dir + "/out"
        let r = try discoscope(["analyze", s.capture, "-w", out, "-o", out])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("discoscope: -w \(out) and -o \(out) name the same file"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func packetsToStandardOutputNeedTheReportElsewhere() throws {
        let r = try discoscope(["analyze", Fixtures.capture("link/ethernet.pcap"), "-w", "-"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("-w - writes the packets to standard output"))
    }

    @Test func packetsGoToStandardOutputWhenTheReportGoesToAFile() throws {
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runProcess(
            "/bin/sh",
            [
                "-c", "\"$0\" analyze \"$1\" -w - -o report.txt --fail-on never > out.pcap", Fixtures.binary,
                Fixtures.capture("link/ethernet.pcap"),
            ],
            currentDirectory: dir)
        #expect(r.status == 0)
        let packets = FileManager.default.contents(atPath: dir + "/out.pcap") ?? Data()
        // A pcap file's magic number (little-endian, nanosecond resolution), then the packets.
        #expect(packets.prefix(4).elementsEqual([0x4D, 0x3C, 0xB2, 0xA1]))
        #expect(packets.count > 24 + 5 * 16)
        #expect(!FileManager.default.fileExists(atPath: dir + "/-"), "no file named - is left behind")
    }
}
