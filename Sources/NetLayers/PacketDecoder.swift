import WireFormat

/// What became of one captured frame.
public enum FrameOutcome: Sendable {
    /// A complete UDP datagram (possibly reassembled from fragments) that `wants` accepted.
    case datagram(Datagram)
    /// UDP, but neither port is of interest.
    case uninteresting
    /// An IP fragment held for reassembly.
    case fragmentHeld
    /// Not IP, or IP but not UDP.
    case notUDP
    /// The link type is not decoded.
    case unsupportedLink(LinkType)
    /// Headers are malformed (reason for the summary).
    case malformed(String)
    /// The frame was cut by the snap length before the UDP header ended.
    case truncatedHeaders
    /// An IGMP or MLD membership message (not fragmented), decoded or with why it could not be.
    case membership(MembershipPacket)
}

/// A multicast membership message (IGMP over IPv4, MLD over ICMPv6) with its addressing.
public struct MembershipPacket: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var src: IPAddress
    public var dst: IPAddress
    /// IPv4 TTL or IPv6 hop limit (1 for a conforming membership message).
    public var hopLimit: UInt8
    public var sourceMAC: MACBytes
    public var segment: UInt16
    public var message: Result<MembershipMessage, MembershipError>

    public init(
        frame: Int, time: Timestamp, src: IPAddress, dst: IPAddress, hopLimit: UInt8, sourceMAC: MACBytes,
        segment: UInt16, message: Result<MembershipMessage, MembershipError>
    ) {
        self.frame = frame
        self.time = time
        self.src = src
        self.dst = dst
        self.hopLimit = hopLimit
        self.sourceMAC = sourceMAC
        self.segment = segment
        self.message = message
    }
}

/// Decodes link → IP → UDP for one frame at a time, keeping only the bounded state IP
/// fragment reassembly needs. Pure Swift: bytes come in as a span (or an array), nothing traps.
public struct PacketDecoder: Sendable {
    public var reassembler: FragmentReassembler
    /// Whether a datagram's payload is copied out of the frame. When false, a datagram taken
    /// from one frame has an empty `payload` and says where the payload is (`framePayload`):
    /// the caller copies it where it wants it (the analysis, into its batch buffer).
    public var copiesPayloads = true
    /// The destination link-layer address of the frame being decoded (Ethernet), given to
    /// each datagram it yields.
    private var destinationMAC = MACBytes()
    /// The segment of the frames decoded next (set by the caller before each frame): it
    /// keys IP reassembly and is set on each datagram.
    public var segment: UInt16 = 0

    public init(reassembler: FragmentReassembler = FragmentReassembler()) {
        self.reassembler = reassembler
    }

    /// Decodes `frameBytes` (the captured part of the frame, `originalLength` on the wire).
    /// `wants(src, sport, dst, dport)` decides whether the UDP payload is copied out.
    public mutating func decode(
        frame: Int, time: Timestamp, linkType: LinkType, frameBytes: [UInt8], originalLength: Int,
        wants: (IPAddress, UInt16, IPAddress, UInt16) -> Bool
    ) -> FrameOutcome {
        decode(
            frame: frame, time: time, linkType: linkType, bytes: frameBytes.span, originalLength: originalLength,
            wants: wants)
    }

