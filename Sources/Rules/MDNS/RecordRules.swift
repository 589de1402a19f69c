import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-3xx: resource records and DNS-SD data.

/// MDNS-301: Shared records (browse PTRs) never carry cache-flush.
struct SharedNoFlushRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-301", "shared-no-flush", .error, "Shared records (browse PTRs) never carry cache-flush",
        spec: "RFC 6762 §10.2",
        "", example: "_http._tcp.local. PTR with class 0x8001")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(ptrFlush: true)))],
        nonTriggering: [RuleExample(mdns(service(srvFlush: true)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.cacheFlush && i.isShared(r) {
            out.report(Self.descriptor, "shared record \(i.name(r.record.name)) PTR has the cache-flush bit")
        }
    }
}

/// MDNS-302: Unique records in multicast responses carry cache-flush.
struct UniqueFlushRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-302", "unique-flush", .error, "Unique records in multicast responses carry cache-flush",
        spec: "RFC 6762 §10.2",
        "A, AAAA, SRV, TXT, HINFO, NSEC and reverse PTR.",
        interop: "Apple BCT: CACHE FLUSH BIT SET IN NON-SHARED RESPONSES", example: "SRV of class 0x0001")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(service(srvFlush: false)))],
        nonTriggering: [RuleExample(mdns(service(srvFlush: true)))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse, i.isMulticast, !i.isLegacyResponse else { return }
        for r in i.records where r.section != .authority && i.isUnique(r) && !r.record.cacheFlush && r.record.ttl != 0 {
            out.report(
                Self.descriptor, "unique record \(i.name(r.record.name)) \(r.record.type) lacks the cache-flush bit")
        }
    }
}

/// MDNS-303: TTLs near 120 s (host records) and 4500 s (others).
struct RecommendedTTLRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-303", "recommended-ttl", .warning, "TTLs near 120 s (host records) and 4500 s (others)",
        spec: "RFC 6762 §10",
        "Below a tenth of the recommendation is a warning; Apple's 4500 s host records and browse PTRs below 1125 s are info.",
        interop: "mDNSResponder uses 4500 s for all records; python-zeroconf raises PTR TTLs below 1125 s",
        example: "PTR TTL 10", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.record(.answer, "_ipp._tcp.local", 12, ttl: 10, rdata: B.name("Office._ipp._tcp.local"))
                    }), severity: .warning)
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
                    })),
            // A CNAME carries a host name: 120 s, as for address records (RFC 6762 §10).
            RuleExample(
                mdns(
                    response { b in
                        b.record(.answer, "alias.local", 5, flush: true, ttl: 120, rdata: B.name("printer.local"))
                    })),
        ])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse, !i.isLegacyResponse else { return }
        for r in i.records where r.record.type != .opt && r.record.type != .nsec && r.record.ttl != 0 {
            let host = i.isHostRecord(r)
            let ttl = r.record.ttl
            if host {
                if ttl < 12 {
                    out.report(
                        Self.descriptor, severity: .warning,
                        "\(i.name(r.record.name)) \(r.record.type) TTL \(ttl); 120 s is recommended")
                } else if ttl == 4500 {
                    out.report(
                        Self.descriptor, severity: .info,
                        "\(i.name(r.record.name)) \(r.record.type) TTL 4500 (Apple's choice; RFC 6762 recommends 120 s for host records)"
                    )
                }
            } else if ttl < 450 {
                out.report(
                    Self.descriptor, severity: .warning,
                    "\(i.name(r.record.name)) \(r.record.type) TTL \(ttl); 4500 s is recommended")
            } else if i.isShared(r) && ttl < 1125 {
                out.report(
                    Self.descriptor, severity: .info,
                    "browse PTR \(i.name(r.record.name)) TTL \(ttl) (python-zeroconf raises PTR TTLs below 1125 s)")
            }
        }
    }
}

