import DNS
import TestSupport
import Testing

private typealias B = DNSBuilder

/// A query whose questions are names made of these raw labels (any bytes, dots included).
private func query(_ names: [[[UInt8]]]) -> DNSMessage {
    var bytes = B.query().bytes
    bytes[5] = UInt8(names.count)
    for labels in names {
        for l in labels { bytes += [UInt8(l.count)] + l }
        bytes += [0] + B.u16(1) + B.u16(1)
    }
    return DNSMessage(parsing: bytes)
}

/// A name's presentation as a string is made at its length in the string's own storage; it
/// must be the same text as the bytes `appendPresentation` writes, escapes included.
@Suite struct DNSNamePresentationTests {
    @Test func presentationStringIsTheAppendedText() {
        let cases: [([[UInt8]], String)] = [
            ([Array("a".utf8), Array("local".utf8)], "a.local."),
            (
                ["Office Printer with a long name", "_ipp", "_tcp", "local"].map { Array($0.utf8) },
                "Office Printer with a long name._ipp._tcp.local."
            ),
            ([[0x61, 0x2E, 0x62], Array("local".utf8)], "a\\.b.local."),
            ([[0x61, 0x5C], Array("local".utf8)], "a\\\\.local."),
            ([[0x01, 0x41], Array("local".utf8)], "\\001A.local."),
            ([Array("Café".utf8), Array("local".utf8)], "Café.local."),
            ([[0x41, 0xFF], Array("local".utf8)], "A\\255.local."),
            ([], "."),
        ]
        let m = query(cases.map(\.0))
        #expect(m.questions.count == cases.count)
        for (q, expected) in zip(m.questions, cases.map(\.1)) {
            let text = q.name.presentation(in: m.payload)
            var bytes: [UInt8] = []
            q.name.appendPresentation(in: m.payload, to: &bytes)
            #expect(text == expected)
            #expect(Array(text.utf8) == bytes)
        }
    }
}
