import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-0xx: DNS wire-format validity.

/// MDNS-001: The payload holds the 12-byte DNS header.
struct DNSHeaderPresentRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-001", "dns-header-present", .error, "The payload holds the 12-byte DNS header", spec: "RFC 1035 §4.1.1",
        "A UDP/5353 payload shorter than 12 bytes is not DNS.",
        interop: "avahi, python-zeroconf and mDNSResponder drop it", example: "a 7-byte payload on port 5353")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns([0, 0, 0, 0, 0, 1, 0]))],
        nonTriggering: [RuleExample(mdns(ask("_ipp._tcp.local")))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        if i.message.anomalies.contains(where: { $0.kind == .shortHeader }) && !i.truncated {
            out.report(
                Self.descriptor,
                "payload of \(i.datagram.payload.count) byte(s) is shorter than a DNS header"
                    + (MDNSRuleSupport.looksLikeText(i.datagram.payload)
                        ? " and looks like text, not DNS: an application misusing the mDNS group" : ""))
        }
    }
}

/// MDNS-002: Header counts match the questions and records present.
struct CountsMatchContentRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-002", "counts-match-content", .error, "Header counts match the questions and records present",
        spec: "RFC 1035 §4.1; RFC 6762 §18.5",
        "Every counted question and record parses inside the datagram; a payload that is not DNS at all is reported here too.",
        interop:
            "avahi drops a query at the first bad record and keeps the records before it in a response; python-zeroconf drops the rest of the packet",
        example: "ANCOUNT 3 but the data ends after 2 records")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = service()
                        b.counts = [0, 3, 0, 5]
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard !i.truncated, i.message.payload.count >= 12, !i.message.isComplete else { return }
        let h = i.header
        if MDNSRuleSupport.looksLikeText(i.message.payload) {
            out.report(
                Self.descriptor,
                "payload does not look like DNS (it starts with \"\(MDNSText.show(i.message.payload.prefix(24)))\"): an application is misusing port 5353"
            )
            return
        }
        if let a = i.message.anomalies.first(where: { $0.kind == .countsBeyondData }) {
            out.report(
                Self.descriptor,
                "counts \(h.qdcount)/\(h.ancount)/\(h.nscount)/\(h.arcount) run past the data at offset \(a.offset)",
                field: "offset \(a.offset)")
        }
    }
}

/// MDNS-003: No bytes follow the last counted record.
struct NoTrailingBytesRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-003", "no-trailing-bytes", .info, "No bytes follow the last counted record", spec: "RFC 1035 §4.1",
        "Extra bytes are ignored by receivers but usually mean a wrong count.", interop: "Wireshark dns.extraneous",
        example: "7 bytes after the final record")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service().bytes + [1, 2, 3, 4, 5, 6, 7]), severity: .info)],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.trailingBytes], in: i, as: Self.descriptor, into: &out) { a in
            "extra bytes after the last counted record, from offset \(a.offset)"
        }
    }
}

/// MDNS-004: Labels are at most 63 octets; label types 01 and 10 are invalid.
struct LabelLengthTypeRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-004", "label-length-type", .error, "Labels are at most 63 octets; label types 01 and 10 are invalid",
        spec: "RFC 1035 §2.3.4, §4.1.4",
        "A length byte 0x40–0xBF is an extended or reserved label type.",
        interop: "avahi, python-zeroconf and mDNSResponder reject it", example: "length byte 0x41")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(rawQuery([0x41] + [UInt8](repeating: 0x61, count: 65) + [0])))],
        nonTriggering: [RuleExample(mdns(ask(longLabel + ".local", 1)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.labelType], in: i, as: Self.descriptor, into: &out) { a in
            "label length byte at offset \(a.offset) has a reserved or extended label type"
        }
    }
}

