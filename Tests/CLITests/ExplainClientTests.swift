import Foundation
import TestSupport
import Testing

private let root = Fixtures.packageRoot
/// The LAN side of avahi's reflector with `reflect-filters` leaving `_ipp._tcp` out: the
/// laptop 10.98.1.20 asks for `_ipp._tcp`, `_http._tcp` and `_smb._tcp` six times each.
private let filteredLAN = "captures/testbed/reflector/filtered-lan.pcap"
/// Both bridges of the working reflector, one pcapng interface each (br-lan, br-iot).
private let workingBoth = "captures/testbed/reflector/working-both.pcapng"
private let ssdpExplain = "captures/session/ssdp-explain.pcap"
/// tshark, when installed (scripts/test-setup.sh installs it).
private let tshark: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// #55: `explain` on an address that only asks gives the client's view: each question, how
/// often and when, and who answered on its link, or that nobody did.
@Suite struct ExplainClientTests {
    func explain(_ target: String, _ file: String) throws -> (ProcessResult, [String: Any]) {
        let r = try run(["explain", "--format", "jsonl", target, file], cwd: root)
        return (r, jsonRecords(r).first ?? [:])
    }
    func questions(_ e: [String: Any]) -> [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for q in e["questions"] as? [[String: Any]] ?? [] {
            out["\(q["name"] as? String ?? "") \(q["qtype"] as? String ?? "")"] = q
        }
        return out
    }

