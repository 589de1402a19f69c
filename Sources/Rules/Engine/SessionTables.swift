import WireFormat

// The two kinds of table a session store is made of, each bounded the same way: rows by key
// (entities, verdict rows) and windows of recent events. Every table of session state is
// one of these, declared with its cap and horizon in the store; nothing else evicts.

/// Rows by key, with a cap and a horizon of packet time. Making room for a new row when the
/// table is full first drops the rows inactive for longer than the horizon, then, if the
/// table is still full, the least recently active eighth (in bulk: a flood of new keys costs
/// a sort every few hundred insertions, not a scan each), counted as evicted.
///
/// A table whose rows can change no judgement once inactive past the horizon (a window's
/// rows: a query waiting a second for its answer) `expires` them: they are dropped once per
/// horizon of packet time, when a row is added, not only when the table is full, so such a
/// table holds about a horizon's rows, not its cap's (not counted as evicted).
public struct SessionTable<Key: Hashable, Row> {
    public let cap: Int
    /// Seconds of packet time a row stays after its last activity when room is needed.
    public let horizon: Double
    /// A row's latest activity (a key path such as `\.last` serves): a function reads the
    /// field of a row in place, where a key path's projection copied the whole row first.
    private let activity: @Sendable (Row) -> Timestamp
    /// Rows past the horizon go without waiting for the cap (see above).
    private let expires: Bool
    /// When rows past the horizon were last dropped (`expires`).
    private var expiredAt: Timestamp = .zero
    public private(set) var rows: [Key: Row] = [:]

    public init(cap: Int, horizon: Double, activity: @escaping @Sendable (Row) -> Timestamp, expires: Bool = false) {
        self.cap = cap
        self.horizon = horizon
        self.activity = activity
        self.expires = expires && horizon.isFinite
    }

    public var isEmpty: Bool { rows.isEmpty }
    public var count: Int { rows.count }

    /// The row of `key`; changed in place. A new row is added with `insert` (which makes room),
    /// never through the subscript.
    public subscript(key: Key) -> Row? {
        get { rows[key] }
        _modify {
            var row = rows.removeValue(forKey: key)
            defer { if let row { rows[key] = row } }
            yield &row
        }
    }

    /// Where the row of `key` is: a rule that reads a row and then changes it resolves the key
    /// once. A slot stays valid until a row is added or removed.
    public typealias Slot = Dictionary<Key, Row>.Index
    public func slot(of key: Key) -> Slot? { rows.index(forKey: key) }

    /// The row at `slot`, changed in place.
    public subscript(slot: Slot) -> Row {
        get { rows.values[slot] }
        _modify { yield &rows.values[slot] }
    }

    /// The slots of the rows that satisfy `include`, in increasing `order` (a frame).
    public func slots(where include: (Row) -> Bool, by order: (Row) -> Int) -> [Slot] {
        rows.positions(where: include, by: order)
    }

    /// Sets the row of `key`, making room first when the key is new and the table is full.
    public mutating func insert(_ row: Row, for key: Key, at now: Timestamp, evicted: inout Int) {
        if rows[key] == nil { makeRoom(at: now, evicted: &evicted) }
        rows[key] = row
    }

    /// Adds the row of a key `slot(of:)` just found absent, making room first when the table
    /// is full (one lookup fewer than `insert`).
    public mutating func add(_ row: Row, forAbsent key: Key, at now: Timestamp, evicted: inout Int) {
        makeRoom(at: now, evicted: &evicted)
        rows[key] = row
    }

    /// Changes the row of `key` in place (one lookup); nil when there is none.
    @discardableResult
    public mutating func modify<R>(_ key: Key, _ body: (inout Row) -> R) -> R? {
        guard let k = rows.index(forKey: key) else { return nil }
        return body(&rows.values[k])
    }

    /// Changes the row of `key` in place, made first from `fresh` (making room, as `insert`)
    /// when there is none.
    @discardableResult
    public mutating func update<R>(
        _ key: Key, default fresh: @autoclosure () -> Row, at now: Timestamp, evicted: inout Int,
        _ body: (inout Row) -> R
    ) -> R {
        if let k = rows.index(forKey: key) { return body(&rows.values[k]) }
        makeRoom(at: now, evicted: &evicted)
        var row = fresh()
        let result = body(&row)
        rows[key] = row
        return result
    }

    /// Removes the row of `key`.
    public mutating func remove(_ key: Key) { rows[key] = nil }

    /// Removes the row at `slot` (`slot(of:)`), without looking its key up again.
    public mutating func remove(at slot: Slot) { rows.remove(at: slot) }

    /// Keeps the rows that satisfy `keep`.
    public mutating func keep(where keep: (Row) -> Bool) {
        rows.removeValues { !keep($0) }
    }

    /// Removes every row.
    public mutating func removeAll() { rows.removeAll(keepingCapacity: true) }

    /// Past the cap: the rows inactive for longer than the horizon go, then the least recently
    /// active eighth (counted as evicted). A table that `expires` rows drops those past the
    /// horizon once per horizon of packet time too.
    public mutating func makeRoom(at now: Timestamp, evicted: inout Int) {
        if expires, Timestamp.seconds(from: expiredAt, to: now) > horizon {
            expiredAt = now
            dropInactive(at: now)
        }
        guard rows.count >= cap else { return }
        if horizon.isFinite {
            dropInactive(at: now)
            guard rows.count >= cap else { return }
        }
        evicted &+= rows.removeLeastActive(by: activity).count
    }

