import DNS

// Packet bytes quoted in finding messages, as text: unprintable bytes escaped, long values cut.

/// SSDP header values and start-line tokens.
public enum SSDPText {
    /// The bytes as text, invalid UTF-8 replaced, control characters escaped, long values cut.
    public static func show<C: Collection>(_ v: C, limit: Int = 120) -> String where C.Element == UInt8 {
        // Usual case: short printable ASCII, taken as it is.
        if isPlain(v, limit: limit) { return String(decoding: v, as: UTF8.self) }
        var s = ""
        for scalar in String(decoding: Array(v.prefix(limit)), as: UTF8.self).unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                s += "\\x" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                s.unicodeScalars.append(scalar)
            }
        }
        if v.count > limit { s += "…" }
        return s
    }

    /// Short printable ASCII, shown as it is.
    static func isPlain<C: Collection>(_ v: C, limit: Int) -> Bool where C.Element == UInt8 {
        v.count <= limit && v.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

/// DNS character strings (TXT, HINFO), escaped as in presentation format.
enum MDNSText {
    static func show<C: Collection>(_ v: C) -> String where C.Element == UInt8 {
        DNSText.characterString(ArraySlice(v))
    }
}
