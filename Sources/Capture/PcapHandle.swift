import CPcap
import Glibc
import NetLayers
import WireFormat

/// Owns a libpcap handle (offline or live) and closes it on deinit.
public final class PcapHandle: FrameSource {
    let pcap: OpaquePointer
    /// The name used in messages (file path or interface).
    public let input: String
    public let linkType: LinkType
    var filter: bpf_program? = nil
    private var recordNumber = 0
    /// Live capture with `-w`: every record is written here (and flushed) before analysis.
    var dumper: OpaquePointer? = nil
    /// The `-w` file's path, the length of its whole records, and how many there are: a
    /// write that fails (a full disk) cuts the file back to them and ends the capture.
    var dumpPath = ""
    var dumpedLength: Int64 = 0
    var dumpedRecords = 0
    /// Live capture: whether the interface's state is checked when no packet comes.
    var watchesInterface = false
    /// Live capture in non-blocking mode: the descriptor to wait on between packets, so
    /// the caller regains control every `pollMilliseconds` (signals, --duration, -c).
    var selectableFD: Int32? = nil
    /// libpcap's warning when a live capture was activated with reservations.
    public internal(set) var activationWarning: String? = nil
    /// Size of a plain capture file, for progress (nil for gzip, standard input, live).
    public internal(set) var totalBytes: Int64? = nil

    /// A gzip-compressed or streamed input: zlib's state (freed by libpcap's close).
    var gzStream: UnsafeMutablePointer<discoscope_gz_stream>? = nil

    /// Bytes of the file read so far (regular files; for gzip, of the compressed file).
    public var bytesRead: Int64? {
        guard totalBytes != nil else { return nil }
        if let g = gzStream { return Int64(discoscope_gz_offset(g)) }
        guard let f = pcap_file(pcap) else { return nil }
        let pos = ftell(f)
        return pos >= 0 ? Int64(pos) : nil
    }

    /// Decompressed bytes read so far, when the input is gzip-compressed (nil otherwise).
    public var expandedBytes: Int64? {
        guard let g = gzStream, isCompressed else { return nil }
        return Int64(g.pointee.expanded)
    }
    /// Whether the input is gzip (a stream read through zlib may be plain data).
    public var isCompressed: Bool {
        guard let g = gzStream else { return false }
        return gzdirect(g.pointee.gz) == 0
    }
    var pollMilliseconds: Int32 = 100

    /// A live capture (packets arrive while it runs), read with a poll timeout.
    public var isLive: Bool { selectableFD != nil }
    /// One interface, one unnamed segment.
    public var segmentNames: [String] { [] }

