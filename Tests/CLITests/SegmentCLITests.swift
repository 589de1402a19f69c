import Foundation
import TestSupport
import Testing

/// Segments (links) of one network from the command line: `analyze --segments` merges the
/// files of captures/segments (two links joined by an mDNS reflector) into one session.
@Suite struct SegmentCLITests {
    static let lan = "captures/segments/lan.pcap"
    static let iot = "captures/segments/iot.pcap"

    func analyze(_ args: [String]) throws -> ProcessResult {
        try run(["analyze"] + args + ["--fail-on", "never"], cwd: Fixtures.packageRoot)
    }

    static func lines(_ r: ProcessResult) -> [String] { r.stdout.split(separator: "\n").map(String.init) }

    /// A JSON line without its `file` field (the session's name differs between a merged
    /// session of files and one pcapng file of the same frames).
    static func withoutFile(_ line: String) -> String {
        line.replacingOccurrences(of: #""file":"[^"]*","#, with: "", options: .regularExpression)
    }

    @Test func filesAsSegmentsAreOneSessionMergedByTimeWithEachRecordNamingItsSegment() throws {
        let r = try analyze(["--segments", Self.lan, Self.iot, "--format", "jsonl"])
        #expect(r.status == 0, "\(r.stderr)")
        let records = jsonRecords(r)
        let messages = records.filter { $0["type"] as? String == "message" }
        // One session: frames 1…12 in time order over both files, each with its segment.
        #expect(messages.map { $0["frame"] as? Int } == Array(1...12))
        let times = messages.compactMap { $0["time"] as? Double }
        #expect(times == times.sorted())
        #expect(Set(messages.compactMap { $0["segment"] as? String }) == ["lan", "iot"])
        #expect(messages.allSatisfy { $0["file"] as? String == "\(Self.lan)+\(Self.iot)" })
        // A tie (both links at the first instant): the file given first goes first.
        #expect(messages.prefix(2).map { $0["segment"] as? String } == ["lan", "iot"])
        let findings = records.filter { $0["type"] as? String == "finding" }
        #expect(Set(findings.compactMap { $0["segment"] as? String }) == ["lan", "iot"])
        #expect(findings.allSatisfy { $0["segment"] != nil })
        // Each link is judged apart: the reflector repeating on one link a query asked on the
        // other is not a duplicate question (nobody on that link heard the first).
        #expect(!findings.contains { $0["rule"] as? String == "MDNS-519" })
        // A finding of the end of the input carries the segment of the frame it names.
        let end = try #require(findings.first { $0["rule"] as? String == "MDNS-518" })
        #expect(end["at_end"] as? Bool == true && end["segment"] as? String == "iot")
        // The inventory: where each device, host and service was seen.
        func segments(_ id: String) -> [String]? {
            records.first { ($0["id"] as? String ?? $0["instance"] as? String) == id }?["segments"] as? [String]
        }
        #expect(segments("lan-printer.local.") == ["lan", "iot"])
        #expect(segments("iot-cam.local.") == ["lan", "iot"])
        #expect(segments("sensor.local.") == ["iot"])
        #expect(segments("Cam._http._tcp.local.") == ["lan", "iot"])
        #expect(segments("4d696e69-444c-164e-9d41-b827eb0000a7") == ["lan"])
        #expect(segments("4d696e69-444c-164e-9d41-b827eb0000b8") == ["iot"])
        let summary = try #require(records.last)
        #expect(summary["segments"] as? [String] == ["lan", "iot"])
        #expect(summary["files"] as? [String] == ["\(Self.lan)+\(Self.iot)"])
    }

    /// A merged session judges each link as its own session would: on the real avahi
    /// reflector recordings, every session rule finds as much in the merged session as in the
    /// two files analysed apart (a query on one link is never paired with a response on the
    /// other).
    @Test func aMergedSessionJudgesEachLinkAsItsOwnSession() throws {
        let lan = "captures/testbed/reflector/working-lan.pcap"
        let iot = "captures/testbed/reflector/working-iot.pcap"
        func byRule(_ r: ProcessResult) -> [String: Int] {
            var out: [String: Int] = [:]
            for f in jsonRecords(r) where f["type"] as? String == "finding" {
                out[f["rule"] as? String ?? "", default: 0] += 1
            }
            return out
        }
        let merged = byRule(try analyze(["--segments", lan, iot, "--format", "jsonl"]))
        let apart = byRule(try analyze([lan, iot, "--format", "jsonl"]))
        #expect(!merged.isEmpty)
        #expect(merged == apart)
    }

    /// SEG-001 on the real avahi reflector recordings: with `reflect-filters=_http._tcp.local`
    /// the `_ipp._tcp` question goes from lan to iot and is answered there, and no answer comes
    /// back; without filters every answer comes back.
    @Test func aReflectorThatPassesQuestionsButNotTheirAnswersIsReported() throws {
        func seg001(_ scenario: String) throws -> [[String: Any]] {
            let files = ["lan", "iot"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }
            let r = try analyze(["--segments"] + files + ["--format", "jsonl"])
            return jsonRecords(r).filter { $0["rule"] as? String == "SEG-001" }
        }
        let filtered = try seg001("filtered")
        #expect(filtered.count == 1)
        let message = filtered.first?["message"] as? String ?? ""
        #expect(message.hasPrefix("question _ipp._tcp.local. PTR asked by 10.98.1.20"))
        #expect(message.contains("forwarded to another segment by 10.98.2.1"))
        #expect(filtered.first?["segment"] as? String == "filtered-lan")
        #expect(try seg001("working").isEmpty)
    }

    /// `explain --segments`: a service that one segment never sees is explained by the
    /// forwarder that passes its queries but not its answers.
    @Test func explainSaysOnWhichSegmentAServiceIsMissingAndWhy() throws {
        func explain(_ scenario: String) throws -> ProcessResult {
            let files = ["lan", "iot"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }
            return try run(["explain", "IoT Printer", "--segments"] + files, cwd: Fixtures.packageRoot)
        }
        let filtered = try explain("filtered")
        #expect(filtered.status == 1)
        #expect(filtered.stdout.contains("Verdict: likely invisible"))
        #expect(
            filtered.stdout.contains(
                "IoT Printer._ipp._tcp.local. was seen on filtered-iot only, never on filtered-lan; 10.98.2.1 forwards the queries for _ipp._tcp but not their answers (SEG-001)"
            ), "\(filtered.stdout)")
        let working = try explain("working")
        #expect(!working.stdout.contains("never on working-lan"), "\(working.stdout)")
    }