    /// The same, for the frame's bytes where they are (the capture library's buffer): a
    /// `framePayload` range is then an offset into them.
    public mutating func decode(
        frame: Int, time: Timestamp, linkType: LinkType, bytes b: Span<UInt8>, originalLength: Int,
        wants: (IPAddress, UInt16, IPAddress, UInt16) -> Bool
    ) -> FrameOutcome {
        let capTruncated = b.count < originalLength
        var mac: (Int, Int)? = nil
        // 1. Link layer: find the network protocol and where it starts.
        var offset = 0
        var ethertype: UInt16 = 0
        switch linkType {
        case .ethernet:
            guard let t = b.u16(at: 12) else {
                return capTruncated ? .truncatedHeaders : .malformed("short Ethernet header")
            }
            mac = (6, 6)
            ethertype = t
            offset = 14
            // 802.1Q / 802.1ad / QinQ tags, stacked.
            var tags = 0
            while ethertype == 0x8100 || ethertype == 0x88A8 || ethertype == 0x9100 {
                guard tags < 8, let inner = b.u16(at: offset + 2) else {
                    return capTruncated ? .truncatedHeaders : .malformed("short VLAN tag")
                }
                ethertype = inner
                offset += 4
                tags += 1
            }
            if ethertype <= 1500 { return .notUDP }  // 802.3 length + LLC: not IP over Ethernet II
        case .linuxSLL:
            guard let t = b.u16(at: 14) else {
                return capTruncated ? .truncatedHeaders : .malformed("short SLL header")
            }
            ethertype = t
            offset = 16
            if let halen = b.u16(at: 4), halen == 6 { mac = (6, 6) }
        case .linuxSLL2:
            guard let t = b.u16(at: 0), b.count >= 20 else {
                return capTruncated ? .truncatedHeaders : .malformed("short SLL2 header")
            }
            ethertype = t
            offset = 20
            if let halen = b.u8(at: 11), halen == 6 { mac = (12, 6) }
        case .null, .loop:
            guard let raw = b.u32(at: 0) else {
                return capTruncated ? .truncatedHeaders : .malformed("short loopback header")
            }
            // NULL: host byte order of the capturing machine, so try both; LOOP: network order.
            let swapped = raw.byteSwapped
            let family = linkType == .loop ? raw : (raw < 0x10000 ? raw : swapped)
            offset = 4
            switch family {
            case 2: ethertype = 0x0800
            case 24, 28, 30: ethertype = 0x86DD  // AF_INET6 on NetBSD/OpenBSD, FreeBSD, macOS
            default: return .notUDP
            }
        case .raw, .rawOpenBSD, .linktypeRaw:
            guard let v = b.u8(at: 0) else { return .malformed("empty raw IP frame") }
            ethertype = v >> 4 == 6 ? 0x86DD : 0x0800
        case .ipv4:
            ethertype = 0x0800
        case .ipv6:
            ethertype = 0x86DD
        case .ieee802_11, .ieee802_11Radiotap:
            switch Self.ieee80211Payload(b, radiotap: linkType == .ieee802_11Radiotap) {
            case .some((let start, let type)):
                offset = start
                ethertype = type
            case .none:
                return .notUDP
            }
        default:
            return .unsupportedLink(linkType)
        }
        destinationMAC = MACBytes()
        if linkType == .ethernet, b.count >= 6 {
            for k in 0..<6 { destinationMAC.append(b[k]) }
        }
        let srcMAC: MACBytes
        if let (start, len) = mac, len <= 8, start + len <= b.count {
            var m = MACBytes()
            for k in start..<(start + len) { m.append(b[k]) }
            srcMAC = m
        } else {
            srcMAC = MACBytes()
        }
        switch ethertype {
        case 0x0800:
            return decodeIPv4(frame, time, b, offset, capTruncated, srcMAC, wants)
        case 0x86DD:
            return decodeIPv6(frame, time, b, offset, capTruncated, srcMAC, wants)
        default:
            return .notUDP
        }
    }

