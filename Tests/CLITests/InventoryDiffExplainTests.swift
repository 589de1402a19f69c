import Foundation
import TestSupport
import Testing

private let testbed = "captures/testbed/lan-dualstack.pcapng"
private let withoutH3 = "captures/testbed/lan-dualstack-without-h3.pcapng"
private let explainCapture = "captures/session/ssdp-explain.pcap"
private let withoutH4 = "captures/testbed/lan-dualstack-without-h4.pcapng"
private let mdnsExplain = "captures/session/mdns-explain.pcap"
private let root = Fixtures.packageRoot

private func uuid(_ n: String) -> String { "4d696e69-444c-164e-9d41-b827eb0000" + n }

/// tshark, when installed (scripts/test-setup.sh installs it).
private let tshark: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// #20: `inventory` lists what the implementations published.
@Suite struct InventoryCommandTests {
    @Test(.enabled(if: tshark != nil, "needs tshark (scripts/test-setup.sh installs it)"))
    func testbedRootDevicesAreExactlyTheRootDevicesTsharkDecodes() throws {
        // tshark files SSDP under HTTP: the USN headers ending in ::upnp:rootdevice, with the
        // address each came from.
        let t = try runProcess(
            tshark ?? "",
            [
                "-r", testbed, "-Y", "udp.port==1900", "-T", "fields", "-e", "ip.src", "-e", "ipv6.src",
                "-e", "http.unknown_header", "-E", "separator=|",
            ], currentDirectory: root)
        var expected: [String: Set<String>] = [:]
        for line in t.lines {
            let cols = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cols.count >= 3 else { continue }
            let src = cols[0].isEmpty ? cols[1] : cols[0]
            for h in cols[2].components(separatedBy: "\\r\\n,") + [cols[2]] {
                let v = h.lowercased().replacingOccurrences(of: " ", with: "")
                guard v.hasPrefix("usn:uuid:"), let r = v.range(of: "::upnp:rootdevice") else { continue }
                let id = String(v[v.index(v.startIndex, offsetBy: 9)..<r.lowerBound])
                expected[id, default: []].insert(src)
            }
        }
        #expect(expected.count == 3, "tshark found \(expected.keys.sorted())")
        let r = try run(["inventory", "--format", "jsonl", testbed], cwd: root)
        #expect(r.status == 0, "\(r.stderr)")
        let devices = jsonRecords(r).filter { $0["type"] as? String == "device" }
        var seen: [String: Set<String>] = [:]
        for d in devices where d["protocol"] as? String == "ssdp" {
            guard let id = d["id"] as? String else { continue }
            seen[id] = Set(d["addresses"] as? [String] ?? [])
        }
        #expect(seen == expected)
        // miniupnpd's embedded WANDevice and WANConnectionDevice are under its root.
        let igd = devices.first { ($0["types"] as? [String] ?? []).contains { $0.contains("InternetGatewayDevice:2") } }
        #expect(Set(igd?["embedded"] as? [String] ?? []).count == 2)
        #expect((igd?["server"] as? String ?? "").contains("MiniUPnPd/2.3.1"))
        let minidlna = devices.first { $0["id"] as? String == "4d696e69-444c-164e-9d41-029900000003" }
        #expect((minidlna?["types"] as? [String] ?? []).contains("urn:schemas-upnp-org:device:MediaServer:1"))
        #expect(minidlna?["locations"] as? [String] == ["http://10.99.0.3:8200/rootDesc.xml"])
        #expect(minidlna?["byebye"] as? Bool == true)
        #expect(minidlna?["macs"] as? [String] == ["02:99:00:00:00:03"])
    }

