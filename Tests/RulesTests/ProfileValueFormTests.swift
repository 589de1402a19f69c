import Testing
import WireFormat

@testable import Rules

/// The value forms the profile rules read from TXT bytes on every instance, written as one
/// pass each: they must read what their definitions say.
@Suite struct ProfileValueFormTests {
    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func restrictedNameCharsAreRFC6838s() {
        let spelled = Set(Array("!#$&-^_.+".utf8))
        for b in 0...UInt8.max {
            let isChar = (b < 0x80 && (ASCII.isAlpha(b) || ASCII.isDigit(b))) || spelled.contains(b)
            #expect(PrintingTXT.isRestrictedNameChar(b) == isChar, "byte \(b)")
        }
    }

    /// Each element of a pdl-style list, and whether it has a media type's form.
    func mediaTypes(_ s: String) -> [(String, Bool)] {
        let p = bytes(s)
        var out: [(String, Bool)] = []
        PrintingTXT.forEachMediaType(p, p.indices) { e, isMediaType in
            out.append((String(decoding: p[e], as: UTF8.self), isMediaType))
        }
        return out
    }

    @Test func listElementsAreMediaTypesWithOneSlashBetweenTokens() {
        let found = mediaTypes("image/pwg-raster,,/x,a/,a/b/c,a b/c,application/vnd.hp-PCL,x/y")
        let expected: [(String, Bool)] = [
            ("image/pwg-raster", true), ("", false), ("/x", false), ("a/", false), ("a/b/c", false),
            ("a b/c", false), ("application/vnd.hp-PCL", true), ("x/y", true),
        ]
        #expect(found.map(\.0) == expected.map(\.0))
        #expect(found.map(\.1) == expected.map(\.1))
        #expect(mediaTypes("").map(\.0) == [""])
        #expect(mediaTypes("a/b,").map(\.1) == [true, false])
    }

    func features(_ s: String) -> (value: UInt64, words: Int)? {
        let p = bytes(s)
        return AirPlay.features(p, p.indices)
    }

    @Test func featuresAreOneOrTwoPrefixedWordsLowFirst() {
        #expect(features("0x445D0A00,0x1C340").map { [$0.value, UInt64($0.words)] } == [0x1_C340_445D_0A00, 2])
        #expect(features("0X4A7FDFD5").map { [$0.value, UInt64($0.words)] } == [0x4A7F_DFD5, 1])
        #expect(features("0xffffffff,0xFFFFFFFF")?.value == .max)
        for bad in ["", "0x", "445D0A00", "0x1,", "0x1,,0x2", "0x1,0x2,0x3", "0x123456789", "0x1G", ",0x1", "0x1 "] {
            #expect(features(bad) == nil, "\(bad)")
        }
    }

    @Test func aLiteralKeysFoldIsTheFoldOfTheSameKeyInAnyCase() {
        let p = bytes("COLORtransparentpdl")
        #expect(ProfileInstances.fold("Color") == ProfileInstances.fold(p, 0..<5))
        #expect(ProfileInstances.fold("Transparent") == ProfileInstances.fold(p, 5..<16))
        #expect(ProfileInstances.fold("pdl") == ProfileInstances.fold(p, 16..<19))
        #expect(ProfileInstances.fold("pdl") != ProfileInstances.fold(p, 16..<18))
        // Longer keys share a fold with keys of their length and first seven bytes (the
        // lookup compares their bytes then); a length apart, they differ.
        #expect(ProfileInstances.fold("Transparent") == ProfileInstances.fold("Transparenz"))
        #expect(ProfileInstances.fold("Transparent") != ProfileInstances.fold("Transparents"))
        // The first seven bytes, and the length apart.
        let low: UInt64 = 0xFF_FFFF_FFFF_FFFF
        #expect(ProfileInstances.fold("Transparent") & low == ProfileInstances.fold("transpa") & low)
        #expect(ProfileInstances.fold("Transparent") >> 56 == 11)
    }

    func deviceID(_ s: String) -> UInt64? {
        let p = bytes(s)
        return AppTXT.colonDeviceID(p, p.indices)
    }

    @Test func aColonDeviceIDIsSixPairsOfDigitsBetweenColons() {
        #expect(deviceID("74:1B:b2:D1:1A:B7") == 0x741B_B2D1_1AB7)
        #expect(deviceID("00:00:00:00:00:00") == 0)
        for bad in [
            "741BB2D11AB7", "74:1B:B2:D1:1A:B", "74:1B:B2:D1:1A:B7:", "74-1B-B2-D1-1A-B7", "74:1B:B2:D1:1AB7 ",
            "7G:1B:B2:D1:1A:B7",
        ] {
            #expect(deviceID(bad) == nil, "\(bad)")
        }
    }

    /// PROF-213 compares the words in lower case, from the element's end.
    @Test func aCutElementIsAProperBeginningOfAKnownWordInAnyCase() {
        for words in [PrintListCutRule.mediaTypes, PrintListCutRule.kinds] {
            #expect(words.allSatisfy { $0 == $0.map(ASCII.lower) })
        }
        func cut(_ s: String) -> Bool {
            let p = bytes(s)
            return PrintListCutRule.isCutPrefix(p, p.indices, of: PrintListCutRule.mediaTypes)
        }
        #expect(cut("image/pwg-ras"))
        #expect(cut("Application/P"))
        #expect(!cut("application/PCLm"))
        #expect(!cut("image/pwg-raster"))
        #expect(!cut("image/pwg-rasterx"))
        #expect(!cut("image/qwg"))
    }

    /// PROF-209 passes over the pairs whose fold's bit none of its keys has: each key's bit is
    /// among the rule's.
    @Test func theBooleanKeysBitsHoldEveryKeysFold() {
        for key in PrintBooleanKeysRule.keys {
            let p = bytes(key.description.uppercased())
            let bit = ProfileInstances.bit(ofFold: ProfileInstances.fold(p, p.indices))
            #expect(PrintBooleanKeysRule.foldBits & bit != 0, "\(key)")
        }
        #expect(PrintBooleanKeysRule.foldBits.nonzeroBitCount <= PrintBooleanKeysRule.keys.count)
    }
}
