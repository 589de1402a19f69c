import Findings
import Testing
import WireFormat

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

    @Test func writerWritesWhatTheValueWouldWithItsCommasAndLines() {
        let value = JSONValue.object([
            ("a", .array([.object([("x", .int(1))]), .array([]), .string("q\"\u{7}§")])),
            ("b", .null), ("c", .bool(false)), ("t", .rawNumber("1.000001")), ("v", .object([("k", .int(-3))])),
            ("w", .int(7)),
        ])
        var w = JSONWriter()
        for _ in 0..<2 {
            w.beginObject()
            w.key("a")
            w.beginArray()
            w.beginObject()
            w.key("x")
            w.int(1)
            w.endObject()
            w.beginArray()
            w.endArray()
            w.string(utf8: Array("q\"\u{7}§".utf8))
            w.endArray()
            w.key("b")
            w.string(orNull: nil)
            w.key("c")
            w.bool(false)
            w.key("t")
            w.time(Timestamp(seconds: 1, nanoseconds: 1_999))
            w.key("v")
            w.beginObject()
            w.member("k", -3)
            w.endObject()
            var members: [UInt8] = []
            JSONValue.writeMembers([("w", .int(7))], into: &members)
            w.members(json: members)
            w.members(json: [])
            w.endObject()
            w.endLine()
        }
        let line = value.serialized() + "\n"
        #expect(String(decoding: w.bytes, as: UTF8.self) == line + line)
    }

    @Test func timesAreWrittenToTheMicrosecondWithSixDigitsAtLeast() {
        let cases: [(Timestamp, String)] = [
            (Timestamp(seconds: 0, nanoseconds: 0), "0.000000"),
            (Timestamp(seconds: 1_700_000_000, nanoseconds: 17_010_999), "1700000000.017010"),
            (Timestamp(seconds: -1, nanoseconds: 5_000), "-1.000005"),
            (Timestamp(seconds: 5, nanoseconds: 999_999_999), "5.999999"),
            // Past a second (never from libpcap): every microsecond is kept.
            (Timestamp(seconds: 5, nanoseconds: .max), "5.4294967"),
            (Timestamp(seconds: .min, nanoseconds: 1_000), "-9223372036854775808.000001"),
        ]
        for (t, text) in cases {
            #expect(t.microsecondText == text)
            var w = JSONWriter()
            w.beginArray()
            w.time(t)
            w.time(t)
            w.endArray()
            #expect(String(decoding: w.bytes, as: UTF8.self) == "[\(text),\(text)]")
        }
    }

    @Test func writerMembersOfListsAndAbsentValuesAreWhatTheValueWouldBe() {
        let strings = ["a", "q\"§", "\u{7}", "日本"]
        let value = JSONValue.object([
            ("s", .array(strings.map { .string($0) })), ("e", .array([])), ("n", .null), ("i", .int(-7)),
            ("f", .string(String(repeating: "x", count: 300) + "\u{1}")),
            // The widest numbers fill the room each write reserves, and are not cut.
            ("lo", .int(Int64.min)), ("hi", .int(Int64.max)), ("a", .array([.bool(false), .int(Int64.min), .null])),
        ])
        var w = JSONWriter()
        w.beginObject()
        w.member("s", strings)
        w.member("e", [String]())
        w.member("n", orNull: Int?.none)
        w.member("i", orNull: -7)
        w.member("f", String(repeating: "x", count: 300) + "\u{1}")
        w.member("lo", Int.min)
        w.member("hi", Int.max)
        w.key("a")
        w.beginArray()
        w.bool(false)
        w.int(Int.min)
        w.null()
        w.endArray()
        w.endObject()
        #expect(String(decoding: w.bytes, as: UTF8.self) == value.serialized())
    }

    @Test func aStringWrittenInPartsIsTheStringOfThePartsJoined() {
        let texts = ["plain", "", "say \"hi\"\\", "line\nbreak\ttab", "§ ünïcode 🙂", "\u{202E}x\u{7}"]
        for t in texts {
            var w = JSONWriter()
            w.beginObject()
            w.member("a", 1)
            w.beginString("text", "Frame ")
            w.stringPart(decimal: -42)
            w.stringPart(": ")
            w.stringPart(escaping: t)
            w.endString()
            w.beginString("name")
            w.stringPart(escaping: t)
            w.stringPart("#frame=")
            w.stringPart(decimal: Int.max)
            w.endString()
            w.member("h", hex: 0x0123_4567_89AB_CDEF)
            w.endObject()
            let value = JSONValue.object([
                ("a", .int(1)), ("text", .string("Frame -42: " + t)), ("name", .string(t + "#frame=\(Int.max)")),
                ("h", .string("0123456789abcdef")),
            ])
            #expect(String(decoding: w.bytes, as: UTF8.self) == value.serialized(), "\(t)")
        }
    }

    @Test func hexDigitsAreLowerCaseWithLeadingZeros() {
        var out: [UInt8] = []
        out.append(addingCapacity: 40) { s in
            s.put(hex: 0xAB, digits: 4)
            s.put(0x20)
            s.put(hex: .max, digits: 16)
            s.put(0x20)
            s.put(hex: 0x1_0000_000F, digits: 2)
        }
        #expect(String(decoding: out, as: UTF8.self) == "00ab ffffffffffffffff 0f")
        #expect((0..<16).map { hexDigit($0) } == Array("0123456789abcdef".utf8))
        #expect(hexString([0x00, 0x9F, 0xFA], separator: 0x3A) == "00:9f:fa")
    }

    @Test func aFindingsFramesAreWrittenFirstThenRelatedOrEmptyAtTheEnd() throws {
        let d = RuleDescriptor(
            id: "SSDP-104", name: "mx-range", title: "MX is at most 5", severity: .error, proto: .ssdp,
            spec: "UDA 1.1 §1.3.2", description: "", interop: nil, example: "MX: 10")
        let cases: [[Int]] = [[7], [3, 9, 12], []]
        for frames in cases {
            let f = Finding(descriptor: d, frames: frames, time: .zero, message: "m", source: "10.0.0.1")
            var w = JSONWriter()
            w.beginObject()
            w.member("frames", framesOf: f)
            w.endObject()
            let value = JSONValue.object([("frames", .array(frames.map { .int($0) }))])
            #expect(String(decoding: w.bytes, as: UTF8.self) == value.serialized())
        }
    }

    @Test func bytesOfAStringAreWrittenAsTheStringIs() {
        for s in ["plain", "", "a\"b", "tab\there", "§ and 🖨", "\u{202E}x", "0123456789abcdef\\"] {
            var fromBytes: [UInt8] = []
            Array(s.utf8).withUnsafeBufferPointer { JSONValue.writeString(utf8: $0, into: &fromBytes) }
            #expect(String(decoding: fromBytes, as: UTF8.self) == JSONValue.string(s).serialized(), "\(s)")
        }
    }

    @Test func recordFieldsAreReadFromAndWrittenToItsJSONText() {
        var r = MessageRecord(
            frame: 1, time: Timestamp(seconds: 0, nanoseconds: 0), src: "a", sport: 1, dst: "b", dport: 2, ipTTL: 1,
            proto: .mdns, kind: "query", summary: "q",
            fields: [("id", .int(0)), ("q", .array([.object([("name", .string("a\"b§.local."))])]))])
        #expect(String(decoding: r.fieldsJSON, as: UTF8.self) == #""id":0,"q":[{"name":"a\"b§.local."}]"#)
        r.fields.insert(("ours", .bool(true)), at: 0)
        #expect(String(decoding: r.fieldsJSON, as: UTF8.self) == #""ours":true,"id":0,"q":[{"name":"a\"b§.local."}]"#)
        #expect(r.fields.map(\.0) == ["ours", "id", "q"])
        #expect(r.fields[2].1 == .array([.object([("name", .string("a\"b§.local."))])]))
    }
}
