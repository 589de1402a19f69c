import WireFormat

/// A JSON value with ordered object keys, serialised without Foundation. Reporters write
/// records with it; key order is kept so output is stable and diffable.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A number already formatted (e.g. an exact timestamp `1700000000.123456`).
    case rawNumber(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }
    public func hash(into h: inout Hasher) { h.combine(serialized()) }

    public static func int<I: BinaryInteger>(_ v: I) -> JSONValue { .int(Int64(truncatingIfNeeded: v)) }

    public func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    public func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += String(d) } else { out += "null" }
        case .rawNumber(let s): out += s
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out += "["
            var first = true
            for v in a {
                if !first { out += "," }
                first = false
                v.write(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            var first = true
            for (k, v) in o {
                if !first { out += "," }
                first = false
                JSONValue.writeString(k, into: &out)
                out += ":"
                v.write(into: &out)
            }
            out += "}"
        }
    }

    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        // Control characters JSON allows raw (DEL, C1, the invisible reordering ones) are
        // escaped too, so `cat` or `jq -c` of the output cannot drive a terminal. They are
        // rare: a string with other non-ASCII text (`§` in every spec reference) is looked at
        // once more, and copied as it is.
        var needsEscape = false
        var nonASCII = false
        for u in s.utf8 {
            if u < 0x20 || u == 0x22 || u == 0x5C || u == 0x7F {
                needsEscape = true
                break
            }
            if u >= 0x80 { nonASCII = true }
        }
        if !needsEscape && nonASCII {
            var copy = s
            needsEscape = copy.withUTF8 { !TerminalText.isSafe($0, allowingNewlines: false) }
        }
        if !needsEscape {
            out += s
        } else {
            let hex: [Character] = Array("0123456789abcdef")
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F || TerminalText.isHidden(scalar.value) {
                        out += "\\u"
                        for shift in [12, 8, 4, 0] as [UInt32] { out.append(hex[Int((scalar.value >> shift) & 0xF)]) }
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
