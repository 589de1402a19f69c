import Findings
import NetLayers
import Testing

@testable import Rules

/// The Matter decimal (shared/rules/profiles.md "Conventions") and its ranges, which every
/// numeric Matter rule reads through.
@Suite struct MatterDecimalTests {
    func parse(_ text: String, max: UInt64 = UInt64.max) -> Result<UInt64, MatterDecimal.Failure> {
        MatterDecimal.parse(Array(text.utf8), max: max)
    }

    @Test func zeroAndNumbersWithoutLeadingZerosParse() {
        #expect(parse("0") == .success(0))
        #expect(parse("7") == .success(7))
        #expect(parse("3840") == .success(3840))
        #expect(parse("18446744073709551615") == .success(UInt64.max))
    }

    @Test func aLeadingZeroIsRejected() {
        #expect(parse("03840") == .failure(.leadingZero))
        #expect(parse("00") == .failure(.leadingZero))
        #expect(parse("01", max: 3) == .failure(.leadingZero))
    }

    @Test func emptyAndNonDigitsAreRejected() {
        #expect(parse("") == .failure(.empty))
        #expect(parse("0xF00") == .failure(.notDecimal))
        #expect(parse("5s") == .failure(.notDecimal))
        #expect(parse("-1") == .failure(.notDecimal))
        #expect(parse("+1") == .failure(.notDecimal))
        #expect(parse(" 1") == .failure(.notDecimal))
        #expect(parse("true") == .failure(.notDecimal))
        #expect(parse("٣") == .failure(.notDecimal))
    }

    @Test func valuesAboveTheMaximumAreRejectedWithoutOverflow() {
        #expect(parse("4095", max: 4095) == .success(4095))
        #expect(parse("4096", max: 4095) == .failure(.tooLarge))
        #expect(parse("18446744073709551616") == .failure(.tooLarge))
        #expect(parse(String(repeating: "9", count: 400), max: 15) == .failure(.tooLarge))
        // A non-digit after the digits that overflowed is still not a decimal.
        #expect(parse(String(repeating: "9", count: 40) + "x") == .failure(.notDecimal))
    }

    @Test func theTableHoldsTheCatalogsRanges() {
        let expected: [(MatterNumber, UInt64)] = [
            (.discriminator, 4095), (.shortDiscriminator, 15), (.vendorID, 65535), (.productID, 65535),
            (.deviceType, 4_294_967_295), (.sessionInterval, 3_600_000), (.activeThreshold, 65535),
            (.transports, 6), (.icd, 1), (.commissioningMode, 3), (.pairingHint, (1 << 23) - 1),
            (.commissionerPasscode, 1),
        ]
        #expect(expected.count == MatterNumber.allCases.count)
        for (n, max) in expected {
            #expect(n.max == max, "\(n)")
            #expect(n.parse(Array(String(max).utf8)) == .success(max), "\(n)")
            #expect(n.parse(Array(String(max + 1).utf8)) == .failure(.tooLarge), "\(n)")
        }
    }

    @Test func hexadecimalNamesAreJudgedByCaseLengthAndDigits() {
        func shape(_ s: String, _ lengths: Int...) -> MatterHex {
            let b = Array(s.utf8)
            return lengths.count == 1
                ? MatterHex(b, 0..<b.count, lengths: lengths[0]) : MatterHex(b, 0..<b.count, lengths: 12, 16)
        }
        #expect(shape("4BA9831AE57CE2F9", 16) == .upper)
        #expect(shape("4ba9831ae57ce2f9", 16) == .lowerCase)
        #expect(shape("4BA9831AE57CE2F", 16) == .length(15))
        #expect(shape("MyDevice", 16) == .notHex)
        #expect(shape("240AC48E5170", 12, 16) == .upper)
        #expect(shape("F4939FF4A4DA0000", 12, 16) == .upper)
    }
}

/// The Matter rules together: a conforming node raises none of them, a service of another type
/// is never judged by its TXT keys, and findings name the profile of their instance.
@Suite struct MatterRulesTogetherTests {
    func matterFindings(_ datagrams: [Datagram]) -> [Finding] {
        analyse(datagrams).findings.filter { $0.rule.rawValue.hasPrefix("PROF-0") }
    }

    @Test func conformingNodesRaiseNoMatterFinding() {
        let txt = ["D=3840", "CM=1", "VP=65521+32768", "DT=256", "DN=Lamp", "SII=5000", "SAI=300", "T=0", "PH=33"]
        let f = matterFindings(
            [
                MatterExample.commissionable(txt, subtypes: ["_L3840", "_S15", "_V65521", "_T256", "_CM"]),
                MatterExample.operational(subtypes: ["_I2906C908D115D362"]),
                MatterExample.commissioner(["VP=65521+32769", "DT=35", "DN=Living Room TV", "CP=1"]),
            ].map(MatterHostNameMACRule.from))
        #expect(f.isEmpty, "\(f.map { "\($0.rule) \($0.message)" })")
    }

    @Test func anotherServiceWithMatterKeysIsNotJudged() {
        let f = matterFindings([
            mdns(MatterExample.announce("_http._tcp", "lamp", txt: ["D=03840", "CM=7", "T=1"], host: "lamp.local"))
        ])
        #expect(f.isEmpty, "\(f.map { "\($0.rule) \($0.message)" })")
    }

    @Test func findingsNameTheirInstancesProfile() {
        let f = matterFindings([MatterExample.operational(["D=3840", "T=7"])])
        #expect(f.contains { $0.rule == "PROF-016" && $0.profile == .matterOperational })
        #expect(f.contains { $0.rule == "PROF-019" && $0.profile == .matterOperational })
        // D in an operational TXT is PROF-019's, not judged as a commissionable node's.
        #expect(!f.contains { $0.rule == "PROF-006" })
    }
}
