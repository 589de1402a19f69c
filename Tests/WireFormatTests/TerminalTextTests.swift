import TestSupport
import Testing
import WireFormat

/// `TerminalText`: what reaches a terminal from the wire.
@Suite struct TerminalTextTests {
    func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { TerminalText.append($0, to: &out) }
        return out
    }

    func reference(isPlain bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }

    @Test func fastPlainCheckAgreesWithTheByteByByteDefinitionAtEveryPosition() {
        // Every byte value at every position of words and tails (the check reads 8 at a time).
        for length in [1, 7, 8, 9, 16, 23] {
            for position in 0..<length {
                for b in 0...255 {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    bytes[position] = UInt8(b)
                    let fast = bytes.withUnsafeBufferPointer { TerminalText.isPlain($0) }
                    #expect(fast == reference(isPlain: bytes), "byte \(b) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func fastJSONPlainCheckAgreesWithTheByteByByteDefinitionAtEveryPosition() {
        // Lengths past a word read the last bytes as the word ending there, overlapping.
        for length in [1, 7, 8, 9, 15, 16, 23] {
            for position in 0..<length {
                for b in 0...255 {
                    var bytes = [UInt8](repeating: 0x41, count: length)
                    bytes[position] = UInt8(b)
                    let fast = bytes.withUnsafeBufferPointer { TerminalText.isPlainJSON($0) }
                    let expected = reference(isPlain: bytes) && b != 0x22 && b != 0x5C
                    #expect(fast == expected, "byte \(b) at \(position) of \(length)")
                }
            }
        }
        #expect([UInt8]().withUnsafeBufferPointer { TerminalText.isPlainJSON($0) })
    }

    @Test func controlsAreShownAsCatDashVDoes() {
        #expect(escaped(Array("a\u{1B}]0;x\u{07}\r\n\t\u{0}\u{7F}b".utf8)) == Array("a^[]0;x^G^M^J^I^@^?b".utf8))
        // C1 as UTF-8 (U+009B) and as a raw byte; invalid UTF-8.
        #expect(escaped([0xC2, 0x9B, 0x32, 0x4A]) == Array("M-BM-^[2J".utf8))
        #expect(escaped([0x9B, 0xFF, 0xE2, 0x82]) == Array("M-^[M-^?M-bM-^B".utf8))
        // Bidirectional override and zero-width space.
        #expect(escaped(Array("x\u{202E}y\u{200B}".utf8)) == Array("xM-bM-^@M-.yM-bM-^@M-^K".utf8))
    }

    @Test func printableTextAndUTF8LettersStayAsTheyAre() {
        for s in ["M-SEARCH * HTTP/1.1", "Küche — café ✓ 日本 🖨", "", "~ !\"#"] {
            #expect(escaped(Array(s.utf8)) == Array(s.utf8))
            #expect(TerminalText.escaped(s) == s)
        }
    }

    @Test func escapingIsIdempotentSafeAndSizedExactly() {
        var rng = SplitMix64(seed: 22)
        for _ in 0..<2000 {
            let n = Int(rng.next() % 40)
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let once = escaped(bytes)
            #expect(escaped(once) == once)
            #expect(once.withUnsafeBufferPointer { TerminalText.isSafe($0, allowingNewlines: false) })
            #expect(bytes.withUnsafeBufferPointer { TerminalText.escapedCount($0) } == once.count)
            #expect(once.count <= bytes.count * TerminalText.maxExpansion)
        }
    }
}