/// MDNS-304: Records of one RRSet carry the same TTL.
struct RRSetSameTTLRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-304", "rrset-same-ttl", .error, "Records of one RRSet carry the same TTL", spec: "RFC 2181 §5.2", "",
        example: "two A records with TTL 120 and 4500")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b, ttl: 120)
                        b.record(.answer, "printer.local", 1, flush: true, ttl: 4500, rdata: B.a("192.168.1.21"))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b, ttl: 120)
                        b.record(.answer, "printer.local", 1, flush: true, ttl: 120, rdata: B.a("192.168.1.21"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        // Known answers in a query carry remaining TTLs, which legitimately differ.
        guard i.isResponse else { return }
        var reported = false
        // Pairs by index (record facts are plain values; a slice of the list would be
        // retained for each record).
        let records = i.records
        for k in records.indices where records[k].record.type != .opt && !reported {
            let a = records[k]
            for j in (k + 1)..<records.count {
                let b = records[j]
                guard
                    b.record.type == a.record.type && b.record.rrclass == a.record.rrclass
                        && b.record.ttl != a.record.ttl && a.record.ttl != 0 && b.record.ttl != 0
                        && b.record.name.equals(a.record.name, in: i.message.payload)
                else { continue }
                out.report(
                    Self.descriptor,
                    "\(i.name(a.record.name)) \(a.record.type) records carry TTLs \(a.record.ttl) and \(b.record.ttl)")
                reported = true
                break
            }
        }
    }
}

/// MDNS-305: NSEC: next name = owner, window 0 only, NSEC bit clear.
struct NSECRestrictedFormRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-305", "nsec-restricted-form", .error, "NSEC: next name = owner, window 0 only, NSEC bit clear",
        spec: "RFC 6762 §6.1",
        "The NSEC bit is an error; other deviations warnings.", example: "NSEC with next name other.local.",
        lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("other.local", [1]))
                    }), severity: .warning)
        ],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        guard i.isResponse else { return }
        for r in i.records {
            guard case .nsec(let next, let bitmap) = r.record.value else { continue }
            if !next.equals(r.record.name, in: i.message.payload) {
                out.report(
                    Self.descriptor, severity: .warning,
                    "NSEC \(i.name(r.record.name)) names \(i.name(next)) as next, not itself")
            }
            if i.message.nsecHasTypeAbove255(bitmap) {
                out.report(
                    Self.descriptor, severity: .warning, "NSEC \(i.name(r.record.name)) uses a window other than 0")
            }
            if i.message.nsecHas(bitmap, .nsec) {
                out.report(
                    Self.descriptor, severity: .error,
                    "NSEC \(i.name(r.record.name)) sets the NSEC bit in a synthesized NSEC")
            }
        }
    }
}

/// MDNS-306: An NSEC does not deny a type the message carries for that name.
struct NSECConsistentRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-306", "nsec-consistent", .error, "An NSEC does not deny a type the message carries for that name",
        spec: "RFC 6762 §6.1; RFC 4034 §4.1.2", "", example: "NSEC {AAAA} plus an AAAA for the name")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.record(
                            .answer, "printer.local", 28, flush: true, rdata: B.aaaa([0xfe80, 0, 0, 0, 0, 0, 0, 1]))
                        b.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1]))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response { b in
                        b.record(
                            .answer, "printer.local", 28, flush: true, rdata: B.aaaa([0xfe80, 0, 0, 0, 0, 0, 0, 1]))
                        b.record(
                            .additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1, 28]))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records {
            guard case .nsec(_, let bitmap) = r.record.value else { continue }
            // The bitmap lists the types that exist; any other type is denied.
            for o in i.records
            where o.record.type != .nsec && o.record.type != .opt && !i.message.nsecHas(bitmap, o.record.type)
                && o.record.name.equals(r.record.name, in: i.message.payload)
            {
                out.report(
                    Self.descriptor, "NSEC \(i.name(r.record.name)) denies \(o.record.type) but the message carries one"
                )
                break
            }
        }
    }
}

