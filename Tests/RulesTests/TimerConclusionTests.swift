import Analyzer
import DNS
import Findings
import NetLayers
import Testing
import WireFormat

@testable import Rules

/// Live capture's timer (`Analysis.conclude(by:)`): a finding that waits for a deadline is
/// reported as soon as a conclusion at a later time is asked for, not before its deadline,
/// and not again at the end of the input.
@Suite struct TimerConclusionTests {
    /// Feeds `datagrams` (numbered 1, 2, …), asks for conclusions at each of `times` (seconds
    /// of the examples' clock) and returns what each conclusion reported, then what the end of
    /// the input added.
    func run(_ datagrams: [Datagram], concludingAt times: [Double]) -> (byTimer: [[Finding]], atEnd: [Finding]) {
        let collector = FindingCollector()
        let analysis = Analysis(reporter: collector)
        feed(datagrams, to: analysis)
        var byTimer: [[Finding]] = []
        for t in times {
            let before = collector.findings.count
            analysis.conclude(by: exampleTime(t))
            byTimer.append(Array(collector.findings[before...]))
        }
        let before = collector.findings.count
        _ = analysis.finish()
        return (byTimer, Array(collector.findings[before...]))
    }

    @Test func anInitialSSDPSetSentOnceIsReportedWhenItsRepeatWindowEndsAndOnlyThen() {
        let seq = [notify(byebye11, at: 0), notify(alive11, at: 0.5)]
        let (byTimer, atEnd) = run(seq, concludingAt: [3, 6, 9])
        #expect(byTimer[0].filter { $0.rule == "SSDP-508" }.isEmpty, "window not over at 3 s")
        let fired = byTimer[1].filter { $0.rule == "SSDP-508" }
        #expect(fired.count == 1)
        #expect(fired.first?.frames == [2])
        #expect(fired.first?.atEnd == false, "concluded while the capture runs, not at its end")
        #expect(fired.first?.device == "uuid:\(exampleUUID)")
        #expect(byTimer[2].filter { $0.rule == "SSDP-508" }.isEmpty)
        #expect(atEnd.filter { $0.rule == "SSDP-508" }.isEmpty, "not reported twice")
    }

    @Test func aRepeatedInitialSetStaysCleanUnderTheTimer() {
        let seq = [notify(byebye11, at: 0), notify(alive11, at: 0.5), notify(alive11, at: 0.8)]
        let (byTimer, atEnd) = run(seq, concludingAt: [6, 20])
        #expect((byTimer.joined() + atEnd).filter { $0.rule == "SSDP-508" }.isEmpty)
    }

    @Test func aTCQueryWithoutContinuationIsReportedOnceItsHalfSecondIsOver() {
        let tc = mdns(query(flags: 0x0200) { $0.question("_ipp._tcp.local", 12) }, src: "192.168.1.5", at: 0)
        let (byTimer, atEnd) = run([tc], concludingAt: [0.3, 0.8])
        #expect(byTimer[0].filter { $0.rule == "MDNS-511" }.isEmpty, "window not over at 0.3 s")
        let fired = byTimer[1].filter { $0.rule == "MDNS-511" }
        #expect(fired.map(\.frames) == [[1]])
        #expect(atEnd.filter { $0.rule == "MDNS-511" }.isEmpty, "not reported twice")
    }

    @Test func anNSECDroppedInTransitIsReportedOnceTheWindowIsOverOnTheCopysSegment() {
        let copy = on(2, mdns(response { hostA(&$0) }, src: "192.168.2.1", at: 0.9))
        let original = on(1, mdns(aResponse("192.168.1.20"), src: "192.168.1.20", at: 0))
        let (byTimer, atEnd) = run([original, copy], concludingAt: [1.5, 3])
        #expect(byTimer[0].filter { $0.rule == "SEG-002" }.isEmpty, "the NSEC may still come at 1.5 s")
        let fired = byTimer[1].filter { $0.rule == "SEG-002" }
        #expect(fired.map(\.frames) == [[2, 1]])
        #expect(fired.first?.segment == 2)
        #expect(fired.first?.message.contains("dropped the NSEC") == true)
        #expect(atEnd.filter { $0.rule == "SEG-002" }.isEmpty, "not reported twice")
    }

    @Test func withoutTheTimerTheSameFindingsComeAtTheEndOfTheInput() {
        let seq = [notify(byebye11, at: 0), notify(alive11, at: 0.5), otherSearch(at: 20)]
        let (_, atEnd) = run(seq, concludingAt: [])
        #expect(atEnd.filter { $0.rule == "SSDP-508" }.map(\.atEnd) == [true])
    }
}
