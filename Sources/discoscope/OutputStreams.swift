import Glibc
import Reporting

/// A buffered writer over a C `FILE*` (standard output or a file). Live capture flushes it
/// after each line so `discoscope capture … | jq` works as packets arrive.
final class FileSink: OutputSink {
    private let file: UnsafeMutablePointer<FILE>
    private let owned: Bool
    var flushEachWrite = false

    init(file: UnsafeMutablePointer<FILE>, owned: Bool) {
        self.file = file
        self.owned = owned
    }

    /// Opens PATH for writing, or standard output when nil.
    static func open(_ path: String?) throws -> FileSink {
        guard let path else {
            guard let out = fdopen(1, "w") else { throw InputError("cannot write to standard output") }
            return FileSink(file: out, owned: false)
        }
        guard let f = fopen(path, "w") else {
            throw InputError("\(path): cannot write (\(String(cString: strerror(errno))))")
        }
        return FileSink(file: f, owned: true)
    }

    func write(_ text: String) {
        var t = text
        t.withUTF8 { buf in
            _ = fwrite(buf.baseAddress, 1, buf.count, file)
        }
        if flushEachWrite { fflush(file) }
    }

    func write(bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { _ = fwrite(bytes.baseAddress, 1, bytes.count, file) }
        if flushEachWrite { fflush(file) }
    }

    func flush() { fflush(file) }

    var isTerminal: Bool { isatty(fileno(file)) != 0 }

    deinit {
        fflush(file)
        if owned { fclose(file) }
    }
}

/// A usage or input problem reported as one line on standard error, exit status 2.
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