    /// The inventory correlates each service across segments with whoever showed it on the
    /// second one: the avahi reflector without filters passes every instance; with
    /// `reflect-filters=_http._tcp.local` only the camera reaches lan.
    @Test func theInventorySaysWhichSourceForwardedEachServiceToTheOtherSegment() throws {
        func forwarded(_ scenario: String) throws -> [String: [[String: Any]]] {
            let files = ["lan", "iot"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }
            let r = try analyze(["--segments"] + files + ["--format", "jsonl"])
            var out: [String: [[String: Any]]] = [:]
            for s in jsonRecords(r) where s["type"] as? String == "service" {
                out[s["instance"] as? String ?? ""] = s["forwarded"] as? [[String: Any]] ?? []
            }
            return out
        }
        let working = try forwarded("working")
        let printer = try #require(working["IoT Printer._ipp._tcp.local."]?.first)
        #expect(printer["segment"] as? String == "working-lan" && printer["from"] as? String == "working-iot")
        #expect(printer["source"] as? String == "10.98.1.1")
        #expect((printer["after_us"] as? Int ?? -1) >= 0)
        #expect(working["LAN NAS._smb._tcp.local."]?.first?["source"] as? String == "10.98.2.1")
        // The hosts' IGMPv3 and MLDv2 reports: every avahi host joined the mDNS groups.
        let r = try analyze(
            ["--segments"] + ["lan", "iot"].map { "captures/testbed/reflector/working-\($0).pcap" } + [
                "--format", "jsonl",
            ])
        let printerHost = jsonRecords(r).first { $0["id"] as? String == "iot-printer.local." }
        #expect(printerHost?["memberships"] as? [String] == ["224.0.0.251", "ff02::fb"])
        let filtered = try forwarded("filtered")
        #expect(filtered["IoT Printer._ipp._tcp.local."]?.isEmpty == true)
        #expect(filtered["IoT Camera._http._tcp.local."]?.first?["segment"] as? String == "filtered-lan")
    }

