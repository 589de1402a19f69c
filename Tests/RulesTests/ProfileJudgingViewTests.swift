import DNS
import Findings
import Rules
import Testing

/// A decoding looks for DNS-SD instances that claim a service profile only when the run's
/// rules judge some profile (`MDNSMessageView.init(message:judging:)`).
@Suite struct ProfileJudgingViewTests {
    private func ippAnnouncement() -> DNSMessage {
        var b = DNSBuilder()
        b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: DNSBuilder.name("Office._ipp._tcp.local"))
        b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: DNSBuilder.srv(631, "office.local"))
        let txt = DNSBuilder.txt(["txtvers=1", "rp=ipp/print"])
        b.record(.answer, "Office._ipp._tcp.local", 16, flush: true, rdata: txt)
        return DNSMessage(parsing: b.bytes)
    }

    @Test func anInstanceClaimsItsProfileWhenProfilesAreJudged() {
        let view = MDNSMessageView(message: ippAnnouncement())
        #expect(!view.claimedProfiles.isEmpty)
        #expect(!view.profileInstances.isEmpty)
    }

    @Test func nothingIsLookedForWhenNoProfileIsJudged() {
        let view = MDNSMessageView(message: ippAnnouncement(), judging: [])
        #expect(view.claimedProfiles.isEmpty)
        #expect(view.profileInstances.isEmpty && view.profileTXTPairs.isEmpty && view.profilePointers.isEmpty)
        // The rest of the decoding is the same.
        #expect(view.records.count == MDNSMessageView(message: ippAnnouncement()).records.count)
    }
}
