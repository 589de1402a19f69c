import Testing
import WireFormat

@Suite struct ByteReadingTests {
    @Test func spanReadsAreBigEndianAndNilPastTheEnd() {
        let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05]
        let span = bytes.span
        #expect(span.u8(at: 0) == 0x01 && span.u16(at: 1) == 0x0203 && span.u32(at: 1) == 0x0203_0405)
        #expect(span.u8(at: 5) == nil && span.u16(at: 4) == nil && span.u32(at: 2) == nil && span.u8(at: -1) == nil)
    }

    @Test func decimalParsingRejectsOverflowAndNonDigits() {
        #expect(ASCII.parseDecimal(Array("1800".utf8)) == 1800)
        #expect(ASCII.parseDecimal(Array("18a0".utf8)) == nil)
        #expect(ASCII.parseDecimal(Array("".utf8)) == nil)
        #expect(ASCII.parseDecimal(Array("99999999999999999999999".utf8)) == nil)
    }

    /// `forEachPiece` yields what `split(separator:)` returns (empty pieces left out), and
    /// stops when asked to.
    @Test func piecesMatchSplit() {
        for text in ["a,b", ",a,,b,", "", ",", "abc", "a,", ",,,x"] {
            let bytes = Array(("#" + text + "#").utf8).dropFirst().dropLast()  // a slice not starting at 0
            var pieces: [[UInt8]] = []
            ASCII.forEachPiece(of: bytes, separatedBy: 0x2C) {
                pieces.append(Array($0))
                return true
            }
            #expect(pieces == bytes.split(separator: 0x2C).map { Array($0) }, "\(text)")
            #expect(ASCII.count(0x2C, in: bytes) == text.filter { $0 == "," }.count)
        }
        var seen = 0
        ASCII.forEachPiece(of: ArraySlice("a,b,c".utf8), separatedBy: 0x2C) { _ in
            seen += 1
            return seen < 2
        }
        #expect(seen == 2)
    }

    @Test func caseInsensitiveComparisonFoldsOnlyASCII() {
        #expect(ASCII.equalsIgnoringCase(Array("Cache-Control".utf8), Array("CACHE-CONTROL".utf8)))
        #expect(!ASCII.equalsIgnoringCase([0xC3, 0xA9], [0xC3, 0x89]))
    }
}

@Suite struct ByteTextTests {
    /// Frame numbers, ports and clock fields are written as digits straight into the output.
    @Test func decimalDigitsMatchTheStandardLibrary() {
        var values: [Int] = [0, 1, 9, 10, 99, 100, 65535, 300_000, -1, -42, Int.max, Int.min]
        var p = 1
        for _ in 0..<18 {
            p *= 10
            values += [p - 1, p, p + 1]
        }
        for v in values {
            var out: [UInt8] = []
            out.append(decimal: v)
            #expect(String(decoding: out, as: UTF8.self) == String(v))
        }
    }