/// MDNS-005: A name is at most 255 octets in wire form.
struct NameLengthRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-005", "name-length", .error, "A name is at most 255 octets in wire form", spec: "RFC 1035 §2.3.4",
        "Length bytes and the final zero included, after decompression.",
        interop: "python-zeroconf already rejects names over 253 presentation characters", example: "a 262-octet name")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(ask([longLabel, longLabel, longLabel, longLabel, "local"].joined(separator: "."), 1)))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    ask([longLabel, longLabel, longLabel, String(repeating: "b", count: 61)].joined(separator: "."), 1))
            )
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.nameTooLong], in: i, as: Self.descriptor, into: &out) { a in
            "name at offset \(a.offset) is longer than 255 octets"
        }
    }
}

/// MDNS-006: Compression pointers point backwards into the message body.
struct PointerBackwardsRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-006", "pointer-backwards", .error, "Compression pointers point backwards into the message body",
        spec: "RFC 1035 §4.1.4",
        "A pointer targets an offset ≥ 12 and strictly before itself (a prior occurrence). Forward and self pointers are violations.",
        interop:
            "avahi and tcpdump enforce backwards pointers; Wireshark, python-zeroconf and mDNSResponder follow forward ones",
        example: "pointer at 0x40 to 0x80")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(rawQuery([0xC0, 12])))],
        nonTriggering: [RuleExample(mdns(ask("printer.local", 1)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.badPointer], in: i, as: Self.descriptor, into: &out) { a in
            "compression pointer at offset \(a.offset) does not point backwards into the message body"
        }
    }
}

/// MDNS-007: Decompression terminates; pointer-to-pointer is info.
struct PointerTerminatesRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-007", "pointer-terminates", .error, "Decompression terminates; pointer-to-pointer is info",
        spec: "RFC 1035 §4.1.4",
        "A chain that re-enters labels already read loops. A pointer to another pointer is legal but rejected by mDNSResponder (info).",
        interop: "mDNSResponder rejects pointers to pointers", example: "A→B→A", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(rawQuery([1, 0x61, 0xC0, 12])), severity: .error)],
        nonTriggering: [RuleExample(mdns(ask("a.local", 1)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for a in i.message.anomalies {
            if a.kind == .pointerLoop {
                out.report(
                    Self.descriptor, severity: .error,
                    "compression pointer at offset \(a.offset) re-enters labels already read (a loop)",
                    field: "offset \(a.offset)")
            } else if a.kind == .pointerToPointer {
                out.report(
                    Self.descriptor, severity: .info,
                    "compression pointer at offset \(a.offset) points to another pointer (mDNSResponder rejects this)",
                    field: "offset \(a.offset)")
            }
        }
    }
}

/// MDNS-008: Names are UTF-8.
struct NamesUTF8Rule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-008", "names-utf8", .error, "Names are UTF-8", spec: "RFC 6762 §16; RFC 6763 §4.1.1",
        "No other 8-bit encodings. (Unicode NFC is not checked.)", example: "label bytes C3 28")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(rawQuery([2, 0xC3, 0x28, 5] + Array("local".utf8) + [0])))],
        nonTriggering: [RuleExample(mdns(ask("Café.local", 1)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        var bad: [String] = []
        for q in i.message.questions {
            q.name.forEachLabel(in: i.message.payload) { if !ASCII.isValidUTF8($0) { bad.append(i.name(q.name)) } }
        }
        for r in i.records where !r.allLabelsUTF8 { bad.append(i.name(r.record.name)) }
        if let first = bad.first { out.report(Self.descriptor, "name \(first) is not valid UTF-8") }
    }
}

/// MDNS-009: RDLENGTH does not run past the datagram.
struct RDLengthInBoundsRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-009", "rdlength-in-bounds", .error, "RDLENGTH does not run past the datagram",
        spec: "RFC 1035 §3.2.1, §4.1.3",
        "", interop: "avahi, python-zeroconf and mDNSResponder drop the record",
        example: "RDLENGTH 300 with 120 bytes left")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    {
                        var b = B()
                        b.raw(
                            .answer,
                            B.name("h.local") + B.u16(1) + B.u16(0x8001) + B.u32(120) + B.u16(300) + [1, 2, 3, 4])
                        return b
                    }()))
        ],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.rdlengthOverrun], in: i, as: Self.descriptor, into: &out) { a in
            "RDLENGTH at offset \(a.offset) runs past the end of the datagram"
        }
    }
}