/// MDNS-307: SRV targets are host names.
struct SRVTargetHostRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-307", "srv-target-host", .error, "SRV targets are host names", spec: "RFC 6763 §8; RFC 2782",
        "Not the root, not a service instance.", example: "SRV target .")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(response { $0.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "")) }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(
                            .answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records {
            guard case .srv(_, _, _, let target) = r.record.value, let t = r.target else { continue }
            if t.labelCount == 0 {
                out.report(Self.descriptor, "SRV \(i.name(r.record.name)) has the root as target")
            } else if t.dnssd.kind == .instance {
                out.report(Self.descriptor, "SRV target \(i.name(target)) is a service instance name, not a host")
            }
        }
    }
}

/// MDNS-309: Address answers also give the other family or an NSEC.
struct AddressOtherFamilyRule: DatagramRule {
    /// Judges a missing address record or NSEC.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-309", "address-other-family", .warning, "Address answers also give the other family or an NSEC",
        spec: "RFC 6762 §6.2", "", example: "A answer with neither AAAA nor NSEC")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(response { hostA(&$0) }))],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20")))])

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse, i.isMulticast else { return }
        let p = i.message.payload
        for r in i.records where r.section == .answer && (r.record.type == .a || r.record.type == .aaaa) {
            let other: RecordType = r.record.type == .a ? .aaaa : .a
            let covered = i.records.contains {
                ($0.record.type == other || $0.record.type == .nsec) && $0.record.name.equals(r.record.name, in: p)
            }
            if !covered {
                out.report(
                    Self.descriptor,
                    "\(r.record.type) answer for \(i.name(r.record.name)) without \(other) or an NSEC denying it")
                return
            }
        }
    }
}

/// MDNS-310: Address records list only addresses valid on the link.
///
/// Where the link's subnets are known: a host that has an address on the link (in the same
/// message) and lists another of a known family outside every subnet gives an address of
/// another interface (an error); an address outside them whose owner has none on the link is
/// another link's host, as a reflector or proxy passes it on (info). Without them, an IPv4
/// address outside the sender's /24 is an info (a heuristic). Link-local addresses are on
/// every link.
struct AddressValidOnLinkRule: DatagramRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-310", "address-valid-on-link", .error, "Address records list only addresses valid on the link",
        spec: "RFC 6762 §6.2",
        "Loopback, unspecified and multicast addresses are errors. With the link's subnets known (analyze --subnet, or the capture interface's addresses), a host that has an address on the link and lists another outside them is an error, and an address outside them of a host with none on the link (a reflector's or proxy's copy) is info; without them an IPv4 address outside the sender's /24 is info (a heuristic).",
        example: "host.local. A 127.0.0.1", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(aResponse("127.0.0.1")), severity: .error),
            RuleExample(
                mdns(twoAddresses("192.168.1.20", "172.17.0.1")), severity: .error, subnets: link("192.168.1.0/24")),
            RuleExample(mdns(aResponse("10.98.1.30")), severity: .info, subnets: link("192.168.1.0/24")),
        ],
        nonTriggering: [
            RuleExample(mdns(aResponse("192.168.1.20"))),
            RuleExample(
                mdns(twoAddresses("192.168.1.20", "10.9.0.5")), subnets: link("192.168.1.0/24", "10.9.0.0/16")),
            // Outside the sender's /24, inside the link's /16.
            RuleExample(mdns(aResponse("192.168.7.20")), subnets: link("192.168.0.0/16")),
            RuleExample(mdns(twoAddresses("192.168.1.20", "169.254.7.7")), subnets: link("192.168.1.0/24")),
        ])

    /// `printer.local.` with the two A addresses `a` and `b`.
    private static func twoAddresses(_ a: String, _ b: String) -> DNSBuilder {
        response { r in
            r.record(.answer, "printer.local", 1, flush: true, rdata: B.a(a))
            r.record(.answer, "printer.local", 1, flush: true, rdata: B.a(b))
            r.record(.additional, "printer.local", 47, flush: true, rdata: B.nsec("printer.local", [1]))
        }
    }

    static func check(_ i: MDNSInput, into out: inout FindingSink) {
        guard i.isResponse else { return }
        // Owners (by name key) with an address on the link: the link's own hosts.
        var onLink = InlineArray<16, UInt64>(repeating: 0)
        var onLinkCount = 0
        if !i.subnets.isEmpty {
            for r in i.records where onLinkCount < onLink.count {
                if let a = r.record.value.address, i.subnets.knowsFamily(of: a), i.subnets.isOnLink(a), !a.isLinkLocal {
                    onLink[onLinkCount] = r.nameKey
                    onLinkCount += 1
                }
            }
        }
        for r in i.records {
            guard let addr = r.record.value.address else { continue }
            if addr.isLoopback || addr.isUnspecified || addr.isMulticast {
                out.report(
                    Self.descriptor, severity: .error,
                    "\(i.name(r.record.name)) \(r.record.type) \(addr) is not usable on the link")
            } else if i.subnets.knowsFamily(of: addr) {
                guard !i.subnets.isOnLink(addr) else { continue }
                if (0..<onLinkCount).contains(where: { onLink[$0] == r.nameKey }) {
                    out.report(
                        Self.descriptor, severity: .error,
                        "\(i.name(r.record.name)) \(r.record.type) \(addr) is outside the link's subnets (\(i.subnets.description)), though the host has an address on the link: another interface's address"
                    )
                } else {
                    out.report(
                        Self.descriptor, severity: .info,
                        "\(i.name(r.record.name)) \(r.record.type) \(addr) is outside the link's subnets (\(i.subnets.description)): another link's host, passed on by a reflector or proxy?"
                    )
                }
            } else if case .v4(let a) = addr, case .v4(let s) = i.datagram.src, a >> 8 != s >> 8, !addr.isLinkLocal {
                out.report(
                    Self.descriptor, severity: .info,
                    "\(i.name(r.record.name)) A \(addr) is outside the sender's /24 (\(i.datagram.src)); another interface's address?"
                )
            }
        }
    }
}