    /// Drops the rows inactive for longer than the horizon at `now`.
    private mutating func dropInactive(at now: Timestamp) {
        let horizon = horizon
        let activity = activity
        rows.removeValues { max(0, Timestamp.seconds(from: activity($0), to: now)) > horizon }
    }
}

/// Events of the last `span` seconds, oldest first, at most `cap` (past it the oldest goes,
/// counted as evicted). Event times never decrease, so what ages out is a prefix.
///
/// What goes out of the window is skipped, not moved: `elements` is the live part of the
/// storage, and the storage is compacted once as much is dead as live, so a full window does
/// not shift every event at each new one. Indices of `elements` hold until the next change.
public struct SessionWindow<Element> {
    public let cap: Int
    public let span: Double
    /// An event's time (a key path such as `\.time` serves; see `SessionTable.activity`).
    private let time: @Sendable (Element) -> Timestamp
    private var storage: [Element] = []
    /// Where the live events start in `storage`.
    private var start = 0

    public init(cap: Int, span: Double, time: @escaping @Sendable (Element) -> Timestamp) {
        self.cap = cap
        self.span = span
        self.time = time
    }

    /// The events in the window, oldest first.
    public var elements: ArraySlice<Element> { storage[start...] }

    public var isEmpty: Bool { start == storage.endIndex }

    /// Drops what is more than `span` seconds older than `now`.
    public mutating func age(to now: Timestamp) {
        let time = time
        let span = span
        while start < storage.endIndex, Timestamp.seconds(from: time(storage[start]), to: now) > span {
            start += 1
        }
        compact()
    }

    /// The event at `k` (an index of `elements`), changed in place; its time stays.
    public subscript(k: Int) -> Element {
        get { storage[k] }
        _modify { yield &storage[k] }
    }

    /// Removes the events that satisfy `remove` (the others stay in order).
    public mutating func removeAll(where remove: (Element) -> Bool) {
        storage.removeFirst(start)
        start = 0
        storage.removeAll(where: remove)
    }

    /// Removes every event.
    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
    }

    /// Appends the newest event (the oldest goes when the window is full, counted).
    public mutating func append(_ e: Element, evicted: inout Int) {
        if storage.endIndex - start >= cap {
            start += 1
            evicted &+= 1
        }
        storage.append(e)
        compact()
    }

    /// Moves the live events to the front once the dead ones are as many (each event is
    /// moved about once on average).
    private mutating func compact() {
        guard start > 0, start >= storage.endIndex - start else { return }
        storage.removeFirst(start)
        start = 0
    }
}

extension RandomAccessCollection {
    /// The first index whose element satisfies `isAfter` (`endIndex` when none does), found
    /// by bisection: every element that does not satisfy it must come before every one that
    /// does (a window ordered by time, a sorted array).
    public func partitionPoint(_ isAfter: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let mid = index(low, offsetBy: half)
            if isAfter(self[mid]) {
                count = half
            } else {
                low = index(after: mid)
                count -= half + 1
            }
        }
        return low
    }
}

extension Dictionary {
    /// Removes the least recently active eighth of the entries (at least one) by `activity`,
    /// with every entry exactly as active as the last of them, and returns their keys, least
    /// recently active first (equally active ones in no set order). Which entries go depends
    /// on their activity alone, never on the dictionary's order, which the process's random
    /// hash seed sets: the same capture keeps the same entries, and so reports the same
    /// findings, on every run. Only the activities are sorted, not copies of the entries: a
    /// full table of 65,536 rows made two arrays of 3.7 MB each to drop 8,192 of them.
    @discardableResult
    public mutating func removeLeastActive(by activity: (Value) -> Timestamp) -> [Key] {
        guard !isEmpty else { return [] }
        let n = Swift.max(1, count / 8)
        var times = values.map(activity)
        times.sort()
        let threshold = times[n - 1]
        var gone: [(key: Key, time: Timestamp)] = []
        gone.reserveCapacity(n)
        for k in indices {
            let t = activity(values[k])
            if t <= threshold { gone.append((keys[k], t)) }
        }
        gone.sort { $0.time < $1.time }
        for entry in gone { removeValue(forKey: entry.key) }
        return gone.map(\.key)
    }

    /// The positions of the values that satisfy `include`, in increasing `order` (a frame): a
    /// rule that judges a whole table at the end sorts positions, not copies of its rows.
    public func positions(where include: (Value) -> Bool, by order: (Value) -> Int) -> [Index] {
        var keyed: [(order: Int, at: Index)] = []
        for k in indices where include(values[k]) { keyed.append((order(values[k]), k)) }
        return keyed.sorted { $0.order < $1.order }.map(\.at)
    }

    /// Removes the entries whose value `drop` is true of, in place, and returns their keys:
    /// the table is not made again and the values it keeps are not copied (`filter` makes a
    /// new table and copies each value it keeps, retaining every array inside).
    @discardableResult
    public mutating func removeValues(where drop: (Value) -> Bool) -> [Key] {
        var gone: [Key] = []
        for k in indices where drop(values[k]) { gone.append(keys[k]) }
        for key in gone { removeValue(forKey: key) }
        return gone
    }

    /// Changes the value of `key` in place, made from `fresh` first when there is none: one
    /// lookup when it exists. (`self[key, default: fresh]` copies the fresh value and
    /// allocates on every access: Benchmarks/README.md.)
    @discardableResult
    public mutating func change<R>(_ key: Key, default fresh: @autoclosure () -> Value, _ body: (inout Value) -> R)
        -> R
    {
        if let k = index(forKey: key) { return body(&values[k]) }
        var value = fresh()
        let result = body(&value)
        self[key] = value
        return result
    }
}
