import DNS
import Findings
import NetLayers
import TestSupport
import Testing
import WireFormat

@testable import Analyzer
@testable import Rules

/// A decoding makes the facts only the session stage reads (the names a response claims, its
/// flushed RRSets, its answer names, a query's digest) when the run has a session stage; a
/// run without one leaves them empty and decodes the rest as before.
@Suite struct SessionFactsTests {
    private static func response() -> [UInt8] {
        var b = DNSBuilder()
        b.record(.answer, "h1.local", 1, flush: true, ttl: 120, rdata: [10, 0, 0, 1])
        b.record(.answer, "h1.local", 1, flush: true, ttl: 120, rdata: [10, 0, 0, 2])
        return b.bytes
    }

    private static func query() -> [UInt8] {
        var q = DNSBuilder.query()
        q.question("_ipp._tcp.local", 12)
        return q.bytes
    }

    private static let sessionRules = Set(
        (RuleRegistry.mdnsSession + RuleRegistry.mdnsSegments).map { $0.descriptor.id })

    private func judged(disabled: Set<RuleID>, _ payload: [UInt8]) -> MDNSInput {
        var judge = MDNSJudge(disabled: disabled)
        var sink = FindingSink(frame: 1, time: .zero, source: .v4(0))
        return judge.judge(makeDatagram(payload), into: &sink)
    }

    @Test func aRunWithASessionRuleMakesTheFactsItReads() throws {
        // Every session rule, or any one of them, is a session stage.
        let one = try #require(Self.sessionRules.first)
        for disabled in [[], Self.sessionRules.subtracting([one])] as [Set<RuleID>] {
            let r = judged(disabled: disabled, Self.response()).decoded
            #expect(r.claimedAnswers == [0])
            #expect(r.flushedRRSets.count == 1 && r.flushedRRSets.first?.rdata.count == 2)
            #expect(r.answerNames.count == 1 && r.answerNameBits != 0)
            #expect(judged(disabled: disabled, Self.query()).decoded.queryDigest.questions.count == 1)
        }
    }

    @Test func aRunWithoutSessionRulesLeavesThemEmpty() {
        let r = judged(disabled: Self.sessionRules, Self.response()).decoded
        #expect(r.claimedAnswers.isEmpty && r.flushedRRSets.isEmpty && r.answerNames.isEmpty && r.answerNameBits == 0)
        #expect(judged(disabled: Self.sessionRules, Self.query()).decoded.queryDigest.questions.isEmpty)
        // The rest of the decoding is the same.
        #expect(r.records.count == judged(disabled: [], Self.response()).decoded.records.count)
    }
}
