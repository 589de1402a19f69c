import Glibc
import Reporting

/// A buffered writer over a C `FILE*` (standard output or a file). Live capture flushes it
/// after each line so `discoscope capture … | jq` works as packets arrive. Every write, flush
/// and the final close is checked: the first failure is kept (`failure`) and ends the run
/// with an error naming the output, so a report that was not written never looks written.
final class FileSink: OutputSink {
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
