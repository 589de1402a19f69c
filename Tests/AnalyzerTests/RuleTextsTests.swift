import Findings
import Rules
import Testing
import WireFormat

/// A finding shares its rule's texts (`RuleTexts`) and their JSON strings, which the JSON
/// reporters write as they are: they must be what writing each text would give.
@Suite struct RuleTextsTests {
    @Test func everyRulesJSONTextsAreItsTextsWritten() {
        for d in RuleCatalog.all {
            #expect(d.texts.name == d.name && d.texts.spec == d.spec && d.texts.interop == d.interop)
            #expect(d.texts.nameJSON == Array(JSONValue.string(d.name).serialized().utf8), "\(d.id)")
            #expect(d.texts.specJSON == Array(JSONValue.string(d.spec).serialized().utf8), "\(d.id)")
            let interop = d.interop.map { JSONValue.string($0) } ?? .null
            #expect(d.texts.interopJSON == Array(interop.serialized().utf8), "\(d.id)")
        }
    }

    @Test func aFindingSharesItsRulesTextsUnlessItsInteropNoteIsAnother() throws {
        let d = try #require(RuleCatalog.all.first { $0.interop != nil && $0.spec.contains("§") })
        let plain = Finding(descriptor: d, frame: 1, time: .zero, message: "m", source: "10.0.0.1")
        #expect(plain.texts === d.texts)
        let same = Finding(
            descriptor: d, frame: 1, time: .zero, message: "m", source: "10.0.0.1", interop: d.interop)
        #expect(same.texts === d.texts)
        let other = Finding(
            descriptor: d, frame: 1, time: .zero, message: "m", source: "10.0.0.1", interop: "a \"quoted\" note §")
        #expect(other.interop == "a \"quoted\" note §" && other.name == d.name && other.spec == d.spec)
        #expect(other.texts.interopJSON == Array(#""a \"quoted\" note §""#.utf8))
        // Findings compare by their texts, not by which object holds them.
        #expect(other != plain)
        let again = Finding(
            descriptor: d, frame: 1, time: .zero, message: "m", source: "10.0.0.1", interop: "a \"quoted\" note §")
        #expect(again.texts !== other.texts && again == other && again.hashValue == other.hashValue)
    }
}
