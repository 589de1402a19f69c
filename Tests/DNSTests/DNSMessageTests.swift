import DNS
import TestSupport
import Testing

private typealias B = DNSBuilder

/// A realistic DNS-SD announcement (PTR, SRV, TXT, A, NSEC) built field by field.
private func announcement() -> [UInt8] {
    var b = B()
    b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office Printer._ipp._tcp.local"))
    b.record(.answer, "Office Printer._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
    b.record(
        .answer, "Office Printer._ipp._tcp.local", 16, flush: true, ttl: 4500,
        rdata: B.txt(["txtvers=1", "rp=ipp/print", "Color"]))
    b.record(.additional, "printer.local", 1, flush: true, rdata: B.a("192.168.1.30"))
    b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1]))
    return b.bytes
}

@Suite struct DNSMessageTests {
    @Test func announcementDecodesEveryTypedField() {
        let m = DNSMessage(parsing: announcement())
        #expect(m.isComplete)
        #expect(m.anomalies.isEmpty)
        #expect(m.header.qr && m.header.aa)
        #expect(m.answers.count == 3 && m.additionals.count == 2)
        let ptr = m.answers[0]
        #expect(ptr.type == .ptr && !ptr.cacheFlush && ptr.ttl == 4500)
        guard case .name(let target) = ptr.value else {
            Issue.record("PTR not typed")
            return
        }
        #expect(target.presentation(in: m.payload) == "Office Printer._ipp._tcp.local.")
        guard case .srv(_, _, let port, let host) = m.answers[1].value else {
            Issue.record("SRV not typed")
            return
        }
        #expect(port == 631 && host.presentation(in: m.payload) == "printer.local.")
        #expect(m.answers[1].cacheFlush && m.answers[1].rrclass == 1)
        let txt = m.characterStrings(m.answers[2]).map { String(decoding: $0, as: UTF8.self) }
        #expect(txt == ["txtvers=1", "rp=ipp/print", "Color"])
        #expect(TXTAttribute(m.characterStrings(m.answers[2])[2]).value == nil)
        guard case .a(let v4) = m.additionals[0].value else {
            Issue.record("A not typed")
            return
        }
        #expect(v4 == 0xC0A8_011E)
        guard case .nsec(let next, let bitmap) = m.additionals[1].value else {
            Issue.record("NSEC not typed")
            return
        }
        #expect(next.presentation(in: m.payload) == "printer.local.")
        #expect(m.nsecTypes(bitmap) == [.a])
    }

    /// The NSEC bitmap checks that do not build the type list agree with it.
    @Test func nsecBitmapQueries() {
        for types: [UInt16] in [[1], [1, 47], [28, 300], [1, 65535], []] {
            // Windows in increasing order, each as long as its highest type needs.
            var bitmap: [UInt8] = []
            for window in Set(types.map { $0 >> 8 }).sorted() {
                let inWindow = types.filter { $0 >> 8 == window }.map { Int($0 & 0xFF) }
                var bits = [UInt8](repeating: 0, count: (inWindow.max() ?? 0) / 8 + 1)
                for t in inWindow { bits[t / 8] |= 0x80 >> UInt8(t % 8) }
                bitmap += [UInt8(window), UInt8(bits.count)] + bits
            }
            var r = B()
            r.record(.answer, "h.local", 47, rdata: B.name("h.local") + bitmap)
            let m = DNSMessage(parsing: r.bytes)
            guard case .nsec(_, let bits) = m.answers.first?.value else {
                Issue.record("NSEC \(types) not typed")
                continue
            }
            #expect(m.nsecTypes(bits).map(\.rawValue) == types)
            #expect(m.nsecHasTypeAbove255(bits) == types.contains { $0 > 255 }, "\(types)")
            #expect(m.nsecHas(bits, .nsec) == types.contains(47), "\(types)")
        }
    }

    @Test func quBitAndCaseInsensitiveNames() {
        var q = B.query()
        q.question("_HTTP._tcp.LOCAL", 12, qu: true)
        q.question("_http._TCP.local", 12)
        let m = DNSMessage(parsing: q.bytes)
        #expect(m.questions.count == 2)
        #expect(m.questions[0].unicastResponse && !m.questions[1].unicastResponse)
        #expect(m.questions[0].qclass == 1)
        #expect(m.questions[0].name.equals(m.questions[1].name, in: m.payload, m.payload))
        #expect(m.questions[0].name.presentation(in: m.payload) == "_HTTP._tcp.LOCAL.")
    }

