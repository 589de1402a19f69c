import CPcap
import Glibc
import NetLayers

/// `capture -G SECONDS -C SIZE -W COUNT`: tcpdump's rotation of its output files, for the
/// `-w` capture file and a JSON lines `-o` report. What a file is named and when the next one
/// starts, without any file: `RotatingFile` applies it.
///
/// As tcpdump (its `dump_packet_and_trunc` and `MakeFilename`):
/// - with `-G`, the name is passed through `strftime(3)` with the local time at which the file
///   (the period) began; without `-G` it is used as given;
/// - before a record is written, when `-G` seconds have passed since the period began, a new
///   period (and file) begins: rotation happens at the first record after the period, not on
///   a clock boundary, and a quiet link does not make empty files;
/// - then, with `-C`, when the current file is already larger than the size, the next file
///   begins: the name with a number after it (1, 2, …; with `-W`, zero-padded to the digits
///   `COUNT - 1` needs, and back to 0 after `COUNT - 1`: a ring of `COUNT` files);
/// - with `-G` and `-W` and no `-C`, the capture ends when file `COUNT + 1` would begin.
///
/// One departure: tcpdump names the first file of a `-G` period without a number even when
/// `-C` and `-W` ask for padded numbers; here every file of a `-C` rotation with `-W` is
/// numbered alike (`name0`, `name1`, …), so the names sort.
public struct RotationPolicy: Sendable, Equatable {
    /// The name as given with `-w` or `-o`.
    public var template: String
    /// `-G`: a new file after this many seconds.
    public var seconds: Int64?
    /// `-C`: a new file once the current one is larger than this many bytes.
    public var bytes: Int64?
    /// `-W`: the ring's size with `-C`; the number of files with `-G` alone.
    public var count: Int?
    /// Names in UTC instead of local time (tests; tcpdump uses local time).
    public var utc = false

    public init(template: String, seconds: Int64? = nil, bytes: Int64? = nil, count: Int? = nil, utc: Bool = false) {
        self.template = template
        self.seconds = seconds
        self.bytes = bytes
        self.count = count
        self.utc = utc
    }

    /// Whether files rotate at all (`-G` or `-C`).
    public var rotates: Bool { seconds != nil || bytes != nil }

    /// The digits of a file's number: with `-C` and `-W`, enough for `COUNT - 1` (tcpdump's
    /// `WflagChars`); else none (numbers as they come).
    public var numberDigits: Int {
        guard bytes != nil, let w = count, w > 1 else { return 0 }
        var digits = 0
        var rest = w - 1
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits
    }

