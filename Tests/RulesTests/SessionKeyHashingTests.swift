import NetLayers
import Testing
import WireFormat

@testable import Rules

/// The keys of session state hash as words (`WordHashable`): tables find them through
/// `KeyHash`, keyed by the table's seed.
@Suite struct SessionKeyHashingTests {
    static func keyHash<K: WordHashable>(_ k: K, seed: Int) -> Int {
        var h = KeyHash(seed: seed)
        k.feedWords(into: &h)
        return h.value
    }

    /// What `Dictionary` and `Set` call is the word hash, for every key type that declares
    /// it (a conformance added in an extension must not leave SipHash in place).
    @Test func tablesHashEachSessionKeyThroughItsWords() {
        let a = IPAddress.v6(0xFE80_0000_0000_0000, 0x0211_22FF_FE33_4455)
        let set = MDNSRRSetKey(name: 0x1234_5678_9ABC_DEF0, type: 1, rrclass: 1)
        let record = MDNSRecordKey(set: set, rdata: 42)
        func check<K: WordHashable>(_ k: K) {
            for seed in [0, 1, -7, 0x5DEE_CE66] {
                #expect(k._rawHashValue(seed: seed) == Self.keyHash(k, seed: seed), "\(K.self)")
            }
            #expect(k._rawHashValue(seed: 1) != k._rawHashValue(seed: 2), "\(K.self): the seed keys the hash")
        }
        check(a)
        check(IPAddress.v4(0xC0A8_0114))
        check(Endpoint(address: a, port: 5353))
        check(set)
        check(MDNSProbeKey(source: a, name: 7))
        check(MDNSQuestionKey(source: a, name: 7, type: 12))
        check(record)
        check(WholeRRSetRule.Key(source: a, set: set))
        check(PeriodicAnnouncementRule.Key(source: a, record: record))
        check(UpdateRateRule.Key(set: set, source: a))
        check(ConflictRule.OwnerKey(set: set, owner: a))
        check(ResponseWithinMXRule.DeviceKey(responder: a, location: 9))
        check(MDNSNameKey(0x1234_5678_9ABC_DEF0))
        let host = MulticastHost(mac: MACBytes([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]), address: a)
        check(host)
        check(MulticastHost(mac: MACBytes(), address: a))
        check(MulticastStore.MemberKey(host: host, group: .v4(0xE000_00FB)))
    }

    /// Addresses a sender chooses so that a hash folding the two words of an IPv6 address
    /// by exclusive or would put them all in one bucket still spread over the buckets.
    @Test func keysChosenToCollideUnderAnXorFoldSpreadOverBuckets() {
        let buckets = 1024
        for seed in [3, 0x7FFF_0001] {
            var load = [Int](repeating: 0, count: buckets)
            for k in 0..<UInt64(8192) {
                let hi = 0xFE80_0000_0000_0000 | k
                let key = IPAddress.v6(hi, hi ^ 0x0123_4567_89AB_CDEF)
                load[key._rawHashValue(seed: seed) & (buckets - 1)] += 1
            }
            // 8 per bucket on average; a hash that ignored the difference would put 8192 in one.
            #expect(load.max() ?? 0 <= 32, "seed \(seed): \(load.max() ?? 0) keys in one bucket")
        }
    }
}
