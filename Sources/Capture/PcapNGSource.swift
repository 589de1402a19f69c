import CPcap
import Glibc
import NetLayers
import WireFormat

/// A pcapng file with several interfaces, read by DiscoScope itself: libpcap does not say on
/// which interface a packet was captured (and refuses interfaces of different link types), so
/// it cannot give segments. Each interface is a segment, named by its `if_name` option, else
/// `FILE#N` (the file's base name without extension, N the interface's number in its section);
/// interfaces with the same name are one segment.
///
/// What is read: the Section Header Block (either byte order; a new section starts afresh),
/// the Interface Description Block (link type, snap length, `if_name`, `if_tsresol`,
/// `if_tsoffset`), the Enhanced and Simple Packet Blocks; every other block is skipped. The
/// file is hostile input: every length is checked before it is used, a block is at most
/// `maxBlockLength` bytes (so is the buffer), a file describes at most `maxInterfaces`
/// interfaces, and anything malformed ends the file with an error naming the block, after
/// the packets before it were delivered.
///
/// `OfflineSource.open` uses it only for a pcapng file that describes more than one interface
/// before its first packet; every other file goes through libpcap as before.
public final class PcapNGSource: FrameSource {
    /// The largest block read (libpcap's bound for pcapng blocks too).
    public static let maxBlockLength = 16 << 20
    /// Interface descriptions a file may hold (in all its sections).
    public static let maxInterfaces = 1024
    /// The longest interface name kept (longer ones are cut).
    static let maxNameLength = 256

    public let input: String
    private let file: UnsafeMutablePointer<FILE>
    /// zlib's state when the file is gzip-compressed (freed when `file` is closed).
    private let gzStream: UnsafeMutablePointer<discoscope_gz_stream>?
    public let totalBytes: Int64?
    /// The file's base name without extension, for interfaces without a name.
    private let stem: String

    /// The current block's body (after type and length, without the trailing length): one
    /// allocation, grown up to `maxBlockLength`, so a frame's bytes stay put until the next
    /// read.
    private var body = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var bodyLength = 0
    private var bigEndian = false
    private var inSection = false
    /// The current section's interfaces.
    private var interfaces: [Interface] = []
    private var described = 0
    public private(set) var segmentNames: [String] = []
    private var segmentIndex: [String: UInt16] = [:]
    private var recordNumber = 0
    /// Simple Packet Blocks carry no time: they take the last one seen.
    private var lastTime = Timestamp.zero
    /// A packet block's header read while deciding whether the file has several interfaces.
    private var pendingHeader: (type: UInt32, length: Int)? = nil
    /// An error met while deciding, reported by the first read.
    private var pendingError: CaptureError? = nil
    private var ended = false
    /// The BPF filter, compiled for each link type met (`setOfflineFilter`).
    private var filterExpression: String? = nil
    private var filters: [Int32: bpf_program] = [:]

    struct Interface {
        var linkType: LinkType
        var snapLength: UInt32
        /// Timestamp units per second (`if_tsresol`; microseconds by default).
        var unitsPerSecond: UInt64 = 1_000_000
        /// Seconds added to every timestamp (`if_tsoffset`).
        var offsetSeconds: Int64 = 0
        var segment: UInt16
    }

    private enum BlockType {
        static let section: UInt32 = 0x0A0D_0D0A
        static let interface: UInt32 = 1
        static let simplePacket: UInt32 = 3
        static let enhancedPacket: UInt32 = 6
    }

    private init(
        input: String, file: UnsafeMutablePointer<FILE>, gz: UnsafeMutablePointer<discoscope_gz_stream>?,
        totalBytes: Int64?, stem: String
    ) {
        self.input = input
        self.file = file
        gzStream = gz
        self.totalBytes = totalBytes
        self.stem = stem
    }

    deinit {
        fclose(file)
        body.deallocate()
        for var prog in filters.values { pcap_freecode(&prog) }
    }

    /// Opens `path` (gzip-compressed or not) when it is a pcapng file describing more than
    /// one interface before its first packet; nil for anything else (libpcap reads it, and
    /// says what is wrong with it). A malformed block after two interface descriptions is
    /// reported by the first read: the file is one DiscoScope reads.
    static func openIfSeveralInterfaces(
        _ fd: Int32, display: String, path: String, totalBytes: Int64?, compressed: Bool
    ) -> PcapNGSource? {
        var gz: UnsafeMutablePointer<discoscope_gz_stream>? = nil
        let f: UnsafeMutablePointer<FILE>?
        if compressed {
            f = discoscope_gz_fopen(nil, fd, &gz)
        } else {
            f = fdopen(fd, "rb")
            if f == nil { close(fd) }
        }
        guard let f else { return nil }
        let source = PcapNGSource(
            input: display, file: f, gz: gz, totalBytes: totalBytes, stem: OfflineSource.stem(of: path))
        return source.readHead() ? source : nil
    }

