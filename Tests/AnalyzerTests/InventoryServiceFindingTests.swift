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
}
