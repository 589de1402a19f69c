import Capture
import NetLayers
import TestSupport
import Testing
import WireFormat

/// Reads a capture through libpcap and the link/IP/UDP decoder, as `analyze` does.
struct Decoded {
    var frames = 0
    var datagrams: [Datagram] = []
    var unsupported: [LinkType] = []
    var malformed: [String] = []
    var truncatedHeaders = 0
    var error: CaptureError? = nil
    var reassembler = FragmentReassembler()
}

func decodeFile(_ path: String, filter: String? = nil) throws -> Decoded {
    let handle = try OfflineSource.open(path)
    if let filter { try handle.setOfflineFilter(filter) }
    var decoder = PacketDecoder()
    var out = Decoded()
    var buffer: [UInt8] = []
    do {
        while true {
            let step = try handle.next { frame, bytes in
                out.frames += 1
                buffer = Array(bytes)
                switch decoder.decode(
                    frame: frame.number, time: frame.time, linkType: frame.linkType, frameBytes: buffer,
                    originalLength: frame.originalLength,
                    wants: { _, sp, _, dp in sp == 1900 || dp == 1900 || sp == 5353 || dp == 5353 })
                {
                case .datagram(let d): out.datagrams.append(d)
                case .unsupportedLink(let l): out.unsupported.append(l)
                case .malformed(let why): out.malformed.append(why)
                case .truncatedHeaders: out.truncatedHeaders += 1
                default: break
                }
            }
            if case .end = step { break }
        }
    } catch {
        out.error = error
    }
    out.reassembler = decoder.reassembler
    return out
}

@Suite struct LinkTypeFixtureTests {
    /// Each link type fixture holds the same discovery messages (5 IPv4 + 3 IPv6 datagrams,
    /// or the IPv4/IPv6 subset); tshark counts the same numbers
    /// (`udp.port==1900||udp.port==5353`).
    @Test(arguments: [
        ("link/ethernet.pcap", 5), ("link/ethernet-ipv6.pcapng", 3), ("link/ethernet-vlan-qinq.pcapng", 3),
        ("link/linux-sll.pcap", 8), ("link/linux-sll2.pcap", 8), ("link/null-loopback.pcap", 8),
        ("link/null-bigendian.pcap", 8), ("link/loop.pcap", 8), ("link/raw.pcap", 8), ("link/ipv4.pcap", 5),
        ("link/ipv6.pcap", 3), ("format/big-endian-nanosecond.pcap", 5), ("format/ethernet.pcap.gz", 5),
    ])
    func everyDiscoveryDatagramIsDecoded(file: String, expected: Int) throws {
        let d = try decodeFile(Fixtures.capture(file))
        #expect(d.error == nil)
        #expect(d.datagrams.count == expected)
        #expect(d.malformed.isEmpty)
        #expect(d.unsupported.isEmpty)
    }

    @Test func ssdpSearchOverEthernetKeepsAddressesPortsTTLAndFrameNumber() throws {
        let d = try decodeFile(Fixtures.capture("link/ethernet.pcap"))
        let first = try #require(d.datagrams.first)
        #expect(first.frame == 1)
        #expect(first.src.description == "192.168.1.10")
        #expect(first.dst.description == "239.255.255.250")
        #expect(first.dst.isMulticast)
        #expect(first.srcPort == 50000 && first.dstPort == 1900)
        #expect(first.hopLimit == 2)
        #expect(first.srcMAC == [0x02, 0, 0, 0, 0, 0x01])
        #expect(first.payload.starts(with: Array("M-SEARCH * HTTP/1.1\r\n".utf8)))
        // Unrelated DNS (port 53) and NTP frames are read but not decoded further.
        #expect(d.frames == 7)
    }

    @Test func ipv6OverLinuxCookedV2KeepsHopLimitAndLinkLocalSource() throws {
        let d = try decodeFile(Fixtures.capture("link/linux-sll2.pcap"))
        let v6 = d.datagrams.filter { $0.isIPv6 }
        #expect(v6.count == 3)
        #expect(v6.first?.src.description == "fe80::10")
        #expect(v6.first?.dst.description == "ff02::c")
        #expect(v6.first?.hopLimit == 2)
    }

    @Test func nanosecondTimestampsAreExact() throws {
        let d = try decodeFile(Fixtures.capture("format/big-endian-nanosecond.pcap"))
        // Written as T0 + i seconds + i*123 ns.
        #expect(d.datagrams.map(\.time.nanoseconds) == [0, 123, 246, 369, 492])
        #expect(d.datagrams.first?.time.seconds == 1_700_000_000)
    }

    @Test func unsupportedLinkTypeIsNamed() throws {
        let d = try decodeFile(Fixtures.capture("link/unsupported-user0.pcap"))
        #expect(d.frames == 2)
        #expect(d.unsupported.map(\.description) == ["USER0", "USER0"])
    }