    @Test(.enabled(if: tshark != nil, "needs tshark (scripts/test-setup.sh installs it)"))
    func testbedMDNSHostsAndInstancesAreExactlyTheSRVRecordsTsharkDecodes() throws {
        // Every answer and additional record of every mDNS response, as tshark decodes it
        // (TShark 4.0 gives an SRV record no dns.resp.name: its owner heads the tree's label,
        // "Name._ipp._tcp.local: type SRV, …").
        let t = try runProcess(
            tshark ?? "", ["-r", testbed, "-Y", "mdns && dns.flags.response==1", "-T", "json"],
            currentDirectory: root)
        let frames = try JSONSerialization.jsonObject(with: Data(t.stdout.utf8)) as? [[String: Any]] ?? []
        var instances: [String: Set<String>] = [:]
        var hosts: Set<String> = []
        for f in frames {
            let layers = (f["_source"] as? [String: Any])?["layers"] as? [String: Any]
            guard let mdns = layers?["mdns"] as? [String: Any] else { continue }
            for section in ["Answers", "Additional records"] {
                for (label, value) in mdns[section] as? [String: Any] ?? [:] {
                    guard let rr = value as? [String: Any], let type = rr["dns.resp.type"] as? String else { continue }
                    switch type {
                    case "1", "28":
                        if let name = rr["dns.resp.name"] as? String { hosts.insert(name.lowercased() + ".") }
                    case "33":
                        guard let target = rr["dns.srv.target"] as? String, let port = rr["dns.srv.port"] as? String,
                            let owner = label.components(separatedBy: ": type SRV").first
                        else { continue }
                        instances[owner.lowercased() + ".", default: []].insert("\(target.lowercased()). \(port)")
                        hosts.insert(target.lowercased() + ".")
                    default: continue
                    }
                }
            }
        }
        #expect(instances.count >= 9, "tshark found \(instances.keys.sorted())")
        let r = try run(["inventory", "--format", "jsonl", testbed], cwd: root)
        let records = jsonRecords(r)
        let seenHosts = Set(
            records.filter { $0["type"] as? String == "device" && $0["protocol"] as? String == "mdns" }
                .compactMap { ($0["id"] as? String)?.lowercased() })
        var seenInstances: [String: String] = [:]
        for s in records where s["type"] as? String == "service" {
            guard let i = s["instance"] as? String, let h = s["host"] as? String, let p = s["port"] as? Int else {
                continue
            }
            seenInstances[i.lowercased()] = "\(h.lowercased()) \(p)"
        }
        #expect(seenHosts == hosts)
        #expect(Set(seenInstances.keys) == Set(instances.keys))
        for (i, srv) in seenInstances { #expect(instances[i]?.contains(srv) == true, "\(i): \(srv)") }
        let h2 = records.first { $0["id"] as? String == "h2-zeroconf.local." }
        #expect((h2?["addresses"] as? [String] ?? []).contains("10.99.0.2"))
        #expect((h2?["services"] as? [String] ?? []).contains("H2 Lamp._hap._tcp.local."))
    }

    @Test func mdnsRecordsCarryEveryContractFieldAndCountFindings() throws {
        let r = try run(["inventory", "--format", "jsonl", mdnsExplain], cwd: root)
        let records = jsonRecords(r)
        let hosts = records.filter { $0["type"] as? String == "device" }
        let services = records.filter { $0["type"] as? String == "service" }
        #expect(hosts.compactMap { $0["id"] as? String }.count == 5)
        #expect(services.count == 5)
        for h in hosts {
            for k in ["protocol", "id", "addresses", "macs", "first_seen", "last_seen", "messages", "findings"]
                + ["services", "goodbye"]
            {
                #expect(h[k] != nil, "device record without \(k)")
            }
        }
        for s in services {
            for k in [
                "instance", "service_type", "subtypes", "host", "port", "txt", "addresses", "first_seen", "last_seen",
                "goodbye", "findings",
            ] {
                #expect(s[k] != nil, "service record without \(k)")
            }
        }
        let noaddr = services.first { $0["instance"] as? String == "NoAddr._ipp._tcp.local." }
        #expect(noaddr?["host"] as? String == "noaddr-printer.local.")
        #expect(noaddr?["port"] as? Int == 631)
        #expect(noaddr?["txt"] as? [String] == ["txtvers=1", "rp=print"])
        #expect((noaddr?["addresses"] as? [String])?.isEmpty == true)
        // MDNS-518 (end of input) names the instance: counted for the service and its host.
        #expect((noaddr?["findings"] as? [String: Int])?["warning"] == 1)
        let host = hosts.first { $0["id"] as? String == "noaddr-printer.local." }
        #expect(((host?["findings"] as? [String: Int])?["warning"] ?? 0) >= 1)
        // A session rule's finding (MDNS-506, judged in capture order) counts for the host the
        // response speaks for, beside the per-message rules' (MDNS-309, three times).
        let good = hosts.first { $0["id"] as? String == "good-printer.local." }
        #expect(good?["findings"] as? [String: Int] == ["error": 1, "warning": 3, "info": 0])
        let leaving = services.first { $0["instance"] as? String == "Leaving._ipp._tcp.local." }
        #expect(leaving?["goodbye"] as? Bool == true)
        let analyze = try run(["analyze", "--format", "jsonl", mdnsExplain], cwd: root)
        let types = jsonRecords(analyze).compactMap { $0["type"] as? String }
        #expect(
            Array(types.suffix(11)) == Array(repeating: "device", count: 5) + Array(repeating: "service", count: 5) + [
                "summary"
            ])
    }

