/// An IPv4 or IPv6 address held as integers (no allocation).
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(UInt64, UInt64)

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
    public init?(text whole: ArraySlice<UInt8>) {
        // IPv4 (the usual case) is read in place; IPv6 text is copied for its parser.
        let text = whole[..<(whole.firstIndex(of: UInt8(ascii: "%")) ?? whole.endIndex)]
        if text.contains(UInt8(ascii: ":")) {
            guard let v = IPAddress.parseV6(Array(text)) else { return nil }
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

    private static func parseV6(_ s: [UInt8]) -> IPAddress? {
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var seenDouble = false
        var i = 0
        let n = s.count
        if n >= 2 && s[0] == UInt8(ascii: ":") && s[1] == UInt8(ascii: ":") {
            seenDouble = true
            i = 2
            if n == 2 { return .v6(0, 0) }
        }
        while i < n {
            var v: UInt32 = 0
            var digits = 0
            while i < n, ASCII_isHex(s[i]) {
                v = v << 4 | UInt32(hexValue(s[i]))
                digits += 1
                guard digits <= 4 else { return nil }
                i += 1
            }
            guard digits > 0 else { return nil }
            if seenDouble { tail.append(UInt16(v)) } else { head.append(UInt16(v)) }
            if i == n { break }
            guard s[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            if i < n && s[i] == UInt8(ascii: ":") {
                guard !seenDouble else { return nil }
                seenDouble = true
                i += 1
                if i == n { break }
            } else if i == n {
                return nil
            }
        }
        let total = head.count + tail.count
        guard seenDouble ? total <= 7 : total == 8 else { return nil }
        let words = head + Array(repeating: 0, count: 8 - total) + tail
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for k in 0..<4 { hi = hi << 16 | UInt64(words[k]) }
        for k in 4..<8 { lo = lo << 16 | UInt64(words[k]) }
        return .v6(hi, lo)
    }

    /// Dotted quad, or RFC 5952 canonical IPv6 text (lower case, longest zero run as `::`).
    public var description: String {
        switch self {
        case .v4(let a):
            return "\(a >> 24).\((a >> 16) & 0xFF).\((a >> 8) & 0xFF).\(a & 0xFF)"
        case .v6(let hi, let lo):
            var words: [UInt16] = []
            for s in stride(from: 48, through: 0, by: -16) { words.append(UInt16((hi >> UInt64(s)) & 0xFFFF)) }
            for s in stride(from: 48, through: 0, by: -16) { words.append(UInt16((lo >> UInt64(s)) & 0xFFFF)) }
            var bestStart = -1
            var bestLen = 0
            var k = 0
            while k < 8 {
                if words[k] == 0 {
                    var e = k
                    while e < 8 && words[e] == 0 { e += 1 }
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
            var out = ""
            var j = 0
            while j < 8 {
                if j == bestStart {
                    out += "::"
                    j += bestLen
                    continue
                }
                if !out.isEmpty && !out.hasSuffix(":") { out += ":" }
                out += String(words[j], radix: 16)
                j += 1
            }
            return out
        }
    }
}

@inline(__always) private func ASCII_isHex(_ b: UInt8) -> Bool {
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
