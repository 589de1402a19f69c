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

    /// An integer in decimal.
    public mutating func append(decimal value: Int) {
        var v = value.magnitude
        if value < 0 { append(0x2D) }
        var div: UInt = 1
        while v / div >= 10 { div &*= 10 }
        while div > 0 {
            append(UInt8(truncatingIfNeeded: 0x30 &+ (v / div)))
            v %= div
            div /= 10
        }
    }

    /// `value` (non-negative) as exactly `width` decimal digits with leading zeros.
    public mutating func append(zeroPadded value: Int, width: Int) {
        var div = 1
        for _ in 1..<Swift.max(width, 1) { div &*= 10 }
        var v = value
        while div > 0 {
            append(UInt8(truncatingIfNeeded: 0x30 &+ (v / div) % 10))
            v %= div
            div /= 10
        }
    }

    /// `\DDD`, the DNS presentation escape of one byte.
    public mutating func append(decimalEscape b: UInt8) {
        append(0x5C)
        append(0x30 &+ b / 100)
        append(0x30 &+ (b / 10) % 10)
        append(0x30 &+ b % 10)
    }
}
