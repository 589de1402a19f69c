import Analyzer
import Findings
import Reporting
import Testing

@testable import Rules

/// With one job the reading thread processes datagrams a batch at a time, as the pool's
/// threads do: nothing of a batch is reported while it fills, and what was read is reported
/// as soon as a live capture has caught up, a conclusion is asked for, or the input ends.
@Suite struct OneJobBatchingTests {
    /// Counts the messages reported.
    final class MessageCounter: Reporter {
        var messages = 0
        var isStreaming: Bool { true }
        func message(_ m: MessageRecord, findings: [Finding]) { messages += 1 }
        func finding(_ f: Finding) {}
        func finish(_ s: RunSummary) {}
    }

    static let datagrams = [
        notify(byebye11, at: 0), notify(alive11, at: 0.5), notify(alive11, at: 0.8),
    ]

    @Test func whatWasReadIsReportedWhenALiveCaptureCatchesUp() {
        let counter = MessageCounter()
        let analysis = Analysis(reporter: counter)
        feed(Self.datagrams, to: analysis)
        #expect(counter.messages == 0, "a partial batch waits")
        analysis.caughtUp()
        #expect(counter.messages == 3)
        analysis.caughtUp()
        _ = analysis.finish()
        #expect(counter.messages == 3, "each message reported once")
    }

    @Test func whatWasReadIsReportedAtAConclusionAndAtTheEnd() {
        let counter = MessageCounter()
        let analysis = Analysis(reporter: counter)
        feed(Array(Self.datagrams.prefix(2)), to: analysis)
        analysis.conclude(by: exampleTime(1))
        #expect(counter.messages == 2)
        analysis.datagram(Self.datagrams[2])
        #expect(counter.messages == 2)
        _ = analysis.finish()
        #expect(counter.messages == 3)
    }
}
