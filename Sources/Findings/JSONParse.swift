/// A strict JSON reader for DiscoScope's own JSON lines (a saved inventory read back by
/// `diff`): one value per call, nesting bounded, numbers kept as their text.
extension JSONValue {
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Deepest nesting accepted (DiscoScope writes three levels).
    static let maxDepth = 32

    /// Parses `text` as one JSON value (surrounding white space allowed).
    public static func parse(_ text: String) throws(ParseError) -> JSONValue {
        try parse(utf8: Array(text.utf8))
    }

    /// Parses JSON text held as UTF-8 bytes (no string made first).
    public static func parse(utf8 bytes: [UInt8]) throws(ParseError) -> JSONValue {
        var p = JSONReader(bytes: bytes)
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.at == p.bytes.count else { throw p.fail("trailing characters") }
        return v
    }

    /// The member `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let o) = self else { return nil }
        return o.first { $0.0 == key }?.1
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// An integer (also one written as a number's text).
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .rawNumber(let t): return Int64(t)
        default: return nil
        }
    }

    /// A number's text, as written.
    public var numberText: String? {
        switch self {
        case .int(let i): return String(i)
        case .rawNumber(let t): return t
        default: return nil
        }
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    var at = 0

    func fail(_ reason: String) -> JSONValue.ParseError { JSONValue.ParseError(offset: at, reason: reason) }

    mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 {
            at += 1
        }
    }

    mutating func literal(_ word: String, _ v: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        for b in word.utf8 {
            guard at < bytes.count, bytes[at] == b else { throw fail("bad literal") }
            at += 1
        }
        return v
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth < JSONValue.maxDepth else { throw fail("nesting too deep") }
        skipSpace()
        guard at < bytes.count else { throw fail("unexpected end") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var members: [(String, JSONValue)] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(members)
            }
            while true {
                skipSpace()
                let k = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                at += 1
                members.append((k, try value(depth: depth + 1)))
                skipSpace()
                guard at < bytes.count else { throw fail("unexpected end") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "}") {
                    at += 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            at += 1
            var items: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw fail("unexpected end") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                } else if bytes[at] == UInt8(ascii: "]") {
                    at += 1
                    return .array(items)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            let start = at
            while at < bytes.count, "-+.eE0123456789".utf8.contains(bytes[at]) { at += 1 }
            guard at > start else { throw fail("unexpected character") }
            let t = String(decoding: bytes[start..<at], as: UTF8.self)
            if let i = Int64(t) { return .int(i) }
            guard Double(t) != nil else { throw fail("bad number") }
            return .rawNumber(t)
        }
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[at]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw fail("bad \\u escape")
            }
            v = v << 4 | UInt32(d)
            at += 1
        }
        return v
    }

    mutating func string() throws(JSONValue.ParseError) -> String {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        at += 1
        var out: [UInt8] = []
        while at < bytes.count {
            let b = bytes[at]
            at += 1
            if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard at < bytes.count else { break }
            let c = bytes[at]
            at += 1
            switch c {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800, scalar < 0xDC00, at + 6 <= bytes.count, bytes[at] == UInt8(ascii: "\\"),
                    bytes[at + 1] == UInt8(ascii: "u")
                {
                    at += 2
                    let low = try hex4()
                    if low >= 0xDC00, low < 0xE000 { scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) }
                }
                out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default: out.append(c)
            }
        }
        throw fail("unterminated string")
    }
}
