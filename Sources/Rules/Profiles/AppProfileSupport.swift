import DNS
import Findings
import WireFormat

// What the HomeKit, Cast and AirPlay / RAOP / Spotify Connect rules (PROF-1xx, 3xx, 4xx)
// share: which instances they judge, and the value forms their rows name (decimal, `0x`
// hexadecimal, colon-separated device IDs, UUIDs, dotted versions), read from payload ranges
// without copying.

/// The TXT value forms of the application profiles and the instances they judge.
enum AppTXT {
    /// Whether the rules judge `instance`'s TXT in `message`: a response carries it (a query's
    /// Known-Answer is the querier's cached copy, not the device's word) and it is no goodbye.
    static func judged(_ instance: ProfileInstance, in message: MDNSMessageView) -> Bool {
        message.isResponse && instance.txt != nil && !instance.txtIsGoodbye(in: message.records)
    }

    /// The SRV's port of `instance` in `message` when it is a response carrying one that is no
    /// goodbye.
    static func port(_ instance: ProfileInstance, in message: MDNSMessageView) -> UInt16? {
        guard message.isResponse, let k = instance.srv, message.records[k].record.ttl != 0,
            case .srv(_, _, let port, _) = message.records[k].record.value
        else { return nil }
        return port
    }

    /// The SRV's target of `instance` in `message` (a response, not a goodbye), by its key.
    static func target(_ instance: ProfileInstance, in message: MDNSMessageView) -> UInt64? {
        guard message.isResponse, let k = instance.srv, message.records[k].record.ttl != 0,
            let t = message.records[k].target
        else { return nil }
        return t.key
    }

    /// The instance label of `instance` (its name's first label), as a payload range.
    static func instanceLabel(_ instance: ProfileInstance, in message: MDNSMessageView) -> Range<Int>? {
        if let k = instance.srv ?? instance.txt, let r = message.records[k].firstLabel { return r }
        var first: Range<Int>? = nil
        instance.name.forEachLabelRange(in: message.message.payload) { r in
            if first == nil { first = r }
        }
        return first
    }

    /// Whether the instance's protocol label (its third: Instance, `_service`, `_proto`) is
    /// `proto`.
    static func isProtocol(_ proto: StaticString, of instance: ProfileInstance, in message: MDNSMessageView) -> Bool {
        let p = message.message.payload
        var k = 0
        var found = false
        instance.name.forEachLabelRange(in: p) { r in
            if k == 2 { found = ASCII.equalsIgnoringCase(p, r, proto) }
            k += 1
        }
        return found
    }

    /// The name of `instance` for a finding's text.
    static func name(_ instance: ProfileInstance, in message: MDNSMessageView) -> String {
        message.name(instance.name)
    }

    /// A value as a finding shows it (escaped).
    static func show(_ p: [UInt8], _ r: Range<Int>) -> String { MDNSText.show(p[r]) }

    /// An identity key of a value, ASCII case folded (FNV-1a): how the session rules key a
    /// device ID without keeping its text.
    static func key(_ p: [UInt8], _ r: Range<Int>) -> UInt64 {
        var h = ASCII.keySeed
        ASCII.addToKey(p[r], &h)
        return h
    }

    // MARK: Value forms

    /// An unsigned decimal made of digits only (no sign, prefix or space); nil past `UInt64`.
    static func decimal(_ p: [UInt8], _ r: Range<Int>) -> UInt64? { ASCII.parseDecimal(p[r]) }

    /// A hexadecimal digit's value.
    static func hexValue(_ b: UInt8) -> UInt64? {
        switch b {
        case 0x30...0x39: UInt64(b &- 0x30)
        case 0x41...0x46: UInt64(b &- 0x37)
        case 0x61...0x66: UInt64(b &- 0x57)
        default: nil
        }
    }

    /// 1 to `maxDigits` (at most 16) hexadecimal digits, without prefix.
    static func hex(_ p: [UInt8], _ r: Range<Int>, maxDigits: Int = 16) -> UInt64? {
        guard !r.isEmpty, r.count <= min(maxDigits, 16) else { return nil }
        var v: UInt64 = 0
        for k in r {
            guard let d = hexValue(p[k]) else { return nil }
            v = v << 4 | d
        }
        return v
    }

