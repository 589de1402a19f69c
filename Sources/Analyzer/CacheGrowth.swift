/// How the analyzer's caches grow: they start small (a short capture, or each of many
/// analyses a program makes, does not allocate and clear a whole table) and grow fourfold,
/// emptied, each time they have missed twice as many entries as they have slots, up to
/// 2^`maxBits` slots. A cache asks `missed()` after each miss and remakes its storage at
/// `bits` when it says so.
struct CacheGrowth: Sendable {
    private(set) var bits: Int
    let maxBits: Int
    private var misses = 0

    init(firstBits: Int = 6, maxBits: Int) {
        self.maxBits = maxBits
        bits = min(firstBits, maxBits)
    }

    /// Counts a miss; true when the cache is to be remade, emptied, at the new `bits`.
    mutating func missed() -> Bool {
        misses += 1
        guard misses > 2 << bits && bits < maxBits else { return false }
        bits = min(bits + 2, maxBits)
        misses = 0
        return true
    }
}

/// The slots of a cache that grows as `CacheGrowth` says. A slot index is taken within the
/// current size.
struct GrowingSlots<Value> {
    private var slots: [Value?]
    private var growth: CacheGrowth

    init(maxBits: Int) {
        growth = CacheGrowth(maxBits: maxBits)
        slots = Array(repeating: nil, count: 1 << growth.bits)
    }

    subscript(k: Int) -> Value? {
        get { slots[k & (slots.count - 1)] }
        set { slots[k & (slots.count - 1)] = newValue }
    }

    /// Counts a lookup that did not find its entry, and grows the table when they add up.
    mutating func missed() {
        if growth.missed() { slots = Array(repeating: nil, count: 1 << growth.bits) }
    }
}

extension GrowingSlots: Sendable where Value: Sendable {}
