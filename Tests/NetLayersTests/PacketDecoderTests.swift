import NetLayers
import TestSupport
import Testing
import WireFormat

private let t0 = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)

private func decode(_ link: LinkType, _ bytes: [UInt8], original: Int? = nil) -> FrameOutcome {
    var d = PacketDecoder()
    return d.decode(
        frame: 1, time: t0, linkType: link, frameBytes: bytes, originalLength: original ?? bytes.count,
        wants: { _, _, _, _ in true })
}

/// 192.168.1.10:5353 > 224.0.0.251:5353, TTL 255, 4-byte payload "abcd".
private let ipv4UDP = hex(
    """
    45000020 00010000 ff11 0000 c0a8010a e00000fb
    14e9 14e9 000c 0000 61626364
    """)

@Suite struct PacketDecoderTests {
    @Test func ethernetWithStackedVLANTagsReachesUDP() {
        let frame = hex("01005e0000fb 020000000001 88a8 0064 8100 0014 0800") + ipv4UDP
        guard case .datagram(let d) = decode(.ethernet, frame) else {
            Issue.record("expected a datagram")
            return
        }
        #expect(d.src == IPAddress(text: Array("192.168.1.10".utf8)))
        #expect(d.dst == .mdnsIPv4)
        #expect(d.payload == Array("abcd".utf8))
        #expect(d.hopLimit == 255)
    }

    @Test func nullLoopbackFamilyInEitherByteOrder() {
        for header in [hex("02000000"), hex("00000002")] {
            guard case .datagram = decode(.null, header + ipv4UDP) else {
                Issue.record("NULL header \(header) not decoded")
                continue
            }
        }
    }

    @Test func rawLinkTypeDecidesByVersionNibble() {
        guard case .datagram(let d) = decode(.raw, ipv4UDP) else {
            Issue.record("expected a datagram")
            return
        }
        #expect(d.srcPort == 5353)
    }

    @Test func udpLengthBeyondCapturedBytesIsTruncatedWhenTheSnapLengthCutIt() {
        let cut = Array(ipv4UDP.prefix(ipv4UDP.count - 2))
        guard case .datagram(let d) = decode(.ipv4, cut, original: ipv4UDP.count) else {
            Issue.record("expected a truncated datagram")
            return
        }
        #expect(d.isTruncated)
        #expect(d.payload == Array("ab".utf8))
        #expect(d.udpPayloadLength == 4)
    }

    @Test func withoutCopyingThePayloadIsLeftInTheFrameAndTruncationStillShows() {
        let frame = hex("01005e0000fb 020000000001 0800") + ipv4UDP
        for (bytes, original) in [(frame, frame.count), (Array(frame.prefix(frame.count - 2)), frame.count)] {
            var decoder = PacketDecoder()
            decoder.copiesPayloads = false
            guard
                case .datagram(let d) = decoder.decode(
                    frame: 1, time: t0, linkType: .ethernet, frameBytes: bytes, originalLength: original,
                    wants: { _, _, _, _ in true })
            else {
                Issue.record("expected a datagram")
                continue
            }
            #expect(d.payload.isEmpty)
            #expect(d.framePayload.map { Array(bytes[$0]) } == Array("abcd".utf8.prefix(bytes.count - 42)))
            #expect(d.isTruncated == (bytes.count < original))
        }
    }

    @Test func withoutCopyingAReassembledPayloadIsStillCopied() {
        // 192.168.1.10 > 224.0.0.251, UDP 5353 > 5353 with 8 payload bytes, in two fragments:
        // the UDP header (MF set), then the payload at offset 8.
        let more = hex("4500001c 00072000 ff11 0000 c0a8010a e00000fb 14e9 14e9 0010 0000")
        let second = hex("4500001c 00070001 ff11 0000 c0a8010a e00000fb 61626364 65666768")
        var decoder = PacketDecoder()
        decoder.copiesPayloads = false
        guard
            case .fragmentHeld = decoder.decode(
                frame: 1, time: t0, linkType: .ipv4, frameBytes: more, originalLength: more.count,
                wants: { _, _, _, _ in true })
        else {
            Issue.record("expected the first fragment held")
            return
        }
        guard
            case .datagram(let d) = decoder.decode(
                frame: 2, time: t0, linkType: .ipv4, frameBytes: second, originalLength: second.count,
                wants: { _, _, _, _ in true })
        else {
            Issue.record("expected the reassembled datagram")
            return
        }
        #expect(d.framePayload == nil)
        #expect(d.payload == Array("abcdefgh".utf8))
        #expect(d.fragmentFrames == [1, 2])
    }

    @Test func ipv4HeaderLengthBelowTwentyIsMalformed() {
        var bad = ipv4UDP
        bad[0] = 0x44
        guard case .malformed = decode(.ipv4, bad) else {
            Issue.record("expected malformed")
            return
        }
    }

