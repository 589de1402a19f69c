/// Byte-level ASCII helpers used by the text protocols (SSDP) and by name comparison (DNS).
public enum ASCII {
    @inline(__always)
    @inlinable
    public static func lower(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b
    }

    /// Start of a case-insensitive identity key (FNV-1a offset basis).
    public static let keySeed: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Adds bytes, ASCII-lowercased, to a key (FNV-1a): how devices and service types are
    /// counted without keeping their names.
    @inlinable
    public static func addToKey<C: Collection>(_ bytes: C, _ h: inout UInt64) where C.Element == UInt8 {
        for b in bytes {
            h ^= UInt64(lower(b))
            h = h &* 0x0000_0100_0000_01B3
        }
    }

    /// ASCII case-insensitive equality of two byte sequences (RFC 4343 for DNS, RFC 9110 for
    /// header names). Non-ASCII bytes compare exactly.
    @inlinable
    public static func equalsIgnoringCase<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var i = a.startIndex
        var j = b.startIndex
        while i != a.endIndex {
            if lower(a[i]) != lower(b[j]) { return false }
            i = a.index(after: i)
            j = b.index(after: j)
        }
        return true
    }

    @inlinable
    public static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inlinable
    public static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }
    @inlinable
    public static func isAlpha(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    /// Parses an unsigned decimal number made only of digits; nil when empty, when any byte is
    /// not a digit, or on overflow of `UInt64`.
    @inlinable
    public static func parseDecimal<C: Collection>(_ bytes: C) -> UInt64? where C.Element == UInt8 {
        guard !bytes.isEmpty else { return nil }
        var v: UInt64 = 0
        for b in bytes {
            guard isDigit(b) else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b &- 0x30))
            if o1 || o2 { return nil }
            v = s
        }
        return v
    }

    /// How many times `byte` occurs (no filtered copy).
    @inlinable
    public static func count(_ byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int {
        var n = 0
        for b in bytes where b == byte { n += 1 }
        return n
    }

    /// The pieces of `bytes` between `separator`s, empty pieces left out (as
    /// `split(separator:)`, without building the array).
    @inlinable
    public static func forEachPiece(
        of bytes: ArraySlice<UInt8>, separatedBy separator: UInt8, _ body: (ArraySlice<UInt8>) -> Bool
    ) {
        var start = bytes.startIndex
        var k = start
        while k <= bytes.endIndex {
            if k == bytes.endIndex || bytes[k] == separator {
                if k > start, !body(bytes[start..<k]) { return }
                start = k + 1
            }
            k += 1
        }
    }

    /// Whether a slice is valid UTF-8; pure ASCII (most header values and labels) answers
    /// without decoding.
    @inlinable
    public static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.span.isASCII(0..<bytes.count) || decodesAsUTF8(bytes)
    }

    /// Whether the bytes are valid UTF-8.
    @inlinable
    public static func isValidUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        decodesAsUTF8(bytes)
    }

    @inlinable
    static func decodesAsUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var it = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&it) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Case-insensitive equality of `bytes[range]` with a literal, without making a slice.
    @inlinable
    public static func equalsIgnoringCase(_ bytes: [UInt8], _ range: Range<Int>, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard range.count == n, range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        guard n >= 8 else {
            // Shorter than a word: byte by byte, without borrowing the storage.
            let t = literal.utf8Start
            for k in 0..<n where lower(bytes[range.lowerBound &+ k]) != lower(t[k]) { return false }
            return true
        }
        return bytes.withUnsafeBytes { equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: $0[range]), literal) }
    }

    /// Case-insensitive equality of a slice with a literal.
    @inlinable
    public static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBytes { equalsIgnoringCase($0, literal) }
    }

    /// Case-insensitive equality of `u` with a literal, eight bytes at a time
    /// (`lowered(word:)`): the comparison behind the two above, which the profile rules make
    /// for service types, media types and TXT values on every message that claims a profile
    /// (Benchmarks/README.md, "The profile rules' checks, #53"). The one place that reads bytes
    /// for it through a pointer; `u` and the literal are read within their counts.
    @usableFromInline
    static func equalsIgnoringCase(_ u: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        let n = u.count
        guard n == literal.utf8CodeUnitCount else { return false }
        guard n > 0, let a = u.baseAddress else { return true }
        let b = UnsafeRawPointer(literal.utf8Start)
        guard n >= 8 else {
            for k in 0..<n
            where lower(a.load(fromByteOffset: k, as: UInt8.self)) != lower(b.load(fromByteOffset: k, as: UInt8.self)) {
                return false
            }
            return true
        }
        func same(at offset: Int) -> Bool {
            lowered(word: a.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                == lowered(word: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        var k = 0
        while k &+ 8 <= n {
            guard same(at: k) else { return false }
            k &+= 8
        }
        // The last bytes as the word ending there (overlapping bytes already compared).
        return k == n || same(at: n &- 8)
    }

    /// The eight bytes of `w` with their ASCII upper-case letters lowered (others unchanged):
    /// a byte's low seven bits plus 0x3F reach bit 7 from `A` (0x41) on, plus 0x25 from past
    /// `Z` (0x5B) on; neither sum carries into the next byte, and bytes ≥ 0x80 are left out.
    @inlinable @inline(__always)
    static func lowered(word w: UInt64) -> UInt64 {
        let highs: UInt64 = 0x8080_8080_8080_8080
        let low7 = w & ~highs
        let upper = (low7 &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(low7 &+ 0x2525_2525_2525_2525) & ~w & highs
        return w | (upper &>> 2)
    }

    /// Case-insensitive equality of two ranges of the same bytes, without making slices.
    @inlinable
    public static func equalsIgnoringCase(_ bytes: [UInt8], _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        var i = a.lowerBound
        var j = b.lowerBound
        while i < a.upperBound {
            if lower(bytes[i]) != lower(bytes[j]) { return false }
            i += 1
            j += 1
        }
        return true
    }

    /// Whether `bytes[range]` is valid UTF-8 (pure ASCII answers without decoding).
    @inlinable
    public static func isValidUTF8(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        bytes.span.isASCII(range) || decodesAsUTF8(bytes[range])
    }
}

extension ArraySlice where Element == UInt8 {
    /// Byte-exact equality with a literal (`elementsEqual("…".utf8)` walks the String view
    /// through the generic path).
    @inlinable
    public func equals(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard count == n else { return false }
        let t = literal.utf8Start
        return withUnsafeBufferPointer { b in
            var k = 0
            while k < n {
                if b[k] != t[k] { return false }
                k += 1
            }
            return true
        }
    }
}
