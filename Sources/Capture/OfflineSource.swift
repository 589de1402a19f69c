import CPcap
import Glibc

/// Opens capture files through libpcap: classic pcap (either byte order, micro- or
/// nanosecond) and pcapng; `-` is standard input; gzip-compressed files are decompressed on
/// the fly (recognised by their magic bytes, as Wireshark does).
public enum OfflineSource {
    public static func open(_ path: String) throws(CaptureError) -> PcapHandle {
        let isStdin = path == "-"
        let display = isStdin ? "<stdin>" : path
        if !isStdin {
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw CaptureError(input: display, reason: String(cString: strerror(errno)))
            }
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw CaptureError(input: display, reason: "is a directory, not a capture file")
            }
            if st.st_size == 0 {
                throw CaptureError(input: display, reason: "empty file (no capture file header)")
            }
        }
        let gz = isStdin ? false : isGzip(path)
        var errbuf = [CChar](repeating: 0, count: Int(discoscope_pcap_errbuf_size()))
        var handle: OpaquePointer? = nil
        if gz {
            guard let f = discoscope_gz_fopen(path, -1) else {
                throw CaptureError(input: display, reason: "cannot open gzip stream")
            }
            handle = pcap_fopen_offline_with_tstamp_precision(f, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
            if handle == nil { fclose(f) }
        } else if isStdin {
            // Standard input may itself be gzip: peek is impossible on a pipe without
            // buffering, so read it through zlib, which passes plain data through unchanged.
            guard let f = discoscope_gz_fopen(nil, 0) else {
                throw CaptureError(input: display, reason: "cannot read standard input")
            }
            handle = pcap_fopen_offline_with_tstamp_precision(f, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
            if handle == nil { fclose(f) }
        } else {
            handle = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
        }
        guard let h = handle else {
            let msg = String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(input: display, reason: describeOpenError(msg))
        }
        let opened = PcapHandle(pcap: h, input: display, nanosecond: true)
        if !gz && !isStdin {
            var st = stat()
            if stat(path, &st) == 0 { opened.totalBytes = Int64(st.st_size) }
        }
        return opened
    }

    static func isGzip(_ path: String) -> Bool {
        guard let f = fopen(path, "rb") else { return false }
        defer { fclose(f) }
        var magic: [UInt8] = [0, 0]
        let n = fread(&magic, 1, 2, f)
        return n == 2 && magic[0] == 0x1F && magic[1] == 0x8B
    }

    static func describeOpenError(_ message: String) -> String {
        if message.contains("unknown file format") {
            return "not a pcap or pcapng capture file (unknown file format)"
        }
        if message.contains("different from the type of the first interface") {
            return "pcapng file whose interfaces have different link types; libpcap reads only "
                + "files with one link type (split it with `editcap` or tshark per interface): \(message)"
        }
        if message.contains("truncated dump file") {
            return "file ends inside the capture file header (\(message))"
        }
        return message
    }
}