    @Test func deviceRecordsCarryEveryContractField() throws {
        let r = try run(["inventory", "--format", "jsonl", explainCapture], cwd: root)
        let devices = jsonRecords(r).filter { $0["type"] as? String == "device" }
        #expect(devices.count == 5)
        for d in devices {
            for k in [
                "protocol", "id", "addresses", "macs", "first_seen", "last_seen", "messages", "findings", "server",
                "upnp_version", "types", "locations", "boot_ids", "max_age", "byebye", "embedded",
            ] {
                #expect(d[k] != nil, "device record without \(k)")
            }
        }
        let d4 = devices.first { $0["id"] as? String == uuid("d4") }
        #expect(d4?["byebye"] as? Bool == true)
        #expect(d4?["boot_ids"] as? [Int] == [1])
        #expect(d4?["max_age"] as? [Int] == [1800])
        let a1 = devices.first { $0["id"] as? String == uuid("a1") }
        #expect(((a1?["findings"] as? [String: Int])?["error"] ?? 0) >= 4)
    }

    @Test func analyzeJSONLinesPutsTheDevicesJustBeforeTheSummary() throws {
        let r = try run(["analyze", "--format", "jsonl", explainCapture], cwd: root)
        let types = jsonRecords(r).compactMap { $0["type"] as? String }
        #expect(Array(types.suffix(6)) == ["device", "device", "device", "device", "device", "summary"])
    }

    @Test func textSummaryListsTheDevicesAndVerboseListsAll() throws {
        let r = try run(["analyze", "-q", testbed], cwd: root)
        #expect(r.stdout.contains("ssdp 4d696e69-444c-164e-9d41-029900000003"))
        let text = try run(["inventory", explainCapture], cwd: root)
        #expect(text.stdout.contains("SSDP device \(uuid("e5"))"))
        #expect(text.stdout.contains("said byebye last"))
        #expect(text.stdout.hasPrefix("Inventory (SSDP root devices, mDNS hosts and DNS-SD service instances)"))
        // Services are listed under their host.
        let mdns = try run(["inventory", mdnsExplain], cwd: root).stdout
        let host = mdns.firstRange(of: "mDNS host noaddr-printer.local.")
        let service = mdns.firstRange(of: "    service NoAddr._ipp._tcp.local.")
        let next = mdns.firstRange(of: "mDNS host leaving-printer.local.")
        #expect(host != nil && service != nil && next != nil)
        if let host, let service, let next {
            #expect(host.upperBound < service.lowerBound && service.upperBound < next.lowerBound)
        }
    }
}

