import Testing

@testable import WireFormat

/// `ASCII.equalsIgnoringCase` against a literal compares eight bytes at a time: it must agree
/// with the byte-by-byte definition (ASCII letters fold, every other byte compares exactly).
@Suite struct CaseInsensitiveCompareTests {
    /// The definition, a byte at a time.
    func reference(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { ASCII.lower($0) == ASCII.lower($1) }
    }

    @Test func eachWordLowersExactlyTheUpperCaseLetters() {
        // Every byte value in every lane of a word.
        for lane in 0..<8 {
            for b in 0...UInt8.max {
                let w = UInt64(b) << UInt64(8 * lane) | 0x4100_0000_0000_005A & ~(UInt64(0xFF) << UInt64(8 * lane))
                var expected: UInt64 = 0
                for k in 0..<8 {
                    expected |= UInt64(ASCII.lower(UInt8(truncatingIfNeeded: w >> UInt64(8 * k)))) << UInt64(8 * k)
                }
                #expect(ASCII.lowered(word: w) == expected, "lane \(lane) byte \(b)")
            }
        }
    }

    static let literals: [StaticString] = [
        "", "a", "roku:ecp", "image/jpeg", "urn:dial-multiscreen-org:service:dial:", "Color", "MiXeD-CaSe_0123[@]`{}",
    ]

    @Test func literalsCompareAsTheByteDefinitionSays() {
        var rng = SystemRandomNumberGenerator()
        for literal in Self.literals {
            let lit = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            // Each byte of the literal replaced by each byte value, at each place, in a payload
            // that has bytes before and after the compared range.
            for k in lit.indices {
                for b in 0...UInt8.max {
                    var v = lit
                    v[k] = b
                    let payload = [0x41] + v + [0x7A]
                    let range = 1..<(1 + v.count)
                    #expect(
                        ASCII.equalsIgnoringCase(payload, range, literal) == reference(v, lit), "\(literal) [\(k)]=\(b)"
                    )
                    #expect(ASCII.equalsIgnoringCase(payload[range], literal) == reference(v, lit))
                }
            }
            // The literal in random case, equal; one byte longer or shorter, not.
            for _ in 0..<20 {
                let cased = lit.map { ASCII.isAlpha($0) && Bool.random(using: &rng) ? $0 ^ 0x20 : $0 }
                #expect(ASCII.equalsIgnoringCase(cased, cased.indices, literal))
                #expect(
                    !ASCII.equalsIgnoringCase(cased + [0x61], cased.indices.lowerBound..<(cased.count + 1), literal))
                if !cased.isEmpty { #expect(!ASCII.equalsIgnoringCase(cased, 0..<(cased.count - 1), literal)) }
            }
        }
    }

    @Test func aRangeOutsideTheBytesIsNotEqual() {
        let p = Array("roku:ecp".utf8)
        #expect(!ASCII.equalsIgnoringCase(p, 1..<9, "roku:ecp"))
        #expect(ASCII.equalsIgnoringCase(p, 0..<8, "ROKU:ECP"))
    }
}