/// MDNS-311: TXT is never empty (one zero byte means no data).
struct TXTNotEmptyRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-311", "txt-not-empty", .error, "TXT is never empty (one zero byte means no data)",
        spec: "RFC 6763 §6.1; RFC 1035 §3.3.14",
        "Zero-length strings among others are info.",
        interop: "mDNSResponder rejects RDLENGTH 0; avahi drops zero-length strings", example: "TXT with RDLENGTH 0",
        lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(txtResponse([])), severity: .error)],
        nonTriggering: [RuleExample(mdns(txtResponse([0])))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.type == .txt {
            if r.record.rdata.isEmpty {
                out.report(
                    Self.descriptor, severity: .error,
                    "TXT \(i.name(r.record.name)) is empty (RDLENGTH 0); use a single zero byte")
            } else {
                var count = 0
                var empty = false
                i.message.forEachCharacterString(r.record) { s in
                    count += 1
                    if s.isEmpty { empty = true }
                    return true
                }
                if count > 1 && empty {
                    out.report(
                        Self.descriptor, severity: .info,
                        "TXT \(i.name(r.record.name)) mixes empty strings with others (avahi drops them)")
                }
            }
        }
    }
}

/// MDNS-312: TXT keys are 1+ printable ASCII characters without '='.
struct TXTKeySyntaxRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-312", "txt-key-syntax", .error, "TXT keys are 1+ printable ASCII characters without '='",
        spec: "RFC 6763 §6.4",
        "Keys over 9 characters are a warning.", example: "string =value", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(txtResponse(B.txt(["=value"]))), severity: .error)],
        nonTriggering: [RuleExample(mdns(txtResponse(B.txt(["key=value", "flag"]))))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let p = i.message.payload
        for r in i.records where r.record.type == .txt && r.dnssd.kind == .instance {
            i.message.forEachTXTKey(r.record) { string, key in
                guard !string.isEmpty else { return true }
                if key.isEmpty {
                    out.report(
                        Self.descriptor, severity: .error,
                        "TXT \(i.name(r.record.name)) string \"\(MDNSText.show(p[string].prefix(40)))\" has no key")
                } else if p[key].contains(where: { $0 < 0x20 || $0 > 0x7E }) {
                    out.report(
                        Self.descriptor, severity: .error,
                        "TXT \(i.name(r.record.name)) key \"\(MDNSText.show(p[key]))\" is not printable ASCII")
                } else if key.count > 9 {
                    out.report(
                        Self.descriptor, severity: .warning,
                        "TXT key \(MDNSText.show(p[key])) is \(key.count) characters (9 at most recommended)")
                }
                return true
            }
        }
    }
}

