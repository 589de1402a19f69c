/// Lower-case hexadecimal text for bytes (output only), each byte's two digits apart from the
/// next by `separator` when one is given (`00:11:22:33:44:55` for a MAC address).
public func hexString<C: Collection>(_ bytes: C, separator: UInt8? = nil) -> String where C.Element == UInt8 {
    String(utf8Bound: bytes.count &* 3) { s in
        var first = true
        for b in bytes {
            if let separator, !first { s.put(separator) }
            first = false
            s.put(hex: UInt64(b), digits: 2)
        }
    }
}

/// The lower-case hexadecimal digit of the low four bits of `v`.
@inlinable @inline(__always)
public func hexDigit<T: BinaryInteger>(_ v: T) -> UInt8 {
    let d = UInt8(truncatingIfNeeded: v) & 0x0F
    return d < 10 ? 0x30 &+ d : 0x57 &+ d
}

/// Parses hex text (whitespace ignored) into bytes; nil on an odd digit count or a non-hex
/// character. For tests and command-line input, not for wire data.
public func bytes(fromHex text: String) -> [UInt8]? {
    var out: [UInt8] = []
    var high: UInt8? = nil
    for c in text.utf8 {
        let v: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c &- UInt8(ascii: "A") &+ 10
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
        default: return nil
        }
        if let h = high {
            out.append(h << 4 | v)
            high = nil
        } else {
            high = v
        }
    }
    return high == nil ? out : nil
}
