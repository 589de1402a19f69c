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
        #expect(key.split(separator: "\t", omittingEmptySubsequences: false).count == 3)
        var b = Baseline()
        b.insert(f)
        let parsed = try Baseline.parse(b.text, path: "known.tsv")
        #expect(parsed.contains(f))
    }

    @Test(arguments: [
        // Frame numbers, intervals, TTLs, flag words and offsets are measured: they become #.
        (
            "_http._tcp.local. PTR multicast again 750 ms after frame 65; at most once per second",
            "_http._tcp.local. PTR multicast again # ms after frame #; at most once per second"
        ),
        ("response without the AA bit (flags 0x8400)", "response without the AA bit (flags #)"),
        ("M-SEARCH (frames 3, 4) answered after 942ms", "M-SEARCH (frames #, #) answered after #"),
        ("asked at 15:36:01.250, MX=3", "asked at #, MX=#"),
        ("offset 17: label too long", "offset #: label too long"),
        ("523-byte payload", "# payload"),
        // Names and addresses that merely contain digits are stable arguments: kept.
        (
            "h4-zeroconf.local. A 10.99.0.4 is outside the sender's /24 (127.0.0.1)",
            "h4-zeroconf.local. A 10.99.0.4 is outside the sender's /24 (127.0.0.1)"
        ),
        ("probing for H2 Web Console #2._http._tcp.local.", "probing for H2 Web Console #2._http._tcp.local."),
        (
            "ST urn:schemas-upnp-org:device:MediaServer:1 from 02:99:00:00:00:01",
            "ST urn:schemas-upnp-org:device:MediaServer:1 from 02:99:00:00:00:01"
        ),
        // Tabs and line breaks read as spaces; measured words first, last and between them.
        ("3 retries\tthen\r\ngave up after 40%", "# retries then  gave up after #"),
        ("12", "#"),
        ("frame 12.", "frame #."),
        ("7:\t8\n", "#: # "),
    ])
    func theTemplateKeepsNamesAndReadsMeasuredValuesAsHash(message: String, template: String) {
        #expect(FindingIdentity.template(message) == template)
    }

    @Test(arguments: [
        ("UUID:Dev-1", "dev-1"), ("Host.Local.", "host.local"), ("uuid:", "uuid:"), (".", "."),
        ("uuidx:ab", "uuidx:ab"),
        ("uuid:a.", "a"), ("x\ty", "x y"),
    ])
    func theDeviceIsNamedWithoutItsUUIDPrefixOrTrailingDotInLowerCase(device: String, subject: String) {
        #expect(FindingIdentity.subject(source: "10.0.0.1", device: device) == subject)
    }

    @Test func theIdentityIsTheDeviceWhenTheFindingNamesOneElseTheSender() throws {
        let d = try #require(RuleCatalog.all.first)
        let a = Finding(descriptor: d, frame: 3, time: .zero, message: "x 5 ms", source: "10.0.0.1", device: "uuid:AB")
        let b = Finding(descriptor: d, frame: 9, time: .zero, message: "x 7 ms", source: "10.0.0.9", device: "ab")
        #expect(Baseline.key(a) == Baseline.key(b))
        let c = Finding(descriptor: d, frame: 3, time: .zero, message: "x 5 ms", source: "10.0.0.1")
        let e = Finding(descriptor: d, frame: 3, time: .zero, message: "x 5 ms", source: "10.0.0.2")
        #expect(Baseline.key(c) != Baseline.key(e))
        let other = Finding(descriptor: d, frame: 3, time: .zero, message: "y 5 ms", source: "10.0.0.1")
        #expect(Baseline.key(c) != Baseline.key(other))
    }
}