/// MDNS-313: A key appears once per TXT record.
struct TXTDuplicateKeyRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-313", "txt-duplicate-key", .warning, "A key appears once per TXT record", spec: "RFC 6763 §6.4",
        "Compared case-insensitively; clients use the first.", example: "path=/a and PATH=/b")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(txtResponse(B.txt(["path=/a", "PATH=/b"]))))],
        nonTriggering: [RuleExample(mdns(txtResponse(B.txt(["path=/a", "paths=/b"]))))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let p = i.message.payload
        var keys: [Range<Int>] = []
        for r in i.records where r.record.type == .txt && r.dnssd.kind == .instance {
            // One allocation for the keys of all the message's TXT records.
            if keys.capacity == 0 { keys.reserveCapacity(32) }
            keys.removeAll(keepingCapacity: true)
            var repeated: Range<Int>? = nil
            // One bit per (length, lower-cased first byte) seen: a key whose bit is clear
            // cannot repeat an earlier one, so the comparisons run only when it is set.
            var seen: UInt64 = 0
            i.message.forEachTXTKey(r.record) { _, key in
                guard !key.isEmpty else { return true }
                let bit: UInt64 = 1 << UInt64((key.count &* 31 &+ Int(ASCII.lower(p[key.lowerBound]))) & 63)
                // Keys are compared with the earlier ones of the same record, ASCII
                // case-insensitively, by index (TXT records hold at most a few dozen).
                if seen & bit != 0, keys.contains(where: { ASCII.equalsIgnoringCase(p, $0, key) }) {
                    repeated = key
                    return false
                }
                seen |= bit
                keys.append(key)
                return true
            }
            if let key = repeated {
                out.report(Self.descriptor, "TXT \(i.name(r.record.name)) repeats key \(MDNSText.show(p[key]))")
            }
        }
    }
}

/// MDNS-314: TXT stays small.
struct TXTSizeRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-314", "txt-size", .warning, "TXT stays small", spec: "RFC 6763 §6.2",
        "Over 1300 bytes is a warning, over 400 info.", example: "TXT RDLENGTH 1800", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(txtResponse(B.txt(Array(repeating: "k=" + String(repeating: "v", count: 198), count: 9)))),
                severity: .warning)
        ],
        nonTriggering: [
            RuleExample(mdns(txtResponse(B.txt(Array(repeating: "k=" + String(repeating: "v", count: 98), count: 3)))))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.type == .txt {
            let n = r.record.rdata.count
            if n > 1300 {
                out.report(
                    Self.descriptor, severity: .warning,
                    "TXT \(i.name(r.record.name)) is \(n) bytes (over 1300 is not recommended)")
            } else if n > 400 {
                out.report(Self.descriptor, severity: .info, "TXT \(i.name(r.record.name)) is \(n) bytes")
            }
        }
    }
}

/// MDNS-315: Instance names are Instance.Service.Domain.
struct InstanceNameStructureRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-315", "instance-name-structure", .error, "Instance names are Instance.Service.Domain",
        spec: "RFC 6763 §4.1, §7",
        "SRV owners and browse PTR targets are instances.", example: "browse PTR RDATA _ipp._tcp.local.")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("_ipp._tcp.local")) })
            )
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records {
            if r.record.type == .srv && r.dnssd.kind != .instance && !r.hasUnderscoreLabel {
                out.report(Self.descriptor, "SRV owner \(i.name(r.record.name)) is not Instance.Service.Domain")
            }
            if case .name(let t) = r.record.value, r.record.type == .ptr,
                r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype
            {
                if r.target?.dnssd.kind != .instance {
                    out.report(
                        Self.descriptor,
                        "browse PTR \(i.name(r.record.name)) points to \(i.name(t)), not a service instance")
                }
            }
        }
    }
}

