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

    public func serialized() -> String { String(decoding: serializedBytes, as: UTF8.self) }

    /// The value's JSON text as UTF-8.
    var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    /// Appends the value's JSON text, UTF-8, to `out` (reporters write it as it is).
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append("null")
        case .bool(let b): out.append(b ? "true" : "false")
        case .int(let i): out.append(decimal: Int(truncatingIfNeeded: i))
        case .double(let d):
            if d.isFinite { out.append(string: String(d)) } else { out.append("null") }
        case .rawNumber(let s): out.append(string: s)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let a):
            out.append(0x5B)  // [
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(0x2C) }  // ,
                v.write(into: &out)
            }
            out.append(0x5D)  // ]
        case .object(let o):
            out.append(0x7B)  // {
            JSONValue.writeMembers(o, into: &out)
            out.append(0x7D)  // }
        }
    }

    /// A JSON string. Control characters JSON allows raw (DEL, C1, the invisible reordering
    /// ones) are escaped too, so `cat` or `jq -c` of the output cannot drive a terminal. Most
    /// strings are printable ASCII without a quote or backslash and are copied whole; a
    /// string with other non-ASCII text (`§` in every spec reference) is looked at once more,
    /// and copied as it is when safe.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        let copied = s.utf8.withContiguousStorageIfAvailable { u in
            guard TerminalText.isPlainJSON(u) else { return false }
            appendQuoted(u, to: &out)
            return true
        }
        if copied != true { writeString(escaping: s, into: &out) }
    }

    /// `u` between quotes.
    @inline(__always)
    private static func appendQuoted(_ u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(addingCapacity: u.count &+ 2) { s in
            s.put(0x22)
            s.put(u)
            s.put(0x22)
        }
    }

    /// `writeString` of the string whose UTF-8 is `u` (valid UTF-8: what a string holds),
    /// without making the string when its bytes are plain.
    public static func writeString(utf8 u: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        if TerminalText.isPlainJSON(u) {
            appendQuoted(u, to: &out)
        } else {
            writeString(escaping: String(decoding: u, as: UTF8.self), into: &out)
        }
    }

    /// A string that is not plain printable ASCII, between quotes.
    private static func writeString(escaping s: String, into out: inout [UInt8]) {
        out.append(0x22)
        writeContent(escaping: s, into: &out)
        out.append(0x22)
    }

    /// `writeString`'s text without the quotes around it, for a string written in parts
    /// (`JSONWriter.stringPart`).
    public static func writeContent(_ s: String, into out: inout [UInt8]) {
        let copied = s.utf8.withContiguousStorageIfAvailable { u in
            guard TerminalText.isPlainJSON(u) else { return false }
            out.append(addingCapacity: u.count) { $0.put(u) }
            return true
        }
        if copied != true { writeContent(escaping: s, into: &out) }
    }

    /// A string that is not plain printable ASCII: copied as it is when only safe non-ASCII
    /// text makes it so, else escaped scalar by scalar.
    private static func writeContent(escaping s: String, into out: inout [UInt8]) {
        var s = s
        let copied = s.withUTF8 { u in
            var nonASCII = false
            for b in u {
                if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F { return false }
                if b >= 0x80 { nonASCII = true }
            }
            guard !nonASCII || TerminalText.isSafe(u, allowingNewlines: false) else { return false }
            out.append(contentsOf: u)
            return true
        }
        if !copied {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out.append(#"\""#)
                case "\\": out.append(#"\\"#)
                case "\n": out.append(#"\n"#)
                case "\r": out.append(#"\r"#)
                case "\t": out.append(#"\t"#)
                default:
                    if scalar.value < 0x20 || scalar.value == 0x7F || TerminalText.isHidden(scalar.value) {
                        out.append(addingCapacity: 6) { o in
                            o.put(#"\u"#)
                            o.put(hex: UInt64(scalar.value), digits: 4)
                        }
                    } else {
                        UTF8.encode(scalar, into: { out.append($0) })
                    }
                }
            }
        }
    }
}
