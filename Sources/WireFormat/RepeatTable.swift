/// What was worked out from a payload, kept for datagrams that repeat it: discovery traffic
/// is mostly repetition (devices announce the same NOTIFY or mDNS records again and again,
/// dual-stack ones over IPv4 and IPv6 back to back).
///
/// A direct-mapped table indexed by a hash of the payload's bytes; a slot holds the last
/// payload that hashed there and its value, and a lookup compares the bytes, so a collision
/// costs a miss, never a wrong answer. Bounded: `count` slots, fixed at creation.
///
/// The usual sequence for one datagram: `payload(_:)` turns the bytes into an array (the
/// table's own array when it holds the same bytes, so nothing is copied), `slot(of:)` finds
/// its slot (at once for the array `payload(_:)` just returned), `value(at:for:)` answers
/// from the table, and `store(_:payload:at:)` keeps a new value.
///
/// Inlinable, so that each user gets it specialised for its `Value` (unspecialised, every
/// call looked up the type's metadata at run time).
public struct RepeatTable<Value> {
    /// Each slot's payload and value, in two arrays: reading a payload copies (retains) that
    /// array alone, where a slot holding both retained and released every reference in the
    /// value too, on each lookup.
    @usableFromInline var payloads: [[UInt8]?]
    @usableFromInline var values: [Value?]
    @usableFromInline let mask: UInt64
    /// The slot `payload(_:)` found for the array it returned, which is recognised by its address.
    @usableFromInline var offered: (slot: Int, address: UInt)? = nil

    /// `bits` gives the size: 2^bits slots.
    @inlinable
    public init(bits: Int) {
        let n = 1 << Swift.max(0, Swift.min(bits, 24))
        payloads = Array(repeating: nil, count: n)
        values = Array(repeating: nil, count: n)
        mask = UInt64(n - 1)
    }

    @inlinable
    public var count: Int { payloads.count }

    /// The payload array for `bytes`: the table's array when a slot holds the same bytes
    /// (shared), else a copy.
    @inlinable
    public mutating func payload(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let k = index(bytes.contentHash)
        let p: [UInt8]
        if let known = payloads[k], known.withUnsafeBytes({ $0.sameBytes(as: bytes) }) {
            p = known
        } else {
            p = Array(bytes)
        }
        offered = (k, Self.address(p))
        return p
    }

    /// The slot of `payload`: the one `payload(_:)` found when it returned this array, else
    /// from the hash of its bytes.
    @inlinable
    public mutating func slot(of payload: [UInt8]) -> Int {
        defer { offered = nil }
        if let o = offered, o.address == Self.address(payload) { return o.slot }
        return index(payload.contentHash)
    }

    /// The value kept for `payload`'s bytes in slot `k` (nil when the slot holds other bytes).
    @inlinable
    public func value(at k: Int, for payload: [UInt8]) -> Value? {
        guard let p = payloads[k], p.sameBytes(as: payload) else { return nil }
        return values[k]
    }

    @inlinable
    public mutating func store(_ value: Value, payload: [UInt8], at k: Int) {
        payloads[k] = payload
        values[k] = value
    }

    @inlinable
    func index(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash & mask) }

    @inlinable
    static func address(_ p: [UInt8]) -> UInt { p.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }
}

extension RepeatTable: Sendable where Value: Sendable {}

/// A `RepeatTable` for values that do not refer to the payload's bytes: the bytes are kept
/// in one flat buffer, at most `stride` per slot (longer payloads are not kept), so storing
/// an entry allocates nothing. For the reading thread, which must not hand its allocations
/// to other threads and looks up every datagram.
public struct InlineRepeatTable<Value> {
    @usableFromInline var values: [Value?]
    @usableFromInline var lengths: [Int]
    @usableFromInline var bytes: [UInt8]
    @usableFromInline let stride: Int
    @usableFromInline let mask: UInt64

    /// 2^bits slots of `stride` bytes each.
    @inlinable
    public init(bits: Int, stride: Int) {
        let n = 1 << Swift.max(0, Swift.min(bits, 20))
        self.stride = Swift.max(0, Swift.min(stride, 1 << 16))
        values = Array(repeating: nil, count: n)
        lengths = Array(repeating: -1, count: n)
        bytes = Array(repeating: 0, count: n * self.stride)
        mask = UInt64(n - 1)
    }

    /// The value kept for these bytes, whose `contentHash` is `hash`.
    @inlinable
    public func value(for payload: UnsafeRawBufferPointer, hash: UInt64) -> Value? {
        let k = index(hash)
        guard lengths[k] == payload.count, let v = values[k] else { return nil }
        let start = k * stride
        let same = bytes.withUnsafeBytes { all in
            UnsafeRawBufferPointer(rebasing: all[start..<(start + payload.count)]).sameBytes(as: payload)
        }
        return same ? v : nil
    }

    /// Keeps `value` for these bytes (nothing when they are longer than a slot).
    @inlinable
    public mutating func store(_ value: Value, for payload: UnsafeRawBufferPointer, hash: UInt64) {
        guard payload.count <= stride else { return }
        let k = index(hash)
        let start = k * stride
        bytes.withUnsafeMutableBytes { all in
            UnsafeMutableRawBufferPointer(rebasing: all[start..<(start + payload.count)]).copyMemory(from: payload)
        }
        lengths[k] = payload.count
        values[k] = value
    }

    @inlinable
    func index(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash & mask) }
}

extension InlineRepeatTable: Sendable where Value: Sendable {}