    @Test func zeroPaddedWritesExactlyTheLowDigits() {
        func padded(_ v: Int, _ w: Int) -> String {
            var out: [UInt8] = []
            out.append(zeroPadded: v, width: w)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(padded(5, 2) == "05")
        #expect(padded(0, 6) == "000000")
        #expect(padded(123_456, 6) == "123456")
        #expect(padded(7, 6) == "000007")
        #expect(padded(1234, 2) == "34")
        #expect(padded(9, 1) == "9")
    }

    /// Writing into a span sized too small drops what does not fit (a number whole, text
    /// from where the span ends); it never traps nor writes past the span.
    /// A raw span never traps: what does not fit is dropped and the span left full, which is
    /// how `append(sizedFor:_:)` knows to write again (`SizedWriteTests`).
    @Test func spanWritesStopAtTheCapacityAndLeaveItFull() {
        var out: [UInt8] = []
        out.append(addingCapacity: 8) { o in
            o.put("ab" as StaticString)
            o.put(decimal: 123_456_789)
            o.put("cd" as StaticString)
            o.put(0x21)
        }
        #expect(String(decoding: out, as: UTF8.self) == "ab??????")
        out.append(addingCapacity: 6) { o in
            o.put(zeroPadded: 42, width: 4)
            o.put("xyz")
        }
        #expect(String(decoding: out, as: UTF8.self) == "ab??????0042xy")
    }
}

/// The word-at-a-time searches agree with a byte-by-byte search at every position and range.
@Suite struct ByteScanTests {
    static func bytes(_ length: Int, _ seed: UInt64) -> [UInt8] {
        var rng = SplitMix(state: seed)
        // Mostly printable text with CR, LF, colons, controls, DEL and high bytes mixed in.
        let pool: [UInt8] =
            Array("abcXYZ-:. 09".utf8) + [0x0D, 0x0A, 0x09, 0x00, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        return (0..<length).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
    }

    @Test func firstIndexMatchesAByteByByteSearch() {
        for seed in 0..<200 as Range<UInt64> {
            let b = Self.bytes(Int(seed % 40), seed)
            for lo in 0...b.count {
                for hi in lo...b.count {
                    let expectedCRLF = (lo..<hi).first { b[$0] == 0x0A || b[$0] == 0x0D } ?? hi
                    let expectedColon = (lo..<hi).first { b[$0] == 0x3A } ?? hi
                    let crlf = b.span.firstIndex(of: 0x0A, or: 0x0D, in: lo..<hi)
                    let colon = b.span.firstIndex(of: 0x3A, in: lo..<hi)
                    let expectedAny = (lo..<hi).first { b[$0] == 0x3A || b[$0] == 0x0A || b[$0] == 0x0D } ?? hi
                    #expect(b.span.firstIndex(of: 0x3A, or: 0x0D, or: 0x0A, in: lo..<hi) == expectedAny)
                    let printable = b.span.isPrintableASCII(lo..<hi)
                    let ascii = b.span.isASCII(lo..<hi)
                    #expect(crlf == expectedCRLF)
                    #expect(colon == expectedColon)
                    #expect(printable == b[lo..<hi].allSatisfy { $0 >= 0x20 && $0 < 0x7F })
                    #expect(ascii == b[lo..<hi].allSatisfy { $0 < 0x80 })
                }
            }
        }
    }

    /// UTF-8 validity of a slice taken from the middle of a buffer: ASCII, valid multi-byte
    /// text, and a cut or stray continuation byte.
    @Test func sliceUTF8ValidityLooksOnlyAtTheSlice() {
        let b: [UInt8] = [0xFF, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0xC3, 0xA9, 0x6A, 0xFF]
        #expect(ASCII.isValidUTF8(b[1..<10]))
        #expect(ASCII.isValidUTF8(b[1..<13]))
        #expect(!ASCII.isValidUTF8(b[1..<11]))
        #expect(!ASCII.isValidUTF8(b[11..<13]))
        #expect(!ASCII.isValidUTF8(b[0..<9]))
        #expect(!ASCII.isValidUTF8(b[5..<14]))
    }

    @Test func rangesPastTheEndAreClamped() {
        let b = Array("abcdefghij:klmnop".utf8)
        let colon = b.span.firstIndex(of: 0x3A, in: 0..<100)
        let none = b.span.firstIndex(of: 0x0A, in: 5..<100)
        let printable = b.span.isPrintableASCII(0..<100)
        #expect(colon == 10)
        #expect(none == b.count)
        #expect(printable)
    }

    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}

/// The table of values kept per payload: answers only for the same bytes, shares the array
/// it holds, and stays at its size.
@Suite struct RepeatTableTests {
    static func address(_ p: [UInt8]) -> UnsafeRawPointer? { p.withUnsafeBytes { $0.baseAddress } }

