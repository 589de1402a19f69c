/// Big-endian reads at absolute offsets, returning nil when out of bounds.
extension Span where Element == UInt8 {
    @inline(__always)
    public func u8(at i: Int) -> UInt8? {
        guard i >= 0, i < count else { return nil }
        return self[i]
    }

    @inline(__always)
    public func u16(at i: Int) -> UInt16? {
        guard i >= 0, i < count &- 1 else { return nil }
        return UInt16(self[i]) << 8 | UInt16(self[i &+ 1])
    }

    @inline(__always)
    public func u32(at i: Int) -> UInt32? {
        guard i >= 0, i < count &- 3 else { return nil }
        return UInt32(self[i]) << 24 | UInt32(self[i &+ 1]) << 16 | UInt32(self[i &+ 2]) << 8 | UInt32(self[i &+ 3])
    }
}
