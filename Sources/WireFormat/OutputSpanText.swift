extension Array where Element == UInt8 {
    /// Appends what `write` puts into a span sized for `bound` bytes: a line is sized once and
    /// filled without `Array`'s per-append capacity and uniqueness checks. When the writes
    /// fill the span (the bound was too small, so something may have been dropped), they are
    /// taken back and made again with twice the room: text is never cut short.
    public mutating func append(sizedFor bound: Int, _ write: (inout OutputSpan<UInt8>) -> Void) {
        var room = Swift.max(bound, 0) + 1
        while true {
            let start = count
            append(addingCapacity: room, initializingWith: write)
            if count - start < room { return }
            removeSubrange(start...)
            room = room > Int.max / 2 ? Int.max : room * 2
        }
    }
}

extension String {
    /// The text `write` puts into a span of `bound` bytes, made in the string's own storage
    /// (inline when short), with no byte array made first and then copied. Ill-formed UTF-8
    /// is repaired as `String(decoding:as:)` repairs it. What does not fit in `bound` is
    /// dropped: a caller gives the exact length or a bound its writes cannot pass.
    public init(utf8Bound bound: Int, _ write: (inout OutputSpan<UInt8>) -> Void) {
        self.init(unsafeUninitializedCapacity: Swift.max(bound, 0)) { buffer in
            var span = OutputSpan(buffer: buffer, initializedCount: 0)
            write(&span)
            return span.finalize(for: buffer)
        }
    }
}

/// Writing text into an `OutputSpan` of bytes. What does not fit in the span's free capacity
/// is dropped and the span left full (never a trap): writers go through
/// `Array.append(sizedFor:_:)`, which notices a full span and writes again.
extension OutputSpan where Element == UInt8 {
    @inlinable @inline(__always)
    public mutating func put(_ b: UInt8) {
        if !isFull { append(b) }
    }

    @inlinable @inline(__always)
    public mutating func put(_ s: StaticString) {
        put(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// `\DDD`, the DNS presentation escape of one byte.
    @inlinable
    public mutating func put(decimalEscape b: UInt8) {
        put(0x5C)
        put(0x30 &+ b / 100)
        put(0x30 &+ (b / 10) % 10)
        put(0x30 &+ b % 10)
    }

    @inlinable
    public mutating func put(_ source: UnsafeBufferPointer<UInt8>) {
        let n = Swift.min(source.count, freeCapacity)
        guard n > 0, let from = source.baseAddress else { return }
        withUnsafeMutableBufferPointer { buffer, initialized in
            guard let to = buffer.baseAddress, initialized + n <= buffer.count else { return }
            (to + initialized).initialize(from: from, count: n)
            initialized += n
        }
    }

    /// The string's UTF-8 (contiguous for native strings; others are copied first).
    public mutating func put(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { put($0) }
        if done == nil {
            var copy = s
            copy.withUTF8 { put($0) }
        }
    }

    /// The low `digits` (at most 16) hexadecimal digits of `value`, in lower case, with
    /// leading zeros.
    @inlinable
    public mutating func put(hex value: UInt64, digits: Int) {
        var shift = Swift.min(Swift.max(digits, 0), 16) &* 4
        while shift > 0 {
            shift &-= 4
            put(hexDigit(value >> UInt64(shift)))
        }
    }

    /// An integer in decimal.
    public mutating func put(decimal value: Int) {
        if value < 0 { put(0x2D) }
        putDigits(value.magnitude, width: Self.digitCount(value.magnitude))
    }

    /// `value` (non-negative) as exactly `width` (1...20) decimal digits with leading zeros
    /// (the low `width` digits of a longer number).
    public mutating func put(zeroPadded value: Int, width: Int) {
        putDigits(value.magnitude, width: Swift.min(Swift.max(width, 1), 20))
    }

    static func digitCount(_ v: UInt) -> Int {
        var n = 1
        var x = v
        while x >= 10 {
            x /= 10
            n += 1
        }
        return n
    }

    /// The low `width` digits of `value`, written right to left in place.
    private mutating func putDigits(_ value: UInt, width: Int) {
        guard width <= freeCapacity else {
            // A number is never cut: the span is filled instead, which tells
            // `append(sizedFor:_:)` to write the line again with more room.
            while !isFull { append(0x3F) }
            return
        }
        withUnsafeMutableBufferPointer { buffer, initialized in
            guard initialized + width <= buffer.count else { return }
            var v = value
            var k = initialized + width
            while k > initialized {
                k -= 1
                buffer[k] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10)
                v /= 10
            }
            initialized += width
        }
    }
}