/// #20: `diff` reports what a capture lost or gained, and fails CI when a device disappears.
@Suite struct DiffCommandTests {
    @Test func removingOneHostReportsExactlyItsDevicesDisappearedAndExitsOne() throws {
        let r = try run(["diff", "--format", "jsonl", testbed, withoutH3], cwd: root)
        #expect(r.status == 1)
        let changes = jsonRecords(r).filter { $0["type"] as? String == "change" }
        #expect(changes.allSatisfy { $0["change"] as? String == "disappeared" && $0["kind"] as? String == "device" })
        #expect(
            Set(changes.compactMap { $0["id"] as? String }) == [
                "2c1f6e1a-5a7e-4c2e-9a59-99000000d003", "4d696e69-444c-164e-9d41-029900000003",
                "54da24bc-1816-4c52-9bfd-9c7aed6a7d20",
            ])
        // The findings of h3's devices are fixed with them; none is new.
        let fc = jsonRecords(r).filter { $0["type"] as? String == "finding_change" }
        #expect(!fc.isEmpty && fc.allSatisfy { $0["change"] as? String == "fixed" })
    }

    @Test func removingOneMDNSHostReportsExactlyItAndItsServicesDisappearedAndExitsOne() throws {
        let r = try run(["diff", "--format", "jsonl", testbed, withoutH4], cwd: root)
        #expect(r.status == 1)
        let changes = jsonRecords(r).filter { $0["type"] as? String == "change" }
        #expect(changes.allSatisfy { $0["change"] as? String == "disappeared" })
        #expect(
            Set(changes.map { "\($0["kind"] as? String ?? "") \($0["id"] as? String ?? "")" }) == [
                "device h4-zeroconf.local.", "service H4 Status Page._http._tcp.local.",
            ])
    }

    @Test func aCaptureAgainstItselfReportsNothingAndExitsZero() throws {
        let r = try run(["diff", "--format", "jsonl", testbed, testbed], cwd: root)
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        let text = try run(["diff", explainCapture, explainCapture], cwd: root)
        #expect(text.stdout.contains("No differences"))
    }

    @Test func aSavedInventoryComparesLikeItsCapture() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ds-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = dir.appendingPathComponent("inv.jsonl").path
        _ = try run(["inventory", "--format", "jsonl", "-o", saved, testbed], cwd: root)
        let same = try run(["diff", saved, testbed], cwd: root)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        let lost = try run(["diff", "--format", "jsonl", saved, withoutH3], cwd: root)
        #expect(lost.status == 1)
        #expect(jsonRecords(lost).filter { $0["change"] as? String == "disappeared" }.count == 3)
        // The other way round: devices appear and nothing is lost; their warnings are new
        // findings (exit 1 with --fail-on warning, 0 with --fail-on never; at the default
        // threshold 0: their only errors were SSDP-018 on urn:microsoft.com types, now info).
        let gained = try run(["diff", "--fail-on", "never", withoutH3, saved], cwd: root)
        #expect(gained.status == 0, "\(gained.stdout)")
        #expect(try run(["diff", "--fail-on", "warning", withoutH3, saved], cwd: root).status == 1)
        #expect(gained.stdout.contains("+ device 4d696e69-444c-164e-9d41-029900000003 appeared"))
    }

    @Test func newErrorFailsAtTheThresholdAndNotBelowIt() throws {
        // From the clean device's capture alone to the full one: new errors appear.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ds-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let clean = dir.appendingPathComponent("e5.pcap").path
        _ = try runProcess(
            tshark ?? "/usr/bin/tshark",
            ["-r", explainCapture, "-Y", "ip.src==192.168.1.25 || ip.src==192.168.1.10", "-w", clean],
            currentDirectory: root)
        guard FileManager.default.fileExists(atPath: clean) else { return }
        let r = try run(["diff", "--format", "jsonl", clean, explainCapture], cwd: root)
        #expect(r.status == 1)
        #expect(
            jsonRecords(r).contains {
                $0["type"] as? String == "finding_change" && $0["severity"] as? String == "error"
            })
        let never = try run(["diff", "--fail-on", "never", clean, explainCapture], cwd: root)
        #expect(never.status == 0)
    }

    @Test func unreadableSideIsAnInputError() throws {
        let r = try run(["diff", testbed, "captures/damaged/garbage.pcap"], cwd: root)
        #expect(r.status == 2)
    }
}