/// MDNS-010: Typed RDATA uses exactly RDLENGTH.
struct RDataExactLengthRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-010", "rdata-exact-length", .error, "Typed RDATA uses exactly RDLENGTH",
        spec: "RFC 1035 §3.3; RFC 3596 §2.2; RFC 2782; RFC 4034 §4.1; RFC 6891 §6.1.2",
        "A = 4 bytes, AAAA = 16, one name for PTR/CNAME/NS, 6 bytes + name for SRV, strings that fill TXT, two strings for HINFO.",
        interop: "avahi fails the packet; python-zeroconf drops the record and resyncs",
        example: "A record with RDLENGTH 6")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(response { $0.record(.answer, "h.local", 1, flush: true, rdata: [192, 168, 1, 20, 0, 0]) }))
        ],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.rdataLength], in: i, as: Self.descriptor, into: &out) { a in
            "RDATA at offset \(a.offset) does not fill its RDLENGTH exactly for its type"
        }
    }
}

/// MDNS-011: TTL has the most significant bit clear.
struct TTLHighBitRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-011", "ttl-high-bit", .warning, "TTL has the most significant bit clear", spec: "RFC 2181 §8",
        "Receivers treat such a TTL as 0, a goodbye.", interop: "Wireshark dns.ttl.high_bit_set",
        example: "TTL 0x80000000")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(.answer, "h.local", 1, flush: true, ttl: 0x8000_0000, rdata: B.a("192.168.1.20"))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(.answer, "h.local", 1, flush: true, ttl: 0x7FFF_FFFF, rdata: B.a("192.168.1.20"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.type != .opt && r.record.ttl & 0x8000_0000 != 0 {
            out.report(
                Self.descriptor,
                "\(i.name(r.record.name)) \(r.record.type) has TTL \(r.record.ttl) with the top bit set (receivers read 0)"
            )
        }
    }
}

/// MDNS-012: Records are class IN and never of a query-only type.
struct RecordClassTypeRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-012", "record-class-type", .error, "Records are class IN and never of a query-only type",
        spec: "RFC 6762 §6; RFC 1035 §3.2.3",
        "Class other than IN is a warning; TYPE 0, ANY, AXFR, IXFR, MAILA, MAILB as a record type is an error.",
        example: "answer of TYPE 255", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(response { $0.record(.answer, "h.local", 255, rdata: []) }), severity: .error)],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.type != .opt {
            if MDNSRuleSupport.metaTypes.contains(r.record.type.rawValue) {
                out.report(
                    Self.descriptor, severity: .error,
                    "\(i.name(r.record.name)) is a record of query-only type \(r.record.type)")
            } else if r.record.rrclass != 1 {
                out.report(
                    Self.descriptor, severity: .warning,
                    "\(i.name(r.record.name)) \(r.record.type) has class \(r.record.rrclass), not IN")
            }
        }
    }
}