    /// `-C SIZE`: millions of bytes, as tcpdump; with a suffix (as tcpdump 4.99.2) `k`/`K`
    /// 1,024 bytes, `m`/`M` 1,048,576, `g`/`G` 1,073,741,824. Nil for anything else, zero
    /// or a size past 2^62.
    public static func parseSize(_ text: String) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1_000_000
        switch digits.last {
        case "k", "K": unit = 1 << 10
        case "m", "M": unit = 1 << 20
        case "g", "G": unit = 1 << 30
        default: break
        }
        if unit != 1_000_000 { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits), n > 0
        else { return nil }
        let (size, overflow) = n.multipliedReportingOverflow(by: unit)
        guard !overflow, size <= 1 << 62 else { return nil }
        return size
    }

    /// The name of file `number` of the period that began at `time` (seconds since 1970);
    /// nil when `strftime` cannot format it within a path's length.
    public func name(periodStart time: Int64, number: Int) -> String? {
        var base = template
        if seconds != nil {
            var t = time_t(truncatingIfNeeded: time)
            var parts = tm()
            let converted = utc ? gmtime_r(&t, &parts) : localtime_r(&t, &parts)
            guard converted != nil else { return nil }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = strftime(&buffer, buffer.count, template, &parts)
            guard n > 0 else { return nil }
            base = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let digits = numberDigits
        guard number != 0 || digits != 0 else { return base }
        let text = String(number)
        return base + String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Where a rotation stands: when the current period began, the number of the current
    /// file within it, and how many periods began after the first.
    public struct State: Sendable, Equatable {
        public var periodStart: Int64
        public var number = 0
        public var periods = 0
        public init(periodStart: Int64) { self.periodStart = periodStart }
    }

    /// What to do before writing a record.
    public enum Step: Sendable, Equatable {
        /// Write it to the current file.
        case keep
        /// Close the current file and write it to a new one of this name.
        case open(String)
        /// `-G` with `-W`: the files are all written; the capture ends (the record unwritten).
        case stop
        /// The name cannot be formatted: the record cannot be written anywhere.
        case unnamed
    }

    /// The name of the first file, at `now`.
    public func first(at now: Int64) -> (State, String?) {
        let state = State(periodStart: now)
        return (state, name(periodStart: now, number: 0))
    }

    /// Before a record is written at `now` to a file holding `size` bytes: whether a new
    /// file begins (and `state` moves on), in tcpdump's order: time first, then size.
    public func step(_ state: inout State, now: Int64, size: Int64) -> Step {
        if let g = seconds {
            let (elapsed, overflow) = now.subtractingReportingOverflow(state.periodStart)
            if !overflow && elapsed >= g {
                state.periodStart = now
                state.periods = state.periods < Int.max ? state.periods + 1 : state.periods
                if bytes == nil, let w = count, state.periods >= w { return .stop }
                state.number = 0
                return name(periodStart: now, number: 0).map { .open($0) } ?? .unnamed
            }
        }
        if let c = bytes, size > c {
            state.number = state.number < Int.max ? state.number + 1 : 0
            if let w = count, state.number >= w { state.number = 0 }
            return name(periodStart: state.periodStart, number: state.number).map { .open($0) } ?? .unnamed
        }
        return .keep
    }
}

/// One output file of `capture`, written with `write(2)` (nothing buffered: each record is in
/// the file when `write` returns, so a killed process leaves whole records), which rotates as
/// its `RotationPolicy` says and reopens on request (SIGHUP, after logrotate renamed it).
/// Records are written whole or not at all: a write that fails cuts the file back to its
/// last whole record (for lines, its last whole line).
///
/// A failure ends the capture when the output does not rotate (as a plain `-w` always did):
/// `fatal` holds it. A rotating output is a sensor's: the failure is said once, the capture
/// goes on, and records are dropped (counted in `lost`) until the output is tried again, at
/// its next file, on a reopen, or after `retrySeconds`.
public final class RotatingFile {
    public let policy: RotationPolicy
    /// How messages name the output: its option (`-w`, `-o`).
    public let flag: String
    /// The file written now (`-`: standard output, which neither rotates nor reopens).
    public private(set) var path: String
    /// What each new file starts with (a capture file's header; nothing for JSON lines).
    private let header: [UInt8]
    /// A file of lines (a report): reopened after a rename it is appended to, and a rotation
    /// to the name it already has (a name without a time under `-G`) goes on writing it, so a
    /// report is never overwritten by its own rotation. A capture file is created anew (it
    /// must start with its header), and a name that repeats is overwritten, as tcpdump does.
    private let ofLines: Bool
    /// Seconds since 1970, for `-G` and names.
    private let clock: () -> Int64
    private let warn: (String) -> Void
    private var fd: Int32 = -1
    /// Bytes of whole records in the current file.
    private var length: Int64 = 0
    /// Records (or lines) in the current file.
    public private(set) var records = 0
    private var state: RotationPolicy.State
    /// Whether the last byte handed to `write(lines:)` ended a line (files change only there),
    /// and whether the line it began is being written (not dropped).
    private var atLineStart = true
    private var writingLine = true
    /// `-G` with `-W`: every file was written.
    public private(set) var finished = false
    /// When a write (or an open) failed; until the output is tried again nothing is written.
    private var failedAt: Int64? = nil
    /// Whether a failure was said and no write succeeded since; `lost` when it began.
    private var failing = false
    private var lostBefore = 0
    /// Records not written because of failures, over the whole run.
    public private(set) var lost = 0
    /// A non-rotating output failed: the `errno` that ends the capture.
    public private(set) var fatal: Int32? = nil

    /// A failed rotating output is tried again after this long: a full disk that someone
    /// frees is noticed within it, without a write attempt per packet.
    public static let retrySeconds: Int64 = 60

    /// Creates the first file (before the privilege drop), or with `append`, for lines, goes on
    /// at the end of the file there; throws when it cannot.
    public init(
        policy: RotationPolicy, flag: String, header: [UInt8] = [], ofLines: Bool = false, append: Bool = false,
        clock: @escaping () -> Int64 = RotatingFile.wallClock, warn: @escaping (String) -> Void
    ) throws(CaptureError) {
        self.policy = policy
        self.flag = flag
        self.header = header
        self.ofLines = ofLines
        self.clock = clock
        self.warn = warn
        let (state, name) = policy.first(at: clock())
        self.state = state
        guard let name else {
            throw CaptureError(input: policy.template, reason: "\(flag): the file name cannot be formatted (strftime)")
        }
        path = name
        if name == "-" {
            fd = 1
            if let code = writeAll(header) {
                throw CaptureError(
                    input: "standard output", reason: "cannot write (\(String(cString: strerror(code))))")
            }
            length = Int64(header.count)
            return
        }
        if let code = open(append && ofLines ? .append : .truncate) {
            throw CaptureError(input: name, reason: "cannot write the file (\(String(cString: strerror(code))))")
        }
    }

    deinit { if fd > 2 { Glibc.close(fd) } }

    /// Gives the current file to the user the capture drops privileges to: a rotation may
    /// come back to its name (a ring, a weekday), and must be able to replace it.
    public func handOver(uid: uid_t, gid: gid_t) {
        if fd > 2 { _ = fchown(fd, uid, gid) }
    }

    /// CLOCK_REALTIME in whole seconds: tcpdump's `time(NULL)`.
    public static func wallClock() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// The directory new files are made in (after the privilege drop, as its user).
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// How `open` treats a file already under the name.
    enum Existing {
        /// Truncated (the first file, as tcpdump's `-w`).
        case truncate
        /// Replaced by a new file (a rotation: whoever reads the old one keeps it whole, and a
        /// file another user left is no obstacle in a directory the capture may write).
        case replace
        /// Appended to (a report reopened on SIGHUP).
        case append
    }

    /// Opens `path` as the current file and, when it is empty, writes the header; the
    /// `errno` when that failed, the file open before (if any) then still current.
    private func open(_ existing: Existing) -> Int32? {
        if existing == .replace && unlink(path) != 0 && errno != ENOENT { return errno }
        // Appending reads the last byte there first.
        let flags = O_CREAT | O_APPEND | O_CLOEXEC | (existing == .append ? O_RDWR : O_WRONLY | O_TRUNC)
        let f = Glibc.open(path, flags, 0o644)
        guard f >= 0 else { return errno }
        var st = stat()
        var size = fstat(f, &st) == 0 ? Int64(st.st_size) : 0
        // Lines go on after a last line a killed run left unfinished, not inside it.
        var last: UInt8 = 0x0A
        if existing == .append, size > 0, pread(f, &last, 1, off_t(size - 1)) == 1, last != 0x0A {
            last = 0x0A
            if withUnsafeBytes(of: last, { Self.writeAll($0, to: f) }) == nil { size += 1 }
        }
        if size == 0, !header.isEmpty {
            let code = header.withUnsafeBytes { Self.writeAll($0, to: f) }
            if let code {
                _ = ftruncate(f, 0)
                Glibc.close(f)
                return code
            }
        }
        if fd > 2 { Glibc.close(fd) }
        fd = f
        length = size == 0 ? Int64(header.count) : size
        records = 0
        atLineStart = true
        writingLine = true
        return nil
    }

    /// Closes the current file, if any: nothing is written until another is open.
    private func closeCurrent() {
        if fd > 2 { Glibc.close(fd) }
        fd = -1
        length = 0
    }

    private func writeAll(_ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { Self.writeAll($0, to: fd) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Int32? { Self.writeAll(bytes, to: fd) }

    /// Writes all of `bytes` at the end of file `fd`; the `errno` of a failure (the file may
    /// then hold part of them).
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, base + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return errno }
            if n == 0 { return EIO }
            done += n
        }
        return nil
    }

    /// Whether the output takes a record now: it has a file and no failure waits for its
    /// retry (a retry that is due reopens a file that could not be made).
    private func ready(_ now: Int64) -> Bool {
        guard let failed = failedAt else { return fd >= 0 }
        let (elapsed, overflow) = now.subtractingReportingOverflow(failed)
        guard !overflow, elapsed >= Self.retrySeconds else { return false }
        failedAt = nil
        if fd < 0, let code = open(.replace) {
            fail(now, "cannot create it", code: code)
            return false
        }
        return true
    }

    /// Moves to the next file when the policy says so; false when nothing can be written
    /// (`-G` with `-W` wrote its files; the next file cannot be named or made).
    private func rotateIfDue(_ now: Int64) -> Bool {
        guard policy.rotates, path != "-", !finished else { return !finished }
        switch policy.step(&state, now: now, size: length) {
        case .keep:
            return true
        case .stop:
            finished = true
            warn("\(flag) \(policy.template): the \(policy.count ?? 0) file(s) of -W are written; capture stopped")
            return false
        case .unnamed:
            closeCurrent()
            fail(now, "the next file's name cannot be formatted (strftime)", code: nil)
            return false
        case .open(let name):
            if ofLines && name == path && fd >= 0 { return true }
            closeCurrent()
            path = name
            failedAt = nil
            // A file that cannot be made is a failure like a write's: said once, tried again.
            if let code = open(.replace) {
                fail(now, "cannot create it", code: code)
                return false
            }
            return true
        }
    }

    /// Says what failed, once until a write succeeds again; a non-rotating output's failure
    /// ends the capture instead.
    private func fail(_ now: Int64, _ what: String, code: Int32?) {
        if !policy.rotates {
            if fatal == nil { fatal = code ?? EIO }
            return
        }
        if !failing {
            failing = true
            lostBefore = lost
            let reason = code.map { " (\(String(cString: strerror($0))))" } ?? ""
            warn(
                "\(flag) \(path): \(what)\(reason); it keeps the \(records) record(s) written before. The capture goes on; \(flag) is tried again at its next file, on SIGHUP, or within \(Self.retrySeconds) s"
            )
        }
        failedAt = now
    }

    /// A write succeeded after a failure was said: said once too, with what was lost.
    private func succeeded() {
        guard failing else { return }
        failing = false
        warn("\(flag) \(path): writing again (\(lost - lostBefore) record(s) were lost meanwhile)")
    }

    /// Writes one record, whole or not at all, after any rotation it is due. False when it
    /// was not written (a failure; every file of `-G` with `-W` is written).
    @discardableResult
    public func write(record bytes: UnsafeRawBufferPointer) -> Bool {
        guard fatal == nil else { return false }
        let now = clock()
        guard rotateIfDue(now) else {
            if !finished { lost += 1 }
            return false
        }
        guard ready(now) else {
            lost += 1
            return false
        }
        if let code = writeAll(bytes) {
            _ = ftruncate(fd, off_t(length))
            fail(now, "cannot write", code: code)
            lost += 1
            return false
        }
        length += Int64(bytes.count)
        records += 1
        succeeded()
        return true
    }

    /// Writes text made of lines: a new file begins only between lines, and a failure cuts
    /// the file back to its last whole line. Once `-G` with `-W` wrote its files, lines still
    /// go to the last one: the report ends there, with its summary.
    public func write(lines bytes: UnsafeRawBufferPointer) {
        guard fatal == nil, let base = bytes.baseAddress else { return }
        let now = clock()
        var start = 0
        while start < bytes.count {
            let end: Int
            if atLineStart {
                writingLine = (rotateIfDue(now) || finished) && ready(now)
                end = linesFitting(bytes, from: start)
            } else {
                end = lineEnd(bytes, from: start)
            }
            let piece = UnsafeRawBufferPointer(start: base + start, count: end - start)
            start = end
            atLineStart = piece.last == 0x0A
            let lines = Self.lineFeeds(piece)
            guard writingLine else {
                lost += lines
                continue
            }
            guard let code = writeAll(piece) else {
                length += Int64(piece.count)
                records += lines
                succeeded()
                continue
            }
            // The whole lines that reached the file stay.
            var st = stat()
            let reached = fstat(fd, &st) == 0 ? max(0, min(Int(Int64(st.st_size) - length), piece.count)) : 0
            let kept = piece[..<reached].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
            let keptLines = Self.lineFeeds(UnsafeRawBufferPointer(rebasing: piece[..<kept]))
            length += Int64(kept)
            _ = ftruncate(fd, off_t(length))
            records += keptLines
            writingLine = false
            fail(now, "cannot write", code: code)
            lost += lines - keptLines
        }
    }

    private static func lineFeeds(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// Where the lines from `from` that go to the current file end: all of them, or with
    /// `-C`, up to the line that makes the file larger than the size.
    private func linesFitting(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        guard let c = policy.bytes, !finished, path != "-" else { return bytes.count }
        var size = length
        var k = from
        while k < bytes.count && size <= c {
            let e = lineEnd(bytes, from: k)
            size += Int64(e - k)
            k = e
        }
        return max(k, lineEnd(bytes, from: from))
    }

    /// The index after the line feed that ends the line starting at `from`, or the end.
    private func lineEnd(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int {
        var k = from
        while k < bytes.count {
            if bytes[k] == 0x0A { return k + 1 }
            k += 1
        }
        return bytes.count
    }

    /// SIGHUP: when the current file was renamed or removed (logrotate), a new one of the same
    /// name is opened; a failed output is tried again. A file still in place under its name is
    /// left as it is.
    public func reopen() {
        guard path != "-", fatal == nil, !finished else { return }
        if fd >= 0 {
            var mine = stat()
            var named = stat()
            if fstat(fd, &mine) == 0, stat(path, &named) == 0, mine.st_dev == named.st_dev,
                mine.st_ino == named.st_ino
            {
                // Still in place: kept as it is; after a failure, tried again at the next record.
                failedAt = nil
                return
            }
        }
        // A file that cannot be made leaves the one open before current (renamed, it still
        // takes the records).
        if let code = open(ofLines ? .append : .truncate) {
            warn(
                "\(flag) \(path): cannot reopen it after SIGHUP (\(String(cString: strerror(code)))); \(fd >= 0 ? "writing on to the file as it was renamed" : "tried again at its next file, on SIGHUP, or within \(Self.retrySeconds) s")"
            )
            return
        }
        failedAt = nil
        warn("\(flag) \(path): reopened (SIGHUP)")
    }

    /// Closes the file; what went wrong over the run, or nil when every record was written.
    public func close() -> String? {
        if fd > 2 { Glibc.close(fd) }
        fd = -1
        if let fatal { return "\(path): \(String(cString: strerror(fatal)))" }
        guard lost > 0 else { return nil }
        return
            "\(flag) \(policy.template): \(lost) record(s) could not be written during the capture (said as it happened)"
    }
}
