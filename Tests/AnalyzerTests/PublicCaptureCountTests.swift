import Analyzer
import Capture
import Driver
import Findings
import Foundation
import Reporting
import TestSupport
import Testing

/// Counts what the pipeline hands to reporters.
final class CountingReporter: Reporter {
    var messages: [MessageRecord] = []
    var findings: [Finding] = []
    var summary: RunSummary? = nil
    var isStreaming: Bool { true }
    func message(_ m: MessageRecord, findings f: [Finding]) {
        messages.append(m)
        findings += f
    }
    func finding(_ f: Finding) { findings.append(f) }
    func finish(_ s: RunSummary) { summary = s }
}

func analyse(_ path: String) throws -> (CountingReporter, RunSummary) {
    let reporter = CountingReporter()
    let analysis = Analysis(reporter: reporter)
    let handle = try OfflineSource.open(path)
    analysis.run(handle, fileIndex: 0)
    let summary = analysis.finish()
    return (reporter, summary)
}

/// Every capture in ../shared/captures/public is read to the end without a crash, and the
/// number of UDP datagrams to or from port 1900 / 5353 equals tshark's count for
/// `udp.port==1900 || udp.port==5353` (reassembled datagrams once). The expected figures
/// were produced by tshark 4.0.17; `scripts/compare-tshark-counts.sh` recomputes them with the
/// installed tshark and checks this table, so the two stay honest with each other.
@Suite struct PublicCaptureCountTests {
    static let tsharkCounts: [(String, Int)] = [
        ("CESNET__ipfixprobe__ssdp.pcap", 103),
        ("FoxIO-LLC__ja4__ssh2.pcapng", 29),
        ("OISF__suricata-verify__frag-28.pcap", 2),
        ("OISF__suricata-verify__output-eve-ftp-data_input.pcap", 53),
        ("OISF__suricata-verify__smb-length-5770_input.pcap", 16),
        ("OISF__suricata-verify__ssdp.pcap", 1),
        ("andypitcher__IoT_Sentinel__D-LinkDayCam_Setup-C-1-STA.pcap", 31),
        ("andypitcher__IoT_Sentinel__D-LinkDoorSensor_Setup-C-2-STA.pcap", 8),
        ("andypitcher__IoT_Sentinel__D-LinkSensor_Setup-A-1-STA.pcap", 87),
        ("andypitcher__IoT_Sentinel__D-LinkSiren_Setup-C-19-STA.pcap", 82),
        ("andypitcher__IoT_Sentinel__D-LinkWaterSensor_Setup-C-16-STA.pcap", 102),
        ("andypitcher__IoT_Sentinel__EdimaxCam2_Setup-C-2-STA.pcap", 32),
        ("andypitcher__IoT_Sentinel__HueSwitch_Setup-A-5-STA.pcap", 36),
        ("andypitcher__IoT_Sentinel__Lightify_Setup-C-9-STA.pcap", 96),
        ("andypitcher__IoT_Sentinel__WeMoInsightSwitch_Setup-A-4-STA.pcap", 25),
        ("andypitcher__IoT_Sentinel__WeMoLink_Setup-A-13-STA.pcap", 13),
        ("andypitcher__IoT_Sentinel__WeMoSwitch2_Setup-C-1-STA.pcap", 40),
        ("arkime__arkime__v6-http.pcap", 8),
        ("cisco__mercury__mdns_capture.pcap", 3141),
        ("gcla__termshark__1.pcap", 3),
        ("lemontree55__packetgen__mdns.pcapng", 2),
        ("markofu__pcaps__dns.cap", 13),
        ("nfstream__nfstream__pps.pcap", 63),
        ("nfstream__nfstream__raw.pcap", 1),
        ("nfstream__nfstream__skype.pcap", 109),
        ("ntop__nDPI__anyconnect-vpn.pcap", 34),
        ("ntop__nDPI__iphone.pcap", 19),
        ("ntop__nDPI__netflix.pcap", 16),
        ("ntop__nDPI__ssdp-m-search-ua.pcap", 4),
        ("ntop__nDPI__starcraft_battle.pcap", 11),
        ("ntop__nDPI__telegram.pcap", 297),
        ("ntop__nDPI__wa_voice.pcap", 18),
        ("ntop__nDPI__wechat.pcap", 116),
        ("ntop__nDPI__whatsapp_login_call.pcap", 8),
        ("seladb__PcapPlusPlus__DnsPackets.pcap", 24),
        ("seladb__PcapPlusPlus__IPv6UdpPacket.pcap", 1),
        ("seladb__PcapPlusPlus__example2.pcap", 14),
        ("seladb__PcapPlusPlus__sll.pcap", 2),
        ("the-tcpdump-group__tcpdump__dns-zlip-1.pcap", 0),
        ("the-tcpdump-group__tcpdump__eapon1.pcap", 3),
        ("zeek__zeek__dns-edns-bad-length.pcap", 0),
        ("zeek__zeek__home-multicast-short.pcap", 3),
        ("zeek__zeek__max-compression-depth.pcap", 0),
        ("zeek__zeek__mdns-no-assoc.pcap", 6),
        ("zeek__zeek__mdns.pcap", 18),
        ("zeek__zeek__raw_packets.pcap", 12),
        ("zeek__zeek__wikipedia.pcap", 4),
        ("zeek__zeek__wlanmon.pcap", 1),
    ]

    @Test(
        .enabled(if: Fixtures.runsSharedCaptureTests, Comment(rawValue: Fixtures.sharedSkipReason)),
        arguments: tsharkCounts)
    func datagramCountMatchesTshark(file: String, expected: Int) throws {
        let root = try #require(Fixtures.sharedPublicCaptures, "../shared/captures/public is missing")
        let (_, summary) = try analyse(root + "/" + file)
        #expect(summary.portDatagrams == expected)
        #expect(summary.inputErrors.isEmpty)
    }

    @Test(.enabled(if: Fixtures.runsSharedCaptureTests, Comment(rawValue: Fixtures.sharedSkipReason)))
    func tableCoversEveryPublicCapture() throws {
        let root = try #require(Fixtures.sharedPublicCaptures, "../shared/captures/public is missing")
        let files = try FileManager.default.contentsOfDirectory(atPath: root).filter { !$0.hasSuffix(".md") }
        #expect(Set(files) == Set(Self.tsharkCounts.map(\.0)))
    }

    /// Our own testbed recordings: tshark's count without the ICMP errors that quote mDNS
    /// replies (`… && !icmp && !icmpv6`; see captures/README.md).
    @Test(arguments: [("testbed/lan-dualstack.pcapng", 1001), ("testbed/h4-any-sll2.pcap", 1016)])
    func testbedDatagramCountMatchesTshark(file: String, expected: Int) throws {
        let (_, summary) = try analyse(Fixtures.capture(file))
        #expect(summary.portDatagrams == expected)
        #expect(summary.inputErrors.isEmpty)
    }
}
