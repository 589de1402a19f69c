import Glibc
import Testing
import WireFormat

/// `CivilTime` is the C library's broken-down time without its time zone database: for any
/// moment and offset, the fields `gmtime_r` gives for the moment shifted by the offset.
@Suite struct CivilTimeTests {
    static func libc(_ seconds: Int64) -> CivilTime? {
        var t = time_t(seconds)
        var tmv = tm()
        guard gmtime_r(&t, &tmv) != nil else { return nil }
        return CivilTime(
            year: Int64(tmv.tm_year) + 1900, month: Int(tmv.tm_mon) + 1, day: Int(tmv.tm_mday),
            hour: Int(tmv.tm_hour), minute: Int(tmv.tm_min), second: Int(tmv.tm_sec))
    }

    @Test func agreesWithTheCLibraryOnEdgesAndRandomMoments() {
        var moments: [Int64] = [
            0, -1, 1, 86399, 86400, -86400, -86401, 951_782_400, 951_868_799, 4_107_542_399, 4_107_542_400,
            1_700_000_000, -62_135_596_800, 253_402_300_799, 67_767_976_233_316_799, -67_768_040_609_740_800,
        ]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<20000 { moments.append(Int64.random(in: -200_000_000_000...200_000_000_000, using: &g)) }
        for s in moments {
            let expected = Self.libc(s) ?? .unrepresentable
            #expect(CivilTime(seconds: s) == expected, "\(s)")
        }
    }

    @Test func theOffsetShiftsTheMoment() {
        // 2023-11-14 22:13:20 UTC is 17:13:20 five hours behind, the next day 03:43:20 at +5:30.
        #expect(CivilTime(seconds: 1_700_000_000, utcOffset: -18000).hour == 17)
        let india = CivilTime(seconds: 1_700_000_000, utcOffset: 19800)
        #expect((india.day, india.hour, india.minute) == (15, 3, 43))
    }

    @Test func momentsTheCLibraryCannotRepresentPrintAsItDid() {
        #expect(CivilTime(seconds: .max) == .unrepresentable)
        #expect(CivilTime(seconds: .min) == .unrepresentable)
        #expect(Self.libc(.max) == nil)
    }
}
