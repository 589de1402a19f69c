/// Byte searches a word (eight bytes) at a time, for the text protocols' line scanning. Each
/// word is read through the span's bounds-checked raw view; the tail of fewer than eight
/// bytes is read byte by byte.
extension Span where Element == UInt8 {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The word at `i` (`i + 8 <= count`), first byte lowest.
    @inline(__always)
    private func word(at i: Int) -> UInt64 {
        UInt64(littleEndian: bytes.unsafeLoadUnaligned(fromByteOffset: i, as: UInt64.self))
    }

    /// High bit set in each byte of `w` equal to `b`, exact up to and including the first
    /// such byte (the borrow of the subtraction can mark bytes after it).
    @inline(__always)
    private static func matches(_ w: UInt64, _ b: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(b))
        return (x &- ones) & ~x & highs
    }

    /// The first index in `range` holding `a`, `b` or `c`; the end of `range` (at most
    /// `count`) when none does.
    public func firstIndex(of a: UInt8, or b: UInt8, or c: UInt8, in range: Range<Int>) -> Int {
        search(a, b, c, range)
    }

    /// The first index in `range` holding `a` or `b`; the end of `range` (at most `count`) when none does.
    public func firstIndex(of a: UInt8, or b: UInt8, in range: Range<Int>) -> Int {
        search(a, b, b, range)
    }

    /// The first index in `range` holding `a`; the end of `range` (at most `count`) when none does.
    public func firstIndex(of a: UInt8, in range: Range<Int>) -> Int {
        search(a, a, a, range)
    }

    /// The search behind the `firstIndex` variants, inlined into each: with a byte passed
    /// twice, the repeated match is computed once.
    @inline(__always)
    private func search(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ range: Range<Int>) -> Int {
        let end = Swift.min(range.upperBound, count)
        var i = Swift.max(range.lowerBound, 0)
        while i &+ 8 <= end {
            let w = word(at: i)
            let m = Self.matches(w, a) | Self.matches(w, b) | Self.matches(w, c)
            if m != 0 { return i &+ m.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < end {
            if self[i] == a || self[i] == b || self[i] == c { return i }
            i &+= 1
        }
        return Swift.max(end, range.lowerBound)
    }

    /// Whether every byte in `range` is printable ASCII (0x20 to 0x7E).
    public func isPrintableASCII(_ range: Range<Int>) -> Bool {
        let end = Swift.min(range.upperBound, count)
        var i = Swift.max(range.lowerBound, 0)
        while i &+ 8 <= end {
            if !TerminalText.isPrintableASCII(word: word(at: i), except: 0x7F, 0x7F) { return false }
            i &+= 8
        }
        while i < end {
            if self[i] < 0x20 || self[i] >= 0x7F { return false }
            i &+= 1
        }
        return true
    }

    /// Whether every byte in `range` is ASCII (below 0x80).
    public func isASCII(_ range: Range<Int>) -> Bool {
        let end = Swift.min(range.upperBound, count)
        var i = Swift.max(range.lowerBound, 0)
        while i &+ 8 <= end {
            if word(at: i) & Self.highs != 0 { return false }
            i &+= 8
        }
        while i < end {
            if self[i] >= 0x80 { return false }
            i &+= 1
        }
        return true
    }
}
