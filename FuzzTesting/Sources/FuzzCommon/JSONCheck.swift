import Glibc

/// A strict validator of JSON texts (RFC 8259, UTF-8) for the fuzz targets' checks of
/// DiscoScope's JSON output. It is written apart from DiscoScope's own reader
/// (`JSONValue.parse`), so that reader and writer cannot share a mistake that hides a broken
/// document, and it builds nothing (Foundation's `JSONSerialization` makes an object for
/// every value it reads).
///
/// Accepted: exactly one value, with optional white space (space, tab, LF, CR) around it.
/// Objects' keys are strings; no trailing commas. Numbers follow the grammar: an optional
/// minus, no leading zero, digits after a point and in an exponent, no `+` sign before the
/// number, no `NaN` or `Infinity`. Strings hold no raw control character (U+0000–U+001F),
/// only the escapes JSON defines, `\u` escapes of UTF-16 surrogates only as a high one
/// followed by a low one, and well-formed UTF-8 (no overlong forms, no encoded surrogates,
/// nothing above U+10FFFF). Nesting is followed with a stack of its own, so any depth is
/// checked.
public enum JSONCheck {
    public struct Failure: Error, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Checks that `text` is one JSON text.
    public static func check(_ text: UnsafeBufferPointer<UInt8>) throws(Failure) {
        var r = Reader(text)
        try r.value()
        r.skipSpace()
        guard r.at == text.count else { throw r.fail("trailing characters after the value") }
    }

    /// The reason `text` is not one JSON text, or nil when it is.
    public static func failure(_ text: UnsafeBufferPointer<UInt8>) -> Failure? {
        do {
            try check(text)
            return nil
        } catch {
            return error
        }
    }

    public static func failure(_ text: [UInt8]) -> Failure? { text.withUnsafeBufferPointer { failure($0) } }