    /// libpcap cannot read interfaces of different link types (DiscoScope's own reader does:
    /// `PcapNGSourceTests`); where libpcap reads such a file (a stream), it says so clearly.
    @Test func pcapngWithTwoLinkTypesStopsLibpcapWithAClearMessage() throws {
        let path = Fixtures.capture("link/mixed-linktypes.pcapng")
        var err: CaptureError? = nil
        do {
            let h = try OfflineSource.openWithLibpcap(path)
            while case .frame = try h.next({ _, _ in }) {}
        } catch {
            err = error
        }
        let e = try #require(err)
        #expect(e.description.contains("different link types"))
        #expect(e.description.contains("mixed-linktypes.pcapng"))
    }
}

@Suite struct IPLayerFixtureTests {
    @Test func ipv6ExtensionHeadersAreSkipped() throws {
        let d = try decodeFile(Fixtures.capture("ip/ipv6-extension-headers.pcap"))
        #expect(d.datagrams.count == 1)
        #expect(d.datagrams.first?.dstPort == 5353)
        #expect(d.datagrams.first?.payload.count == d.datagrams.first?.udpPayloadLength)
    }

    @Test(arguments: ["ip/mdns-fragmented-ipv4.pcap", "ip/mdns-fragmented-ipv4-out-of-order.pcap"])
    func fragmentedIPv4DatagramIsReportedOnceAtItsLastFragment(file: String) throws {
        let d = try decodeFile(Fixtures.capture(file))
        #expect(d.datagrams.count == 1)
        let whole = try #require(d.datagrams.first)
        #expect(whole.frame == 4)
        #expect(whole.wasFragmented)
        #expect(whole.payload.count > 3000)
        #expect(whole.payload.count == whole.udpPayloadLength)
        #expect(whole.ipPacketLength == 20 + 8 + whole.payload.count)
        #expect(whole.fragmentFrames.count >= 3)
    }

    @Test func fragmentedIPv6DatagramIsReassembled() throws {
        let d = try decodeFile(Fixtures.capture("ip/mdns-fragmented-ipv6.pcap"))
        #expect(d.datagrams.count == 1)
        #expect(d.datagrams.first?.frame == 3)
        #expect(d.datagrams.first?.fragmentFrames == [1, 2, 3])
    }

    @Test func conflictingOverlapKeepsTheFirstCopyLikeWireshark() throws {
        let d = try decodeFile(Fixtures.capture("ip/fragments-inconsistent-overlap.pcap"))
        let clean = try decodeFile(Fixtures.capture("ip/mdns-fragmented-ipv4.pcap"))
        #expect(d.datagrams.count == 1)
        #expect(d.datagrams.first?.payload == clean.datagrams.first?.payload)
        #expect(d.reassembler.overlapConflicts == 1)
    }

    @Test func snapLengthCutIsTruncatedNotMalformed() throws {
        let d = try decodeFile(Fixtures.capture("ip/truncated-snaplen.pcap"))
        #expect(d.datagrams.count == 2)
        let notify = try #require(d.datagrams.first)
        #expect(notify.isTruncated)
        #expect(notify.payload.count == 200 - 14 - 20 - 8)
        #expect(notify.udpPayloadLength > notify.payload.count)
        #expect(d.malformed.isEmpty)
        #expect(d.datagrams.last?.isTruncated == false)
    }

    @Test func filterKeepsWiresharkFrameNumbers() throws {
        let d = try decodeFile(Fixtures.capture("link/ethernet.pcap"), filter: "udp port 5353")
        #expect(d.datagrams.map(\.frame) == [4, 5])
    }
}

@Suite struct DamagedInputTests {
    @Test func fileCutInsideARecordKeepsThePacketsBeforeIt() throws {
        let d = try decodeFile(Fixtures.capture("damaged/cut-mid-record.pcap"))
        #expect(d.datagrams.count == 2)
        let err = try #require(d.error)
        #expect(err.description.contains("middle of a record"))
    }

    @Test(arguments: [
        ("damaged/empty.pcap", "empty file"), ("damaged/garbage.pcap", "not a pcap or pcapng"),
        ("does-not-exist.pcap", "No such file"), ("damaged", "is a directory"),
    ])
    func unreadableInputsThrowANamedError(file: String, expected: String) {
        do {
            _ = try OfflineSource.open(Fixtures.capture(file))
            Issue.record("opening \(file) should fail")
        } catch {
            #expect(error.description.contains(expected))
            #expect(error.description.contains(file))
        }
    }

    @Test func invalidFilterIsAnErrorNamingTheFilter() throws {
        let h = try OfflineSource.open(Fixtures.capture("link/ethernet.pcap"))
        #expect(throws: CaptureError.self) { try h.setOfflineFilter("udp port") }
    }
}