    /// SSDP across segments: on the multicast-router recording, minidlna on iot reaches lan
    /// through smcroute, which keeps its source address; the first NOTIFYs of the burst reach
    /// lan 6.9 ms after iot. The pcapng of both bridges says the same, though dumpcap wrote
    /// lan's first NOTIFYs before iot's earlier ones (sightings compare packet times), and so
    /// do its mDNS services (the reflector's copies on lan, not the other way round). Without
    /// segments there is no `forwarded`.
    @Test func theInventorySaysWhoPutAnSSDPDeviceOnTheOtherSegment() throws {
        func ssdpDevice(_ args: [String]) throws -> [String: Any] {
            let r = try analyze(args + ["--format", "jsonl"])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(
                jsonRecords(r).first { $0["type"] as? String == "device" && $0["protocol"] as? String == "ssdp" })
        }
        let dir = "captures/testbed/router/"
        let files = try ssdpDevice(["--segments", dir + "routed-lan.pcap", dir + "routed-iot.pcap"])
        #expect(files["id"] as? String == "4d696e69-444c-164e-9d41-029802000010")
        let viaFiles = try #require(files["forwarded"] as? [[String: Any]])
        #expect(viaFiles.count == 1)
        #expect(
            viaFiles.first?["segment"] as? String == "routed-lan" && viaFiles.first?["from"] as? String == "routed-iot")
        #expect(viaFiles.first?["source"] as? String == "10.98.2.10" && viaFiles.first?["after_us"] as? Int == 6934)
        let both = try ssdpDevice([dir + "routed-both.pcapng"])
        let viaBoth = try #require(both["forwarded"] as? [[String: Any]])
        #expect(viaBoth.count == 1)
        #expect(viaBoth.first?["segment"] as? String == "br-lan" && viaBoth.first?["from"] as? String == "br-iot")
        #expect(viaBoth.first?["source"] as? String == "10.98.2.10" && viaBoth.first?["after_us"] as? Int == 6934)
        #expect(try ssdpDevice([dir + "routed-iot.pcap"])["forwarded"] == nil)
        let table = try run(["inventory", dir + "routed-both.pcapng"], cwd: Fixtures.packageRoot)
        #expect(
            table.stdout.contains("  forwarded   to br-lan by 10.98.2.10, 6.9 ms after br-iot\n"), "\(table.stdout)")
        let reflected = try analyze(["captures/testbed/reflector/working-both.pcapng", "--format", "jsonl"])
        let camera = jsonRecords(reflected).first { $0["instance"] as? String == "IoT Camera._http._tcp.local." }
        let copy = try #require((camera?["forwarded"] as? [[String: Any]])?.first)
        #expect(copy["segment"] as? String == "br-lan" && copy["source"] as? String == "10.98.1.1")
    }

    /// `--subnet NAME=CIDR` gives a segment its subnet: on the avahi reflector recordings
    /// (lan 10.98.1.0/24, iot 10.98.2.0/24) the reflector speaks from its own address on each
    /// link and every mDNS datagram goes to the group, so MDNS-407 has nothing to report;
    /// MDNS-310 judges the reflected A records by lan's subnet instead of the /24 heuristic
    /// (another link's host: info), and nothing else changes.
    @Test func aSegmentsSubnetJudgesItsAddressesByTheSubnet() throws {
        let files = ["lan", "iot"].map { "captures/testbed/reflector/working-\($0).pcap" }
        let names = ["--segment-name", "\(files[0])=lan", "--segment-name", "\(files[1])=iot"]
        let plain = try analyze(["--segments"] + files + names + ["--format", "jsonl"])
        let given = try analyze(
            ["--segments"] + files + names + ["--subnet", "lan=10.98.1.0/24", "--format", "jsonl"])
        #expect(plain.status == 0 && given.status == 0, "\(given.stderr)")
        let findings = jsonRecords(given).filter { $0["type"] as? String == "finding" }
        #expect(!findings.contains { $0["rule"] as? String == "MDNS-407" })
        let onLan = findings.filter { $0["rule"] as? String == "MDNS-310" && $0["segment"] as? String == "lan" }
        #expect(!onLan.isEmpty)
        for f in onLan {
            #expect(f["severity"] as? String == "info")
            #expect((f["message"] as? String ?? "").contains("outside the link's subnets (10.98.1.0/24)"))
        }
        // iot has no subnet given: the heuristic, as without --subnet.
        let onIot = findings.filter { $0["rule"] as? String == "MDNS-310" && $0["segment"] as? String == "iot" }
        #expect(!onIot.isEmpty && onIot.allSatisfy { ($0["message"] as? String ?? "").contains("sender's /24") })
        // Only the lan MDNS-310 messages differ.
        func rest(_ r: ProcessResult) -> [String] {
            Self.lines(r).filter { !($0.contains("\"MDNS-310\"") && $0.contains("\"segment\":\"lan\"")) }
        }
        #expect(rest(given) == rest(plain))
    }

    /// On the dual-stack testbed (10.99.0.0/24), legacy and QU answers go by unicast: from
    /// the link's subnet they are fine; stated another subnet, each IPv4 one is an MDNS-407
    /// error (17 of them). A malformed or unknown `--subnet` is a usage error.
    @Test func unicastResponsesFromOutsideTheStatedSubnetAreErrors() throws {
        let file = "captures/testbed/lan-dualstack.pcapng"
        func mdns407(_ subnet: String) throws -> [[String: Any]] {
            let r = try analyze([file, "--subnet", subnet, "--format", "jsonl"])
            #expect(r.status == 0, "\(r.stderr)")
            return jsonRecords(r).filter { $0["type"] as? String == "finding" && $0["rule"] as? String == "MDNS-407" }
        }
        #expect(try mdns407("10.99.0.0/24").isEmpty)
        let off = try mdns407("192.168.1.0/24")
        #expect(off.count == 17 && off.allSatisfy { $0["severity"] as? String == "error" })
        let bad = try analyze([file, "--subnet", "10.99.0.0/33"])
        #expect(bad.status == 2 && bad.stderr.contains("--subnet '10.99.0.0/33' is not a subnet"))
        let unknown = try analyze(["--segments", Self.lan, Self.iot, "--subnet", "wan=10.0.0.0/8"])
        #expect(unknown.status == 2 && unknown.stderr.contains("no segment is named wan"))
    }

    @Test(arguments: ["text", "jsonl", "sarif", "junit"])
    func oneJobAndFourGiveTheSameOutput(format: String) throws {
        let one = try analyze(["--segments", Self.lan, Self.iot, "--format", format, "-j", "1"])
        let four = try analyze(["--segments", Self.lan, Self.iot, "--format", format, "-j", "4"])
        func masked(_ s: String) -> String {
            s.replacingOccurrences(of: #"time="[0-9.]+""#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #""elapsed_seconds":[0-9.e+-]+"#, with: "", options: .regularExpression)
        }
        #expect(one.status == 0 && four.status == 0)
        #expect(masked(one.stdout) == masked(four.stdout))
    }

    @Test func textLinesAndTheSummaryNameTheSegments() throws {
        let r = try analyze(["--segments", Self.lan, Self.iot])
        let lines = Self.lines(r)
        #expect(lines.contains { $0.hasPrefix("[lan] 1 22:13:20.000000 192.168.1.20:5353 > 224.0.0.251:5353 mDNS ") })
        #expect(lines.contains { $0.hasPrefix("[iot] 2 22:13:20.000000 192.168.2.1:5353 > ") })
        #expect(lines.contains("  segments    lan, iot"))
        #expect(lines.contains { $0.hasPrefix("    mdns lan-printer.local.") && $0.hasSuffix("[lan, iot]") })
        let sarif = try analyze(["--segments", Self.lan, Self.iot, "--format", "sarif"])
        #expect(sarif.stdout.contains(#""segment":"iot""#) && sarif.stdout.contains(#""segment":"lan""#))
    }

    @Test func withoutSegmentsEachFileIsItsOwnSessionAndNamesNone() throws {
        let r = try analyze([Self.lan, Self.iot, "--format", "jsonl"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains(#""segment":"#) && !r.stdout.contains(#""segments":"#))
        let records = jsonRecords(r)
        #expect(records.last?["files"] as? [String] == [Self.lan, Self.iot])
        // Each file counts its own frames; the query repeated on the other link is not a
        // duplicate within either session.
        #expect(!records.contains { $0["rule"] as? String == "MDNS-519" })
        let text = try analyze([Self.lan, Self.iot])
        #expect(!text.stdout.contains("[lan]") && text.stdout.contains("==> \(Self.iot) <=="))
    }

    @Test func segmentNamesCanBeGivenAndMustDiffer() throws {
        let r = try analyze([
            "--segments", Self.lan, Self.iot, "--segment-name", "lan.pcap=wired", "--segment-name",
            "\(Self.iot)=vlan20", "--format", "jsonl",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(jsonRecords(r).last?["segments"] as? [String] == ["wired", "vlan20"])
        let same = try analyze(["--segments", Self.lan, "captures/segments/../segments/lan.pcap"])
        #expect(same.status == 2)
        #expect(same.stderr.contains("two segments are named lan") && same.stderr.contains("--segment-name"))
        let stray = try analyze(["--segments", Self.lan, Self.iot, "--segment-name", "other.pcap=x"])
        #expect(stray.status == 2 && stray.stderr.contains("other.pcap is not one of the files"), "\(stray.stderr)")
        let alone = try analyze([Self.lan, "--segment-name", "lan.pcap=x"])
        #expect(alone.status == 2 && alone.stderr.contains("--segment-name goes with --segments"), "\(alone.stderr)")
    }

    /// The same frames as one capture on two interfaces (captures/segments/lan-iot.pcapng,
    /// written in time order with IDBs named `lan` and `iot`): the same messages, findings and
    /// inventory as the two files with `--segments`, all but the session's name.
    @Test(arguments: ["1", "4"])
    func aPcapngOfTwoInterfacesGivesWhatTheFilesAsSegmentsGive(jobs: String) throws {
        let files = try analyze(["--segments", Self.lan, Self.iot, "--format", "jsonl", "-j", "1"])
        let pcapng = try analyze(["captures/segments/lan-iot.pcapng", "--format", "jsonl", "-j", jobs])
        #expect(pcapng.status == 0, "\(pcapng.stderr)")
        let a = Self.lines(files).dropLast().map(Self.withoutFile)
        let b = Self.lines(pcapng).dropLast().map(Self.withoutFile)
        #expect(a.count == b.count && a.count > 20)
        #expect(a == b)
        // With SSDP-513 on the byebye of uuid …c9, never announced.
        #expect(b.filter { $0.contains(#""type":"finding""#) }.count == 9)
        #expect(jsonRecords(pcapng).last?["segments"] as? [String] == ["lan", "iot"])
    }

    /// Issue #34's acceptance on the two real testbed recordings (the avahi reflector, and the
    /// multicast router with the reflector): each link recorded on its own (`--segments` of
    /// the two files) and both bridges recorded at once by dumpcap (one pcapng, interfaces
    /// `br-lan` and `br-iot`) give the same findings, and each form writes the same bytes with
    /// one job and with three. The two forms are separate recordings of the same traffic:
    /// frames are numbered apart (dumpcap wrote the two interfaces' packets up to 0.2 s out
    /// of time order), so findings are compared as a multiset without their frame numbers,
    /// each on its segment (the files' base names standing for the bridges).
    @Test(arguments: [
        ("reflector", "working-lan", "working-iot", "working-both"),
        ("router", "routed-lan", "routed-iot", "routed-both"),
    ])
    func twoFilesAsSegmentsAndThePcapngOfBothGiveTheSameFindings(
        dir: String, lan: String, iot: String, both: String
    ) throws {
        let dir = "captures/testbed/\(dir)/"
        let files = ["--segments", dir + lan + ".pcap", dir + iot + ".pcap"]
        let pcapng = [dir + both + ".pcapng"]
        func findings(_ input: [String], segments: [String: String]) throws -> [String] {
            let one = try analyze(input + ["--format", "jsonl", "-j", "1"])
            let three = try analyze(input + ["--format", "jsonl", "-j", "3"])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(one.stdout == three.stdout, "-j 1 and -j 3 differ on \(input)")
            return jsonRecords(one).filter { $0["type"] as? String == "finding" }.map { f in
                let message = (f["message"] as? String ?? "").replacingOccurrences(
                    of: #"\b(frames?) [0-9]+(, [0-9]+)*"#, with: "$1 #", options: .regularExpression)
                let segment = f["segment"] as? String ?? "none"
                return [
                    f["rule"] as? String ?? "", f["severity"] as? String ?? "", segments[segment] ?? segment,
                    f["source"] as? String ?? "", (f["at_end"] as? Bool ?? false) ? "at end" : "", message,
                ].joined(separator: " | ")
            }.sorted()
        }
        let apart = try findings(files, segments: [lan: "br-lan", iot: "br-iot"])
        let together = try findings(pcapng, segments: [:])
        #expect(apart.count > 80)
        #expect(Set(apart.map { $0.split(separator: " | ")[2] }) == ["br-lan", "br-iot"])
        #expect(
            apart == together,
            "only in the files: \(Set(apart).subtracting(together)); only in the pcapng: \(Set(together).subtracting(apart))"
        )
    }

    /// A pcapng file of several interfaces that attacks the reader: a clear error naming the
    /// file and the block, the packets before it analysed, the summary written, exit 2.
    @Test func aHostilePcapngOfSeveralInterfacesIsAClearInputError() throws {
        let frames = pcapRecords(Fixtures.capture("link/ethernet.pcap")).map(\.data)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ds-seg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var b = PcapNGBuilder()
        b.interface(name: "lan")
        b.interface(name: "iot")
        b.packet(interface: 0, units: 1_700_000_000_000_000, frames[0])
        var outOfRange = b
        outOfRange.packet(interface: 5, units: 1_700_000_000_100_000, frames[1])
        var badLength = b
        badLength.block(6, [UInt8](repeating: 0, count: 40), length: 0x7FFF_FFF0)
        for (name, builder, reason) in [
            ("range.pcapng", outOfRange, "enhanced packet block for interface 5, but the section describes 2"),
            ("length.pcapng", badLength, "block of type 6 with total length 2147483632"),
        ] {
            let path = try builder.write(dir + "/" + name)
            let r = try analyze([path, "--format", "jsonl"])
            #expect(r.status == 2, "\(name): \(r.stderr)")
            #expect(r.stderr.contains("discoscope: \(path): malformed pcapng: \(reason)"), "\(r.stderr)")
            let records = jsonRecords(r)
            #expect(records.filter { $0["type"] as? String == "message" }.map { $0["segment"] as? String } == ["lan"])
            #expect(records.last?["result"] as? String == "input_error")
        }
    }

    /// `inventory --segments`: the files are one session, as `analyze --segments` makes
    /// them: each host and service once, with the segments it was seen on (the same records
    /// as `analyze --segments` writes), and the findings naming the merged session.
    @Test(arguments: ["filtered", "working"])
    func inventoryWithSegmentsListsEachHostOnceWithItsSegments(scenario: String) throws {
        let files = ["iot", "lan"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }
        let r = try run(["inventory", "--segments"] + files + ["--format", "jsonl"], cwd: Fixtures.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let records = jsonRecords(r)
        let hosts = records.filter { $0["type"] as? String == "device" }.compactMap { $0["id"] as? String }
        #expect(hosts.sorted() == ["iot-printer.local.", "lan-nas.local."])
        for h in records where h["type"] as? String == "device" {
            #expect(h["segments"] as? [String] == ["\(scenario)-iot", "\(scenario)-lan"], "\(h)")
            #expect(h["file"] as? String == files.joined(separator: "+"))
        }
        let findings = records.filter { $0["type"] as? String == "finding" }
        #expect(!findings.isEmpty && findings.allSatisfy { $0["file"] as? String == files.joined(separator: "+") })
        // The same inventory as analyze --segments reports.
        let analyzed = try analyze(["--segments"] + files + ["--format", "jsonl"])
        func entries(_ r: ProcessResult) -> [String] {
            Self.lines(r).filter { $0.hasPrefix(#"{"type":"device""#) || $0.hasPrefix(#"{"type":"service""#) }
        }
        #expect(entries(r) == entries(analyzed))
        // Without --segments, each file is its own session: each host is listed per file.
        let apart = jsonRecords(try run(["inventory"] + files + ["--format", "jsonl"], cwd: Fixtures.packageRoot))
        #expect(apart.filter { $0["id"] as? String == "lan-nas.local." }.count == 2)
        #expect(!apart.contains { $0["segments"] != nil })
        let text = try run(["inventory", "--segments"] + files, cwd: Fixtures.packageRoot)
        #expect(text.stdout.components(separatedBy: "mDNS host lan-nas.local.\n").count == 2, "\(text.stdout)")
        #expect(text.stdout.contains("  segments    \(scenario)-iot, \(scenario)-lan\n"))
        // A pcapng of both interfaces is such a session by itself.
        let both = try run(["inventory", "captures/testbed/reflector/working-both.pcapng"], cwd: Fixtures.packageRoot)
        #expect(both.stdout.components(separatedBy: "mDNS host lan-nas.local.\n").count == 2)
        #expect(both.stdout.contains("  segments    br-lan, br-iot\n"), "\(both.stdout)")
    }

    /// A forwarder's copies are the forwarder's: on the avahi reflector recordings, the
    /// reflector (10.98.1.1 and fe80::98:1ff:fe00:1 on lan, 10.98.2.1 and fe80::98:2ff:fe00:1
    /// on iot) re-sends each host's records on the other link from its own address. Merged,
    /// the hosts list only their own addresses and MACs and count only their own messages (as
    /// many as the link they live on shows them sending); no finding that names a host comes
    /// from a forwarder; the copies' MDNS-309 and MDNS-310 findings are the forwarder's (no
    /// device); the filtering reflector's A-record copies are no announcements of its own
    /// (no MDNS-504, which said "lan-nas.local. announced 9 times"); and `explain` shows none
    /// of the forwarder's messages as the host's.
    @Test(arguments: ["working", "filtered"])
    func aForwardersCopiesAreTheForwardersMessages(scenario: String) throws {
        let files = ["lan", "iot"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }
        let forwarders: Set<String> = ["10.98.1.1", "fe80::98:1ff:fe00:1", "10.98.2.1", "fe80::98:2ff:fe00:1"]
        let own = [
            "lan-nas.local.": ["10.98.1.30", "fe80::98:1ff:fe00:30"],
            "iot-printer.local.": ["10.98.2.10", "fe80::98:2ff:fe00:10"],
        ]
        let records = jsonRecords(try analyze(["--segments"] + files + ["--format", "jsonl"]))
        func hosts(_ records: [[String: Any]]) -> [String: [String: Any]] {
            var out: [String: [String: Any]] = [:]
            for d in records where d["type"] as? String == "device" { out[d["id"] as? String ?? ""] = d }
            return out
        }
        let merged = hosts(records)
        #expect(merged.count == 2)
        for (host, addresses) in own {
            #expect(merged[host]?["addresses"] as? [String] == addresses, "\(host): \(merged[host] ?? [:])")
            #expect((merged[host]?["macs"] as? [String])?.count == 1, "\(host)")
        }
        // The messages a host sent: as many as the recording of its own link shows.
        let lanAlone = hosts(jsonRecords(try analyze([files[0], "--format", "jsonl"])))
        let iotAlone = hosts(jsonRecords(try analyze([files[1], "--format", "jsonl"])))
        #expect(merged["lan-nas.local."]?["messages"] as? Int == lanAlone["lan-nas.local."]?["messages"] as? Int)
        #expect(
            merged["iot-printer.local."]?["messages"] as? Int == iotAlone["iot-printer.local."]?["messages"] as? Int)
        let findings = records.filter { $0["type"] as? String == "finding" }
        for f in findings where f["device"] != nil {
            #expect(!forwarders.contains(f["source"] as? String ?? ""), "a forwarder's copy named a host: \(f)")
        }
        let copies = findings.filter {
            ["MDNS-309", "MDNS-310"].contains($0["rule"] as? String ?? "")
                && forwarders.contains($0["source"] as? String ?? "")
        }
        #expect(!copies.isEmpty && copies.allSatisfy { $0["device"] == nil })
        #expect(!findings.contains { $0["rule"] as? String == "MDNS-504" }, "\(findings)")
        // Each file alone: the IPv4 copies (A records of another /24) are the forwarder's too.
        for alone in [lanAlone, iotAlone] {
            for (host, entry) in alone {
                let listed = entry["addresses"] as? [String] ?? []
                #expect(!listed.contains("10.98.1.1") && !listed.contains("10.98.2.1"), "\(host): \(listed)")
            }
        }
        let explain = try run(["explain", "lan-nas.local", "--segments"] + files, cwd: Fixtures.packageRoot)
        let sent = explain.stdout.split(separator: "\n").filter { $0.contains(": sent ") }
        #expect(!sent.isEmpty)
        #expect(sent.allSatisfy { line in own["lan-nas.local."]?.contains { line.contains("(\($0) → ") } ?? false })
        #expect(
            explain.stdout.contains("What it did (\(merged["lan-nas.local."]?["messages"] as? Int ?? -1) message(s)"),
            "\(explain.stdout)")
    }

    /// A pcapng file of two interfaces names its segments by interface (the IDBs' `if_name`:
    /// dumpcap's `br-lan` and `br-iot`), as two files are named by theirs: the inventory of
    /// working-both.pcapng is that of working-lan.pcap and working-iot.pcap as segments named
    /// so, each entry with the same segments, addresses and forwarding.
    @Test func aPcapngOfTwoInterfacesNamesItsSegmentsByInterfaceAsTwoFilesDo() throws {
        let dir = "captures/testbed/reflector/"
        func entries(_ args: [String]) throws -> [String] {
            let r = try run(["inventory"] + args + ["--format", "jsonl"], cwd: Fixtures.packageRoot)
            #expect(r.status == 0, "\(r.stderr)")
            return jsonRecords(r).filter { $0["type"] as? String != "finding" }.map { e in
                let forwarded = (e["forwarded"] as? [[String: Any]] ?? []).map {
                    "\($0["segment"] ?? "") from \($0["from"] ?? "") by \($0["source"] ?? "")"
                }
                return [
                    e["id"] as? String ?? e["instance"] as? String ?? "",
                    (e["segments"] as? [String] ?? []).joined(separator: ","),
                    (e["addresses"] as? [String] ?? []).joined(separator: ","), forwarded.joined(separator: ";"),
                ].joined(separator: " | ")
            }
        }
        let pcapng = try entries([dir + "working-both.pcapng"])
        let files = try entries([
            "--segments", dir + "working-lan.pcap", dir + "working-iot.pcap", "--segment-name",
            "working-lan.pcap=br-lan", "--segment-name", "working-iot.pcap=br-iot",
        ])
        #expect(pcapng.count == 5)
        #expect(pcapng.allSatisfy { $0.contains(" | br-lan,br-iot | ") }, "\(pcapng)")
        #expect(pcapng == files)
        let summary = jsonRecords(try analyze([dir + "working-both.pcapng", "--format", "jsonl"])).last
        #expect(summary?["segments"] as? [String] == ["br-lan", "br-iot"])
    }

    /// `diff --segments`: each side is the `+`-joined files of its segments; with the same
    /// segment names on both sides, the filtering reflector's recording lost the NAS's
    /// service on iot and the printer's on lan (the segments compared), and a side against
    /// itself shows no change.
    @Test func diffWithSegmentsComparesWhereEachServiceWasSeen() throws {
        func side(_ scenario: String) -> String {
            ["lan", "iot"].map { "captures/testbed/reflector/\(scenario)-\($0).pcap" }.joined(separator: "+")
        }
        let names = ["working", "filtered"].flatMap { scenario in
            ["lan", "iot"].flatMap { ["--segment-name", "\(scenario)-\($0).pcap=\($0)"] }
        }
        let r = try run(
            ["diff", "--segments", side("working"), side("filtered"), "--format", "jsonl", "--fail-on", "never"]
                + names, cwd: Fixtures.packageRoot)
        #expect(r.status == 0, "\(r.stderr)")
        let changes = jsonRecords(r).filter { $0["change"] as? String == "changed" }
        func segments(_ id: String) -> [String]? {
            guard let c = changes.first(where: { $0["id"] as? String == id }),
                let f = (c["fields"] as? [String: Any])?["segments"] as? [[String]], f.count == 2
            else { return nil }
            return f[1]
        }
        #expect(segments("LAN NAS._smb._tcp.local.") == ["lan"], "\(r.stdout)")
        #expect(segments("IoT Printer._ipp._tcp.local.") == ["iot"])
        #expect(segments("IoT Camera._http._tcp.local.") == nil)
        let same = try run(
            ["diff", "--segments", side("working"), side("working")] + names.prefix(4), cwd: Fixtures.packageRoot)
        #expect(same.status == 0 && same.stdout.contains("No differences"), "\(same.stdout)")
        let stray = try run(
            ["diff", "--segments", side("working"), side("working"), "--segment-name", "x.pcap=x"],
            cwd: Fixtures.packageRoot)
        #expect(
            stray.status == 2
                && stray.stderr.contains("discoscope: --segment-name x.pcap=x: x.pcap is not one of the files"))
    }

    @Test func aSegmentThatCannotBeReadIsAnInputErrorAndTheOthersAreAnalysed() throws {
        let r = try analyze(["--segments", Self.lan, "captures/segments/missing.pcap", Self.iot, "--format", "jsonl"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("captures/segments/missing.pcap: "), "\(r.stderr)")
        let records = jsonRecords(r)
        #expect(records.filter { $0["type"] as? String == "message" }.count == 12)
        #expect(records.last?["segments"] as? [String] == ["lan", "iot"])
        #expect(records.last?["result"] as? String == "input_error")
    }
}
