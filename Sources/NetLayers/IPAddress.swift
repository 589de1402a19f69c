import WireFormat

/// An IPv4 or IPv6 address held as integers (no allocation).
public enum IPAddress: WordHashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)

    /// The address's bits alone, without the case's discriminator (one word is an IPv4
    /// address, two an IPv6 one): addresses key most tables of session state.
    @inlinable
    public func feedWords<S: WordSink>(into sink: inout S) {
        switch self {
        case .v4(let a): sink.add(UInt64(a))
        case .v6(let hi, let lo):
            sink.add(hi)
            sink.add(lo)
        }
    }

    public var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    public var isMulticast: Bool {
        switch self {
        case .v4(let a): return a >> 28 == 0xE
        case .v6(let hi, _): return hi >> 56 == 0xFF
        }
    }

    public var isBroadcast: Bool {
        if case .v4(let a) = self { return a == 0xFFFF_FFFF }
        return false
    }

    public var isLoopback: Bool {
        switch self {
        case .v4(let a): return a >> 24 == 127
        case .v6(let hi, let lo): return hi == 0 && lo == 1
        }
    }

    public var isUnspecified: Bool {
        switch self {
        case .v4(let a): return a == 0
        case .v6(let hi, let lo): return hi == 0 && lo == 0
        }
    }

    /// fe80::/10 or 169.254/16.
    public var isLinkLocal: Bool {
        switch self {
        case .v4(let a): return a >> 16 == 0xA9FE
        case .v6(let hi, _): return hi >> 54 == 0x3FA  // fe80::/10
        }
    }

    /// IPv6 multicast scope nibble (2 = link-local, 5 = site-local), nil for IPv4.
    public var ipv6MulticastScope: UInt8? {
        guard case .v6(let hi, _) = self, hi >> 56 == 0xFF else { return nil }
        return UInt8((hi >> 48) & 0xF)
    }

    /// The 4 or 16 address bytes in network order.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let a):
            return [UInt8(a >> 24), UInt8((a >> 16) & 0xFF), UInt8((a >> 8) & 0xFF), UInt8(a & 0xFF)]
        case .v6(let hi, let lo):
            var out: [UInt8] = []
            out.reserveCapacity(16)
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((hi >> UInt64(s)) & 0xFF)) }
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8((lo >> UInt64(s)) & 0xFF)) }
            return out
        }
    }

    /// Builds an address from 4 or 16 bytes; nil for any other count.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        if bytes.count == 4 {
            var a: UInt32 = 0
            for b in bytes { a = a << 8 | UInt32(b) }
            self = .v4(a)
        } else if bytes.count == 16 {
            var hi: UInt64 = 0
            var lo: UInt64 = 0
            var i = 0
            for b in bytes {
                if i < 8 { hi = hi << 8 | UInt64(b) } else { lo = lo << 8 | UInt64(b) }
                i += 1
            }
            self = .v6(hi, lo)
        } else {
            return nil
        }
    }

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (with `::`, optional trailing dotted quad
    /// not supported; a `%zone` suffix is ignored). nil when not an address.
    public init?<C: Collection>(text: C) where C.Element == UInt8 {
        self.init(text: ArraySlice(text))
    }

    /// The same on a slice (concrete, so callers in other modules run specialised code).
    /// Read in place: no allocation.
    public init?(text whole: ArraySlice<UInt8>) {
        let text = whole[..<(whole.firstIndex(of: UInt8(ascii: "%")) ?? whole.endIndex)]
        if text.contains(UInt8(ascii: ":")) {
            guard let v = IPAddress.parseV6(text) else { return nil }
            self = v
        } else {
            var value: UInt32 = 0
            var count = 0
            var cur: UInt32 = 0
            var digits = 0
            for b in text {
                if b == UInt8(ascii: ".") {
                    guard digits > 0, count < 3 else { return nil }
                    value = value << 8 | cur
                    count += 1
                    cur = 0
                    digits = 0
                } else if b >= 0x30 && b <= 0x39 {
                    cur = cur &* 10 &+ UInt32(b &- 0x30)
                    digits += 1
                    guard digits <= 3, cur <= 255 else { return nil }
                } else {
                    return nil
                }
            }
            guard digits > 0, count == 3 else { return nil }
            self = .v4(value << 8 | cur)
        }
    }

    /// RFC 4291 text: up to eight groups, at most one `::` standing for the missing ones.
    private static func parseV6(_ s: ArraySlice<UInt8>) -> IPAddress? {
        // The groups in order, and how many came before `::` (nil: no `::`).
        var groups = InlineArray<8, UInt16>(repeating: 0)
        var count = 0
        var beforeDouble: Int? = nil
        var i = s.startIndex
        let end = s.endIndex
        if s.count >= 2 && s[i] == UInt8(ascii: ":") && s[i + 1] == UInt8(ascii: ":") {
            beforeDouble = 0
            i += 2
            if i == end { return .v6(0, 0) }
        }
        while i < end {
            var v: UInt16 = 0
            var digits = 0
            while i < end, isHexDigit(s[i]) {
                v = v << 4 | UInt16(hexValue(s[i]))
                digits += 1
                guard digits <= 4 else { return nil }
                i += 1
            }
            guard digits > 0, count < 8 else { return nil }
            groups[count] = v
            count += 1
            if i == end { break }
            guard s[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            if i < end && s[i] == UInt8(ascii: ":") {
                guard beforeDouble == nil else { return nil }
                beforeDouble = count
                i += 1
                if i == end { break }
            } else if i == end {
                return nil
            }
        }
        guard beforeDouble != nil ? count <= 7 : count == 8 else { return nil }
        let head = beforeDouble ?? 8
        let zeros = 8 - count
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for k in 0..<8 {
            let w = k < head ? groups[k] : k < head + zeros ? 0 : groups[k - zeros]
            if k < 4 { hi = hi << 16 | UInt64(w) } else { lo = lo << 16 | UInt64(w) }
        }
        return .v6(hi, lo)
    }

    /// Dotted quad, or RFC 5952 canonical IPv6 text (lower case, longest zero run as `::`).
    public var description: String {
        withText { String(decoding: $0, as: UTF8.self) }
    }

    /// `description`'s bytes appended (no String built).
    public func appendText(to out: inout [UInt8]) {
        withText { out.append(contentsOf: $0) }
    }

    /// The text written into a stack buffer (at most 39 bytes: eight groups of four hex
    /// digits and seven colons).
    private func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buf in
            var n = 0
            func put(_ b: UInt8) {
                buf[n] = b
                n += 1
            }
            func decimal(_ v: UInt32) {
                if v >= 100 { put(0x30 + UInt8(v / 100)) }
                if v >= 10 { put(0x30 + UInt8(v / 10 % 10)) }
                put(0x30 + UInt8(v % 10))
            }
            switch self {
            case .v4(let a):
                decimal(a >> 24)
                put(0x2E)
                decimal((a >> 16) & 0xFF)
                put(0x2E)
                decimal((a >> 8) & 0xFF)
                put(0x2E)
                decimal(a & 0xFF)
            case .v6(let hi, let lo):
                func word(_ k: Int) -> UInt16 {
                    UInt16(truncatingIfNeeded: (k < 4 ? hi : lo) >> UInt64(48 - 16 * (k % 4)))
                }
                // The longest run of at least two zero groups (the first such), shown as `::`.
                var bestStart = -1
                var bestLen = 0
                var k = 0
                while k < 8 {
                    if word(k) == 0 {
                        var e = k
                        while e < 8 && word(e) == 0 { e += 1 }
                        if e - k > bestLen {
                            bestLen = e - k
                            bestStart = k
                        }
                        k = e
                    } else {
                        k += 1
                    }
                }
                if bestLen < 2 { bestStart = -1 }
                var j = 0
                while j < 8 {
                    if j == bestStart {
                        put(0x3A)
                        put(0x3A)
                        j += bestLen
                        continue
                    }
                    if n > 0 && buf[n - 1] != 0x3A { put(0x3A) }
                    let w = word(j)
                    var shift = 12
                    while shift > 0 && (w >> UInt16(shift)) == 0 { shift -= 4 }
                    while shift >= 0 {
                        let d = UInt8((w >> UInt16(shift)) & 0xF)
                        put(d < 10 ? 0x30 + d : 0x57 + d)
                        shift -= 4
                    }
                    j += 1
                }
            }
            return body(UnsafeBufferPointer(rebasing: buf[..<n]))
        }
    }
}

@inline(__always) private func isHexDigit(_ b: UInt8) -> Bool {
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
}

@inline(__always) private func hexValue(_ b: UInt8) -> UInt8 {
    if b >= 0x30 && b <= 0x39 { return b &- 0x30 }
    if b >= 0x61 { return b &- 0x61 &+ 10 }
    return b &- 0x41 &+ 10
}

extension IPAddress {
    public static let ssdpIPv4 = IPAddress.v4(0xEFFF_FFFA)  // 239.255.255.250
    public static let mdnsIPv4 = IPAddress.v4(0xE000_00FB)  // 224.0.0.251
    public static let mdnsIPv6 = IPAddress.v6(0xFF02_0000_0000_0000, 0xFB)  // ff02::fb
    public static let ssdpIPv6LinkLocal = IPAddress.v6(0xFF02_0000_0000_0000, 0xC)  // ff02::c
    public static let ssdpIPv6SiteLocal = IPAddress.v6(0xFF05_0000_0000_0000, 0xC)  // ff05::c
}
