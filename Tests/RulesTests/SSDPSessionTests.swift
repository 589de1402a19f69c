import Findings
import NetLayers
import Reporting
import SSDP
import Testing
import WireFormat

@testable import Rules

/// The SSDP session model and the session rules around what examples do not show: bounds,
/// eviction, clocks that go backwards, known-good start-up sequences.
@Suite struct SSDPSessionTests {
    /// An alive of a device numbered `n` (its own UUID), at `seconds`.
    func alive(device n: Int, at seconds: Double) -> Datagram {
        let uuid = "4d696e69-444c-164e-9d41-\(twelveDigits(n))"
        return notify(targeting("upnp:rootdevice", uuid: uuid), at: seconds)
    }

    /// A response to a port of a searcher that sent no M-SEARCH from it is paired with the
    /// searcher's search whose window closes last, whichever order the searches came in and
    /// whatever the hash seed (it was the first open one in the table's order).
    @Test func aResponseToAnotherPortIsPairedWithTheSearcherSearchOpenLongest() {
        func pairedPort(responseAt t: Double, swapped: Bool = false) -> String? {
            func search(mx: String, from port: UInt16, at time: Double) -> Datagram {
                multicast(ssdp(mSearchLine, search11.setting("MX", mx)), src: "192.168.1.10", sport: port, at: time)
            }
            let searches =
                swapped
                ? [search(mx: "1", from: 50002, at: 0), search(mx: "5", from: 50000, at: 0.5)]
                : [search(mx: "5", from: 50000, at: 0), search(mx: "1", from: 50002, at: 0.5)]
            let f = ssdpFindings(searches + [response(ssdp(okLine, response11), dport: 50001, at: t)])
            guard let m = f.first(where: { $0.rule == "SSDP-205" && $0.message.contains("came from port") }) else {
                return nil
            }
            return m.message.contains("port 50000") ? "50000" : m.message.contains("port 50002") ? "50002" : "?"
        }
        // Both windows open (MX 5 closes 6 s after, MX 1 2 s after): the longer one.
        #expect(pairedPort(responseAt: 1) == "50000")
        #expect(pairedPort(responseAt: 1, swapped: true) == "50000")
        // After both windows closed: no search awaits it.
        #expect(pairedPort(responseAt: 8) == nil)
    }

    @Test func aUSNThatExpiresWhileItsDeviceIsActiveViolatesBoth506And507() {
        // The catalog's precise reading: SSDP-506 where the expiry is evident, SSDP-507 where
        // the overdue refresh first was (SSDP-506's own example: the root device USN
        // announced once, its sibling refreshed every 25 s with max-age 60).
        let example = ReannounceBeforeExpiryRule.examples.triggering[0]
        let found = analyse(example.packets).findings
        let expired = found.filter { $0.rule == ReannounceBeforeExpiryRule.descriptor.id }
        let overdue = found.filter { $0.rule == RefreshIntervalRule.descriptor.id }
        #expect(expired.map(\.firstFrame) == [5])
        #expect(overdue.map(\.firstFrame) == [4])
    }

    @Test func burstsPastTheirWindowsCapDropTheEarliestWhateverTheHashSeed() {
        // 1,100 devices answer one ssdp:all search, each with its set within 2 ms: every
        // window closes at once, past the 1,024 bursts that wait to be reported. The earliest
        // go (counted), the same in every process: they were once dropped in the order of a
        // hash table, which the per-process hash seed changes from run to run.
        let devices = 1100
        let kept = 1024
        var seq = [multicast(ssdp(mSearchLine, search11.setting("MX", "5")), src: "192.168.1.10", sport: 50000)]
        for n in 0..<devices {
            let uuid = "4d696e69-444c-164e-9d41-\(twelveDigits(n))"
            for (k, nt) in ["upnp:rootdevice", "uuid:\(uuid)", deviceTypeNT].enumerated() {
                let usn = nt.hasPrefix("uuid:") ? nt : "uuid:\(uuid)::\(nt)"
                let payload = ssdp(okLine, response11.setting("ST", nt).setting("USN", usn))
                let source = "10.1.\(n / 250).\(n % 250 + 1)"
                let seconds: Double = 1 + Double(n) * 0.003 + Double(k) * 0.001
                seq.append(
                    exampleDatagram(
                        payload, src: source, srcPort: 1900, dst: "192.168.1.10", dstPort: 50000, hopLimit: 64,
                        time: exampleTime(seconds)))
            }
        }
        seq.append(otherSearch(at: 10))
        let (findings, summary) = analyse(seq)
        let bursts = findings.filter { $0.rule == ResponseWithinMXRule.descriptor.id }
        // Frame 1 is the search; device n's responses are frames 2 + 3n, 3 + 3n and 4 + 3n.
        let latest: [Int] = (devices - kept..<devices).map { n in 2 + 3 * n }
        let reported: [Int] = bursts.compactMap(\.firstFrame).sorted()
        #expect(reported == latest)
        #expect(summary.stateEvicted >= devices - kept)
    }

