import Analyzer
import Driver
import Findings
import Rules
import Testing
import WireFormat

/// A baseline line holds one finding whatever its message quotes from the wire.
@Suite struct BaselineKeyTests {
    @Test func controlCharactersFromTheWireCannotSplitABaselineLine() throws {
        let d = try #require(RuleCatalog.all.first)
        let f = Finding(
            descriptor: d, frame: 1, time: .zero, message: "a\r\nb\tc\nd\re", source: "10.0.0.1", device: "x\r\ny")
        let key = Baseline.key(f)
        #expect(!key.unicodeScalars.contains("\n") && !key.unicodeScalars.contains("\r"))
        #expect(key.split(separator: "\t", omittingEmptySubsequences: false).count == 4)
        var b = Baseline()
        b.insert(f)
        let parsed = try Baseline.parse(b.text, path: "known.tsv")
        #expect(parsed.contains(f))
    }
}
