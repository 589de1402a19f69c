import Testing

@testable import Analyzer

/// A service in the inventory counts the session findings whose message names that very
/// instance, not another instance whose name holds it.
@Suite struct InventoryServiceFindingTests {
    let office = "Office Printer._ipp._tcp.local."
    let plain = "Printer._ipp._tcp.local."

    @Test func aNameInsideALongerInstanceNameDoesNotCount() {
        let text = "\(office) SRV was announced once, not twice [RFC 6762 §8.3]"
        #expect(InventoryBuilder.named(in: text, among: [plain, office]) == [1])
    }

    @Test func theShorterNameCountsWhereItStandsAlone() {
        let text = "\(plain) TXT changed; \(office) SRV too"
        #expect(InventoryBuilder.named(in: text, among: [plain, office]).sorted() == [0, 1])
        #expect(InventoryBuilder.named(in: "\(plain) TXT", among: [plain, office]) == [0])
    }

    @Test func aNameMustNotContinueALabelOrAName() {
        #expect(InventoryBuilder.named(in: "xa._http._tcp.local. SRV", among: ["a._http._tcp.local."]).isEmpty)
        #expect(InventoryBuilder.named(in: "a._http._tcp.local.lan. SRV", among: ["a._http._tcp.local."]).isEmpty)
        #expect(InventoryBuilder.named(in: "(a._http._tcp.local.)", among: ["a._http._tcp.local."]) == [0])
        #expect(InventoryBuilder.named(in: "a._http._tcp.local.", among: ["a._http._tcp.local."]) == [0])
        #expect(InventoryBuilder.named(in: "a._http._tcp.local", among: ["a._http._tcp.local."]).isEmpty)
    }

    /// The emitter keeps only `nameable(text)` of each finding to the end of the input: it
    /// must name exactly what the whole message names, and drop the explanation after it.
    @Test func theKeptPartOfAMessageNamesWhatTheWholeMessageNames() {
        let names = [plain, office, "a._http._tcp.local."]
        let texts = [
            "\(office) SRV was announced once, not twice [RFC 6762 §8.3]",
            "\(plain) TXT changed; \(office) SRV too",
            "\(plain) TXT",
            "(a._http._tcp.local.)",
            "a._http._tcp.local.lan. SRV",
            "a._http._tcp.local",
            "_ipp._tcp.local. PTR answered 3 ms after the last Known-Answer packet (frame 12) of the TC query of frame 10",
            "answered 3 ms after the query of frame 10",
            "",
        ]
        for t in texts {
            #expect(
                InventoryBuilder.named(in: InventoryBuilder.nameable(t), among: names)
                    == InventoryBuilder.named(in: t, among: names), "\(t)")
        }
        #expect(InventoryBuilder.nameable(texts[6]) == "_ipp._tcp.local.")
        #expect(InventoryBuilder.nameable(texts[1]) == "\(plain) TXT changed; \(office)")
        #expect(InventoryBuilder.nameable(texts[7]).isEmpty)
    }
}