/// MDNS-316: Service labels are _ + 1–15 letters, digits, hyphens.
struct ServiceNameSyntaxRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-316", "service-name-syntax", .error, "Service labels are _ + 1–15 letters, digits, hyphens",
        spec: "RFC 6763 §7, §7.2; RFC 6335 §5.1",
        "At least one letter, no leading/trailing or double hyphen; protocol _tcp or _udp.", example: "_my_service._tcp"
    )
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("_my_service._tcp.local")))],
        nonTriggering: [RuleExample(mdns(ask("_my-service._tcp.local")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        // Labels are checked as payload ranges; a slice and the problem's text are made
        // only for a label that fails.
        func check(_ range: Range<Int>?, _ d: DNSSDName) -> Bool {
            guard let range, d.kind != .other,
                let problem = MDNSRuleSupport.serviceLabelProblem(i.message.payload, range)
            else { return false }
            out.report(Self.descriptor, "service label \(MDNSText.show(i.bytes(range))): \(problem)")
            return true
        }
        for q in i.questionNames where check(q.serviceLabel, q.dnssd) { return }
        for r in i.records where check(r.serviceLabel, r.dnssd) { return }
    }
}

/// MDNS-317: Instance labels are ≤ 63 octets of UTF-8 with no control characters.
struct InstanceLabelRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-317", "instance-label", .error, "Instance labels are ≤ 63 octets of UTF-8 with no control characters",
        spec: "RFC 6763 §4.1.1", "", example: "instance label with 0x0A")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(txtResponse([0], owner: "Office\nA._ipp._tcp.local")))],
        nonTriggering: [RuleExample(mdns(txtResponse([0], owner: "Office A._ipp._tcp.local")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.dnssd.kind == .instance {
            guard let first = r.firstLabel else { continue }
            let label = i.bytes(first)
            if label.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                out.report(Self.descriptor, "instance label of \(i.name(r.record.name)) contains control characters")
                return
            }
        }
    }
}

/// MDNS-318: Subtype PTRs point to instances of the same service.
struct SubtypePtrRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-318", "subtype-ptr", .warning, "Subtype PTRs point to instances of the same service",
        spec: "RFC 6763 §7.1", "", example: "_printer._sub._http._tcp PTR x._ipp._tcp")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(
                            .answer, "_printer._sub._http._tcp.local", 12, ttl: 4500, rdata: B.name("x._ipp._tcp.local")
                        )
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(
                            .answer, "_printer._sub._http._tcp.local", 12, ttl: 4500,
                            rdata: B.name("x._http._tcp.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let p = i.message.payload
        for r in i.records where r.record.type == .ptr && r.dnssd.kind == .subtype {
            guard case .name(let t) = r.record.value, let service = r.serviceLabel, let td = r.target else { continue }
            if let ts = td.serviceLabel, td.dnssd.kind == .instance, !ASCII.equalsIgnoringCase(p, ts, service) {
                out.report(
                    Self.descriptor, "subtype PTR \(i.name(r.record.name)) points to \(i.name(t)) of another service")
            }
        }
    }
}

/// MDNS-319: _services._dns-sd._udp PTRs point to service types.
struct ServiceEnumerationRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-319", "service-enumeration", .error, "_services._dns-sd._udp PTRs point to service types",
        spec: "RFC 6763 §9", "", example: "RDATA My Printer._ipp._tcp.local.")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(
                            .answer, "_services._dns-sd._udp.local", 12, ttl: 4500,
                            rdata: B.name("My Printer._ipp._tcp.local"))
                    }))
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    response {
                        $0.record(
                            .answer, "_services._dns-sd._udp.local", 12, ttl: 4500, rdata: B.name("_ipp._tcp.local"))
                    }))
        ])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where r.record.type == .ptr && r.dnssd.kind == .serviceEnumeration {
            guard case .name(let t) = r.record.value else { continue }
            if r.target?.dnssd.kind != .serviceType {
                out.report(Self.descriptor, "_services._dns-sd._udp PTR points to \(i.name(t)), not a service type")
            }
        }
    }
}