    /// The clock libpcap stamps live packets with (the system's real-time clock): the live
    /// capture's timer tells the session rules the capture's time with it.
    public static func clockNow() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(seconds: Int64(ts.tv_sec), nanoseconds: UInt32(clamping: ts.tv_nsec))
    }
    /// Whether the timestamps are nanosecond (offline files are opened that way).
    let nanosecond: Bool

    init(pcap: OpaquePointer, input: String, nanosecond: Bool) {
        self.pcap = pcap
        self.input = input
        self.linkType = LinkType(rawValue: pcap_datalink(pcap))
        self.nanosecond = nanosecond
    }

    deinit {
        if let d = dumper {
            pcap_dump_flush(d)
            pcap_dump_close(d)
        }
        if var f = filter { pcap_freecode(&f) }
        pcap_close(pcap)
    }

    /// Compiles a BPF filter. Offline, it is applied per record with `pcap_offline_filter`
    /// so frame numbers still count every record, as Wireshark's do.
    public func compileFilter(_ expression: String) throws(CaptureError) -> bpf_program {
        var prog = bpf_program()
        let rc = pcap_compile(pcap, &prog, expression, 1, PCAP_NETMASK_UNKNOWN)
        guard rc == 0 else {
            throw CaptureError(input: input, reason: "invalid filter '\(expression)': \(lastError)")
        }
        return prog
    }

    public func setOfflineFilter(_ expression: String) throws(CaptureError) {
        let prog = try compileFilter(expression)
        if var old = filter { pcap_freecode(&old) }
        filter = prog
    }

    var lastError: String { String(cString: pcap_geterr(pcap)) }

    /// What `FrameSource.next` did: handed a frame over (or, live, waited for one), or
    /// found the end.
    public enum Step {
        case frame
        case end
    }

    /// The next record (written to the `-w` file first, when there is one), with whether
    /// the offline filter passes it; `.idle` when a live capture has none pending. The bytes
    /// are libpcap's buffer: valid until the next read of this handle.
    public func read() throws(CaptureError) -> SourceRead {
        while true {
            var hdr: UnsafeMutablePointer<pcap_pkthdr>? = nil
            var data: UnsafePointer<UInt8>? = nil
            let rc = pcap_next_ex(pcap, &hdr, &data)
            switch rc {
            case 1:
                recordNumber += 1
                guard let h = hdr, let d = data else { continue }
                if let dump = dumper {
                    // A killed process leaves a readable file: each record reaches the file
                    // before it is analysed.
                    pcap_dump(UnsafeMutableRawPointer(dump), h, d)
                    if pcap_dump_flush(dump) != 0 { throw dumpFailed(dump, errno) }
                    dumpedLength = pcap_dump_ftell64(dump)
                    dumpedRecords += 1
                }
                var passes = true
                if var f = filter, pcap_offline_filter(&f, h, d) == 0 { passes = false }
                let caplen = Int(h.pointee.caplen)
                let sec = Int64(h.pointee.ts.tv_sec)
                let frac = Int64(h.pointee.ts.tv_usec)
                let ns = nanosecond ? frac : frac * 1000
                let time = Timestamp(
                    seconds: sec + ns / 1_000_000_000, nanoseconds: UInt32(clamping: ns % 1_000_000_000))
                let frame = RawFrame(
                    number: recordNumber, time: time, linkType: linkType, capturedLength: caplen,
                    originalLength: Int(h.pointee.len))
                return .frame(frame, UnsafeRawBufferPointer(start: d, count: caplen), passes: passes)
            case 0:
                return .idle
            case -2:
                return .end
            default:
                if let g = gzStream, let why = OfflineSource.gzipFailure(g) {
                    throw CaptureError(input: input, reason: why + "; packets before it were processed")
                }
                throw CaptureError(input: input, reason: Self.describeReadError(lastError))
            }
        }
    }

    /// Live capture in non-blocking mode: waits up to `pollMilliseconds` for a packet; when
    /// none came, checks that the interface is still there and up (libpcap does not say in
    /// non-blocking mode; the capture would wait forever).
    public func waitForFrames() throws(CaptureError) {
        guard let fd = selectableFD else { return }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, pollMilliseconds)
        if ready <= 0 || pfd.revents & Int16(POLLIN) == 0, let problem = interfaceProblem() { throw problem }
    }

    /// Why the live capture cannot go on (its interface went down or away), when it is
    /// watched; nil when it is fine or cannot be asked.
    func interfaceProblem() -> CaptureError? {
        guard watchesInterface, let fd = selectableFD else { return nil }
        switch discoscope_interface_is_up(fd, input) {
        case 0: return CaptureError(input: input, reason: "the interface went down; capture stopped")
        case -1: return CaptureError(input: input, reason: "the interface disappeared; capture stopped")
        default: return nil
        }
    }

    /// A record could not be written to the `-w` file: the file is cut back to its whole
    /// records (readable, everything before kept) and closed, and the capture ends.
    private func dumpFailed(_ dump: OpaquePointer, _ code: Int32) -> CaptureError {
        if let f = pcap_dump_file(dump) {
            discoscope_discard_buffer(f)
            _ = ftruncate(fileno(f), off_t(dumpedLength))
        }
        pcap_dump_close(dump)
        dumper = nil
        return CaptureError(
            input: dumpPath,
            reason:
                "cannot write the capture file (\(String(cString: strerror(code)))); it holds the \(dumpedRecords) packet(s) captured before, and the capture stopped"
        )
    }

    /// libpcap's messages are accurate but terse; say what they mean for a capture file.
    static func describeReadError(_ message: String) -> String {
        if message.contains("truncated dump file") || message.contains("truncated pcapng dump file") {
            return "file ends in the middle of a record (\(message)); packets before it were processed"
        }
        return OfflineSource.describeOpenError(message)
    }

    /// Interrupts a blocking `next` (safe from a signal handler's perspective via pcap).
    public func breakLoop() { pcap_breakloop(pcap) }
}
