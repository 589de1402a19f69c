import DNS
import Findings
import Testing

@testable import Analyzer

/// `MDNSRender.writeFields` makes each name of a message once and writes it again where a
/// later record names it: what it writes must be each name's own presentation, whether the
/// name was made, repeated through a compression pointer, or came past the names it keeps.
@Suite struct MDNSFieldNamesTests {
    /// The fields' JSON, parsed, of `payload`.
    private func fields(_ payload: [UInt8]) throws -> JSONValue {
        var w = JSONWriter()
        w.beginObject()
        MDNSRender.writeFields(DNSMessage(parsing: payload), to: &w)
        w.endObject()
        return try JSONValue.parse(utf8: w.bytes)
    }

    private func names(of records: JSONValue?, key: String) -> [String] {
        guard case .array(let a)? = records else { return [] }
        return a.compactMap { r in
            let v = key == "name" ? r["name"] : r["rdata"]?["target"]
            if case .string(let s)? = v { return s }
            return nil
        }
    }

    @Test func everyNameIsItsOwnPresentationPastTheNamesKept() throws {
        // More distinct targets than the names kept, all under one repeated owner; labels
        // that need escapes and one in UTF-8.
        var b = DNSBuilder()
        let count = MDNSRender.FieldText.maxNames + 8
        for k in 0..<count {
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: DNSBuilder.name("Printer \(k)._ipp._tcp.local"))
        }
        b.record(.answer, "K\u{FC}che._ipp._tcp.local", 16, rdata: DNSBuilder.txt(["a=1"]))
        let dotted: [UInt8] = [3, 0x61, 0x2E, 0x62, 5] + Array("local".utf8) + [0]
        b.raw(.answer, dotted + [0, 1, 0, 1, 0, 0, 0, 120, 0, 4, 10, 0, 0, 1])
        let payload = b.bytes
        let message = DNSMessage(parsing: payload)
        let json = try fields(payload)
        let expectedOwners = message.answers.map { $0.name.presentation(in: payload) }
        #expect(expectedOwners.count == count + 2)
        #expect(names(of: json["answers"], key: "name") == expectedOwners)
        #expect(names(of: json["answers"], key: "target") == (0..<count).map { "Printer \($0)._ipp._tcp.local." })
        #expect(expectedOwners.last == "a\\.b.local.")
        #expect(expectedOwners[count] == "K\u{FC}che._ipp._tcp.local.")
    }

    @Test func aNameRepeatedThroughAPointerIsWrittenAsTheNameItPointsTo() throws {
        // A question, then answers whose owner is a pointer to it (offset 12) and whose
        // target points into the question's name (offset 12 + 1 + 5: `_tcp.local.`).
        var b = DNSBuilder()
        b.question("_http._tcp.local", 12)
        let pointer: [UInt8] = [0xC0, 12]
        let inner: [UInt8] = [0xC0, 18]
        b.raw(.answer, pointer + [0, 12, 0, 1, 0, 0, 0, 120, 0, 2] + inner)
        b.raw(.answer, pointer + [0, 12, 0, 1, 0, 0, 0, 120, 0, 2] + pointer)
        let payload = b.bytes
        let json = try fields(payload)
        #expect(names(of: json["questions"], key: "name") == ["_http._tcp.local."])
        #expect(names(of: json["answers"], key: "name") == ["_http._tcp.local.", "_http._tcp.local."])
        #expect(names(of: json["answers"], key: "target") == ["_tcp.local.", "_http._tcp.local."])
    }
}
