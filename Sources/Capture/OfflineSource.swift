import CPcap
import Glibc

/// Opens capture files through libpcap: classic pcap (either byte order, micro- or
/// nanosecond) and pcapng; `-` is standard input; gzip-compressed files are decompressed on
/// the fly (recognised by their magic bytes, as Wireshark does). Anything that is not a
/// regular file (a pipe, `<(…)`, `/dev/stdin`, a FIFO, a device) is read as a stream, as
/// standard input is, compressed or not.
///
/// A pcapng file (plain or gzip-compressed, not a stream) that describes more than one
/// interface before its first packet is read by `PcapNGSource` instead, one segment per
/// interface: libpcap does not say which interface a packet came from.
public enum OfflineSource {
    public static func open(_ path: String) throws(CaptureError) -> any FrameSource {
        switch try opened(path, libpcapOnly: false) {
        case .libpcap(let h): h
        case .pcapng(let s): s
        }
    }

    /// The same, through libpcap whatever the file holds.
    public static func openWithLibpcap(_ path: String) throws(CaptureError) -> PcapHandle {
        switch try opened(path, libpcapOnly: true) {
        case .libpcap(let h): return h
        case .pcapng(let s): throw CaptureError(input: s.input, reason: "not opened through libpcap")
        }
    }

    /// What opened a file.
    private enum Opened {
        case libpcap(PcapHandle)
        case pcapng(PcapNGSource)
    }

    /// The file's base name without its extension (`captures/lan.pcapng.gz` is `lan`): names
    /// its segments.
    public static func stem(of path: String) -> String {
        let base = String(path.split(separator: "/").last ?? Substring(path))
        var stem = base.hasSuffix(".gz") ? String(base.dropLast(3)) : base
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = String(stem[..<dot]) }
        return stem.isEmpty ? base : stem
    }

    /// Whether a regular file starts with a pcapng Section Header Block (read in place).
    static func startsWithSectionHeader(_ fd: Int32) -> Bool {
        var magic: [UInt8] = [0, 0, 0, 0]
        return pread(fd, &magic, 4, 0) == 4 && magic == [0x0A, 0x0D, 0x0D, 0x0A]
    }

    private static func opened(_ path: String, libpcapOnly: Bool) throws(CaptureError) -> Opened {
        let isStdin = path == "-"
        let display = isStdin ? "<stdin>" : path
        // Opened once, here: a stream cannot be opened again, or peeked at and rewound.
        let fd = isStdin ? 0 : Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CaptureError(input: display, reason: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            if !isStdin { close(fd) }
            throw CaptureError(input: display, reason: reason)
        }
        let kind = st.st_mode & S_IFMT
        if kind == S_IFDIR {
            close(fd)
            throw CaptureError(input: display, reason: "is a directory, not a capture file")
        }
        let regular = kind == S_IFREG
        if regular && st.st_size == 0 {
            if !isStdin { close(fd) }
            throw CaptureError(input: display, reason: "empty file (no capture file header)")
        }
        // A pcapng file of several interfaces: read by DiscoScope (opened again, so that its
        // reading does not move this descriptor's offset for libpcap).
        let gzip = regular && isGzip(fd)
        if !libpcapOnly, regular, !isStdin, gzip || startsWithSectionHeader(fd) {
            let again = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if again >= 0,
                let several = PcapNGSource.openIfSeveralInterfaces(
                    again, display: display, path: path, totalBytes: Int64(st.st_size), compressed: gzip)
            {
                close(fd)
                return .pcapng(several)
            }
        }
        var errbuf = [CChar](repeating: 0, count: Int(discoscope_pcap_errbuf_size()))
        var stream: UnsafeMutablePointer<discoscope_gz_stream>? = nil
        let file: UnsafeMutablePointer<FILE>?
        if regular && !gzip {
            file = fdopen(fd, "rb")
            if file == nil {
                let code = errno
                close(fd)
                errno = code
            }
        } else {
            // gzip, or a stream: zlib passes plain data through unchanged. (On failure zlib
            // may already have closed the descriptor: it is not closed again.)
            file = discoscope_gz_fopen(nil, fd, &stream)
        }
        guard let f = file else {
            throw CaptureError(input: display, reason: "cannot read: \(String(cString: strerror(errno)))")
        }
        guard let h = pcap_fopen_offline_with_tstamp_precision(f, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf) else {
            let msg = String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = stream.flatMap(gzipFailure) ?? describeOpenError(msg)
            fclose(f)
            throw CaptureError(input: display, reason: reason)
        }
        let opened = PcapHandle(pcap: h, input: display, nanosecond: true)
        opened.gzStream = stream
        if regular { opened.totalBytes = Int64(st.st_size) }
        return .libpcap(opened)
    }

    /// Whether a regular file starts with gzip's magic bytes (read in place, not consumed).
    static func isGzip(_ fd: Int32) -> Bool {
        var magic: [UInt8] = [0, 0]
        let n = pread(fd, &magic, 2, 0)
        return n == 2 && magic[0] == 0x1F && magic[1] == 0x8B
    }

    /// zlib's reason when a compressed stream failed (damaged data, a bad CRC, a cut file).
    static func gzipFailure(_ s: UnsafeMutablePointer<discoscope_gz_stream>) -> String? {
        guard s.pointee.failed != 0 else { return nil }
        let message = withUnsafeBytes(of: s.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        // zlib prefixes the stream's name (`<fd:3>: incorrect data check`); the caller names
        // the input itself.
        let reason = message.hasPrefix("<fd:") ? String(message.drop { $0 != " " }.dropFirst()) : message
        return "the gzip-compressed data is damaged (\(reason))"
    }

    static func describeOpenError(_ message: String) -> String {
        if message.contains("unknown file format") {
            return "not a pcap or pcapng capture file (unknown file format)"
        }
        if message.contains("different from the type of the first interface") {
            return "pcapng file whose interfaces have different link types; libpcap reads only "
                + "files with one link type (split it with `editcap` or tshark per interface): \(message)"
        }
        if message.contains("only got 0") {
            return "empty input (no capture file header)"
        }
        if message.contains("truncated dump file") {
            return "file ends inside the capture file header (\(message))"
        }
        return message
    }
}
