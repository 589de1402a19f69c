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

    // MARK: Silence (SSDP-521, MDNS-522)

    /// Feeds `parts` one after another (frames numbered across them), asking for a conclusion
    /// at each part's time after it; returns what each conclusion reported of `rule`, and what
    /// the end of the input added.
    func silence(_ rule: RuleID, _ parts: [(datagrams: [Datagram], concludeAt: [Double])]) -> ([[Finding]], [Finding]) {
        let collector = FindingCollector()
        let analysis = Analysis(reporter: collector)
        var frame = 0
        var byTimer: [[Finding]] = []
        for part in parts {
            for d in part.datagrams {
                var numbered = d
                frame += 1
                numbered.frame = frame
                analysis.datagram(numbered)
            }
            for t in part.concludeAt {
                let before = collector.findings.count
                analysis.conclude(by: exampleTime(t))
                byTimer.append(collector.findings[before...].filter { $0.rule == rule })
            }
        }
        let before = collector.findings.count
        _ = analysis.finish()
        return (byTimer, collector.findings[before...].filter { $0.rule == rule })
    }

    @Test func anSSDPDeviceThatGoesSilentIsReportedWhenItsAdvertisementsRunOutAndOnce() {
        let set = aliveSet(alive11.setting("CACHE-CONTROL", "max-age=3"), at: 0)
        let (byTimer, atEnd) = silence("SSDP-521", [(set, [3.5, 4.5, 8])])
        #expect(byTimer[0].isEmpty, "max-age 3 + 1 s of jitter not over at 3.5 s")
        #expect(byTimer[1].map(\.frames) == [[3]], "the last advertisement's frame")
        #expect(byTimer[1].first?.atEnd == false, "concluded while the capture runs")
        #expect(byTimer[1].first?.device == "uuid:\(exampleUUID)")
        #expect(byTimer[1].first?.message.contains("went silent") == true)
        #expect(byTimer[2].isEmpty && atEnd.isEmpty, "reported once")
    }

    @Test func anSSDPDeviceThatRefreshesOrSaysByebyeIsNotReportedSilent() {
        let three = alive11.setting("CACHE-CONTROL", "max-age=3")
        let (refreshed, _) = silence("SSDP-521", [(aliveSet(three, at: 0) + aliveSet(three, at: 2.5), [4.5, 6])])
        #expect(refreshed.joined().isEmpty, "refreshed at 2.5 s: alive until 6.5 s")
        let (left, atEnd) = silence("SSDP-521", [(aliveSet(three, at: 0) + aliveSet(byebye11, at: 1), [5, 10])])
        #expect((left.joined() + atEnd).isEmpty, "it said byebye for every USN")
    }

    @Test func anSSDPDeviceReportedSilentIsReportedAgainOnlyAfterItAdvertisesAnew() {
        let three = alive11.setting("CACHE-CONTROL", "max-age=3")
        let (byTimer, _) = silence(
            "SSDP-521", [(aliveSet(three, at: 0), [5, 9]), (aliveSet(three, at: 10), [12, 15])])
        #expect(byTimer.map(\.count) == [1, 0, 0, 1])
        #expect(byTimer[3].first?.frames == [6])
    }

    @Test func offlineAnSSDPDeviceIsReportedSilentOnlyWhenTheCaptureOutlivedItsAdvertisements() {
        let three = alive11.setting("CACHE-CONTROL", "max-age=3")
        let (_, soon) = silence("SSDP-521", [(aliveSet(three, at: 0) + [otherSearch(at: 6)], [])])
        #expect(soon.isEmpty, "ran out at 4 s, the capture ends 2 s later: under a max-age more")
        let (_, outlived) = silence("SSDP-521", [(aliveSet(three, at: 0) + [otherSearch(at: 7.5)], [])])
        #expect(outlived.map(\.atEnd) == [true])
    }

    @Test func aDNSSDInstanceThatGoesSilentIsReportedWhenItsRecordsRunOutAndOnce() {
        let announced = mdns(InstanceExpiredRule.announcement(ttl: 2), at: 0)
        let (byTimer, atEnd) = silence("MDNS-522", [([announced], [2.5, 3.5, 6])])
        #expect(byTimer[0].isEmpty, "TTL 2 + 1 s of jitter not over at 2.5 s")
        #expect(byTimer[1].map(\.frames) == [[1]])
        #expect(byTimer[1].first?.atEnd == false, "concluded while the capture runs")
        #expect(byTimer[1].first?.severity == .info)
        #expect(byTimer[1].first?.message.contains("Lamp._http._tcp.local") == true)
        #expect(byTimer[1].first?.message.contains("PTR TTL 2 s, SRV TTL 2 s, TXT TTL 2 s") == true)
        #expect(byTimer[2].isEmpty && atEnd.isEmpty, "reported once")
    }

    @Test func aDNSSDInstanceIsJudgedByItsLongestLivedRecord() {
        let announced = mdns(InstanceExpiredRule.announcement(ttl: 2, ptrTTL: 4500), at: 0)
        let (byTimer, _) = silence("MDNS-522", [([announced], [10, 4502])])
        #expect(byTimer[0].isEmpty, "the SRV and TXT ran out, the PTR lives on")
        #expect(byTimer[1].count == 1, "the PTR ran out at 4501 s")
    }

    @Test func aDNSSDInstanceThatSaysGoodbyeOrIsReannouncedIsNotReportedSilent() {
        let announced = mdns(InstanceExpiredRule.announcement(ttl: 2), at: 0)
        let goodbye = mdns(InstanceExpiredRule.announcement(ttl: 0), at: 1)
        let (left, atEnd) = silence("MDNS-522", [([announced, goodbye], [5, 20])])
        #expect((left.joined() + atEnd).isEmpty, "it said goodbye")
        let again = mdns(InstanceExpiredRule.announcement(ttl: 2), at: 2)
        let (byTimer, _) = silence("MDNS-522", [([announced, again], [3.5, 5.5])])
        #expect(byTimer.map(\.count) == [0, 1], "refreshed at 2 s: runs out at 5 s")
        #expect(byTimer[1].first?.frames == [2])
    }

    @Test func aDNSSDInstanceWhosePTRRanOutWaitsForItsLongerLivedSRVAndLeavesWithAnSRVGoodbye() {
        let longSRV = mdns(InstanceExpiredRule.announcement(ttl: 10, ptrTTL: 2), at: 0)
        let (waited, _) = silence("MDNS-522", [([longSRV], [3.5, 8, 11.5])])
        #expect(waited.map(\.count) == [0, 0, 1], "the SRV and TXT (TTL 10) run out at 11 s")
        #expect(waited[2].first?.message.contains("PTR TTL 2 s, SRV TTL 10 s, TXT TTL 10 s") == true)
        let goodbye = response { b in
            b.record(.answer, "Lamp._http._tcp.local", 33, flush: true, ttl: 0, rdata: B.srv(80, "lamp.local"))
        }
        let srvGoodbye = mdns(goodbye, at: 1)
        let announced = mdns(InstanceExpiredRule.announcement(ttl: 2), at: 0)
        let (left, atEnd) = silence("MDNS-522", [([announced, srvGoodbye], [5, 20])])
        #expect((left.joined() + atEnd).isEmpty, "its SRV said goodbye")
    }
}
