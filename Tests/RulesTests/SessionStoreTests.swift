import Findings
import Testing
import WireFormat

@testable import Rules

/// The session store's contract: session rules keep no state of their own, and every table
/// of the store is bounded by the same policy.
@Suite struct SessionStoreTests {
    /// The registered session rules whose types have stored properties.
    private static func withState(_ rules: [any Rule.Type]) -> [String] {
        rules.filter { $0.instanceSize != 0 }.map { $0.descriptor.id.rawValue }
    }

    /// A session rule is an empty type: what it still has to decide can only be kept in the
    /// store's verdict rows, which the store bounds, ages out and counts.
    @Test func sessionRulesKeepNoStateOfTheirOwn() {
        let offenders = Self.withState(
            RuleRegistry.mdnsSession.map { $0 } + RuleRegistry.ssdpSession.map { $0 }
                + RuleRegistry.mdnsSegments.map { $0 } + RuleRegistry.multicastSession.map { $0 })
        #expect(offenders.isEmpty, "session rules with stored properties: \(offenders)")
    }

    private static func at(_ seconds: Int64) -> Timestamp { Timestamp(seconds: seconds, nanoseconds: 0) }

    private struct Row {
        var last: Timestamp
    }

    /// Past its cap a table drops the rows inactive past its horizon, without counting them.
    @Test func aFullTableDropsStaleRowsFirstUncounted() {
        var t = SessionTable<Int, Row>(cap: 4, horizon: 10, activity: \.last)
        var evicted = 0
        for k in 0..<4 { t.insert(Row(last: Self.at(Int64(k))), for: k, at: Self.at(Int64(k)), evicted: &evicted) }
        t.insert(Row(last: Self.at(20)), for: 9, at: Self.at(20), evicted: &evicted)
        #expect(evicted == 0)
        #expect(t.count == 1)
        #expect(t[9] != nil)
    }

    /// When every row is still live, the least recently active eighth (at least one) goes and
    /// is counted; the row being inserted stays.
    @Test func aFullTableOfLiveRowsEvictsTheLeastRecentlyActiveAndCountsThem() {
        var t = SessionTable<Int, Row>(cap: 16, horizon: .infinity, activity: \.last)
        var evicted = 0
        for k in 0..<16 { t.insert(Row(last: Self.at(Int64(k))), for: k, at: Self.at(Int64(k)), evicted: &evicted) }
        t[0]?.last = Self.at(100)
        t.insert(Row(last: Self.at(101)), for: 99, at: Self.at(101), evicted: &evicted)
        #expect(evicted == 2)
        #expect(t[1] == nil && t[2] == nil)
        #expect(t[0] != nil && t[99] != nil)
        #expect(t.count == 15)
    }