    /// 802.11 data frame → (offset of the network header, ethertype) via LLC/SNAP; nil for
    /// management/control frames, protected frames, or anything not IP.
    static func ieee80211Payload(_ b: Span<UInt8>, radiotap: Bool) -> (Int, UInt16)? {
        var o = 0
        var hasFCS = false
        if radiotap {
            guard let lenLo = b.u8(at: 2), let lenHi = b.u8(at: 3) else { return nil }
            o = Int(lenLo) | Int(lenHi) << 8
            // Flags field (bit 1 of `present`) carries "frame includes FCS" (0x10): present
            // word bit 1 set and the flags byte follows TSFT (bit 0, 8 bytes aligned) if any.
            if let p0 = b.u8(at: 4), p0 & 0x02 != 0, p0 & 0x80 == 0 {
                let flagsAt = p0 & 0x01 != 0 ? 16 : 8
                if let flags = b.u8(at: flagsAt), flags & 0x10 != 0 { hasFCS = true }
            }
        }
        _ = hasFCS  // the FCS sits after the payload; IP lengths bound the payload anyway
        guard let fc0 = b.u8(at: o), let fc1 = b.u8(at: o + 1) else { return nil }
        let type = (fc0 >> 2) & 0x3
        let subtype = fc0 >> 4
        guard type == 2 else { return nil }  // data
        guard fc1 & 0x40 == 0 else { return nil }  // protected
        guard subtype & 0x4 == 0 else { return nil }  // null / no data
        var hdr = 24
        if fc1 & 0x03 == 0x03 { hdr += 6 }  // four addresses
        if subtype & 0x8 != 0 {
            hdr += 2  // QoS control
            if fc1 & 0x80 != 0 { hdr += 4 }  // HT control (order bit)
        }
        let llc = o + hdr
        guard let a = b.u8(at: llc), let c = b.u8(at: llc + 1), let d = b.u8(at: llc + 2), a == 0xAA, c == 0xAA,
            d == 0x03, let t = b.u16(at: llc + 6)
        else { return nil }
        return (llc + 8, t)
    }

    private mutating func decodeIPv4(
        _ frame: Int, _ time: Timestamp, _ b: Span<UInt8>, _ start: Int, _ capTruncated: Bool, _ srcMAC: MACBytes,
        _ wants: (IPAddress, UInt16, IPAddress, UInt16) -> Bool
    ) -> FrameOutcome {
        guard let vihl = b.u8(at: start), let totalLen16 = b.u16(at: start + 2), let frag = b.u16(at: start + 6),
            let ttl = b.u8(at: start + 8), let proto = b.u8(at: start + 9), let s = b.u32(at: start + 12),
            let d = b.u32(at: start + 16)
        else { return capTruncated ? .truncatedHeaders : .malformed("short IPv4 header") }
        guard vihl >> 4 == 4 else { return .malformed("IP version \(vihl >> 4) in an IPv4 frame") }
        let ihl = Int(vihl & 0x0F) * 4
        let totalLen = Int(totalLen16)
        guard ihl >= 20 else { return .malformed("IPv4 header length \(ihl) < 20") }
        guard totalLen >= ihl else { return .malformed("IPv4 total length \(totalLen) < header length \(ihl)") }
        if proto == 2, frag & 0x3FFF == 0, start + ihl <= b.count,
            let m = MembershipMessage.igmp(
                Self.copy(b, (start + ihl)..<max(start + ihl, min(b.count, start + totalLen))))
        {
            return .membership(
                MembershipPacket(
                    frame: frame, time: time, src: .v4(s), dst: .v4(d), hopLimit: ttl, sourceMAC: srcMAC,
                    segment: segment, message: m))
        }
        guard proto == 17 else { return .notUDP }
        guard start + ihl <= b.count else {
            return capTruncated ? .truncatedHeaders : .malformed("IPv4 header length \(ihl) runs past the frame")
        }
        let src = IPAddress.v4(s)
        let dst = IPAddress.v4(d)
        let payloadStart = start + ihl
        // Bytes of this IP packet's payload actually captured.
        let available = max(0, min(b.count, start + totalLen) - payloadStart)
        let claimedPayload = totalLen - ihl
        let moreFragments = frag & 0x2000 != 0
        let fragOffset = Int(frag & 0x1FFF) * 8
        if moreFragments || fragOffset != 0 {
            guard available == claimedPayload else {
                return capTruncated ? .truncatedHeaders : .malformed("IPv4 fragment shorter than its length")
            }
            let key = FragmentReassembler.Key(
                src: src, dst: dst, id: UInt32(b.u16(at: start + 4) ?? 0), proto: 17, segment: segment)
            let piece = Self.copy(b, payloadStart..<(payloadStart + available))
            switch reassembler.add(
                key: key, offset: fragOffset, more: moreFragments, bytes: piece, frame: frame, time: time,
                hopLimit: ttl, headerLength: ihl
            ) {
            case .held: return .fragmentHeld
            case .dropped(let why): return .malformed(why)
            case .complete(let whole):
                return udp(
                    frame, time, whole.payload.span, 0, whole.payload.count, whole.payload.count, src, dst,
                    whole.hopLimit,
                    ipPacketLength: whole.headerLength + whole.payload.count, fragments: whole.frames, srcMAC,
                    inFrame: false, wants)
            }
        }
        return udp(
            frame, time, b, payloadStart, available, claimedPayload, src, dst, ttl, ipPacketLength: totalLen,
            fragments: [], srcMAC, inFrame: true, wants)
    }