/// #20: `explain` gives the verdict and the reasons, in order of impact.
@Suite struct ExplainCommandTests {
    func explain(_ target: String) throws -> (ProcessResult, [String: Any]) {
        let r = try run(["explain", "--format", "jsonl", target, explainCapture], cwd: root)
        return (r, jsonRecords(r).first ?? [:])
    }
    func rules(_ e: [String: Any]) -> [String] {
        (e["reasons"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
    }

    @Test func bareLineFeedsMakeTheDeviceLikelyInvisibleToStacksThatDropThem() throws {
        let (r, e) = try explain("192.168.1.21")
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(e["matched"] as? [String] == [uuid("a1")])
        let first = (e["reasons"] as? [[String: Any]])?.first
        #expect(first?["rule"] as? String == "SSDP-005")
        #expect((first?["effect"] as? String ?? "").contains("gssdp and miniupnpd silently drop"))
        #expect((first?["fix"] as? String)?.isEmpty == false)
    }

    /// A rule that reports some of its findings lower (PROF-207: application/octet-stream is
    /// info, no image/pwg-raster an error) is explained by its most severe finding, and its
    /// effect is that profile's controllers'.
    @Test func aReasonQuotesItsRulesMostSevereFinding() throws {
        let r = try run(
            [
                "explain", "--format", "jsonl", "Testbed Laser Printer._ipp._tcp.local.",
                "captures/testbed/lan-dualstack.pcapng",
            ],
            cwd: root)
        let reasons = jsonRecords(r).first?["reasons"] as? [[String: Any]] ?? []
        let pdl = reasons.first { $0["rule"] as? String == "PROF-207" }
        #expect(pdl?["severity"] as? String == "error", "\(reasons)")
        let what = pdl?["what"] as? String ?? ""
        #expect(what.contains("lacks image/pwg-raster") && what.contains("the first error shown"), "\(what)")
        let rp = reasons.first { $0["rule"] as? String == "PROF-203" }
        #expect((rp?["effect"] as? String ?? "").hasPrefix("IPP Everywhere printer: "), "\(reasons)")
    }

    @Test func literalBackslashRNLeavesItsSearchesUnanswered() throws {
        let (_, e) = try explain(uuid("b2"))
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(rules(e).first == "SSDP-006")
        let missing = (e["reasons"] as? [[String: Any]] ?? []).first { $0["rule"] is NSNull }
        #expect((missing?["what"] as? String ?? "").contains("2 of 2 search(es)"))
    }

    @Test func wrongPortAndLateResponsesAreReasonsAndTheSearchesCountAsMissed() throws {
        let (_, e) = try explain("uuid:" + uuid("c3").uppercased())
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(rules(e).contains("SSDP-205"))
        #expect(rules(e).contains("SSDP-501"))
        let timeline = (e["timeline"] as? [[Any]] ?? []).compactMap { $0.last as? String }
        #expect(timeline.contains { $0.contains("to port 50001, not to the searcher's port 50000") })
        #expect(timeline.contains { $0.hasSuffix("not answered") })
    }

    @Test func aDeviceThatSaidByebyeIsLikelyInvisible() throws {
        let (_, e) = try explain(uuid("d4"))
        #expect(e["verdict"] as? String == "likely invisible")
        let first = (e["reasons"] as? [[String: Any]])?.first
        #expect((first?["what"] as? String ?? "").contains("ssdp:byebye"))
    }

    @Test func aCorrectDeviceIsVisibleAndItsAnswersAreInItsTimeline() throws {
        let (r, e) = try explain(uuid("e5"))
        #expect(r.status == 0)
        #expect(e["verdict"] as? String == "visible")
        #expect((e["reasons"] as? [Any])?.isEmpty == true)
        let timeline = (e["timeline"] as? [[Any]] ?? []).compactMap { $0.last as? String }
        #expect(timeline.filter { $0.contains("answered in frame") }.count == 2)
    }

    @Test func aNameThatMatchesNothingSaysSoAndSuggestsCauses() throws {
        let r = try run(["explain", "living-room-tv", explainCapture], cwd: root)
        #expect(r.status == 1)
        #expect(r.stdout.contains("matches nothing in the capture: verdict not seen"))
        #expect(r.stdout.contains("capture filter"))
        #expect(r.stdout.contains("multicast snooping"))
        #expect(r.stdout.contains("switch port sees multicast but not the unicast replies"))
        let (_, e) = try explain("living-room-tv")
        #expect(e["verdict"] as? String == "not seen")
        #expect((e["matched"] as? [Any])?.isEmpty == true)
    }

    /// #34's explain fix: a hand-rolled responder whose every message is too broken to name a
    /// device is found by its address and explained by its findings.
    @Test func aSenderWhoseMessagesNameNoDeviceIsExplainedByItsAddress() throws {
        let capture = "captures/session/ssdp-netcat-responder.pcap"
        let r = try run(["explain", "--format", "jsonl", "192.168.1.30", capture], cwd: root)
        let e = jsonRecords(r).first ?? [:]
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(e["sender"] as? String == "192.168.1.30")
        #expect((e["matched"] as? [Any])?.isEmpty == true)
        #expect(rules(e).contains("SSDP-006") && rules(e).contains("SSDP-201"))
        let none = (e["reasons"] as? [[String: Any]] ?? []).first { $0["rule"] is NSNull }
        #expect((none?["what"] as? String ?? "").contains("none of its 2 message(s) names a device"))
        #expect(none?["frames"] as? [Int] == [2, 4])
        let text = try run(["explain", "192.168.1.30", capture], cwd: root)
        #expect(text.stdout.hasPrefix("192.168.1.30 (a sender of 2 message(s), none of which names a device or host)"))
        #expect(!text.stdout.contains("matches nothing"))
        // An address that sent nothing still matches nothing.
        let other = try run(["explain", "--format", "jsonl", "192.168.1.31", capture], cwd: root)
        #expect(jsonRecords(other).first?["verdict"] as? String == "not seen")
    }

    /// #34's explain fix: an instance named exactly by its label wins over a longer one that
    /// starts with it; a shorter prefix is still ambiguous.
    @Test func anExactInstanceLabelWinsOverALongerOneStartingWithIt() throws {
        let testbed = "captures/testbed/lan-dualstack.pcapng"
        let r = try run(["explain", "--format", "jsonl", "H2 Web Console", testbed], cwd: root)
        let e = jsonRecords(r).first ?? [:]
        #expect((e["matched"] as? [String] ?? []).contains("H2 Web Console._http._tcp.local."))
        #expect(!(e["matched"] as? [String] ?? []).contains("H2 Web Console #2._http._tcp.local."))
        let prefix = try run(["explain", "H2 Web Con", testbed], cwd: root)
        #expect(prefix.status == 2)
        #expect(prefix.stderr.contains("matches 2 devices or services"))
    }

    func explainMDNS(_ target: String) throws -> (ProcessResult, [String: Any]) {
        let r = try run(["explain", "--format", "jsonl", target, mdnsExplain], cwd: root)
        return (r, jsonRecords(r).first ?? [:])
    }
    func whats(_ e: [String: Any]) -> [String] {
        (e["reasons"] as? [[String: Any]] ?? []).compactMap { $0["what"] as? String }
    }

    @Test func anSRVTargetWithoutAddressRecordMakesTheServiceLikelyInvisible() throws {
        let (r, e) = try explainMDNS("noaddr-printer.local")
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(e["matched"] as? [String] == ["noaddr-printer.local.", "NoAddr._ipp._tcp.local."])
        let first = (e["reasons"] as? [[String: Any]])?.first
        #expect(first?["rule"] as? String == "MDNS-518")
        #expect((first?["effect"] as? String ?? "").contains("no client can connect"))
        // By instance name (a prefix will do) it is the same service.
        let (_, byInstance) = try explainMDNS("NoAddr._ipp")
        #expect(byInstance["matched"] as? [String] == ["noaddr-printer.local.", "NoAddr._ipp._tcp.local."])
    }

    @Test func aServiceThatSaidGoodbyeIsLikelyInvisible() throws {
        let (r, e) = try explainMDNS("Leaving._ipp._tcp.local.")
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "likely invisible")
        #expect(whats(e).first?.contains("said goodbye for Leaving._ipp._tcp.local.") == true)
    }

    @Test func queriesLeftUnansweredAndIPv6OnlyAnnouncementsAreReasons() throws {
        let (_, silent) = try explainMDNS("192.168.1.34")
        #expect(silent["verdict"] as? String == "likely invisible")
        #expect(whats(silent).contains { $0.contains("left 2 of 2 query(ies) for its own names unanswered") })
        let (_, v6) = try explainMDNS("v6only-printer.local.")
        #expect(whats(v6).contains { $0.contains("only over IPv6") })
        // The service that answered both queries has no such reason.
        let (_, good) = try explainMDNS("Good._ipp")
        #expect(!whats(good).contains { $0.contains("unanswered") || $0.contains("goodbye") || $0.contains("IPv6") })
        let timeline = (good["timeline"] as? [[Any]] ?? []).compactMap { $0.last as? String }
        #expect(timeline.filter { $0.contains("asked for _ipp._tcp.local.: answered in frame") }.count == 2)
    }

    @Test func anMDNSNameThatMatchesNothingIsNotSeen() throws {
        let (r, e) = try explainMDNS("kitchen-speaker.local")
        #expect(r.status == 1)
        #expect(e["verdict"] as? String == "not seen")
        #expect((e["matched"] as? [Any])?.isEmpty == true)
        let text = try run(["explain", "kitchen-speaker.local", mdnsExplain], cwd: root)
        #expect(text.stdout.contains("no mDNS host or DNS-SD instance with that name"))
    }

    @Test func anAmbiguousPrefixIsAUsageError() throws {
        let r = try run(["explain", "4d696e69", explainCapture], cwd: root)
        #expect(r.status == 2)
        #expect(r.stderr.contains("matches 5 devices"))
    }
}