    /// Same-message comparison (`equals(_:in:)`) against the general one, over names written
    /// out, compressed at different labels, and differing in case, length or one label.
    @Test func sameMessageNameComparison() {
        // 12: "a.host.local" in place; 26: "b.host.local" whose suffix points to 14 ("host.local");
        // 30: "A.HOST.LOCAL" in place; 44: pointer to 12; 46: "host.local" in place;
        // 58: "a" + pointer to 46; 62: "ab.host.local" in place.
        var bytes = B.query().bytes
        let names: [[UInt8]] = [
            B.name("a.host.local"), [1, 0x62, 0xC0, 14], B.name("A.HOST.LOCAL"), [0xC0, 12],
            B.name("host.local"), [1, 0x61, 0xC0, 46], B.name("ab.host.local"),
        ]
        var offsets: [Int] = []
        for n in names {
            offsets.append(bytes.count)
            bytes += n
        }
        #expect(offsets == [12, 26, 30, 44, 46, 58, 62])
        var read: [DNSName] = []
        for o in offsets {
            guard case .success(let r) = DNSNameReader.read(bytes, at: o) else {
                Issue.record("name at \(o) not read")
                return
            }
            read.append(r.name)
        }
        let equal: Set<[Int]> = [[0, 2], [0, 3], [0, 5], [2, 3], [2, 5], [3, 5]]
        for i in read.indices {
            for j in read.indices {
                let expected = i == j || equal.contains([min(i, j), max(i, j)])
                #expect(read[i].equals(read[j], in: bytes) == expected, "names \(i) and \(j)")
                #expect(read[i].equals(read[j], in: bytes, bytes) == expected, "names \(i) and \(j), general form")
            }
        }
    }

    @Test func backwardPointerIsFollowed() {
        // Question "host.local" at 12; answer owner is a pointer to it.
        var bytes = B.query().bytes
        bytes[5] = 1  // QDCOUNT 1
        bytes[7] = 1  // ANCOUNT 1
        bytes += B.name("host.local") + B.u16(1) + B.u16(1)
        bytes += [0xC0, 12] + B.u16(1) + B.u16(1) + B.u32(120) + B.u16(4) + [10, 0, 0, 1]
        let m = DNSMessage(parsing: bytes)
        #expect(m.isComplete && m.anomalies.isEmpty)
        #expect(m.answers[0].name.compressed)
        #expect(m.answers[0].name.presentation(in: m.payload) == "host.local.")
    }

    @Test func forwardAndSelfPointersAreBadPointersWithOffsets() {
        var bytes = B.query().bytes
        bytes[5] = 1
        bytes += [0xC0, 12] + B.u16(1) + B.u16(1)  // points at itself
        let m = DNSMessage(parsing: bytes)
        #expect(m.anomalies.contains { $0.kind == .badPointer && $0.offset == 12 })
        var fwd = B.query().bytes
        fwd[5] = 1
        fwd += [0xC0, 40] + B.u16(1) + B.u16(1) + [UInt8](repeating: 0, count: 30)
        #expect(DNSMessage(parsing: fwd).anomalies.contains { $0.kind == .badPointer })
        // A pointer into the header is not into the body.
        var hdr = B.query().bytes
        hdr[5] = 1
        hdr += [0xC0, 2] + B.u16(1) + B.u16(1)
        #expect(DNSMessage(parsing: hdr).anomalies.contains { $0.kind == .badPointer })
    }

    @Test func pointerThatReentersItsOwnLabelsIsALoopNotAHang() {
        // "a" then a pointer back to the "a" label itself: a→a→a… forever without the rule.
        var bytes = B.query().bytes
        bytes[5] = 1
        bytes += [1, 0x61, 0xC0, 12] + B.u16(1) + B.u16(1)
        let m = DNSMessage(parsing: bytes)
        #expect(!m.isComplete)
        #expect(m.anomalies.contains { $0.kind == .pointerLoop && $0.offset == 14 })
        // A legal backward pointer to an earlier name is not a loop.
        var ok = B.query().bytes
        ok[5] = 2
        ok += B.name("a") + B.u16(1) + B.u16(1)
        ok += [1, 0x62, 0xC0, 12] + B.u16(1) + B.u16(1)
        let good = DNSMessage(parsing: ok)
        #expect(good.isComplete && good.questions[1].name.presentation(in: good.payload) == "b.a.")
    }

