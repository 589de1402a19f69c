import CPcap
import Glibc
import NetLayers
import WireFormat

/// `capture -i A -i B -w FILE`: a pcapng file with one Interface Description Block per
/// interface (its name as `if_name`, nanosecond timestamps), then an Enhanced Packet Block per
/// record in the order the capture merged them, each flushed before it is analysed (a killed
/// capture leaves a readable file). `PcapNGSource` reads it back as the same segments, with
/// the same frame numbers. Written little-endian, by DiscoScope: libpcap writes one interface.
public final class PcapNGWriter {
    public struct Interface {
        public var name: String
        public var linkType: LinkType
        public var snapLength: Int
        public init(name: String, linkType: LinkType, snapLength: Int) {
            self.name = name
            self.linkType = linkType
            self.snapLength = snapLength
        }
    }

    public let path: String
    private var file: UnsafeMutablePointer<FILE>?
    private let interfaces: Int
    /// The length of the whole blocks written, and how many packets: a write that fails (a
    /// full disk) cuts the file back to them.
    private var length = 0
    private var records = 0
    /// One block's bytes, reused.
    private var block: [UInt8] = []

    /// Creates (truncates) `path` and writes the section header and the interfaces; throws
    /// when it cannot (before the capture starts).
    public init(path: String, interfaces: [Interface]) throws(CaptureError) {
        self.path = path
        self.interfaces = interfaces.count
        guard let f = fopen(path, "wb") else {
            throw CaptureError(
                input: path, reason: "cannot write the capture file (\(String(cString: strerror(errno))))")
        }
        file = f
        let head = Self.header(interfaces)
        guard fwrite(head, 1, head.count, f) == head.count, fflush(f) == 0 else {
            let reason = String(cString: strerror(errno))
            fclose(f)
            file = nil
            throw CaptureError(input: path, reason: "cannot write the capture file (\(reason))")
        }
        length = head.count
    }

    deinit { if let file { fclose(file) } }

    /// Appends `frame` captured on interface `interface`, with `comments` as its `opt_comment`
    /// options (UTF-8; each cut to an option's 65535 bytes, and those that would make the
    /// block longer than a reader takes left out), and flushes it. A failed write cuts the
    /// file back to its whole blocks (readable, everything before kept), closes it and
    /// throws: the capture ends.
    public func write(
        interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer, comments: [String] = []
    ) throws(CaptureError) {
        guard let f = file, interface >= 0, interface < interfaces else { return }
        block.removeAll(keepingCapacity: true)
        Self.enhancedPacket(interface: interface, frame: frame, bytes: bytes, comments: comments, into: &block)
        guard fwrite(block, 1, block.count, f) == block.count, fflush(f) == 0 else {
            let code = errno
            // What the FILE still buffers is dropped, so closing it writes nothing more.
            discoscope_discard_buffer(f)
            _ = ftruncate(fileno(f), off_t(length))
            fclose(f)
            file = nil
            throw CaptureError(
                input: path,
                reason:
                    "cannot write the capture file (\(String(cString: strerror(code)))); it holds the \(records) packet(s) captured before, and the capture stopped"
            )
        }
        length += block.count
        records += 1
    }

    /// Flushes and closes the file; false when something did not reach it.
    public func close() -> Bool {
        guard let f = file else { return true }
        file = nil
        return fclose(f) == 0
    }

    /// The section header (byte-order magic, version 1.0, section length unknown), then an
    /// Interface Description Block per interface: link type, snap length, `if_name` when it is
    /// named, `if_tsresol` 10^-9.
    static func header(_ interfaces: [Interface]) -> [UInt8] {
        var head = block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + u16(1) + u16(0) + [UInt8](repeating: 0xFF, count: 8))
        for i in interfaces {
            let name = Array(i.name.utf8.prefix(Int(UInt16.max) - 4))
            let body =
                u16(UInt16(truncatingIfNeeded: i.linkType.rawValue)) + u16(0) + u32(UInt32(clamping: i.snapLength))
                + (name.isEmpty ? [] : option(2, name)) + option(9, [9]) + option(0, [])
            head += block(1, body)
        }
        return head
    }

    /// Appends to `out` the Enhanced Packet Block of `frame` on interface `interface`, with
    /// `comments` as its `opt_comment` options (UTF-8; each cut to an option's 65535 bytes,
    /// and those that would make the block longer than a reader takes left out).
    static func enhancedPacket(
        interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer, comments: [String] = [],
        into out: inout [UInt8]
    ) {
        // Nanoseconds since the epoch (a time before it is written as 0).
        let units =
            frame.time.seconds <= 0
            ? UInt64(frame.time.nanoseconds)
            : UInt64(frame.time.seconds).multipliedReportingOverflow(by: 1_000_000_000).partialValue
                &+ UInt64(frame.time.nanoseconds)
        // A block the reader reads back (a live snapshot length is far below the bound).
        let captured = min(bytes.count, PcapNGSource.maxBlockLength - 36)
        let padding = (4 - captured % 4) % 4
        var options: [UInt8] = []
        if !comments.isEmpty {
            let room = PcapNGSource.maxBlockLength - 32 - captured - padding - 4
            for c in comments {
                let text = utf8Prefix(c, Int(UInt16.max))
                guard options.count + 4 + text.count + 3 <= room else { break }
                options += option(1, text)
            }
            if !options.isEmpty { options += option(0, []) }
        }
        let total = 32 + captured + padding + options.count
        out += u32(6) + u32(UInt32(total)) + u32(UInt32(truncatingIfNeeded: interface))
        out += u32(UInt32(truncatingIfNeeded: units >> 32)) + u32(UInt32(truncatingIfNeeded: units))
        out += u32(UInt32(captured)) + u32(UInt32(clamping: max(frame.originalLength, captured)))
        if let base = bytes.baseAddress { out.append(contentsOf: UnsafeRawBufferPointer(start: base, count: captured)) }
        out += [UInt8](repeating: 0, count: padding)
        out += options
        out += u32(UInt32(total))
    }

    // MARK: Little-endian blocks

    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
    static func padded(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (4 - b.count % 4) % 4) }

    /// The UTF-8 of `s`, at most `limit` bytes of it, cut before a whole character.
    static func utf8Prefix(_ s: String, _ limit: Int) -> [UInt8] {
        var b = Array(s.utf8)
        guard b.count > limit else { return b }
        var end = limit
        while end > 0 && b[end] & 0xC0 == 0x80 { end -= 1 }
        b.removeSubrange(end...)
        return b
    }

    static func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        u16(code) + u16(UInt16(truncatingIfNeeded: value.count)) + padded(value)
    }

    static func block(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let b = padded(body)
        let n = UInt32(12 + b.count)
        return u32(type) + u32(n) + b + u32(n)
    }
}
