import Capture
import Foundation
import NetLayers
import Testing
import WireFormat

/// `capture -G/-C/-W` without a network: the names tcpdump would give, when a file changes,
/// and the files `RotatingFile` writes (whole records and lines, each once; a failure said
/// once), driven by a clock the test sets.
@Suite struct RotationTests {
    /// 2023-11-14 22:13:20 UTC.
    static let t0: Int64 = 1_700_000_000

    final class Clock: @unchecked Sendable {
        var now: Int64
        init(_ now: Int64) { self.now = now }
    }

    final class Warnings: @unchecked Sendable {
        var lines: [String] = []
    }

    func tempDir() throws -> String {
        let d = NSTemporaryDirectory() + "discoscope-rotation-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>"
    }

    @Test func namesPassThroughStrftimeOnlyWithMinusG() {
        let timed = RotationPolicy(template: "cap-%Y%m%d-%H%M%S.pcap", seconds: 3600, utc: true)
        #expect(timed.name(periodStart: Self.t0, number: 0) == "cap-20231114-221320.pcap")
        // Without -G the name is used as given, as tcpdump does.
        let plain = RotationPolicy(template: "cap-%Y.pcap", bytes: 1_000_000)
        #expect(plain.name(periodStart: Self.t0, number: 0) == "cap-%Y.pcap")
        #expect(plain.name(periodStart: Self.t0, number: 3) == "cap-%Y.pcap3")
        // A name strftime cannot fit in a path is refused, not cut.
        let long = RotationPolicy(template: String(repeating: "%Y", count: 3000), seconds: 1, utc: true)
        #expect(long.name(periodStart: Self.t0, number: 0) == nil)
    }

    @Test func minusCSizesAreMillionsOfBytesAsTcpdumpWithBinarySuffixes() {
        #expect(RotationPolicy.parseSize("1") == 1_000_000)
        #expect(RotationPolicy.parseSize("250") == 250_000_000)
        #expect(RotationPolicy.parseSize("2k") == 2048)
        #expect(RotationPolicy.parseSize("3M") == 3 << 20)
        #expect(RotationPolicy.parseSize("1g") == 1 << 30)
        for bad in ["0", "", "k", "-1", "1.5", "12x", "99999999999999999", "9999999999999"] {
            #expect(RotationPolicy.parseSize(bad) == nil, "\(bad)")
        }
    }

    /// The names of the files a size rotation opens, in order, after the first.
    func sizeRotation(_ policy: RotationPolicy, files: Int) -> [String] {
        var (state, _) = policy.first(at: Self.t0)
        var names: [String] = []
        for _ in 0..<files {
            #expect(policy.step(&state, now: Self.t0, size: 10) == .keep)
            guard case .open(let name) = policy.step(&state, now: Self.t0, size: 1001) else {
                Issue.record("no new file past the size")
                return names
            }
            names.append(name)
        }
        return names
    }

    @Test func minusCNumbersTheFilesAfterTheFirstAndMinusWMakesAZeroPaddedRing() {
        let open = RotationPolicy(template: "s.pcap", bytes: 1000)
        #expect(open.first(at: Self.t0).1 == "s.pcap")
        #expect(sizeRotation(open, files: 3) == ["s.pcap1", "s.pcap2", "s.pcap3"])
        // A file exactly at the size is not larger than it: no new file yet.
        var (state, _) = open.first(at: Self.t0)
        #expect(open.step(&state, now: Self.t0, size: 1000) == .keep)

        let ring = RotationPolicy(template: "r.pcap", bytes: 1000, count: 12)
        #expect(ring.first(at: Self.t0).1 == "r.pcap00")
        let names = sizeRotation(ring, files: 13)
        #expect(names.first == "r.pcap01" && names[10] == "r.pcap11" && names[11] == "r.pcap00", "\(names)")
        #expect(names[12] == "r.pcap01")
        // -W 10 needs one digit (0 to 9); -W 1 none: the one file is rewritten.
        #expect(sizeRotation(RotationPolicy(template: "t", bytes: 1000, count: 10), files: 10).last == "t0")
        #expect(sizeRotation(RotationPolicy(template: "u", bytes: 1000, count: 1), files: 2) == ["u", "u"])
    }