    /// `0x` (or `0X`) and 1 to `maxDigits` hexadecimal digits.
    static func prefixedHex(_ p: [UInt8], _ r: Range<Int>, maxDigits: Int = 16) -> UInt64? {
        guard hasHexPrefix(p, r) else { return nil }
        return hex(p, (r.lowerBound + 2)..<r.upperBound, maxDigits: maxDigits)
    }

    /// Whether the value starts with `0x` or `0X`.
    static func hasHexPrefix(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        r.count >= 2 && p[r.lowerBound] == 0x30 && ASCII.lower(p[r.lowerBound + 1]) == 0x78
    }

    /// Whether every byte is a hexadecimal digit (and there is one).
    static func isHexDigits(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        !r.isEmpty && r.allSatisfy { ASCII.isHexDigit(p[$0]) }
    }

    /// Whether some byte is a lower-case letter.
    static func hasLowercase(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        r.contains { p[$0] >= 0x61 && p[$0] <= 0x7A }
    }

    /// Six bytes as two hexadecimal digits each, separated by colons (`1E:34:5A:7B:9C:0D`), as
    /// a 48-bit value.
    static func colonDeviceID(_ p: [UInt8], _ r: Range<Int>) -> UInt64? {
        guard r.count == 17 else { return nil }
        var v: UInt64 = 0
        // Six groups of two digits, at 0, 3, … 15, with a colon after each but the last.
        for k in stride(from: r.lowerBound, to: r.upperBound, by: 3) {
            guard let high = hexValue(p[k]), let low = hexValue(p[k + 1]) else { return nil }
            v = v << 8 | high << 4 | low
            if k + 2 < r.upperBound, p[k + 2] != 0x3A { return nil }
        }
        return v
    }

    /// A 128-bit UUID in hexadecimal: 32 digits, or 8-4-4-4-12 digits with hyphens.
    static func isUUIDHex(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        switch r.count {
        case 32:
            return isHexDigits(p, r)
        case 36:
            for (n, k) in r.enumerated() {
                let hyphen = n == 8 || n == 13 || n == 18 || n == 23
                guard hyphen ? p[k] == 0x2D : ASCII.isHexDigit(p[k]) else { return false }
            }
            return true
        default:
            return false
        }
    }

    /// Whether `a` and `b` spell the same hexadecimal digits, hyphens left out and case
    /// ignored (a UUID with and without hyphens).
    static func sameHexDigits(_ p: [UInt8], _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        var i = a.lowerBound
        var j = b.lowerBound
        while true {
            while i < a.upperBound, p[i] == 0x2D { i += 1 }
            while j < b.upperBound, p[j] == 0x2D { j += 1 }
            guard i < a.upperBound, j < b.upperBound else { return i == a.upperBound && j == b.upperBound }
            guard ASCII.lower(p[i]) == ASCII.lower(p[j]) else { return false }
            i += 1
            j += 1
        }
    }

    /// Decimal numbers separated by single dots, as many dots as `dots` allows (`1.1`;
    /// `525.38.42`).
    static func isDotted(_ p: [UInt8], _ r: Range<Int>, dots: ClosedRange<Int>) -> Bool {
        var n = 0
        var digits = 0
        for k in r {
            if p[k] == 0x2E {
                guard digits > 0 else { return false }
                n += 1
                digits = 0
            } else {
                guard ASCII.isDigit(p[k]) else { return false }
                digits += 1
            }
        }
        return digits > 0 && dots.contains(n)
    }

    /// Whether `r` is a list of items separated by `separator`, none empty, each of which
    /// `item` accepts.
    static func isList(
        _ p: [UInt8], _ r: Range<Int>, separator: UInt8 = 0x2C, _ item: (Range<Int>) -> Bool
    ) -> Bool {
        var start = r.lowerBound
        var k = r.lowerBound
        while k <= r.upperBound {
            if k == r.upperBound || p[k] == separator {
                guard k > start, item(start..<k) else { return false }
                start = k + 1
            }
            k += 1
        }
        return true
    }
}
