import CPcap
import Glibc
import NetLayers

/// Checks of a BPF filter made before any input is read, so a bad filter is one usage error
/// (as tcpdump reports it) instead of one input error per file.
public enum FilterCheck {
    /// Link types a filter is tried against: those DiscoScope decodes. A filter that
    /// compiles for none of them is wrong whatever the files hold; one that compiles for
    /// some (`wlan …` only on 802.11) is checked again per file.
    static let linkTypes: [Int32] = [1, 276, 113, 12, 105, 127, 0, 108, 228, 229]

    /// nil when `expression` compiles for at least one decoded link type, else libpcap's
    /// message for Ethernet (the most common).
    public static func problem(_ expression: String) -> String? {
        var first: String? = nil
        for dlt in linkTypes {
            guard let p = pcap_open_dead(dlt, 262_144) else { continue }
            defer { pcap_close(p) }
            var prog = bpf_program()
            if pcap_compile(p, &prog, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 {
                pcap_freecode(&prog)
                return nil
            }
            if first == nil { first = String(cString: pcap_geterr(p)) }
        }
        return first ?? "cannot be compiled"
    }
}

extension LinkType {
    /// libpcap's description of the link type (`Ethernet`, `Linux cooked v2`), as tcpdump
    /// prints it after the name; nil when libpcap has none.
    public var libpcapDescription: String? {
        guard let d = pcap_datalink_val_to_description(rawValue) else { return nil }
        return String(cString: d)
    }
}

extension PcapHandle {
    /// The snapshot length the handle captures with (live) or the file declares (offline).
    public var snapshotLength: Int { Int(pcap_snapshot(pcap)) }
}

/// A pcap file written record by record (`analyze -w`): the link type and snap length of
/// the input it copies from, flushed when closed. Opened before the first record so an
/// unwritable path is reported before any work.
public final class PcapWriter {
    private let dead: OpaquePointer
    private let dumper: OpaquePointer
    public let path: String
    public private(set) var linkType: LinkType
    /// Records written.
    public private(set) var count = 0

    /// Creates (truncates) `path` for `linkType`, nanosecond timestamps.
    public init(path: String, linkType: LinkType, snaplen: Int32 = 262_144) throws(CaptureError) {
        guard
            let p = pcap_open_dead_with_tstamp_precision(linkType.rawValue, snaplen, UInt32(PCAP_TSTAMP_PRECISION_NANO))
        else {
            throw CaptureError(input: path, reason: "cannot prepare a pcap file for link type \(linkType)")
        }
        guard let d = pcap_dump_open(p, path) else {
            let why = String(cString: pcap_geterr(p))
            pcap_close(p)
            throw CaptureError(input: path, reason: "cannot write the capture file: \(why)")
        }
        dead = p
        dumper = d
        self.path = path
        self.linkType = linkType
    }

    /// Appends one record: its time, original length and captured bytes.
    public func write(time: (seconds: Int64, nanoseconds: UInt32), originalLength: Int, bytes: UnsafeRawBufferPointer) {
        var h = pcap_pkthdr()
        h.ts.tv_sec = time_t(time.seconds)
        // Nanoseconds in the microsecond field: the file was opened with nanosecond precision.
        h.ts.tv_usec = suseconds_t(time.nanoseconds)
        h.caplen = UInt32(clamping: bytes.count)
        h.len = UInt32(clamping: max(originalLength, bytes.count))
        guard let base = bytes.baseAddress else { return }
        withUnsafePointer(to: &h) { hp in
            pcap_dump(UnsafeMutableRawPointer(dumper), hp, base.assumingMemoryBound(to: UInt8.self))
        }
        count += 1
    }

    /// Flushes and reports whether everything reached the file.
    public func close() -> Bool {
        let ok = pcap_dump_flush(dumper) == 0
        pcap_dump_close(dumper)
        pcap_close(dead)
        closed = true
        return ok
    }
    private var closed = false

    deinit {
        if !closed {
            pcap_dump_flush(dumper)
            pcap_dump_close(dumper)
            pcap_close(dead)
        }
    }
}