/// MDNS-320: Host names use letters, digits and hyphens.
struct HostNameCharactersRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-320", "host-name-characters", .info, "Host names use letters, digits and hyphens",
        spec: "Apple BCT; RFC 1123 §2.1",
        "RFC 6762 allows UTF-8; Apple's conformance test does not.",
        interop: "Apple BCT: LEGAL CHARACTERS IN ADDRESS RECORD NAMES", example: "My Host.local. A")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(aResponse("192.168.1.20", owner: "My Host.local")), severity: .info)],
        nonTriggering: [RuleExample(mdns(aResponse("192.168.1.20", owner: "my-host.local")))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        for r in i.records where (r.record.type == .a || r.record.type == .aaaa) && r.labelCount > 0 && !r.hostLabelsLDH
        {
            let p = i.message.payload
            if let bad = i.labelRanges(r.record.name).dropLast().first(where: { !MDNSInput.isLDH(p, $0) }) {
                out.report(
                    Self.descriptor,
                    "host name \(i.name(r.record.name)) has label \(MDNSText.show(p[bad])) outside letters, digits and hyphens"
                )
                return
            }
        }
    }
}

/// MDNS-321: A packet carries no duplicate records.
struct NoDuplicateRecordsRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-321", "no-duplicate-records", .warning, "A packet carries no duplicate records",
        spec: "Apple BCT; RFC 6763 §12",
        "", interop: "Apple BCT: NO DUPLICATE RECORDS IN PACKETS", example: "the same SRV in Answer and Additional")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    response { b in
                        hostA(&b)
                        hostA(&b, .additional)
                    }))
        ],
        nonTriggering: [RuleExample(mdns(service()))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let p = i.message.payload
        let records = i.records
        for k in records.indices where records[k].record.type != .opt {
            let a = records[k]
            if ((k + 1)..<records.count).contains(where: { j in
                let b = records[j]
                return b.record.type == a.record.type && b.record.rrclass == a.record.rrclass
                    && b.record.name.equals(a.record.name, in: p) && MDNSRuleSupport.sameRData(a.record, b.record, p)
            }) {
                out.report(Self.descriptor, "\(i.name(a.record.name)) \(a.record.type) appears twice in the packet")
                return
            }
        }
    }
}

/// MDNS-322: Names are under local. or the link-local reverse zones.
struct LocalNamesRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-322", "local-names", .info, "Names are under local. or the link-local reverse zones",
        spec: "RFC 6762 §3, §4", "", example: "question printer.example.com.")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ask("printer.example.com", 1)), severity: .info)],
        nonTriggering: [RuleExample(mdns(ask("printer.local", 1)))])

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        func report(_ n: DNSName) {
            out.report(Self.descriptor, "\(i.name(n)) is not under local. or a link-local reverse zone")
        }
        for (q, info) in zip(i.message.questions, i.questionNames) where !info.isLocalName {
            report(q.name)
            return
        }
        for r in i.records where r.record.type != .opt && !r.isLocalName {
            report(r.record.name)
            return
        }
    }
}