    @Test func minusGChangesFilesAtTheFirstRecordAfterThePeriodAndMinusWStopsAfterCountFiles() {
        let policy = RotationPolicy(template: "g-%H%M%S", seconds: 60, count: 3, utc: true)
        var (state, first) = policy.first(at: Self.t0)
        #expect(first == "g-221320")
        #expect(policy.step(&state, now: Self.t0 + 59, size: 1 << 40) == .keep)
        // Not on a clock boundary: the period runs from the record that began it.
        #expect(policy.step(&state, now: Self.t0 + 75, size: 0) == .open("g-221435"))
        #expect(policy.step(&state, now: Self.t0 + 134, size: 0) == .keep)
        #expect(policy.step(&state, now: Self.t0 + 135, size: 0) == .open("g-221535"))
        // The third file is written: the next period ends the capture.
        #expect(policy.step(&state, now: Self.t0 + 200, size: 0) == .stop)
        // Without -W it goes on.
        let endless = RotationPolicy(template: "g-%H%M%S", seconds: 60, utc: true)
        var (s2, _) = endless.first(at: Self.t0)
        for k in 1...5 { #expect(endless.step(&s2, now: Self.t0 + Int64(k) * 60, size: 0) != .keep) }
    }

    @Test func withMinusGAndMinusCTimeComesFirstAndRestartsTheNumbers() {
        // -W with both ring-numbers the files of each period (tcpdump does not stop then).
        let policy = RotationPolicy(template: "b-%M%S-", seconds: 60, bytes: 100, count: 3, utc: true)
        var (state, first) = policy.first(at: Self.t0)
        #expect(first == "b-1320-0")
        #expect(policy.step(&state, now: Self.t0 + 1, size: 101) == .open("b-1320-1"))
        #expect(policy.step(&state, now: Self.t0 + 2, size: 101) == .open("b-1320-2"))
        #expect(policy.step(&state, now: Self.t0 + 3, size: 101) == .open("b-1320-0"))
        // Time and size both due: time wins, the numbers start again.
        #expect(policy.step(&state, now: Self.t0 + 60, size: 101) == .open("b-1420-0"))
        #expect(policy.step(&state, now: Self.t0 + 61, size: 101) == .open("b-1420-1"))
        #expect(policy.step(&state, now: Self.t0 + 300, size: 0) == .open("b-1820-0"))
    }

    /// Lines written in pieces (a line split across writes, many lines per write) to a
    /// report rotating at 100 bytes: each file holds whole lines, each line is in exactly
    /// one file, and a file changes only when it is larger than the size.
    @Test func aRotatingReportChangesFilesOnlyBetweenLinesAndKeepsEveryLineOnce() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = Clock(Self.t0)
        let warnings = Warnings()
        let file = try RotatingFile(
            policy: RotationPolicy(template: dir + "/r.jsonl", bytes: 100), flag: "-o", ofLines: true,
            clock: { clock.now }, warn: { warnings.lines.append($0) })
        let lines = (1...40).map { #"{"line":\#($0),"pad":"\#(String(repeating: "x", count: $0 % 7))"}"# + "\n" }
        var text = lines.joined()
        var pieces: [String] = []
        while !text.isEmpty {
            let n = min(text.utf8.count, [5, 61, 17, 140, 3][pieces.count % 5])
            let cut = text.utf8.index(text.utf8.startIndex, offsetBy: n)
            pieces.append(String(text[..<cut]))
            text = String(text[cut...])
        }
        for p in pieces {
            var piece = p
            piece.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        }
        #expect(file.close() == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted {
            (Int($0.dropFirst(7)) ?? 0) < (Int($1.dropFirst(7)) ?? 0)
        }
        #expect(names.count > 5, "\(names)")
        var all = ""
        for (k, name) in names.enumerated() {
            let body = contents(dir + "/" + name)
            #expect(body.hasSuffix("\n") && !body.isEmpty, "\(name) ends mid-line: \(body)")
            all += body
            // Every file but the last went past the size with its last line, not before.
            if k < names.count - 1 {
                let lastLine = body.dropLast().split(separator: "\n").last.map { $0.utf8.count + 1 } ?? 0
                #expect(body.utf8.count > 100 && body.utf8.count - lastLine <= 100, "\(name): \(body.utf8.count)")
            }
        }
        #expect(all == lines.joined())
        #expect(warnings.lines.isEmpty)
    }