    private mutating func decodeIPv6(
        _ frame: Int, _ time: Timestamp, _ b: Span<UInt8>, _ start: Int, _ capTruncated: Bool, _ srcMAC: MACBytes,
        _ wants: (IPAddress, UInt16, IPAddress, UInt16) -> Bool
    ) -> FrameOutcome {
        guard let v = b.u8(at: start), let plen16 = b.u16(at: start + 4), var next = b.u8(at: start + 6),
            let hop = b.u8(at: start + 7), let src = Self.ipv6(b, at: start + 8), let dst = Self.ipv6(b, at: start + 24)
        else { return capTruncated ? .truncatedHeaders : .malformed("short IPv6 header") }
        guard v >> 4 == 6 else { return .malformed("IP version \(v >> 4) in an IPv6 frame") }
        let payloadLength = Int(plen16)
        let end = start + 40 + payloadLength  // end of this packet per the header
        var o = start + 40
        var fragment: (offset: Int, more: Bool, id: UInt32)? = nil
        // Extension headers: hop-by-hop, routing, destination options, fragment, AH.
        var hops = 0
        while true {
            hops += 1
            guard hops <= 16 else { return .malformed("too many IPv6 extension headers") }
            switch next {
            case 17:
                break
            case 0, 43, 60, 135, 139, 140:
                guard let nh = b.u8(at: o), let len = b.u8(at: o + 1) else {
                    return capTruncated ? .truncatedHeaders : .malformed("short IPv6 extension header")
                }
                next = nh
                o += (Int(len) + 1) * 8
                continue
            case 44:
                guard let nh = b.u8(at: o), let offm = b.u16(at: o + 2), let id = b.u32(at: o + 4) else {
                    return capTruncated ? .truncatedHeaders : .malformed("short IPv6 fragment header")
                }
                next = nh
                fragment = (Int(offm & 0xFFF8), offm & 1 != 0, id)
                o += 8
                if fragment?.offset != 0 {
                    // Later fragments carry no upper-layer header; the first one names it.
                    if nh == 17 || nh == 0 || nh == 43 || nh == 60 { break }
                    return .notUDP
                }
                continue
            case 58:
                // ICMPv6: only MLD is of interest (not when fragmented).
                guard fragment == nil, o <= min(b.count, end),
                    let m = MembershipMessage.mld(Self.copy(b, o..<min(b.count, end)))
                else { return .notUDP }
                return .membership(
                    MembershipPacket(
                        frame: frame, time: time, src: src, dst: dst, hopLimit: hop, sourceMAC: srcMAC,
                        segment: segment, message: m))
            case 51:
                guard let nh = b.u8(at: o), let len = b.u8(at: o + 1) else {
                    return capTruncated ? .truncatedHeaders : .malformed("short AH header")
                }
                next = nh
                o += (Int(len) + 2) * 4
                continue
            default:
                return .notUDP
            }
            break
        }
        guard o <= end else { return .malformed("IPv6 extension headers exceed the payload length") }
        guard o <= b.count else {
            return capTruncated ? .truncatedHeaders : .malformed("IPv6 extension headers run past the frame")
        }
        let available = max(0, min(b.count, end) - o)
        let claimed = end - o
        if let f = fragment {
            if f.offset == 0 && !f.more {
                // Atomic fragment (RFC 6946): a whole datagram.
            } else {
                guard available == claimed else {
                    return capTruncated ? .truncatedHeaders : .malformed("IPv6 fragment shorter than its length")
                }
                let key = FragmentReassembler.Key(src: src, dst: dst, id: f.id, proto: 17, segment: segment)
                let piece = Self.copy(b, o..<(o + available))
                switch reassembler.add(
                    key: key, offset: f.offset, more: f.more, bytes: piece, frame: frame, time: time, hopLimit: hop,
                    headerLength: o - start
                ) {
                case .held: return .fragmentHeld
                case .dropped(let why): return .malformed(why)
                case .complete(let whole):
                    return udp(
                        frame, time, whole.payload.span, 0, whole.payload.count, whole.payload.count, src, dst,
                        whole.hopLimit, ipPacketLength: whole.headerLength + whole.payload.count,
                        fragments: whole.frames, srcMAC, inFrame: false, wants)
                }
            }
        }
        return udp(
            frame, time, b, o, available, claimed, src, dst, hop, ipPacketLength: 40 + payloadLength,
            fragments: [], srcMAC, inFrame: true, wants)
    }