/// MDNS-323: a name with a CNAME has no other data (RFC 1034 §3.6.2, RFC 2181 §10.1).
///
/// Judged within one message: a response's records (any section), a probe's proposed
/// records (Authority). A query's Known-Answers are the querier's cache, not its data, and are
/// not judged. NSEC and RRSIG may sit beside a CNAME (RFC 4035 §2.5), and a record sent with
/// TTL 0 is a goodbye, not data; neither counts. Not judged across messages: the model keeps
/// RRSets by name and type, so finding every type a name owns would take a look-up per type.
struct CNAMEAndOtherDataRule: MessageRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-323", "cname-and-other-data", .error, "A name with a CNAME has no other data",
        spec: "RFC 1034 §3.6.2; RFC 2181 §10.1",
        "Within one message (a response's records in any section, a probe's Authority records): a CNAME (TTL above 0) whose owner name also owns a record of another type, NSEC and RRSIG excepted (RFC 4035 §2.5), goodbyes (TTL 0) not counted. Once per CNAME owner. A query's Known-Answers and records in other messages are not judged.",
        interop:
            "a resolver that finds the CNAME follows it and never sees the name's own addresses (RFC 1034 §3.6.2); caches that keep both answer inconsistently",
        example: "Web.local. CNAME www.local. beside Web.local. A 10.0.0.5 in one announcement")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(aliasBeside(1))),
            // A probe proposing both.
            RuleExample(
                mdns(
                    query { b in
                        b.question("web.local", 255)
                        b.record(.authority, "web.local", 5, ttl: 120, rdata: B.name("www.local"))
                        b.record(.authority, "web.local", 1, ttl: 120, rdata: B.a("192.168.1.20"))
                    })),
        ],
        nonTriggering: [
            // The alias's target owns the address: the usual shape.
            RuleExample(
                mdns(
                    response { b in
                        b.record(.answer, "www.local", 5, ttl: 120, rdata: B.name("printer.local"))
                        hostA(&b, .additional)
                    })),
            // Near miss: an NSEC beside the CNAME (RFC 4035 §2.5).
            RuleExample(mdns(aliasBeside(47))),
            // Near miss: the address said goodbye to as the name becomes an alias.
            RuleExample(
                mdns(
                    response { b in
                        b.record(.answer, "web.local", 5, ttl: 120, rdata: B.name("printer.local"))
                        b.record(.answer, "web.local", 1, flush: true, ttl: 0, rdata: B.a("192.168.1.20"))
                    })),
            // Near miss: a querier's Known-Answers are its cache, not its data.
            RuleExample(
                mdns(
                    query { b in
                        b.question("web.local", 255)
                        b.record(.answer, "web.local", 5, ttl: 120, rdata: B.name("printer.local"))
                        b.record(.answer, "web.local", 1, ttl: 120, rdata: B.a("192.168.1.20"))
                    })),
        ])

    /// A CNAME of web.local. beside a record of `type` for the same name.
    static func aliasBeside(_ type: UInt16) -> DNSBuilder {
        response { b in
            b.record(.answer, "web.local", 5, ttl: 120, rdata: B.name("printer.local"))
            let rdata = type == 47 ? B.nsec("web.local", [5]) : B.a("192.168.1.20")
            b.record(.additional, "web.local", type, flush: true, ttl: 120, rdata: rdata)
        }
    }

    /// Whether `r` is data a CNAME excludes (NSEC and RRSIG may sit beside it; a goodbye is
    /// no data).
    private static func isOtherData(_ r: MDNSInput.RecordInfo) -> Bool {
        let t = r.record.type
        return t != .cname && t != .nsec && t != .opt && t.rawValue != 46 && r.record.ttl > 0
    }

    static func check(_ i: MDNSMessageView, into out: inout FindingSink) {
        let records = i.records
        // Cheap test first: most messages carry no CNAME.
        guard records.contains(where: { $0.record.type == .cname }) else { return }
        let judged: (MDNSInput.RecordInfo) -> Bool =
            i.isResponse ? { _ in true } : { i.isProbe && $0.section == .authority }
        for k in records.indices {
            let c = records[k]
            guard c.record.type == .cname, c.record.ttl > 0, judged(c) else { continue }
            // Once per owner: skip a CNAME whose owner an earlier CNAME had.
            if records[..<k].contains(where: { $0.record.type == .cname && $0.nameKey == c.nameKey && judged($0) }) {
                continue
            }
            var others: [String] = []
            for r in records
            where r.nameKey == c.nameKey && r.record.rrclass == c.record.rrclass && judged(r) && isOtherData(r) {
                let t = r.record.type.description
                if !others.contains(t) { others.append(t) }
            }
            guard !others.isEmpty else { continue }
            var alias = ""
            if case .name(let target) = c.record.value { alias = " (to \(i.name(target)))" }
            out.report(
                Self.descriptor,
                "\(i.name(c.record.name)) has a CNAME\(alias) and \(others.joined(separator: ", ")) in the same message: a name with a CNAME has no other data"
            )
        }
    }
}
