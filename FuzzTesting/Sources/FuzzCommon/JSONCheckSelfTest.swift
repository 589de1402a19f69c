import Foundation

extension JSONCheck {
    /// Texts the validator must accept (each one Foundation reads too).
    static let valid: [[UInt8]] = [
        "{}", "[]", "0", "-0", "-0.5e+10", "1E5", "12.25e-3", "true", "false", "null", " [ 1 , \"x\" ]\r\n\t",
        "{\"a\":[1,2,{\"b\":null}],\"c\":true,\"d\":false,\"e\":{}}", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
        "\"a\\u00e9\\ud83d\\ude00\\u0000\"", "\"é ½ 😀 \u{10FFFF}\"", "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]",
        "{\"\":\"\"}", "[\"\",[],{},0]",
    ].map { Array($0.utf8) }

    /// Texts the validator must reject.
    static let invalid: [[UInt8]] =
        [
            "", " ", "{", "}", "[", "]", "[1,]", "[,1]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}",
            "{\"a\" 1}", "{,}", "{1:2}", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "0x1", "NaN", "Infinity",
            "-Infinity", "tru", "nul", "True", "nulls", "\"abc", "\"\\x\"", "\"\\u12G4\"", "\"\\u123\"", "\"\\ud800\"",
            "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud800x\"", "\"a\tb\"", "\"a\nb\"", "[1] [2]", "{\"a\":1}}",
            "[1]]", "\"a\" \"b\"", "1 2", "'a'", "[1,,2]", "{\"a\":1 \"b\":2}",
        ].map { Array($0.utf8) } + [
            [0x22, 0x01, 0x22],  // a raw control character
            [0x22, 0xFF, 0x22],  // not UTF-8
            [0x22, 0xC0, 0x80, 0x22],  // overlong NUL
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // an encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // a cut-off sequence
            [0x22, 0x80, 0x22],  // a lone continuation byte
            [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // a byte-order mark before the value
            [0x5B, 0x31, 0x5D, 0x00],  // NUL after the value
        ]

    /// Fails (stopping the fuzzer before it starts) when the validator misjudges one of the
    /// texts above, or accepts one that Foundation cannot read.
    public static func selfTest() {
        for t in valid {
            if let f = failure(t) {
                fatalError("JSONCheck rejects valid JSON \(String(decoding: t, as: UTF8.self).debugDescription): \(f)")
            }
            if !foundationReads(t[...]) {
                fatalError("Foundation does not read \(String(decoding: t, as: UTF8.self).debugDescription)")
            }
        }
        for t in invalid where failure(t) == nil {
            fatalError("JSONCheck accepts invalid JSON \(String(decoding: t, as: UTF8.self).debugDescription)")
        }
        let lines = Array("{\"a\":1}\n[2]\n".utf8)
        let badLines = ["{\"a\":1}\n\n", "{\"a\":1}\n[2]", "{\"a\":1}\n{\n"].map { Array($0.utf8) }
        if lines.withUnsafeBufferPointer({ linesFailure($0) }) != nil {
            fatalError("JSONCheck rejects valid JSON lines")
        }
        for t in badLines where t.withUnsafeBufferPointer({ linesFailure($0) }) == nil {
            fatalError("JSONCheck accepts invalid JSON lines \(String(decoding: t, as: UTF8.self).debugDescription)")
        }
    }

    /// Whether Foundation's `JSONSerialization` reads `text` as JSON (a second opinion).
    public static func foundationReads(_ text: ArraySlice<UInt8>) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text), options: [.fragmentsAllowed])) != nil
    }
}