    @Test func pointerToPointerIsNotedNotRejected() {
        var bytes = B.query().bytes
        bytes[5] = 3
        bytes += B.name("x.local") + B.u16(1) + B.u16(1)  // 12..24
        bytes += [0xC0, 12] + B.u16(1) + B.u16(1)  // 25: pointer to 12
        bytes += [0xC0, 25] + B.u16(1) + B.u16(1)  // pointer to a pointer
        let m = DNSMessage(parsing: bytes)
        #expect(m.isComplete)
        #expect(m.questions[2].name.presentation(in: m.payload) == "x.local.")
        #expect(m.anomalies.contains { $0.kind == .pointerToPointer })
    }

    @Test func overlongLabelsAndNamesAreFindingsNotTraps() {
        var reserved = B.query().bytes
        reserved[5] = 1
        reserved += [0x41] + [UInt8](repeating: 0x61, count: 65) + [0] + B.u16(1) + B.u16(1)
        #expect(DNSMessage(parsing: reserved).anomalies.contains { $0.kind == .labelType })
        var long = B.query()
        long.question(Array(repeating: String(repeating: "a", count: 63), count: 5).joined(separator: "."), 1)
        #expect(DNSMessage(parsing: long.bytes).anomalies.contains { $0.kind == .nameTooLong })
        var ok = B.query()
        ok.question(
            Array(repeating: String(repeating: "a", count: 63), count: 3).joined(separator: ".") + "."
                + String(repeating: "b", count: 61), 1)
        #expect(DNSMessage(parsing: ok.bytes).isComplete)  // 255 octets exactly
    }

    /// Offsets are kept in 32 bits: a reassembled datagram can place records past 65,535
    /// bytes, and every offset, range and name there must read back whole.
    @Test func recordsPastSixtyFourKibibytesKeepTheirOffsets() {
        var b = B()
        b.record(.answer, "pad1.local", 99, rdata: [UInt8](repeating: 0xAB, count: 40_000))
        b.record(.answer, "pad2.local", 99, rdata: [UInt8](repeating: 0xCD, count: 30_000))
        b.record(.answer, "far._ipp._tcp.local", 33, rdata: B.srv(631, "printer.local"))
        let bytes = b.bytes
        let m = DNSMessage(parsing: bytes)
        #expect(m.isComplete && m.anomalies.isEmpty)
        guard m.answers.count == 3 else {
            Issue.record("expected three answers, got \(m.answers.count)")
            return
        }
        let far = m.answers[2]
        #expect(far.offset > 65_535)
        #expect(
            far.offset == bytes.count - (B.name("far._ipp._tcp.local").count + 10 + B.srv(631, "printer.local").count))
        #expect(far.name.offset == far.offset)
        #expect(far.name.presentation(in: m.payload) == "far._ipp._tcp.local.")
        #expect(far.rdata.upperBound == bytes.count && far.rdata.count == B.srv(631, "printer.local").count)
        #expect(m.answers[1].rdata.upperBound > 65_535 && m.answers[1].rdata.count == 30_000)
        guard case .srv(_, _, let port, let target) = far.value else {
            Issue.record("SRV not typed")
            return
        }
        #expect(port == 631 && target.offset > 65_535)
        #expect(target.presentation(in: m.payload) == "printer.local.")
        #expect(far.name.firstLabelRange(in: m.payload) == (far.offset + 1)..<(far.offset + 4))
    }

    @Test func rdataIsDecodedOnlyInsideRDLength() {
        var b = B()
        b.record(.answer, "h.local", 1, rdata: [10, 0, 0, 1, 9, 9])  // A with 6 bytes
        b.record(.answer, "h.local", 16, rdata: [5, 0x61])  // string runs past RDLENGTH
        b.record(.answer, "s._x._tcp.local", 33, rdata: B.srv(80, "h.local") + [0])  // extra byte
        let m = DNSMessage(parsing: b.bytes)
        #expect(m.isComplete)
        #expect(m.anomalies.filter { $0.kind == .rdataLength }.count == 3)
        var over = B()
        over.raw(.answer, B.name("h.local") + B.u16(1) + B.u16(1) + B.u32(120) + B.u16(300) + [1, 2, 3, 4])
        let o = DNSMessage(parsing: over.bytes)
        #expect(!o.isComplete && o.anomalies.contains { $0.kind == .rdlengthOverrun })
    }

    @Test func unknownTypesKeepTheirBytesAndOPTOwnerOptionDecodes() {
        var b = B()
        b.record(.answer, "h.local", 99, rdata: [1, 2, 3])
        let owner: [UInt8] = [0, 7, 0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x02, 0x11, 0x22, 0x33, 0x44, 0x66]
        b.record(.additional, "", 41, ttl: 0, rrclass: 1440, rdata: B.u16(4) + B.u16(UInt16(owner.count)) + owner)
        let m = DNSMessage(parsing: b.bytes)
        #expect(m.anomalies.isEmpty)
        #expect(m.payload[m.answers[0].rdata].elementsEqual([1, 2, 3]))
        #expect(m.answers[0].type.description == "TYPE99")
        let opt = m.additionals[0]
        #expect(opt.rrclass == 1440 && !opt.cacheFlush)
        let options = m.ednsOptions(opt)
        #expect(options.count == 1 && options[0].code == 4)
        let o = EDNSOwnerOption(options[0].data)
        #expect(o?.sequence == 7)
        #expect(o?.primaryMAC.elementsEqual([0x02, 0x11, 0x22, 0x33, 0x44, 0x55]) == true)
        #expect(o?.wakeupMAC?.last == 0x66 && o?.password == nil)
    }

    @Test func dnssdNamesAreClassified() {
        func kind(_ s: String) -> DNSSDName.Kind {
            let n = B.name(s)
            var labels: [Range<Int>] = []
            var o = 0
            while o < n.count, n[o] != 0 {
                labels.append((o + 1)..<(o + 1 + Int(n[o])))
                o += 1 + Int(n[o])
            }
            return DNSSDName.classify(payload: n, labels: labels).kind
        }
        #expect(kind("_services._dns-sd._udp.local") == .serviceEnumeration)
        #expect(kind("_ipp._tcp.local") == .serviceType)
        #expect(kind("_printer._sub._http._tcp.local") == .subtype)
        #expect(kind("My Printer._ipp._tcp.local") == .instance)
        #expect(kind("host.local") == .other)
        #expect(TXTAttribute(Array("key=".utf8)[...]).value?.isEmpty == true)
    }
}

