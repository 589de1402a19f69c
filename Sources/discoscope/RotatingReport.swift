import ArgumentParser
import Capture
import Glibc

/// `capture -G SECONDS -C SIZE -W COUNT`: tcpdump's rotation, for the `-w` capture file and a
/// JSON lines `-o` report (what the names are and when files change: `RotationPolicy`).
struct RotationOptions: ParsableArguments {
    @Option(
        name: .customShort("G"),
        help: ArgumentHelp(
            "Rotate -w (and a --format jsonl -o report) every SECONDS, as tcpdump -G: the name is passed through strftime(3) with the local time the file began, e.g. -w cap-%Y%m%d-%H%M.pcap; a file changes at its first record after SECONDS.",
            valueName: "seconds"))
    var rotateSeconds: Int?

    @Option(
        name: .customShort("C"),
        help: ArgumentHelp(
            "Start a new file before a record when the current one is larger than SIZE, as tcpdump -C: millions of bytes (1,000,000), or with k, m, g 1,024, 1,048,576, 1,073,741,824 bytes. Later files have a number after the name: 1, 2, ….",
            valueName: "size"))
    var fileSize: String?

    @Option(
        name: .customShort("W"),
        help: ArgumentHelp(
            "With -C: keep a ring of COUNT files (numbers 0 to COUNT-1, zero-padded, then 0 again). With -G alone: stop the capture when COUNT files are written. As tcpdump -W.",
            valueName: "count"))
    var fileCount: Int?

    @Flag(
        name: .long,
        help:
            "With --format jsonl -o FILE: append to FILE when it exists instead of replacing it (a sensor that restarts keeps the lines it reported)."
    )
    var append = false

    func validate() throws {
        if let g = rotateSeconds, g < 1 { throw ValidationError("-G needs a positive number of seconds.") }
        if let c = fileSize, RotationPolicy.parseSize(c) == nil {
            throw ValidationError(
                "-C \(c): give a size in millions of bytes (as tcpdump: -C 100), or with a suffix k, m or g (-C 512k)")
        }
        if let w = fileCount, w < 1 { throw ValidationError("-W needs a positive count of files.") }
        if fileCount != nil && !rotates { throw ValidationError("-W goes with -C or -G (as tcpdump's).") }
    }

    var rotates: Bool { rotateSeconds != nil || fileSize != nil }

    /// The policy for an output named `template`.
    func policy(_ template: String) -> RotationPolicy {
        RotationPolicy(
            template: template, seconds: rotateSeconds.map(Int64.init),
            bytes: fileSize.flatMap(RotationPolicy.parseSize),
            count: fileCount)
    }

    /// Checks against the outputs given: rotation needs a file to rotate, and rotates only a
    /// capture file and JSON lines (a SARIF, JUnit or HTML report is one document; text is
    /// for reading as it comes).
    func check(writeFile: String?, output: OutputOptions) throws {
        if append && (output.format != .jsonl || output.output == nil || output.output == "-") {
            throw ValidationError("--append goes with --format jsonl -o FILE (a JSON lines report to a file)")
        }
        guard rotates else { return }
        let given = [rotateSeconds.map { _ in "-G" }, fileSize.map { _ in "-C" }].compactMap { $0 }
        let flags = given.joined(separator: " and ")
        let rotate = given.count == 1 ? "rotates" : "rotate"
        if writeFile == "-" {
            throw ValidationError("\(flags) \(rotate) files: -w - (standard output) cannot rotate; give -w FILE")
        }
        if let o = output.output, output.format != .jsonl {
            throw ValidationError(
                "\(flags) \(rotate) only the -w capture file and a JSON lines report: -o \(o) with --format \(output.format.rawValue) cannot rotate; give --format jsonl, or leave -o out"
            )
        }
        if output.output == "-" {
            throw ValidationError("\(flags) \(rotate) files: -o - (standard output) cannot rotate; give -o FILE")
        }
        if writeFile == nil && output.output == nil {
            throw ValidationError(
                "\(flags) \(rotate) the -w capture file and a --format jsonl -o report: give -w FILE or -o FILE")
        }
    }
}

/// `capture --format jsonl -o FILE`: the report through a `RotatingFile`, so it rotates with
/// `-G`/`-C`/`-W` (between lines only) and reopens on SIGHUP. Without rotation a failed write
/// ends the capture, as for any report; with rotation it is said once and the capture goes on.
final class RotatingReportSink: ReportSink {
    let file: RotatingFile
    var flushEachWrite = false

    init(_ file: RotatingFile) { self.file = file }

    var name: String { file.path }
    var failure: Int32? { file.fatal }
    var isTerminal: Bool { false }

    func write(_ text: String) {
        var t = text
        t.withUTF8 { file.write(lines: UnsafeRawBufferPointer($0)) }
    }

    func write(bytes: UnsafeRawBufferPointer) { file.write(lines: bytes) }

    /// Every line reaches the file as it is written: nothing to flush.
    func flush() {}

    func close() -> String? {
        guard let problem = file.close() else { return nil }
        if let code = file.fatal {
            return
                "\(file.path): cannot write the report (\(String(cString: strerror(code)))); the report is incomplete"
        }
        return problem + "; the report is incomplete"
    }
}

/// `capture`'s files: the `-w` capture file and a JSON lines report to a file, each of which
/// may rotate; SIGHUP reopens them, on the reading thread that writes them.
final class CaptureOutputs {
    var packets: CaptureFileOutput? = nil
    var report: RotatingReportSink? = nil
    /// The SIGHUPs handled so far.
    private var reopened = 0

    /// Reopens the files when a SIGHUP came since the last call.
    func reopenIfAsked(_ count: Int) {
        guard count != reopened else { return }
        reopened = count
        packets?.file.reopen()
        report?.file.reopen()
    }

    /// `-G` with `-W` wrote every file of one of the outputs: the capture ends.
    var finished: Bool { packets?.file.finished == true || report?.file.finished == true }

    /// Before the privilege drop: the rotating files are given to the user the capture will
    /// run as, which may have to replace them later (a ring coming back to its first name).
    func handOver(to privileges: PrivilegeOptions) {
        guard geteuid() == 0, !privileges.noDrop, let pw = getpwnam(privileges.user ?? "nobody") else { return }
        for file in [packets?.file, report?.file].compactMap({ $0 }) where file.policy.rotates {
            file.handOver(uid: pw.pointee.pw_uid, gid: pw.pointee.pw_gid)
        }
    }

    /// After the privilege drop: why a rotating output could not make its next file (its
    /// directory is not writable by the user now running), or nil.
    func directoryProblem() -> String? {
        for file in [packets?.file, report?.file].compactMap({ $0 }) where file.policy.rotates {
            let dir = file.directory
            guard access(dir, W_OK | X_OK) != 0 else { continue }
            let user = getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "uid \(geteuid())"
            return
                "\(file.flag) \(file.policy.template): the next files are made in \(dir) as \(user) (privileges are dropped before the first packet), who cannot write there: give -Z a user who can, or another directory"
        }
        return nil
    }
}