    /// The reason `text` is not JSON lines (each line, ended by a line feed, one JSON text;
    /// nothing after the last line feed), or nil when it is.
    public static func linesFailure(_ text: UnsafeBufferPointer<UInt8>) -> (line: Int, failure: Failure)? {
        guard let base = text.baseAddress else { return nil }
        var start = 0
        var line = 1
        while start < text.count {
            guard let lf = memchr(base + start, 0x0A, text.count - start) else {
                return (line, Failure(offset: text.count - start, reason: "a line without a line feed at its end"))
            }
            let end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(lf))
            if let f = failure(UnsafeBufferPointer(rebasing: text[start..<end])) { return (line, f) }
            start = end + 1
            line += 1
        }
        return nil
    }

    struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        var at = 0
        /// Open containers, innermost last: true for an object, false for an array.
        var open: [Bool] = []

        init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

        func fail(_ reason: String) -> Failure { Failure(offset: at, reason: reason) }

        mutating func skipSpace() {
            while at < b.count {
                switch b[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        /// The byte at the reading position; fails at the end of the text.
        func current(_ what: String) throws(Failure) -> UInt8 {
            guard at < b.count else { throw fail("end of text where \(what) belongs") }
            return b[at]
        }

        /// One value, containers included: after each value, either the next member or
        /// element follows, or the innermost container closes.
        mutating func value() throws(Failure) {
            while true {
                try scalarOrOpen()
                // After a complete value: close containers until one continues.
                while true {
                    skipSpace()
                    guard let object = open.last else { return }
                    let c = try current("a comma or the container's end")
                    if c == 0x2C {
                        at += 1
                        if object { try key() }
                        break
                    }
                    guard c == (object ? 0x7D : 0x5D) else {
                        throw fail(object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array")
                    }
                    at += 1
                    open.removeLast()
                }
            }
        }

        /// A scalar value, an empty container, or the start of a container up to its first
        /// value (the caller goes on with that value).
        mutating func scalarOrOpen() throws(Failure) {
            while true {
                skipSpace()
                switch try current("a value") {
                case 0x7B:  // {
                    at += 1
                    skipSpace()
                    if at < b.count && b[at] == 0x7D {
                        at += 1
                        return
                    }
                    open.append(true)
                    try key()
                case 0x5B:  // [
                    at += 1
                    skipSpace()
                    if at < b.count && b[at] == 0x5D {
                        at += 1
                        return
                    }
                    open.append(false)
                case 0x22: return try string()
                case 0x74: return try literal("true")
                case 0x66: return try literal("false")
                case 0x6E: return try literal("null")
                case 0x2D, 0x30...0x39: return try number()
                default: throw fail("not the start of a value")
                }
            }
        }

        /// An object member's key and its colon.
        mutating func key() throws(Failure) {
            skipSpace()
            guard try current("an object key") == 0x22 else { throw fail("an object key that is not a string") }
            try string()
            skipSpace()
            guard try current("a colon") == 0x3A else { throw fail("expected ':' after an object key") }
            at += 1
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let n = word.utf8CodeUnitCount
            guard at + n <= b.count else { throw fail("cut-off literal") }
            for k in 0..<n where b[at + k] != word.utf8Start[k] { throw fail("not a literal") }
            at += n
        }

        func isDigit(_ i: Int) -> Bool { i < b.count && b[i] >= 0x30 && b[i] <= 0x39 }

        mutating func digits() throws(Failure) {
            guard isDigit(at) else { throw fail("expected a digit") }
            while isDigit(at) { at += 1 }
        }

        mutating func number() throws(Failure) {
            if b[at] == 0x2D { at += 1 }
            guard isDigit(at) else { throw fail("expected a digit") }
            if b[at] == 0x30 {
                at += 1
            } else {
                try digits()
            }
            if at < b.count && b[at] == 0x2E {
                at += 1
                try digits()
            }
            if at < b.count && (b[at] == 0x65 || b[at] == 0x45) {
                at += 1
                if at < b.count && (b[at] == 0x2B || b[at] == 0x2D) { at += 1 }
                try digits()
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard at + 4 <= b.count else { throw fail("cut-off \\u escape") }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = b[at + k]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: throw fail("not a hex digit in a \\u escape")
                }
                v = v << 4 | UInt32(d)
            }
            at += 4
            return v
        }

        mutating func string() throws(Failure) {
            at += 1  // the opening quote
            while true {
                // Printable ASCII other than the quote and the backslash, at once.
                while at < b.count {
                    let c = b[at]
                    guard c >= 0x20 && c < 0x80 && c != 0x22 && c != 0x5C else { break }
                    at += 1
                }
                let c = try current("the string's closing quote")
                switch c {
                case 0x22:
                    at += 1
                    return
                case 0x5C:
                    at += 1
                    switch try current("an escaped character") {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: at += 1
                    case 0x75:
                        at += 1
                        let u = try hex4()
                        if u >= 0xDC00 && u <= 0xDFFF { throw fail("a low surrogate without a high one") }
                        if u >= 0xD800 && u <= 0xDBFF {
                            guard at + 2 <= b.count, b[at] == 0x5C, b[at + 1] == 0x75 else {
                                throw fail("a high surrogate without a low one")
                            }
                            at += 2
                            let low = try hex4()
                            guard low >= 0xDC00 && low <= 0xDFFF else {
                                throw fail("a high surrogate without a low one")
                            }
                        }
                    default: throw fail("an escape JSON does not define")
                    }
                case 0x00..<0x20: throw fail("a raw control character in a string")
                case 0x20..<0x80: at += 1
                default: try utf8()
                }
            }
        }

        /// One multi-byte UTF-8 sequence (Unicode's table of well-formed sequences).
        mutating func utf8() throws(Failure) {
            let lead = b[at]
            let count: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: count = 2
            case 0xE0:
                count = 3
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 3
            case 0xED:
                count = 3
                high = 0x9F
            case 0xF0:
                count = 4
                low = 0x90
            case 0xF1...0xF3: count = 4
            case 0xF4:
                count = 4
                high = 0x8F
            default: throw fail("ill-formed UTF-8")
            }
            guard at + count <= b.count else { throw fail("cut-off UTF-8 sequence") }
            for k in 1..<count {
                let c = b[at + k]
                let (lo, hi) = k == 1 ? (low, high) : (0x80, 0xBF)
                guard c >= lo && c <= hi else { throw fail("ill-formed UTF-8") }
            }
            at += count
        }
    }
}
