import Findings
import Testing

/// `JSONValue`'s serialiser: what JSON lines, SARIF and the inventory write.
@Suite struct JSONValueTests {
    @Test func stringsEscapeWhatJSONRequiresAndWhatCouldDriveATerminal() {
        let s = "a\"b\\c\nd\re\tf\u{1}g\u{7F}h\u{9B}i\u{2028}j\u{202E}k"
        #expect(
            JSONValue.string(s).serialized()
                == #""a\"b\\c\nd\re\tf\u0001g\u007fh\u009bi\u2028j\u202ek""#)
    }

    @Test func printableTextIsCopiedAsItIsIncludingLettersOutsideASCII() {
        let s = "RFC 6762 §6 — Küche 🖨 日本"
        #expect(JSONValue.string(s).serialized() == "\"" + s + "\"")
        // One escape elsewhere in the string does not change how the rest is written.
        #expect(JSONValue.string("§\u{7}🖨").serialized() == #""§\u0007🖨""#)
    }

    @Test func valuesKeepTheirOrderAndNumbersTheirForm() {
        let v = JSONValue.object([
            ("z", .int(-42)), ("a", .array([.null, .bool(true), .bool(false), .double(1.5), .double(.nan)])),
            ("t", .rawNumber("1700000000.000005")), ("", .object([])),
        ])
        #expect(v.serialized() == #"{"z":-42,"a":[null,true,false,1.5,null],"t":1700000000.000005,"":{}}"#)
        var bytes: [UInt8] = Array("x".utf8)
        v.write(into: &bytes)
        #expect(bytes == Array(("x" + v.serialized()).utf8))
    }
}