    @Test func theDeviceTableIsBoundedAndCountsItsEvictions() {
        let n = SSDPSessionModel.maxDevices + 100
        let (findings, summary) = analyse((0..<n).map { alive(device: $0, at: Double($0) * 0.001) })
        #expect(summary.stateEvicted > 0)
        #expect(!findings.contains { $0.rule.rawValue.hasPrefix("SSDP-5") })
    }

    @Test func aDeviceWhoseRecordWasEvictedIsNotJudgedOnWhatWasNotSeen() {
        // Device 0 announces, is evicted by a flood of others, then says byebye: its byebye
        // is not "for a USN never announced".
        var seq = [alive(device: 0, at: 0)]
        seq += (1...SSDPSessionModel.maxDevices).map { alive(device: $0, at: 1 + Double($0) * 0.001) }
        seq.append(notify(targeting("upnp:rootdevice", byebye11, uuid: "4d696e69-444c-164e-9d41-000000000000"), at: 10))
        seq.append(otherSearch(at: 30))
        let (findings, summary) = analyse(seq)
        #expect(summary.stateEvicted > 0)
        #expect(!findings.contains { $0.rule == "SSDP-513" })
    }

    @Test func aClockThatGoesBackwardsIsCountedAndGivesNoNegativeIntervals() {
        let seq = [
            multicast(ssdp(mSearchLine, search11.setting("MX", "1")), src: "192.168.1.10", sport: 50000, at: 10),
            response(ssdp(okLine, response11), at: 3),
        ]
        let (findings, summary) = analyse(seq)
        #expect(summary.timeWentBack == 1)
        #expect(!findings.contains { $0.rule == "SSDP-501" })
    }

    @Test func startUpByebyesThenAlivesStayClean() {
        // gssdp and miniupnpd revoke at start-up what an earlier run may have announced, then
        // announce the set twice; later the set is refreshed in time.
        let bye = ["upnp:rootdevice", "uuid:\(exampleUUID)", deviceTypeNT].enumerated().map { k, nt in
            notify(targeting(nt, byebye11), at: 0.001 * Double(k))
        }
        let age = alive11.setting("CACHE-CONTROL", "max-age=60")
        let seq =
            bye + aliveSet(age, at: 0.1) + aliveSet(age, at: 0.3) + aliveSet(age, at: 29) + aliveSet(age, at: 58)
            + [otherSearch(at: 70)]
        let fired = analyse(seq).findings.filter { $0.rule.rawValue.hasPrefix("SSDP-5") }
        #expect(fired.map(\.message) == [])
    }

    /// A NOTIFY without a `UPnP/x.y` token is judged in the version its device claimed
    /// before. The workers judge such a NOTIFY as 1.0 and as 1.1 ahead of time; a device that
    /// claimed 2.0 matches neither, so the in-order stage judges it: as 1.1 or later, and with
    /// each finding once (its session findings were once added twice on this path).
    @Test func aNotifyInheritingUPnP20IsJudgedInOrderOnceAsAtLeast11() {
        func findingsOnLastNotify(afterClaiming version: String) -> [Finding] {
            let claim = alive11.setting("SERVER", "Linux/6.1 UPnP/\(version) test-dev/1.0").setting(
                "BOOTID.UPNP.ORG", "3")
            // No version token and no HOST (an error from 1.1 on, a warning under 1.0), from
            // another host with another BOOTID while the first one's is live (SSDP-512, a
            // session rule's finding, on the third).
            let inheriting = alive11.setting("SERVER", "Linux/6.1 test-dev/1.0").removing("HOST")
                .setting("BOOTID.UPNP.ORG", "77").setting("LOCATION", "http://192.168.1.21:80/d.xml")
            let seq = [
                notify(claim, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(inheriting, src: "192.168.1.21", mac: otherMAC, at: 10),
                notify(inheriting, src: "192.168.1.21", mac: otherMAC, at: 20),
            ]
            return analyse(seq).findings.filter { $0.firstFrame == 3 }
        }
        let v20 = findingsOnLastNotify(afterClaiming: "2.0")
        let v11 = findingsOnLastNotify(afterClaiming: "1.1")
        let v10 = findingsOnLastNotify(afterClaiming: "1.0")

        #expect(v20.filter { $0.rule == HostHeaderRule.descriptor.id }.map(\.severity) == [.error])
        #expect(v10.filter { $0.rule == HostHeaderRule.descriptor.id }.map(\.severity) == [.warning])
        #expect(v20.filter { $0.rule == UUIDUniqueRule.descriptor.id }.count == 1)
        #expect(v20.map(\.rule) == v11.map(\.rule))
        #expect(v20.map(\.message) == v11.map(\.message))
    }

    @Test func endOfInputFindingsNameTheFrameThatShowsItFirst() {
        let (findings, _) = analyse([notify(byebye11, at: 0), otherSearch(at: 5), otherSearch(at: 20)])
        let f = findings.first { $0.rule == "SSDP-513" }
        #expect(f?.atEnd == true)
        #expect(f?.frames == [1])
        #expect(f?.device == "uuid:\(exampleUUID)")
    }
}

/// `n` as 12 decimal digits (a UUID's last group).
func twelveDigits(_ n: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, 12 - s.count)) + s
}
