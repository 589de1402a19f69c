/// Appending text to a byte buffer: output is built as UTF-8 bytes and turned into a
/// `String` (or written) once, instead of concatenating strings field by field.
extension Array where Element == UInt8 {
    @inlinable
    public mutating func append(_ s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Through the string's contiguous UTF-8 (no reference counting: `append(contentsOf:)`
    /// takes its argument owned, so passing the view retains the string's buffer).
    @inlinable
    public mutating func append(string s: String) {
        let copied: Void? = s.utf8.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        if copied == nil { append(contentsOf: s.utf8) }
    }

    /// An integer in decimal, written in place (see `OutputSpan.put(decimal:)`).
    public mutating func append(decimal value: Int) {
        append(addingCapacity: 21) { $0.put(decimal: value) }
    }

    /// `value` (non-negative) as exactly `width` decimal digits with leading zeros (the low
    /// `width` digits of a longer number).
    public mutating func append(zeroPadded value: Int, width: Int) {
        append(addingCapacity: 20) { $0.put(zeroPadded: value, width: width) }
    }

    /// `\DDD`, the DNS presentation escape of one byte.
    public mutating func append(decimalEscape b: UInt8) {
        append(0x5C)
        append(0x30 &+ b / 100)
        append(0x30 &+ (b / 10) % 10)
        append(0x30 &+ b % 10)
    }
}

extension Array where Element == UInt8 {
    /// Whether both arrays hold the same bytes, compared eight at a time (the generic `==`
    /// goes element by element).
    public func sameBytes(as other: [UInt8]) -> Bool {
        withUnsafeBytes { a in other.withUnsafeBytes { b in a.sameBytes(as: b) } }
    }

    /// A 64-bit hash of the bytes (see `UnsafeRawBufferPointer.contentHash`).
    public var contentHash: UInt64 { withUnsafeBytes { $0.contentHash } }
}

extension UnsafeRawBufferPointer {
    /// Whether both buffers hold the same bytes, compared eight at a time.
    public func sameBytes(as b: UnsafeRawBufferPointer) -> Bool {
        guard count == b.count else { return false }
        if baseAddress == b.baseAddress { return true }
        var i = 0
        while i &+ 8 <= count {
            if loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i &+= 8
        }
        while i < count {
            if self[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }

    /// A 64-bit hash of the bytes, eight at a time (multiply and xor-shift; not keyed: it
    /// picks a slot in a cache that then compares the bytes, so a collision costs a miss,
    /// never a wrong answer). Four independent lanes take 32 bytes per round, so the
    /// multiplications overlap (one chain of them took 6 cycles per 8 bytes); each step is
    /// invertible, so changing any byte changes the hash.
    public var contentHash: UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        @inline(__always) func mix(_ h: UInt64, _ w: UInt64) -> UInt64 {
            let m = (h ^ w) &* k
            return m ^ (m >> 29)
        }
        @inline(__always) func word(_ i: Int) -> UInt64 {
            UInt64(littleEndian: loadUnaligned(fromByteOffset: i, as: UInt64.self))
        }
        var h = UInt64(truncatingIfNeeded: count) &* k
        var i = 0
        if count >= 32 {
            var a = h
            var b: UInt64 = 0x6A09_E667_F3BC_C909
            var c: UInt64 = 0xBB67_AE85_84CA_A73B
            var d: UInt64 = 0x3C6E_F372_FE94_F82B
            while i &+ 32 <= count {
                a = mix(a, word(i))
                b = mix(b, word(i &+ 8))
                c = mix(c, word(i &+ 16))
                d = mix(d, word(i &+ 24))
                i &+= 32
            }
            h = mix(mix(mix(a, b), c), d)
        }
        while i &+ 8 <= count {
            h = mix(h, word(i))
            i &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < count {
            tail |= UInt64(self[i]) << shift
            shift &+= 8
            i &+= 1
        }
        h = (h ^ tail) &* k
        return h ^ (h >> 32)
    }
}