    @Test func aLaptopThatOnlyAsksIsAClientWithItsUnansweredQuestionListed() throws {
        let (r, e) = try explain("10.98.1.20", filteredLAN)
        #expect(e["verdict"] as? String == "client")
        // Some of what it asked was answered: exit status 0.
        #expect(r.status == 0, "\(r.stderr)")
        let qs = questions(e)
        #expect(Set(qs.keys) == ["_ipp._tcp.local. PTR", "_http._tcp.local. PTR", "_smb._tcp.local. PTR"])
        let ipp = qs["_ipp._tcp.local. PTR"] ?? [:]
        #expect(ipp["asked"] as? Int == 6)
        #expect(ipp["frames"] as? [Int] == [59, 65, 74, 80, 85, 91])
        #expect(ipp["answered"] as? Int == 0)
        #expect((ipp["answerers"] as? [Any])?.isEmpty == true)
        let http = qs["_http._tcp.local. PTR"] ?? [:]
        #expect(http["answered"] as? Int == 6)
        let httpBy = (http["answerers"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
        #expect(httpBy.first == "10.98.1.1")
        #expect(http["found"] as? [String] == ["IoT Camera._http._tcp.local."])
        let smbBy = (qs["_smb._tcp.local. PTR"]?["answerers"] as? [[String: Any]] ?? []).first
        #expect(smbBy?["address"] as? String == "10.98.1.30")
        #expect(smbBy?["host"] as? String == "lan-nas.local.")
        let text = try run(["explain", "10.98.1.20", filteredLAN], cwd: root)
        #expect(
            text.stdout.hasPrefix("10.98.1.20 (a client: 6 message(s) sent, all mDNS queries; it advertised nothing)"))
        #expect(text.stdout.contains("Verdict: client: it only asks; 2 of 3 question(s) answered on this link."))
        #expect(!text.stdout.contains("likely invisible"))
        #expect(text.stdout.contains("_ipp._tcp.local. PTR: asked 6 times from "))
        #expect(text.stdout.contains(" to 15:36:32: never answered on this link"))
        #expect(text.stdout.contains("answered 6 of 6 by 10.98.1.1"))
    }

    @Test func anMDNSClientGetsNoSSDPAdvice() throws {
        let (_, e) = try explain("10.98.1.20", filteredLAN)
        let reasons = e["reasons"] as? [[String: Any]] ?? []
        #expect(!reasons.isEmpty)
        for r in reasons {
            let words = "\(r["what"] ?? "") \(r["effect"] ?? "") \(r["fix"] ?? "")"
            for ssdp in ["CR LF", "USN", "LOCATION", "M-SEARCH", "NOTIFY", "SSDP", "port 1900"] {
                #expect(!words.contains(ssdp), "\(ssdp) in an mDNS client's reason: \(words)")
            }
        }
        let ipp = reasons.first { ($0["what"] as? String ?? "").hasPrefix("_ipp._tcp.local. PTR asked 6 times") }
        #expect((ipp?["fix"] as? String ?? "").contains("reflect-filters"))
    }

    @Test func anSSDPClientGetsItsSearchesAndNoMDNSAdvice() throws {
        let (r, e) = try explain("192.168.1.10", ssdpExplain)
        #expect(r.status == 0)
        #expect(e["verdict"] as? String == "client")
        let q = (e["questions"] as? [[String: Any]] ?? []).first
        #expect(q?["protocol"] as? String == "ssdp")
        #expect(q?["name"] as? String == "urn:schemas-upnp-org:device:MediaServer:1")
        #expect(q?["asked"] as? Int == 2)
        #expect(q?["answered"] as? Int == 2)
        let by = (q?["answerers"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
        #expect(by.contains("192.168.1.25"))
        for reason in e["reasons"] as? [[String: Any]] ?? [] {
            #expect(!"\(reason["fix"] ?? "")".contains("mDNS"))
        }
    }

    @Test func answersOnAnotherSegmentDoNotCountAndEachAnswerNamesItsSegment() throws {
        let (_, e) = try explain("10.98.1.20", workingBoth)
        let ipp = questions(e)["_ipp._tcp.local. PTR"] ?? [:]
        #expect(ipp["answered"] as? Int == 6)
        let by = ipp["answerers"] as? [[String: Any]] ?? []
        #expect(!by.isEmpty)
        // The printer answers the reflected query on br-iot; the laptop hears the reflector.
        #expect(by.allSatisfy { $0["segment"] as? String == "br-lan" }, "\(by)")
        #expect(!by.contains { $0["address"] as? String == "10.98.2.10" })
    }

    @Test(.enabled(if: tshark != nil, "needs tshark (scripts/test-setup.sh installs it)"))
    func aClientNothingAnsweredExitsOne() throws {
        // Only the laptop's queries: nobody answers any of them.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("explain-client-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let only = dir.appendingPathComponent("laptop-only.pcap").path
        let t = try runProcess(
            tshark ?? "", ["-r", filteredLAN, "-Y", "ip.src==10.98.1.20", "-F", "pcap", "-w", only],
            currentDirectory: root)
        #expect(t.status == 0, "\(t.stderr)")
        let (r, e) = try explain("10.98.1.20", only)
        #expect(e["verdict"] as? String == "client")
        #expect(r.status == 1)
        #expect((e["questions"] as? [[String: Any]] ?? []).allSatisfy { $0["answered"] as? Int == 0 })
    }
}

/// #55: `explain` finds targets by service type, TXT friendly name and substring, after the
/// address, id, name, label and prefix, and says how it matched.
@Suite struct ExplainTargetTests {
    private let testbed = "captures/testbed/lan-dualstack.pcapng"

    func explain(_ target: String, _ file: String) throws -> (ProcessResult, [String: Any]) {
        let r = try run(["explain", "--format", "jsonl", target, file], cwd: root)
        return (r, jsonRecords(r).first ?? [:])
    }

    @Test func aServiceTypeMatchesEveryInstanceOfItAndItsHosts() throws {
        for target in ["_ipp._tcp", "_ipp._tcp.local.", "_IPP._tcp.local"] {
            let (_, e) = try explain(target, testbed)
            #expect(
                e["matched"] as? [String] == ["h1-avahi.local.", "Testbed Laser Printer._ipp._tcp.local."], "\(target)")
            #expect(e["matched_by"] as? String == "service type _ipp._tcp", "\(target)")
        }
        let (_, http) = try explain("_http._tcp", testbed)
        let matched = http["matched"] as? [String] ?? []
        #expect(matched.filter { $0.hasSuffix("._http._tcp.local.") }.count == 4)
        #expect(
            Set(matched.filter { !$0.contains("._http.") }) == [
                "h1-avahi.local.", "h2-zeroconf.local.", "h4-zeroconf.local.",
            ])
        let text = try run(["explain", "_ipp._tcp", testbed], cwd: root)
        #expect(text.stdout.contains("\nMatched by service type _ipp._tcp\n"))
    }

    @Test func aTXTFriendlyNameFindsItsServiceAndSaysWhichKeyMatched() throws {
        let (_, e) = try explain("Laser 9000", testbed)
        #expect(e["matched"] as? [String] == ["h1-avahi.local.", "Testbed Laser Printer._ipp._tcp.local."])
        #expect(e["matched_by"] as? String == "TXT ty=Testbed Laser 9000")
        let (_, cast) = try explain("living room", testbed)
        #expect((cast["matched"] as? [String] ?? []).contains("Testbed-Cast-0123456789abcdef._googlecast._tcp.local."))
        #expect((cast["matched_by"] as? String ?? "").hasPrefix("TXT fn=Living Room"))
    }

    @Test func aSubstringOfANameMatchesOneDeviceAndSeveralAreAmbiguous() throws {
        let (_, e) = try explain("laser printer", testbed)
        #expect(e["matched"] as? [String] == ["h1-avahi.local.", "Testbed Laser Printer._ipp._tcp.local."])
        #expect(e["matched_by"] as? String == "substring of Testbed Laser Printer._ipp._tcp.local.")
        let two = try run(["explain", "console", testbed], cwd: root)
        #expect(two.status == 2)
        #expect(two.stderr.contains("'console' matches 2 devices or services"))
        #expect(two.stderr.contains("H2 Web Console._http._tcp.local."))
    }

    @Test func theOldOrderComesFirst() throws {
        // An exact label still wins over a substring of another instance, and an address over all.
        let (_, label) = try explain("H2 Web Console", testbed)
        #expect(label["matched_by"] is NSNull)
        let (_, address) = try explain("10.99.0.1", testbed)
        #expect(address["matched_by"] is NSNull)
        #expect((address["matched"] as? [String] ?? []).contains("h1-avahi.local."))
    }

    @Test func aServiceTypeNobodyOfferedListsWhoAskedForItUnanswered() throws {
        let (r, e) = try explain("_ipp._tcp", filteredLAN)
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "not seen")
        let q = (e["questions"] as? [[String: Any]] ?? [])
        #expect(q.count == 1)
        #expect(q.first?["asker"] as? String == "10.98.1.20")
        #expect(q.first?["asked"] as? Int == 6)
        #expect(q.first?["answered"] as? Int == 0)
        let text = try run(["explain", "_ipp._tcp", filteredLAN], cwd: root)
        #expect(text.stdout.hasPrefix("No instance of _ipp._tcp was seen in the capture: verdict not seen."))
        #expect(text.stdout.contains("_ipp._tcp.local. PTR: by 10.98.1.20, asked 6 times from "))
        #expect(text.stdout.contains("never answered on this link"))
    }
}