    /// Reads the blocks before the first packet: true when they describe several interfaces.
    private func readHead() -> Bool {
        do {
            while true {
                guard let header = try readHeader() else { break }
                if header.type == BlockType.enhancedPacket || header.type == BlockType.simplePacket {
                    pendingHeader = header
                    break
                }
                try readBody(header)
                try take(header.type)
            }
        } catch {
            pendingError = error
        }
        return described > 1
    }

    // MARK: FrameSource

    public var linkType: LinkType { interfaces.first?.linkType ?? .ethernet }
    public var snapshotLength: Int { Int(interfaces.map(\.snapLength).max() ?? 0) }
    public var isLive: Bool { false }

    public var bytesRead: Int64? {
        if let g = gzStream { return Int64(discoscope_gz_offset(g)) }
        let pos = ftell(file)
        return pos >= 0 ? Int64(pos) : nil
    }

    public var expandedBytes: Int64? {
        guard let g = gzStream, gzdirect(g.pointee.gz) == 0 else { return nil }
        return Int64(g.pointee.expanded)
    }

    public func setOfflineFilter(_ expression: String) throws(CaptureError) {
        filterExpression = expression
        for i in interfaces { try compileFilter(for: i) }
    }

    public func waitForFrames() throws(CaptureError) {}

    public func read() throws(CaptureError) -> SourceRead {
        if let e = pendingError {
            pendingError = nil
            ended = true
            throw e
        }
        while !ended {
            let header: (type: UInt32, length: Int)
            if let h = pendingHeader {
                header = h
                pendingHeader = nil
            } else if let h = try readHeader() {
                header = h
            } else {
                ended = true
                break
            }
            try readBody(header)
            switch header.type {
            case BlockType.enhancedPacket:
                return try enhancedPacket()
            case BlockType.simplePacket:
                return try simplePacket()
            default:
                try take(header.type)
            }
        }
        return .end
    }

    // MARK: Blocks

    /// The next block's type and total length, checked; nil at the end of the file (between
    /// blocks). A Section Header Block sets the byte order its length is read in.
    private func readHeader() throws(CaptureError) -> (type: UInt32, length: Int)? {
        var raw = (UInt32(0), UInt32(0))
        let got = withUnsafeMutableBytes(of: &raw) { fread($0.baseAddress, 1, 8, file) }
        if got == 0 {
            try checkStream()
            return nil
        }
        guard got == 8 else { throw cut("a block header") }
        // The section header's type reads the same in either byte order.
        let type = raw.0 == BlockType.section ? BlockType.section : order(raw.0)
        if type == BlockType.section {
            var magic: UInt32 = 0
            guard withUnsafeMutableBytes(of: &magic, { fread($0.baseAddress, 1, 4, file) }) == 4 else {
                throw cut("a section header")
            }
            switch magic {
            case 0x1A2B_3C4D: bigEndian = false
            case 0x4D3C_2B1A: bigEndian = true
            default: throw malformed("section header with an unknown byte-order magic 0x\(hex(magic))")
            }
            inSection = true
        } else if !inSection {
            throw malformed("not a pcapng file (no section header first)")
        }
        let length = Int(order(raw.1))
        let minimum: Int
        switch type {
        case BlockType.section: minimum = 28
        case BlockType.interface: minimum = 20
        case BlockType.enhancedPacket: minimum = 32
        case BlockType.simplePacket: minimum = 16
        default: minimum = 12
        }
        guard length >= minimum, length % 4 == 0, length <= Self.maxBlockLength else {
            throw malformed(
                "block of type \(type) with total length \(length) (at least \(minimum), a multiple of 4, at most \(Self.maxBlockLength))"
            )
        }
        return (type, length)
    }