    /// UDP header at `start` of `b` (the frame's bytes when `inFrame`, else a reassembled
    /// IP payload), `available` bytes captured of `claimed` in the IP payload.
    private func udp(
        _ frame: Int, _ time: Timestamp, _ b: Span<UInt8>, _ start: Int, _ available: Int, _ claimed: Int,
        _ src: IPAddress, _ dst: IPAddress, _ hop: UInt8, ipPacketLength: Int, fragments: [Int], _ srcMAC: MACBytes,
        inFrame: Bool, _ wants: (IPAddress, UInt16, IPAddress, UInt16) -> Bool
    ) -> FrameOutcome {
        guard available >= 8, let sport = b.u16(at: start), let dport = b.u16(at: start + 2),
            let len16 = b.u16(at: start + 4)
        else {
            return available < claimed ? .truncatedHeaders : .malformed("UDP header shorter than 8 bytes")
        }
        guard wants(src, sport, dst, dport) else { return .uninteresting }
        let udpLength = Int(len16)
        // The UDP length may not exceed what IP says the payload is; with UDP length 0 (IPv6
        // jumbograms) or an inconsistent value, trust the IP payload length.
        let claimedPayload: Int
        if udpLength >= 8 && udpLength <= claimed {
            claimedPayload = udpLength - 8
        } else {
            claimedPayload = claimed - 8
        }
        let have = min(available - 8, claimedPayload)
        let payloadStart = start + 8
        let range = payloadStart..<(payloadStart + max(0, have))
        // `b` is the frame itself unless the datagram was reassembled.
        let inPlace = !copiesPayloads && inFrame
        var d = Datagram(
            frame: frame, time: time, src: src, dst: dst, srcPort: sport, dstPort: dport, hopLimit: hop,
            payload: inPlace ? [] : Self.copy(b, range), udpPayloadLength: claimedPayload,
            ipPacketLength: ipPacketLength,
            fragmentFrames: fragments)
        d.sourceMAC = srcMAC
        d.destinationMAC = destinationMAC
        d.segment = segment
        if inPlace { d.framePayload = range }
        return .datagram(d)
    }

    /// `b[r]` as an array, the range clamped to the bytes there are.
    static func copy(_ b: Span<UInt8>, _ r: Range<Int>) -> [UInt8] {
        let lo = max(0, min(r.lowerBound, b.count))
        let hi = max(lo, min(r.upperBound, b.count))
        return b.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[lo..<hi])) }
    }

    /// The IPv6 address in the 16 bytes at `i` (nil past the end).
    static func ipv6(_ b: Span<UInt8>, at i: Int) -> IPAddress? {
        guard let a = b.u32(at: i), let c = b.u32(at: i + 4), let d = b.u32(at: i + 8), let e = b.u32(at: i + 12) else {
            return nil
        }
        return .v6(UInt64(a) << 32 | UInt64(c), UInt64(d) << 32 | UInt64(e))
    }
}