/// Hostile input: every prefix, random bytes, lying counts, loops. Nothing may trap or hang.
@Suite struct DNSHostileInputTests {
    @Test func everyPrefixOfAValidMessageDecodesWithoutTrapping() {
        let full = announcement()
        for n in 0...full.count {
            let m = DNSMessage(parsing: Array(full.prefix(n)))
            if n < 12 { #expect(m.anomalies.contains { $0.kind == .shortHeader }) }
            if n > 12 && n < full.count { #expect(!m.isComplete, "prefix \(n)") }
        }
        #expect(DNSMessage(parsing: full).isComplete)
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 0x5353)
        var complete = 0
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 300)
            var bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if n > 12, rng.next() % 2 == 0 { for k in 4..<12 { bytes[k] = k % 2 == 0 ? 0 : UInt8(rng.next() % 4) } }
            let m = DNSMessage(parsing: bytes)
            if m.isComplete { complete += 1 }
            #expect(m.decodedLength <= bytes.count)
            #expect(m.anomalies.count <= 64)
            for (_, r) in m.records { #expect(r.rdata.upperBound <= bytes.count) }
        }
        #expect(complete > 0)  // the generator reaches the record parser, not only the header check
    }

    @Test func countsOf65535WithNoDataAllocateNothingLarge() {
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        bytes += B.name("a.local") + B.u16(1) + B.u16(1)
        let m = DNSMessage(parsing: bytes)
        #expect(m.questions.count == 1)
        #expect(!m.isComplete)
        #expect(m.anomalies.contains { $0.kind == .countsBeyondData })
        #expect(m.questions.capacity < 16)
    }

    @Test func aTwoThousandHopPointerChainTerminates() {
        // Question "z" at 12; answer 1 (TYPE99) carries 2000 pointers, each to the one
        // before; answer 2's owner points at the last: a legal, strictly descending chain.
        var bytes: [UInt8] = [0, 0, 0x84, 0, 0, 1, 0, 2, 0, 0, 0, 0]
        bytes += B.name("z") + B.u16(1) + B.u16(1)
        let n = 2000
        bytes += [0] + B.u16(99) + B.u16(1) + B.u32(120) + B.u16(UInt16(2 * n))
        let base = bytes.count
        for k in 0..<n {
            let target = k == 0 ? 12 : base + 2 * (k - 1)
            bytes += [0xC0 | UInt8(target >> 8), UInt8(target & 0xFF)]
        }
        let last = base + 2 * (n - 1)
        bytes +=
            [0xC0 | UInt8(last >> 8), UInt8(last & 0xFF)] + B.u16(1) + B.u16(1) + B.u32(120) + B.u16(4) + [10, 0, 0, 1]
        let m = DNSMessage(parsing: bytes)
        #expect(m.isComplete)
        #expect(m.answers.count == 2)
        #expect(m.answers[1].name.presentation(in: m.payload) == "z.")
        #expect(m.anomalies.contains { $0.kind == .pointerToPointer })
    }
}
