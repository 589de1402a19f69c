import DNS
import NetLayers

// Building blocks for the mDNS rules' examples (and the rule tests).

typealias B = DNSBuilder

/// A multicast mDNS datagram from 192.168.1.20:5353 to 224.0.0.251:5353, TTL 255, unless told
/// otherwise.
func mdns(
    _ payload: [UInt8], src: String = "192.168.1.20", sport: UInt16 = 5353, dst: String = "224.0.0.251",
    dport: UInt16 = 5353, ttl: UInt8 = 255, ipLength: Int? = nil, fragments: [Int] = [], at seconds: Double = 0
) -> Datagram {
    var d = exampleDatagram(
        payload, src: src, srcPort: sport, dst: dst, dstPort: dport, hopLimit: ttl, time: exampleTime(seconds))
    if let ipLength { d.ipPacketLength = ipLength }
    d.fragmentFrames = fragments
    return d
}

func mdns(
    _ b: DNSBuilder, src: String = "192.168.1.20", sport: UInt16 = 5353, dst: String = "224.0.0.251",
    dport: UInt16 = 5353, ttl: UInt8 = 255, ipLength: Int? = nil, fragments: [Int] = [], at seconds: Double = 0
) -> Datagram {
    mdns(
        b.bytes, src: src, sport: sport, dst: dst, dport: dport, ttl: ttl, ipLength: ipLength, fragments: fragments,
        at: seconds)
}

/// The subnets `cidrs` of an example's link, as `--subnet` states them (texts that do not
/// parse are left out, and the example then fails its test).
func link(_ cidrs: String...) -> LinkSubnets {
    LinkSubnets(cidrs.compactMap { try? IPPrefix.parse($0).get() })
}

func response(_ build: (inout DNSBuilder) -> Void) -> DNSBuilder {
    var b = B()
    build(&b)
    return b
}

func query(id: UInt16 = 0, flags: UInt16 = 0, _ build: (inout DNSBuilder) -> Void) -> DNSBuilder {
    var b = B(id: id, flags: flags)
    build(&b)
    return b
}

func hostA(
    _ b: inout DNSBuilder, _ section: DNSBuilder.Section = .answer, name: String = "printer.local", ttl: UInt32 = 120
) {
    b.record(section, name, 1, flush: true, ttl: ttl, rdata: B.a("192.168.1.20"))
}

/// One service announced as RFC 6763 §12.1 wants: PTR + SRV + TXT + A + NSEC.
func service(ptrFlush: Bool = false, srvFlush: Bool = true) -> DNSBuilder {
    response { b in
        b.record(.answer, "_ipp._tcp.local", 12, flush: ptrFlush, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
        b.record(.additional, "Office._ipp._tcp.local", 33, flush: srvFlush, rdata: B.srv(631, "printer.local"))
        b.record(.additional, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
        hostA(&b, .additional)
        b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1]))
    }
}

func txtResponse(_ rdata: [UInt8], owner: String = "Office._ipp._tcp.local") -> DNSBuilder {
    response { $0.record(.answer, owner, 16, flush: true, ttl: 4500, rdata: rdata) }
}

func aResponse(_ addr: String, owner: String = "printer.local") -> DNSBuilder {
    response { b in
        b.record(.answer, owner, 1, flush: true, rdata: B.a(addr))
        b.record(.additional, owner, 47, flush: true, rdata: B.nsec(owner, [1]))
    }
}

/// A query from 5353 for `name`.
func ask(_ name: String, _ type: UInt16 = 12, qu: Bool = false, qclass: UInt16 = 1) -> DNSBuilder {
    query { $0.question(name, type, qu: qu, qclass: qclass) }
}

/// A header with one question whose name is `nameBytes` as given (hand-made names).
func rawQuery(_ nameBytes: [UInt8]) -> [UInt8] {
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0] + nameBytes + B.u16(1) + B.u16(1)
}

let longLabel = String(repeating: "a", count: 63)