    @Test func answersForTheSameBytesAndSharesItsArray() {
        var t = RepeatTable<Int>(bits: 4)
        let a: [UInt8] = Array("NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\n".utf8)
        let first = a.withUnsafeBytes { t.payload($0) }
        let k = t.slot(of: first)
        #expect(t.value(at: k, for: first) == nil)
        t.store(7, payload: first, at: k)
        // The same bytes again, from another buffer: the stored array comes back, not a copy.
        let again = Array(a).withUnsafeBytes { t.payload($0) }
        #expect(Self.address(again) == Self.address(first))
        #expect(t.slot(of: again) == k)
        #expect(t.value(at: k, for: again) == 7)
        // Other bytes are a copy, and have no value.
        let b: [UInt8] = Array("NOTIFY * HTTP/1.1\r\nNT: upnp:rootdevice\r\n\r\nX".utf8)
        let other = b.withUnsafeBytes { t.payload($0) }
        #expect(other == b && Self.address(other) != Self.address(first))
        #expect(t.value(at: t.slot(of: other), for: other) == nil)
    }

    @Test func aCollisionIsAMissNeverAWrongAnswer() {
        var t = RepeatTable<String>(bits: 0)  // one slot: every payload collides
        let a: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let b: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 10]
        t.store("a", payload: a, at: t.slot(of: a))
        #expect(t.value(at: t.slot(of: b), for: b) == nil)
        t.store("b", payload: b, at: t.slot(of: b))
        #expect(t.value(at: t.slot(of: a), for: a) == nil)
        #expect(t.value(at: t.slot(of: b), for: b) == "b")
        #expect(t.count == 1)
    }

    @Test func hashAndComparisonSeeEveryByte() {
        // Lengths around the eight-byte steps; changing any one byte changes the answer.
        for n in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100] {
            let base = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            for i in 0..<n {
                var changed = base
                changed[i] ^= 0x40
                #expect(!base.sameBytes(as: changed))
                #expect(base.contentHash != changed.contentHash)
            }
            #expect(base.sameBytes(as: Array(base)))
            #expect(base.contentHash == Array(base).contentHash)
        }
    }
}

/// The table that keeps payload bytes in place of arrays: answers only for the same bytes.
@Suite struct InlineRepeatTableTests {
    static func value(_ t: InlineRepeatTable<Int>, _ b: [UInt8]) -> Int? {
        b.withUnsafeBytes { t.value(for: $0, hash: $0.contentHash) }
    }
    static func store(_ t: inout InlineRepeatTable<Int>, _ v: Int, _ b: [UInt8]) {
        b.withUnsafeBytes { t.store(v, for: $0, hash: $0.contentHash) }
    }

    @Test func answersForTheSameBytesOnly() {
        var t = InlineRepeatTable<Int>(bits: 4, stride: 32)
        let a = Array("NOTIFY * HTTP/1.1\r\nNT: x\r\n\r\n".utf8)
        #expect(Self.value(t, a) == nil)
        Self.store(&t, 7, a)
        #expect(Self.value(t, Array(a)) == 7)
        // One byte changed, or one byte fewer: no answer, even when sent to the same slot.
        var changed = a
        changed[5] ^= 0x20
        #expect(a.withUnsafeBytes { x in changed.withUnsafeBytes { t.value(for: $0, hash: x.contentHash) } } == nil)
        let shorter = Array(a.dropLast())
        #expect(a.withUnsafeBytes { x in shorter.withUnsafeBytes { t.value(for: $0, hash: x.contentHash) } } == nil)
    }

    @Test func aCollisionReplacesAndLongPayloadsAreNotKept() {
        var t = InlineRepeatTable<Int>(bits: 0, stride: 8)  // one slot of eight bytes
        let a: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let b: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 9]
        Self.store(&t, 1, a)
        Self.store(&t, 2, b)
        #expect(Self.value(t, a) == nil)
        #expect(Self.value(t, b) == 2)
        // Nine bytes do not fit: not stored, and the slot keeps what it had.
        let long: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        Self.store(&t, 3, long)
        #expect(Self.value(t, long) == nil)
        #expect(Self.value(t, b) == 2)
        let empty: [UInt8] = []
        Self.store(&t, 4, empty)
        #expect(Self.value(t, empty) == 4)
    }
}