    /// Fragments whose headers claim more bytes than the frame holds, with an IP payload length
    /// that makes the (empty) fragment look complete: malformed, where taking the fragment's
    /// bytes out of the frame once trapped.
    @Test func fragmentHeadersRunningPastTheFrameAreMalformed() {
        // IPv4, IHL 15 (60 bytes) and total length 60, more fragments; 20 header bytes captured.
        let v4 = hex("4f00003c 00012000 ff11 0000 0a000001 e00000fb")
        // IPv6 to ff02::fb, payload length 24: a fragment header (offset 0, more fragments),
        // then hop-by-hop options of 16 bytes of which 2 are in the frame.
        let v6 =
            hex("60000000 0018 2c ff") + [UInt8](repeating: 0, count: 15) + [1]
            + hex("ff02000000000000 00000000000000fb")
            + hex("00000001 00000007") + hex("1101")
        for (link, frame) in [(LinkType.ipv4, v4), (.ipv6, v6)] {
            guard case .malformed = decode(link, frame) else {
                Issue.record("\(link): expected malformed, got \(decode(link, frame))")
                continue
            }
            // Cut by the snap length instead: the headers are truncated.
            guard case .truncatedHeaders = decode(link, frame, original: frame.count + 40) else {
                Issue.record("\(link): expected truncated headers")
                continue
            }
        }
        // Not UDP (protocol 6): not counted as truncated or malformed, whatever its header length.
        var tcp = v4
        tcp[9] = 6
        guard case .notUDP = decode(.ipv4, tcp, original: tcp.count + 40) else {
            Issue.record("expected not UDP, got \(decode(.ipv4, tcp, original: tcp.count + 40))")
            return
        }
    }

    @Test func unknownLinkTypeIsUnsupported() {
        guard case .unsupportedLink(let l) = decode(LinkType(rawValue: 147), ipv4UDP) else {
            Issue.record("expected unsupported")
            return
        }
        #expect(l.description == "USER0")
    }

    /// Seeded random frames of every supported link type never trap (gopacket's fuzz target).
    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 42)
        let links: [LinkType] = [
            .ethernet, .linuxSLL, .linuxSLL2, .null, .loop, .raw, .ipv4, .ipv6, .ieee802_11, .ieee802_11Radiotap,
        ]
        var decoder = PacketDecoder(reassembler: FragmentReassembler(maxDatagrams: 8, maxBytes: 1 << 16))
        var seen = 0
        for i in 0..<20_000 {
            let n = Int(rng.next() % 200)
            var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Make many of them look like IPv4/IPv6 UDP (and fragments) so deeper code runs.
            if n > 40, i % 2 == 0 {
                bytes[0] = i % 4 == 0 ? 0x45 + UInt8(i % 11) : 0x60  // IPv4 header lengths 20–60
                bytes[9] = 17
                bytes[6] = 17
            }
            let outcome = decoder.decode(
                frame: i, time: t0, linkType: links[i % links.count], frameBytes: bytes,
                originalLength: n + Int(rng.next() % 3), wants: { _, _, _, _ in true })
            if case .datagram = outcome { seen += 1 }
        }
        #expect(decoder.reassembler.inFlight <= 8)
        #expect(seen > 0)
    }
}

@Suite struct FragmentReassemblerTests {
    let key = FragmentReassembler.Key(src: .v4(1), dst: .v4(2), id: 7, proto: 17)

    @Test func completesWhenCoveredAndReportsAllFrames() {
        var r = FragmentReassembler()
        guard
            case .held = r.add(
                key: key, offset: 8, more: false, bytes: [9, 9], frame: 2, time: t0, hopLimit: 1, headerLength: 20)
        else {
            Issue.record("expected held")
            return
        }
        guard
            case .complete(let w) = r.add(
                key: key, offset: 0, more: true, bytes: Array(repeating: 1, count: 8), frame: 5, time: t0, hopLimit: 64,
                headerLength: 20)
        else {
            Issue.record("expected complete")
            return
        }
        #expect(w.payload == Array(repeating: 1, count: 8) + [9, 9])
        #expect(w.frames == [2, 5])
        #expect(w.hopLimit == 64)
        #expect(r.inFlight == 0)
    }

    @Test func boundedNumberOfDatagramsInFlight() {
        var r = FragmentReassembler(maxDatagrams: 4)
        for id in 0..<100 {
            let k = FragmentReassembler.Key(src: .v4(1), dst: .v4(2), id: UInt32(id), proto: 17)
            _ = r.add(
                key: k, offset: 0, more: true, bytes: Array(repeating: 0, count: 8), frame: id, time: t0, hopLimit: 1,
                headerLength: 20)
        }
        #expect(r.inFlight <= 4)
        #expect(r.abandoned >= 96)
    }

