import Glibc
import Reporting

/// Where a report goes: a `FileSink`, or for `capture`'s JSON lines written to a file, a
/// `RotatingReportSink` (it rotates with -G/-C and reopens on SIGHUP).
protocol ReportSink: OutputSink {
    /// How the output is named in messages.
    var name: String { get }
    /// `errno` of the failure that ends the run (the report cannot be written).
    var failure: Int32? { get }
    var isTerminal: Bool { get }
    var flushEachWrite: Bool { get set }
    /// Completes the output; the failure message, or nil when everything reached it.
    func close() -> String?
}

/// A buffered writer over a C `FILE*` (standard output or a file). Live capture flushes it
/// after each line so `discoscope capture … | jq` works as packets arrive. Every write, flush
/// and the final close is checked: the first failure is kept (`failure`) and ends the run
/// with an error naming the output, so a report that was not written never looks written.
final class FileSink: ReportSink {
    private let file: UnsafeMutablePointer<FILE>
    private let owned: Bool
    private var closed = false
    var flushEachWrite = false
    /// How the output is named in messages: the path, or "standard output".
    let name: String
    /// `errno` of the first write, flush or close that failed.
    private(set) var failure: Int32? = nil

    init(file: UnsafeMutablePointer<FILE>, owned: Bool, name: String) {
        self.file = file
        self.owned = owned
        self.name = name
    }

    /// Opens PATH for writing, or standard output when nil.
    static func open(_ path: String?) throws -> FileSink {
        guard let path else {
            guard let out = fdopen(1, "w") else { throw InputError("cannot write to standard output") }
            return FileSink(file: out, owned: false, name: "standard output")
        }
        guard let f = fopen(path, "w") else {
            throw InputError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        return FileSink(file: f, owned: true, name: path)
    }

    private func check(_ ok: Bool) {
        if !ok && failure == nil { failure = errno != 0 ? errno : EIO }
    }

    func write(_ text: String) {
        var t = text
        t.withUTF8 { buf in
            if buf.count > 0 { check(fwrite(buf.baseAddress, 1, buf.count, file) == buf.count) }
        }
        if flushEachWrite { flush() }
    }

    func write(bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { check(fwrite(bytes.baseAddress, 1, bytes.count, file) == bytes.count) }
        if flushEachWrite { flush() }
    }

    func flush() {
        guard !closed else { return }
        check(fflush(file) == 0)
    }

    var isTerminal: Bool { isatty(fileno(file)) != 0 }

    /// Flushes the output and closes it when it is a file (standard output is only flushed).
    /// Returns the failure message, or nil when everything reached the output.
    func close() -> String? {
        if !closed {
            flush()
            if owned { check(fclose(file) == 0) }
            closed = true
        }
        guard let e = failure else { return nil }
        return "\(name): cannot write the report (\(String(cString: strerror(e)))); the report is incomplete"
    }

    deinit {
        if !closed {
            fflush(file)
            if owned { fclose(file) }
        }
    }
}

/// A usage or input problem reported as one line on standard error, exit status 2.
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A `SpillStore` in an unnamed temporary file, for the SARIF and JUnit reports: their
/// results wait here for `finish` instead of in memory. The file is created with `mkstemp`
/// in `$TMPDIR` (else `/tmp`) and unlinked at once, so nothing is left behind, whatever
/// the end of the run; the open descriptor keeps it until the process exits. Appends go
/// through a write buffer, flushed before a read that needs them; copies read through a
/// window of `pieceSize` bytes with `pread`, so results copied in order cost one read per
/// window. The first failure is kept (`failure`) and ends the run with an error: a report
/// written from a spill that lost bytes is never passed off as complete.
final class FileSpill: SpillStore {
    static let pieceSize = 64 << 10
    private let fd: Int32
    /// Bytes in the file; `pending` follows them.
    private var written = 0
    private var pending: [UInt8] = []
    /// A piece of the file read for `copy`: `windowCount` bytes from `windowStart`.
    private var window = [UInt8](repeating: 0, count: FileSpill.pieceSize)
    private var windowStart = 0
    private var windowCount = 0
    /// Why the spill failed (the first failure), for the run's error message.
    private(set) var failure: String? = nil

    private init(fd: Int32) {
        self.fd = fd
        pending.reserveCapacity(Self.pieceSize)
    }

    /// Creates the temporary file; throws `InputError` (exit 2) when no directory for it is
    /// writable.
    static func create() throws -> FileSpill {
        var dir = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        if dir.isEmpty { dir = "/tmp" }
        var template = Array((dir + "/discoscope-report-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw InputError(
                "cannot create a temporary file in \(dir) for the report (\(String(cString: strerror(errno)))); set TMPDIR to a writable directory"
            )
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return FileSpill(fd: fd)
    }

    deinit { Glibc.close(fd) }

    var count: Int { written + pending.count }

    private func fail(_ what: String) {
        if failure == nil {
            failure =
                "temporary file for the report: cannot \(what) (\(String(cString: strerror(errno)))); the report is incomplete"
        }
    }

    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let start = count
        if pending.count + bytes.count > Self.pieceSize { writePending() }
        if bytes.count >= Self.pieceSize {
            writeAll(bytes)
        } else {
            pending.append(contentsOf: bytes)
        }
        return start..<(start + bytes.count)
    }

    private func writePending() {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { writeAll($0) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` at the end of the file. After a failure nothing more is written, but
    /// the count goes on, so later ranges stay where their callers expect them.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var done = 0
        while done < bytes.count && failure == nil {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(written + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if n == 0 { errno = EIO }
                fail("write")
            } else {
                done += n
            }
        }
        written += bytes.count
    }

    func copy(_ range: Range<Int>, to sink: any OutputSink) {
        if range.upperBound > written { writePending() }
        var at = range.lowerBound
        while at < range.upperBound && failure == nil {
            if at < windowStart || at >= windowStart + windowCount { fill(at) }
            let end = min(range.upperBound, windowStart + windowCount)
            guard end > at else { return }
            window.withUnsafeBytes {
                sink.write(bytes: UnsafeRawBufferPointer(rebasing: $0[(at - windowStart)..<(end - windowStart)]))
            }
            at = end
        }
    }

    /// Reads the piece of the file that starts at `offset` into `window`.
    private func fill(_ offset: Int) {
        let size = max(0, min(Self.pieceSize, written - offset))
        windowStart = offset
        windowCount = 0
        while windowCount < size {
            let n = window.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress! + windowCount, size - windowCount, off_t(offset + windowCount))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if n == 0 { errno = EIO }
                fail("read")
                windowCount = 0
                return
            }
            windowCount += n
        }
    }
}