    /// Dropping the least recently active eighth takes every entry at most as active as the
    /// last of the eighth, ties included, least active first: which entries go depends on their
    /// activity alone, not on the dictionary's order (which its hash seed, random for each
    /// process, decides), so the same capture keeps the same rows, and reports the same
    /// findings, on every run.
    @Test func theLeastActiveEighthAndItsTiesGoWhateverTheDictionarysOrder() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            let size = Int.random(in: 1...300, using: &generator)
            // Few distinct times: many entries tie at the threshold.
            let spread = Int64(round % 4 == 0 ? 2 : 40)
            let times = (0..<size).map { _ in Self.at(Int64.random(in: 0..<spread, using: &generator)) }
            var table: [Int: Row] = [:]
            for k in 0..<size { table[k &* 7919] = Row(last: times[k]) }
            // The same entries added the other way round into a larger table: another order.
            var other: [Int: Row] = [:]
            other.reserveCapacity(4 * size)
            for k in (0..<size).reversed() { other[k &* 7919] = Row(last: times[k]) }
            let threshold = times.sorted()[max(1, size / 8) - 1]
            let expected = Set((0..<size).filter { times[$0] <= threshold }.map { $0 &* 7919 })
            var reduced = table
            let gone = reduced.removeLeastActive(by: \.last)
            #expect(gone.count == expected.count && Set(gone) == expected, "round \(round), \(size) entries")
            let goneTimes = gone.compactMap { table[$0]?.last }
            #expect(goneTimes == goneTimes.sorted(), "round \(round): least active first")
            #expect(reduced.count == size - expected.count)
            var reducedOther = other
            #expect(Set(reducedOther.removeLeastActive(by: \.last)) == expected, "round \(round), other order")
        }
    }

    /// A table that expires its rows drops those inactive past its horizon once a horizon of
    /// packet time has gone by, when a row is added, far below its cap and uncounted; one that
    /// does not keeps them until it is full.
    @Test func anExpiringTableHoldsAboutAHorizonOfRowsBelowItsCap() {
        var expiring = SessionTable<Int, Row>(cap: 1000, horizon: 10, activity: \.last, expires: true)
        var kept = SessionTable<Int, Row>(cap: 1000, horizon: 10, activity: \.last)
        var evicted = 0
        for k in 0..<100 {
            let now = Self.at(Int64(k))
            expiring.insert(Row(last: now), for: k, at: now, evicted: &evicted)
            kept.insert(Row(last: now), for: k, at: now, evicted: &evicted)
        }
        #expect(evicted == 0)
        #expect(kept.count == 100)
        // Swept at seconds 0, 11, 22, …, 88, 99: what was inactive over 10 s at 99 is gone.
        #expect(expiring.rows.keys.sorted() == Array(89..<100))
        // A row changed in place stays active.
        expiring[89]?.last = Self.at(105)
        expiring.insert(Row(last: Self.at(111)), for: 111, at: Self.at(111), evicted: &evicted)
        #expect(expiring.rows.keys.sorted() == [89, 111])
        #expect(evicted == 0)
    }

    /// The bisection the window and a query's sorted names are searched with finds the first
    /// element past the split, at every place of it, in an empty collection and in a slice.
    @Test func aPartitionPointIsTheFirstElementPastTheSplit() {
        let sorted = [1, 3, 3, 5, 8, 13]
        for split in 0...14 {
            #expect(sorted.partitionPoint { $0 >= split } == (sorted.firstIndex { $0 >= split } ?? sorted.endIndex))
        }
        #expect([Int]().partitionPoint { $0 > 0 } == 0)
        let slice = sorted[2...]
        #expect(slice.partitionPoint { $0 >= 8 } == 4)
    }

    /// Changing an existing row never evicts.
    @Test func replacingARowNeedsNoRoom() {
        var t = SessionTable<Int, Row>(cap: 2, horizon: .infinity, activity: \.last)
        var evicted = 0
        t.insert(Row(last: Self.at(0)), for: 0, at: Self.at(0), evicted: &evicted)
        t.insert(Row(last: Self.at(1)), for: 1, at: Self.at(1), evicted: &evicted)
        t.insert(Row(last: Self.at(2)), for: 1, at: Self.at(2), evicted: &evicted)
        #expect(evicted == 0 && t.count == 2)
    }

    /// A window keeps what is within its span of the latest time, and at most its cap (the
    /// oldest goes first, counted).
    @Test func aWindowAgesOutByTimeAndByCap() {
        var w = SessionWindow<Row>(cap: 3, span: 5, time: \.last)
        var evicted = 0
        for s in [0, 1, 2, 3] as [Int64] { w.append(Row(last: Self.at(s)), evicted: &evicted) }
        #expect(evicted == 1)
        #expect(w.elements.map(\.last) == [Self.at(1), Self.at(2), Self.at(3)])
        w.age(to: Self.at(7))
        #expect(w.elements.map(\.last) == [Self.at(2), Self.at(3)])
        w.age(to: Self.at(100))
        #expect(w.isEmpty)
    }

    /// What leaves a window is skipped and compacted away later: through many appends past
    /// the cap and agings, the window holds exactly the latest events in order, its indices
    /// address them, and a removal by predicate keeps the others in order.
    @Test func aWindowKeepsTheLatestEventsInOrderThroughCompaction() {
        var w = SessionWindow<Row>(cap: 100, span: 50, time: \.last)
        var evicted = 0
        for s in 0..<1000 as Range<Int64> {
            w.append(Row(last: Self.at(s / 4)), evicted: &evicted)
            w.age(to: Self.at(s / 4))
        }
        #expect(evicted == 900)
        #expect(w.elements.count == 100)
        #expect(w.elements.map(\.last) == (900..<1000 as Range<Int64>).map { Self.at($0 / 4) })
        for k in w.elements.indices { #expect(w[k].last == w.elements[k].last) }
        w.age(to: Self.at(280))
        #expect(w.elements.map(\.last) == (920..<1000 as Range<Int64>).map { Self.at($0 / 4) })
        w.removeAll { $0.last == Self.at(240) }
        let kept = Array(920..<960 as Range<Int64>) + Array(964..<1000 as Range<Int64>)
        #expect(w.elements.map(\.last) == kept.map { Self.at($0 / 4) })
    }
}

extension Rule {
    /// The size of the rule type's instances: 0 for a type with no stored property.
    fileprivate static var instanceSize: Int { MemoryLayout<Self>.size }
}