    @Test func incompleteDatagramsExpireAfterTheTimeout() {
        var r = FragmentReassembler(timeoutSeconds: 30)
        _ = r.add(
            key: key, offset: 0, more: true, bytes: Array(repeating: 0, count: 8), frame: 1, time: t0, hopLimit: 1,
            headerLength: 20)
        let later = Timestamp(seconds: t0.seconds + 31, nanoseconds: 0)
        let other = FragmentReassembler.Key(src: .v4(3), dst: .v4(4), id: 1, proto: 17)
        _ = r.add(
            key: other, offset: 0, more: true, bytes: Array(repeating: 0, count: 8), frame: 2, time: later, hopLimit: 1,
            headerLength: 20)
        #expect(r.inFlight == 1)
        #expect(r.abandoned == 1)
    }

    @Test func fragmentBeyond65535IsDropped() {
        var r = FragmentReassembler()
        guard
            case .dropped = r.add(
                key: key, offset: 65528, more: false, bytes: Array(repeating: 0, count: 16), frame: 1, time: t0,
                hopLimit: 1, headerLength: 20)
        else {
            Issue.record("expected dropped")
            return
        }
    }
}

@Suite struct IPAddressTests {
    @Test(arguments: ["192.168.1.10", "fe80::99:ff:fe00:1", "ff02::fb", "::1", "::", "2001:db8::1:0:0:1"])
    func textRoundTrips(text: String) {
        #expect(IPAddress(text: Array(text.utf8))?.description == text)
    }

    @Test func classifiesMulticastAndScopes() {
        #expect(IPAddress.ssdpIPv4.isMulticast)
        #expect(IPAddress.mdnsIPv6.ipv6MulticastScope == 2)
        #expect(IPAddress.ssdpIPv6SiteLocal.ipv6MulticastScope == 5)
        #expect(IPAddress(text: Array("fe80::1".utf8))?.isLinkLocal == true)
        #expect(IPAddress(text: Array("127.0.0.1".utf8))?.isLoopback == true)
        #expect(IPAddress(text: Array("1.2.3".utf8)) == nil)
        #expect(IPAddress(text: Array("1::2::3".utf8)) == nil)
    }

    @Test(arguments: [
        "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::8", "12345::", "1:", ":1",
        "1.2.3.4.5", "256.1.1.1",
    ])
    func rejectsMalformedText(text: String) {
        #expect(IPAddress(text: Array(text.utf8)) == nil)
    }

    /// The text writer (a stack buffer, no arrays) against a plain RFC 5952 writer built from
    /// strings, and the parser against the writer, on addresses with zero runs of every length
    /// and place.
    @Test func textMatchesReferenceWriterAndParsesBack() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        for round in 0..<4000 {
            var words = (0..<8).map { _ in UInt16(truncatingIfNeeded: next() >> 40) & (round % 3 == 0 ? 0x00FF : 0xFFFF)
            }
            let start = Int(next() % 8)
            let len = Int(next() % UInt64(9 - start))
            for k in start..<(start + len) { words[k] = 0 }
            if round % 5 == 0 { words[Int(next() % 8)] = 0 }
            var hi: UInt64 = 0
            var lo: UInt64 = 0
            for k in 0..<4 { hi = hi << 16 | UInt64(words[k]) }
            for k in 4..<8 { lo = lo << 16 | UInt64(words[k]) }
            let a = IPAddress.v6(hi, lo)
            #expect(a.description == Self.reference(words), "\(words)")
            #expect(IPAddress(text: Array(a.description.utf8)) == a)
            var b: [UInt8] = []
            a.appendText(to: &b)
            #expect(b == Array(a.description.utf8))
            let v4 = IPAddress.v4(UInt32(truncatingIfNeeded: next()))
            #expect(IPAddress(text: Array(v4.description.utf8)) == v4)
        }
    }

    /// RFC 5952 §4 with strings: lower case, no leading zeros, the first longest run of two or
    /// more zero groups as `::`.
    static func reference(_ words: [UInt16]) -> String {
        var bestStart = -1
        var bestLen = 0
        var k = 0
        while k < 8 {
            if words[k] == 0 {
                var e = k
                while e < 8 && words[e] == 0 { e += 1 }
                if e - k > bestLen { (bestStart, bestLen) = (k, e - k) }
                k = e
            } else {
                k += 1
            }
        }
        if bestLen < 2 { bestStart = -1 }
        var out = ""
        var j = 0
        while j < 8 {
            if j == bestStart {
                out += "::"
                j += bestLen
                continue
            }
            if !out.isEmpty && !out.hasSuffix(":") { out += ":" }
            out += String(words[j], radix: 16)
            j += 1
        }
        return out
    }
}