/// MDNS-013: One OPT, in Additional, owner root, version 0, Z zero.
struct EDNSOPTPlacementRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-013", "edns-opt-placement", .error, "One OPT, in Additional, owner root, version 0, Z zero",
        spec: "RFC 6891 §6.1.1, §6.1.3, §6.2.5",
        "A payload size below 512 is treated as 512 (info).", interop: "mDNSResponder looks for OPT only in Additional",
        example: "OPT in the Answer section", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(.answer, "", 41, ttl: 0, rrclass: 1440, rdata: [])
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(.additional, "", 41, ttl: 0, rrclass: 1440, rdata: [])
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let opts = i.records.filter { $0.record.type == .opt }
        if opts.count > 1 { out.report(Self.descriptor, "\(opts.count) OPT records") }
        for o in opts {
            if o.section != .additional {
                out.report(Self.descriptor, "OPT record in the \(o.section.rawValue) section")
            }
            if o.labelCount > 0 { out.report(Self.descriptor, "OPT owner is \(i.name(o.record.name)), not the root") }
            let version = (o.record.ttl >> 16) & 0xFF
            if version != 0 { out.report(Self.descriptor, "EDNS version \(version), not 0") }
            if o.record.ttl & 0x7FFF != 0 { out.report(Self.descriptor, "EDNS Z bits are not zero") }
            if o.record.rawClass < 512 {
                out.report(
                    Self.descriptor, severity: .info,
                    "EDNS UDP payload size \(o.record.rawClass) is below 512 (read as 512)")
            }
        }
    }
}

/// MDNS-014: EDNS options fill RDATA exactly; Owner option is well formed.
struct EDNSOptionsRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-014", "edns-options", .error, "EDNS options fill RDATA exactly; Owner option is well formed",
        spec: "RFC 6891 §6.1.2; draft-cheshire-edns0-owner-option",
        "An Owner option (code 4) has version 0 and length 8, 14, 18 or 20.",
        interop: "mDNSResponder accepts only Owner lengths 8, 14, 18, 20", example: "option 4 with length 10")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    query {
                        $0.question("a.local", 1)
                        $0.record(
                            .additional, "", 41, ttl: 0, rrclass: 1440,
                            rdata: B.u16(4) + B.u16(10) + [UInt8](repeating: 0, count: 10))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    query {
                        $0.question("a.local", 1)
                        $0.record(
                            .additional, "", 41, ttl: 0, rrclass: 1440,
                            rdata: B.u16(4) + B.u16(14) + [UInt8](repeating: 0, count: 14))
                    }))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.optionLength, .ownerOption], in: i, as: Self.descriptor, into: &out) { a in
            a.kind == .ownerOption
                ? "EDNS Owner option at offset \(a.offset) has a version other than 0 or a length other than 8, 14, 18 or 20"
                : "EDNS option at offset \(a.offset) runs past its RDATA"
        }
    }
}

/// MDNS-015: Only types whose names may be compressed use pointers in RDATA.
struct RDataCompressionRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-015", "rdata-compression", .error, "Only types whose names may be compressed use pointers in RDATA",
        spec: "RFC 6762 §18.14",
        "SVCB, HTTPS, NAPTR and other newer types carry uncompressed names.", example: "pointer inside HTTPS RDATA")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(.answer, "printer.local", 65, rdata: B.u16(1) + [0xC0, 12])
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(.answer, "printer.local", 65, rdata: B.u16(1) + B.name("printer.local"))
                    }))
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies(
            [.compressedRDataName], in: i, as: Self.descriptor, suppressWhenTruncated: false, into: &out
        ) { a in
            "compression pointer at offset \(a.offset) inside RDATA of a type whose names are not compressed"
        }
    }
}

/// MDNS-016: NSEC bitmap blocks are ordered, 1–32 bytes, no trailing zero.
struct NSECBitmapRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-016", "nsec-bitmap", .error, "NSEC bitmap blocks are ordered, 1–32 bytes, no trailing zero",
        spec: "RFC 4034 §4.1.2",
        "", interop: "python-zeroconf drops the record", example: "bitmap length 0")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(
                            .additional, "printer.local", 47, flush: true, rdata: B.name("printer.local") + [0, 0])
                    }))
        ],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        MDNSRuleSupport.reportAnomalies([.nsecBitmap], in: i, as: Self.descriptor, into: &out) { a in
            "NSEC type bitmap block at offset \(a.offset) is out of order, empty, longer than 32 bytes or ends in a zero octet"
        }
    }
}
