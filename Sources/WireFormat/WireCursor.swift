/// A read position over a byte span. The cursor holds only offsets; the bytes are passed to
/// each read as a `Span`, so nothing is copied and nothing escapes. Every read checks bounds
/// before touching memory and throws `.truncated` (with the offset of the field) otherwise.
public struct WireCursor: Sendable {
    /// Absolute offset of the next byte to read.
    public var offset: Int
    /// Absolute offset one past the last byte this cursor may read.
    public var limit: Int

    public init(offset: Int = 0, limit: Int) {
        self.offset = offset
        self.limit = limit
    }

    /// Bytes left before `limit`.
    public var remaining: Int { limit > offset ? limit &- offset : 0 }
    public var isAtEnd: Bool { offset >= limit }

    @inline(__always)
    private func need(_ n: Int, _ span: borrowing Span<UInt8>) throws(DecodeError) {
        let end = Swift.min(limit, span.count)
        guard n >= 0, offset >= 0, offset <= end, end &- offset >= n else {
            throw DecodeError(.truncated, at: offset, "need \(n) byte(s)")
        }
    }

    public mutating func readUInt8(_ span: borrowing Span<UInt8>) throws(DecodeError) -> UInt8 {
        try need(1, span)
        defer { offset &+= 1 }
        return span[offset]
    }

    public mutating func readUInt16(_ span: borrowing Span<UInt8>) throws(DecodeError) -> UInt16 {
        try need(2, span)
        defer { offset &+= 2 }
        return UInt16(span[offset]) << 8 | UInt16(span[offset &+ 1])
    }

    public mutating func readUInt32(_ span: borrowing Span<UInt8>) throws(DecodeError) -> UInt32 {
        try need(4, span)
        defer { offset &+= 4 }
        return UInt32(span[offset]) << 24 | UInt32(span[offset &+ 1]) << 16
            | UInt32(span[offset &+ 2]) << 8 | UInt32(span[offset &+ 3])
    }

    /// Skips `n` bytes, returning the range skipped (absolute offsets).
    public mutating func skip(_ n: Int, _ span: borrowing Span<UInt8>) throws(DecodeError) -> Range<Int> {
        try need(n, span)
        let start = offset
        offset &+= n
        return start..<offset
    }
}

/// Big-endian reads at absolute offsets, returning nil when out of bounds.
extension Span where Element == UInt8 {
    @inline(__always)
    public func u8(at i: Int) -> UInt8? {
        guard i >= 0, i < count else { return nil }
        return self[i]
    }

    @inline(__always)
    public func u16(at i: Int) -> UInt16? {
        guard i >= 0, i < count &- 1 else { return nil }
        return UInt16(self[i]) << 8 | UInt16(self[i &+ 1])
    }

    @inline(__always)
    public func u32(at i: Int) -> UInt32? {
        guard i >= 0, i < count &- 3 else { return nil }
        return UInt32(self[i]) << 24 | UInt32(self[i &+ 1]) << 16 | UInt32(self[i &+ 2]) << 8 | UInt32(self[i &+ 3])
    }
}