    /// A name without a time under -G: a capture file is overwritten each period, as tcpdump
    /// does; a report goes on in the same file (never overwritten by its own rotation).
    @Test func aReportNameWithoutATimeGoesOnWhereACaptureFileIsOverwritten() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = Clock(Self.t0)
        let report = try RotatingFile(
            policy: RotationPolicy(template: dir + "/r.jsonl", seconds: 1), flag: "-o", ofLines: true,
            clock: { clock.now }, warn: { Issue.record("warned: \($0)") })
        let capture = try RotatingFile(
            policy: RotationPolicy(template: dir + "/c.bin", seconds: 1), flag: "-w", header: [0x48],
            clock: { clock.now }, warn: { Issue.record("warned: \($0)") })
        for k in 0..<3 {
            var line = "\(k)\n"
            line.withUTF8 { report.write(lines: UnsafeRawBufferPointer($0)) }
            [UInt8(0x30 + k)].withUnsafeBytes { capture.write(record: $0) }
            clock.now += 1
        }
        #expect(report.close() == nil && capture.close() == nil)
        #expect(contents(dir + "/r.jsonl") == "0\n1\n2\n")
        #expect(contents(dir + "/c.bin") == "H2")
    }

    /// `--append`: a restarted sensor goes on at the end of its report, after the last line a
    /// killed run left unfinished rather than inside it; without it the file is replaced.
    @Test func appendingGoesOnAfterTheLinesThereAndFinishesABrokenLastLine() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/r.jsonl"
        try "one\ntw".write(toFile: path, atomically: true, encoding: .utf8)
        let file = try RotatingFile(
            policy: RotationPolicy(template: path), flag: "-o", ofLines: true, append: true, warn: { _ in })
        var line = "three\n"
        line.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        #expect(file.close() == nil)
        #expect(contents(path) == "one\ntw\nthree\n")
        let fresh = try RotatingFile(policy: RotationPolicy(template: path), flag: "-o", ofLines: true, warn: { _ in })
        #expect(fresh.close() == nil)
        #expect(contents(path) == "")
    }

    /// Records of a capture file rotating by size, read back by the repository's readers:
    /// pcap (libpcap) for one interface, pcapng (PcapNGSource) for two; every record once,
    /// in order, each file complete.
    @Test(arguments: [1, 2])
    func rotatedCaptureFilesReadBackWithEveryRecordOnce(interfaces: Int) throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let format: any CaptureFileFormat =
            interfaces == 1
            ? PcapFormat(linkType: .ethernet, snapLength: 262_144)
            : PcapNGFormat(
                interfaces: (0..<interfaces).map {
                    PcapNGWriter.Interface(name: "eth\($0)", linkType: .ethernet, snapLength: 262_144)
                })
        let output = try CaptureFileOutput(
            policy: RotationPolicy(template: dir + "/c.cap", bytes: 300, count: 100), format: format,
            clock: { Self.t0 }, warn: { Issue.record("warned: \($0)") })
        for k in 1...25 {
            let bytes = [UInt8](repeating: UInt8(k), count: 60 + k)
            let frame = RawFrame(
                number: k, time: Timestamp(seconds: Self.t0 + Int64(k), nanoseconds: 123_456_789),
                linkType: .ethernet, capturedLength: bytes.count, originalLength: bytes.count + 4,
                segment: UInt16(k % interfaces))
            let written = try bytes.withUnsafeBytes { b throws(CaptureError) in
                try output.write(interface: k % interfaces, frame: frame, bytes: b)
            }
            #expect(written)
        }
        #expect(output.file.close() == nil)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(names.count > 3 && names.first == "c.cap00", "\(names)")
        var seen: [Int] = []
        for name in names {
            let (_, delivered) = try readAll(dir + "/" + name)
            #expect(delivered.error == nil, "\(name): \(String(describing: delivered.error))")
            for f in delivered.frames {
                let k = Int(f.bytes.first ?? 0)
                seen.append(k)
                #expect(f.bytes.count == 60 + k && f.frame.originalLength == 64 + k)
                #expect(f.frame.time == Timestamp(seconds: Self.t0 + Int64(k), nanoseconds: 123_456_789))
                if interfaces > 1 { #expect(Int(f.frame.segment) == k % interfaces) }
            }
        }
        #expect(seen == Array(1...25))
    }

    /// A rotating output whose file cannot be written (here /dev/full) says so once, drops
    /// the records meanwhile (counted), and writes again from its next file, saying that too.
    @Test func aFullDiskIsSaidOnceAndTheOutputWritesAgainAtItsNextFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The first period's name leads to /dev/full; the next is a plain file.
        try FileManager.default.createSymbolicLink(atPath: dir + "/w-20", withDestinationPath: "/dev/full")
        let clock = Clock(Self.t0)
        let warnings = Warnings()
        let file = try RotatingFile(
            policy: RotationPolicy(template: dir + "/w-%S", seconds: 1, utc: true), flag: "-o",
            clock: { clock.now }, warn: { warnings.lines.append($0) })
        for _ in 0..<50 {
            var line = #"{"type":"message"}"# + "\n"
            line.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        }
        #expect(warnings.lines.count == 1, "\(warnings.lines)")
        #expect(
            warnings.lines.first?.hasPrefix(
                "-o \(dir)/w-20: cannot write (No space left on device); it keeps the 0 record(s)")
                == true, "\(warnings.lines)")
        #expect(file.lost == 50)
        clock.now += 1
        var line = #"{"type":"summary"}"# + "\n"
        line.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        #expect(
            warnings.lines.count == 2
                && warnings.lines.last == "-o \(dir)/w-21: writing again (50 record(s) were lost meanwhile)")
        #expect(contents(dir + "/w-21") == #"{"type":"summary"}"# + "\n")
        #expect(file.close()?.contains("50 record(s) could not be written") == true)
    }

    /// Without rotation a failed write is fatal (the capture ends, as a plain -w always did),
    /// and the file keeps its whole records.
    @Test func withoutRotationAFailedWriteEndsTheOutput() throws {
        let file = try RotatingFile(policy: RotationPolicy(template: "/dev/full"), flag: "-o", warn: { _ in })
        var line = "{}\n"
        line.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        #expect(file.fatal == ENOSPC)
        #expect(file.close() == "/dev/full: No space left on device")
    }

    /// SIGHUP after logrotate renamed the file: a new file of the same name, the renamed one
    /// complete; a file still in place is left alone.
    @Test func reopeningAfterARenameMakesANewFileAndLeavesTheRenamedOneWhole() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let warnings = Warnings()
        let file = try RotatingFile(
            policy: RotationPolicy(template: dir + "/r.jsonl"), flag: "-o", ofLines: true,
            warn: { warnings.lines.append($0) })
        var a = "a\n"
        a.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        file.reopen()
        #expect(warnings.lines.isEmpty, "nothing renamed: nothing reopened")
        try FileManager.default.moveItem(atPath: dir + "/r.jsonl", toPath: dir + "/r.jsonl.1")
        var b = "b\n"
        b.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        file.reopen()
        var c = "c\n"
        c.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
        #expect(file.close() == nil)
        #expect(contents(dir + "/r.jsonl.1") == "a\nb\n")
        #expect(contents(dir + "/r.jsonl") == "c\n")
        #expect(warnings.lines == ["-o \(dir)/r.jsonl: reopened (SIGHUP)"])
    }
}