    /// Reads a block's body into `body` and checks its trailing length.
    private func readBody(_ header: (type: UInt32, length: Int)) throws(CaptureError) {
        // The section header's magic was read with its header.
        bodyLength = header.length - 12 - (header.type == BlockType.section ? 4 : 0)
        if body.count < bodyLength {
            body.deallocate()
            body = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bodyLength, 4096), alignment: 8)
        }
        if bodyLength > 0, fread(body.baseAddress, 1, bodyLength, file) != bodyLength {
            throw cut("a block of type \(header.type)")
        }
        var trailer: UInt32 = 0
        guard withUnsafeMutableBytes(of: &trailer, { fread($0.baseAddress, 1, 4, file) }) == 4 else {
            throw cut("a block of type \(header.type)")
        }
        guard Int(order(trailer)) == header.length else {
            throw malformed(
                "block of type \(header.type) whose trailing length \(order(trailer)) differs from its length \(header.length)"
            )
        }
    }

    /// A block that is not a packet: a section starts, an interface is described, or it is
    /// skipped.
    private func take(_ type: UInt32) throws(CaptureError) {
        switch type {
        case BlockType.section:
            // Major version 1 (the body starts after the magic).
            guard let major = u16(0), major == 1 else {
                throw malformed("section header of version \(u16(0).map(String.init) ?? "?") (only 1 is read)")
            }
            interfaces.removeAll()
        case BlockType.interface:
            try describeInterface()
        default:
            break
        }
    }

    private func describeInterface() throws(CaptureError) {
        guard described < Self.maxInterfaces else {
            throw malformed("more than \(Self.maxInterfaces) interface descriptions")
        }
        guard let lt = u16(0), let snap = u32(4) else { throw malformed("short interface description") }
        var name: String? = nil
        var units: UInt64 = 1_000_000
        var offset: Int64 = 0
        // Options: code, length, value padded to 4 bytes; each checked against the block.
        var o = 8
        while o + 4 <= bodyLength {
            guard let code = u16(o), let len16 = u16(o + 2) else { break }
            let len = Int(len16)
            let start = o + 4
            guard start + len <= bodyLength else {
                throw malformed("interface description whose option \(code) runs past the block")
            }
            switch code {
            case 0:
                o = bodyLength
                continue
            case 2 where len > 0:
                let bytes = UnsafeRawBufferPointer(rebasing: body[start..<(start + min(len, Self.maxNameLength))])
                name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            case 9 where len >= 1:
                let r = body[start]
                let exponent = Int(r & 0x7F)
                if r & 0x80 == 0 {
                    guard exponent <= 19 else { throw malformed("interface time resolution 10^-\(exponent)") }
                    units = 1
                    for _ in 0..<exponent { units *= 10 }
                } else {
                    guard exponent <= 63 else { throw malformed("interface time resolution 2^-\(exponent)") }
                    units = 1 << UInt64(exponent)
                }
            case 14 where len == 8:
                // A 64-bit integer in the section's byte order: its low word first when little-endian.
                let first = UInt64(u32(start) ?? 0)
                let second = UInt64(u32(start + 4) ?? 0)
                offset = Int64(bitPattern: bigEndian ? first << 32 | second : second << 32 | first)
            default:
                break
            }
            o = start + (len + 3) / 4 * 4
        }
        let given = name.flatMap { $0.isEmpty ? nil : $0 }
        let segmentName = given ?? "\(stem)#\(interfaces.count)"
        let segment: UInt16
        if let known = segmentIndex[segmentName] {
            segment = known
        } else {
            segment = UInt16(truncatingIfNeeded: segmentNames.count)
            segmentIndex[segmentName] = segment
            segmentNames.append(segmentName)
        }
        let i = Interface(
            linkType: LinkType(rawValue: Int32(lt)), snapLength: snap, unitsPerSecond: units, offsetSeconds: offset,
            segment: segment)
        interfaces.append(i)
        described += 1
        if filterExpression != nil { try compileFilter(for: i) }
    }

    private func enhancedPacket() throws(CaptureError) -> SourceRead {
        guard let id = u32(0), let high = u32(4), let low = u32(8), let captured = u32(12), let original = u32(16)
        else { throw malformed("short enhanced packet block") }
        guard Int(id) < interfaces.count else {
            throw malformed(
                "enhanced packet block for interface \(id), but the section describes \(interfaces.count) interface(s)")
        }
        let length = Int(captured)
        guard length <= bodyLength - 20 else {
            throw malformed(
                "enhanced packet block whose captured length \(captured) runs past the block (\(bodyLength - 20) bytes)"
            )
        }
        let i = interfaces[Int(id)]
        let time = Self.time(UInt64(high) << 32 | UInt64(low), i)
        lastTime = time
        return packet(i, time: time, bytes: UnsafeRawBufferPointer(rebasing: body[20..<(20 + length)]), original)
    }

    private func simplePacket() throws(CaptureError) -> SourceRead {
        guard let i = interfaces.first else {
            throw malformed("simple packet block before any interface description")
        }
        guard let original = u32(0) else { throw malformed("short simple packet block") }
        var length = min(Int(original), bodyLength - 4)
        if i.snapLength > 0 { length = min(length, Int(i.snapLength)) }
        return packet(i, time: lastTime, bytes: UnsafeRawBufferPointer(rebasing: body[4..<(4 + length)]), original)
    }

    private func packet(_ i: Interface, time: Timestamp, bytes: UnsafeRawBufferPointer, _ original: UInt32)
        -> SourceRead
    {
        recordNumber += 1
        let frame = RawFrame(
            number: recordNumber, time: time, linkType: i.linkType, capturedLength: bytes.count,
            originalLength: max(Int(original), bytes.count), segment: i.segment)
        var passes = true
        if var prog = filters[i.linkType.rawValue], let base = bytes.baseAddress {
            var h = pcap_pkthdr()
            h.caplen = UInt32(clamping: bytes.count)
            h.len = UInt32(clamping: frame.originalLength)
            passes = pcap_offline_filter(&prog, &h, base.assumingMemoryBound(to: UInt8.self)) != 0
        }
        return .frame(frame, bytes, passes: passes)
    }

    /// `units` in the interface's resolution as seconds and nanoseconds (exact, no overflow:
    /// the fraction is scaled in 128 bits), plus its offset.
    static func time(_ units: UInt64, _ i: Interface) -> Timestamp {
        let per = max(i.unitsPerSecond, 1)
        let (whole, fraction) = units.quotientAndRemainder(dividingBy: per)
        let scaled = fraction.multipliedFullWidth(by: 1_000_000_000)
        let nanos = per.dividingFullWidth(scaled).quotient
        let (seconds, overflow) = Int64(clamping: whole).addingReportingOverflow(i.offsetSeconds)
        return Timestamp(
            seconds: overflow ? (i.offsetSeconds < 0 ? .min : .max) : seconds,
            nanoseconds: UInt32(clamping: nanos))
    }

    private func compileFilter(for i: Interface) throws(CaptureError) {
        guard let expression = filterExpression, filters[i.linkType.rawValue] == nil else { return }
        guard let p = pcap_open_dead(i.linkType.rawValue, Int32(clamping: max(i.snapLength, 65535))) else {
            throw CaptureError(input: input, reason: "cannot compile the filter for link type \(i.linkType)")
        }
        defer { pcap_close(p) }
        var prog = bpf_program()
        guard pcap_compile(p, &prog, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw CaptureError(
                input: input, reason: "invalid filter '\(expression)': \(String(cString: pcap_geterr(p)))")
        }
        filters[i.linkType.rawValue] = prog
    }

    // MARK: Bytes

    /// A 32-bit value read from the file in host order, as the section's byte order means it.
    private func order(_ v: UInt32) -> UInt32 { bigEndian ? v.bigEndian : v.littleEndian }

    /// The 16 or 32-bit value at `o` of the body in the section's byte order; nil past its end.
    private func u16(_ o: Int) -> UInt16? {
        guard o >= 0, o + 2 <= bodyLength else { return nil }
        let v = UInt16(body[o]) | UInt16(body[o + 1]) << 8
        return bigEndian ? v.byteSwapped : v
    }

    private func u32(_ o: Int) -> UInt32? {
        guard o >= 0, o + 4 <= bodyLength else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(body[o + k]) << UInt32(8 * k) }
        return bigEndian ? v.byteSwapped : v
    }

    private func hex(_ v: UInt32) -> String { String(v, radix: 16, uppercase: true) }

    // MARK: Errors

    /// A read that came short: a damaged gzip stream, a read error, or the end of the file
    /// inside a block.
    private func cut(_ what: String) -> CaptureError {
        if let g = gzStream, let why = OfflineSource.gzipFailure(g) {
            return CaptureError(input: input, reason: why + "; packets before it were processed")
        }
        if ferror(file) != 0 {
            return CaptureError(
                input: input,
                reason: "cannot read (\(String(cString: strerror(errno)))); packets before it were processed")
        }
        return CaptureError(
            input: input,
            reason:
                "file ends in the middle of \(what) (after \(recordNumber) packet(s)); packets before it were processed"
        )
    }

    /// A read error at a block boundary (not the end of the file).
    private func checkStream() throws(CaptureError) {
        if let g = gzStream, OfflineSource.gzipFailure(g) != nil { throw cut("the file") }
        if ferror(file) != 0 { throw cut("the file") }
    }

    private func malformed(_ what: String) -> CaptureError {
        CaptureError(
            input: input,
            reason:
                "malformed pcapng: \(what), after \(recordNumber) packet(s); the file is not read further, packets before it were processed"
        )
    }
}
