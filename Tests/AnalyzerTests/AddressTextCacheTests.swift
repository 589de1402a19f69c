import NetLayers
import TestSupport
import Testing

@testable import Analyzer

/// The address text cache answers every address with its own text, whichever addresses
/// share a slot and in whatever order they come.
@Suite struct AddressTextCacheTests {
    @Test func textIsAlwaysTheAddressOwn() {
        var cache = AddressTextCache()
        var rng = SplitMix64(seed: 42)
        // More addresses than slots, drawn with repeats, IPv4 and IPv6 mixed.
        let pool: [IPAddress] = (0..<10_000).map { k in
            k % 3 == 0 ? .v6(0xFE80_0000_0000_0000, rng.next()) : .v4(UInt32(truncatingIfNeeded: rng.next()))
        }
        for _ in 0..<50_000 {
            let a = pool[Int(rng.next() % UInt64(pool.count))]
            #expect(cache.text(a) == a.description)
        }
        // An IPv4 address and an IPv6 address whose folded bits are equal still differ.
        #expect(cache.text(.v4(7)) == "0.0.0.7")
        #expect(cache.text(.v6(0, 7)) == IPAddress.v6(0, 7).description)
        #expect(cache.text(.v4(7)) == "0.0.0.7")
    }
}
