/// Hashing for the keys of session state: a key made of a few 64-bit words (addresses, name
/// keys, types) is hashed word by word with `KeyHash`, a keyed multiply-fold hash, instead of
/// SipHash over each field. Tables of session state are looked up several times per packet,
/// and SipHash (`Hasher`) was the largest cost of those lookups after the memory they touch
/// (Benchmarks/README.md, "Measurements behind the code").
///
/// The hash is keyed by the table's seed, which `Dictionary` and `Set` draw from the process's
/// random seed: the same keys land in other buckets in every run, so a sender cannot choose
/// keys from the wire that pile up in one bucket. Every word of a key goes into the state
/// through a 64 × 64 → 128-bit multiply folded to 64 bits (as aHash's fallback does): two
/// keys that differ in any word differ in the state with high probability whatever the seed.
public protocol WordHashable: Hashable {
    /// Feeds the key's fields to `sink` as 64-bit words; equal keys feed equal words.
    func feedWords<S: WordSink>(into sink: inout S)
}

/// What takes a key's words: `KeyHash` in tables, `Hasher` where the key is hashed as part of
/// another value.
public protocol WordSink {
    mutating func add(_ word: UInt64)
}

extension Hasher: WordSink {
    @inlinable
    public mutating func add(_ word: UInt64) { combine(word) }
}

extension WordHashable {
    @inlinable
    public func hash(into hasher: inout Hasher) { feedWords(into: &hasher) }

    /// What `Dictionary` and `Set` hash a key by (the requirement `Hashable` declares for
    /// this; its default runs `hash(into:)` through SipHash).
    @inlinable
    public func _rawHashValue(seed: Int) -> Int {
        var h = KeyHash(seed: seed)
        feedWords(into: &h)
        return h.value
    }
}

/// The state of a keyed multiply-fold hash over 64-bit words.
public struct KeyHash: WordSink {
    @usableFromInline var state: UInt64

    @inlinable
    public init(seed: Int) {
        state = UInt64(UInt(bitPattern: seed)) ^ 0x243F_6A88_85A3_08D3
    }

    @inlinable @inline(__always)
    static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let p = a.multipliedFullWidth(by: b)
        return p.high ^ p.low
    }

    @inlinable
    public mutating func add(_ word: UInt64) {
        state = Self.fold(state ^ word, 0x5851_F42D_4C95_7F2D)
    }

    /// The hash of the words added so far.
    @inlinable
    public var value: Int {
        Int(truncatingIfNeeded: Self.fold(state, 0x9E37_79B9_7F4A_7C15 ^ state.byteSwapped))
    }
}

/// A key that is one 64-bit word (a name's key, an identity key of a value), hashed as that
/// word: what tables of such keys are keyed by, rather than `UInt64`, which `Dictionary` and
/// `Set` hash through SipHash.
public struct WordKey: WordHashable, Sendable {
    public var bits: UInt64

    public init(_ bits: UInt64) { self.bits = bits }

    public func feedWords<S: WordSink>(into sink: inout S) { sink.add(bits) }
}
