import Findings

/// Descriptors of the mDNS / DNS-SD rules (IDs from `shared/rules/mdns.md`; wording ours).
/// Interop notes come from the receiver matrix in `shared/rules/interop.md`.
public enum MDNSCatalog {
    static func r(
        _ id: String, _ name: String, _ severity: Severity, _ title: String, spec: String, _ description: String,
        interop: String? = nil, example: String
    ) -> RuleDescriptor {
        RuleDescriptor(
            id: RuleID(rawValue: id), name: name, title: title, severity: severity, scope: .stateless, proto: .mdns,
            spec: spec, description: description, interop: interop, example: example)
    }

    static let header = r("MDNS-001", "dns-header-present", .error, "The payload holds the 12-byte DNS header", spec: "RFC 1035 §4.1.1",
        "A UDP/5353 payload shorter than 12 bytes is not DNS.", interop: "avahi, python-zeroconf and mDNSResponder drop it", example: "a 7-byte payload on port 5353")
    static let counts = r("MDNS-002", "counts-match-content", .error, "Header counts match the questions and records present", spec: "RFC 1035 §4.1; RFC 6762 §18.5",
        "Every counted question and record parses inside the datagram; a payload that is not DNS at all is reported here too.",
        interop: "avahi drops a query at the first bad record and keeps the records before it in a response; python-zeroconf drops the rest of the packet",
        example: "ANCOUNT 3 but the data ends after 2 records")
    static let trailing = r("MDNS-003", "no-trailing-bytes", .info, "No bytes follow the last counted record", spec: "RFC 1035 §4.1",
        "Extra bytes are ignored by receivers but usually mean a wrong count.", interop: "Wireshark dns.extraneous", example: "7 bytes after the final record")
    static let labels = r("MDNS-004", "label-length-type", .error, "Labels are at most 63 octets; label types 01 and 10 are invalid", spec: "RFC 1035 §2.3.4, §4.1.4",
        "A length byte 0x40–0xBF is an extended or reserved label type.", interop: "avahi, python-zeroconf and mDNSResponder reject it", example: "length byte 0x41")
    static let nameLength = r("MDNS-005", "name-length", .error, "A name is at most 255 octets in wire form", spec: "RFC 1035 §2.3.4",
        "Length bytes and the final zero included, after decompression.", interop: "python-zeroconf already rejects names over 253 presentation characters", example: "a 262-octet name")
    static let pointerDirection = r("MDNS-006", "pointer-backwards", .error, "Compression pointers point backwards into the message body", spec: "RFC 1035 §4.1.4",
        "A pointer targets an offset ≥ 12 and strictly before itself (a prior occurrence). Forward and self pointers are violations.",
        interop: "avahi and tcpdump enforce backwards pointers; Wireshark, python-zeroconf and mDNSResponder follow forward ones", example: "pointer at 0x40 to 0x80")
    static let pointerLoop = r("MDNS-007", "pointer-terminates", .error, "Decompression terminates; pointer-to-pointer is info", spec: "RFC 1035 §4.1.4",
        "A chain that re-enters labels already read loops. A pointer to another pointer is legal but rejected by mDNSResponder (info).",
        interop: "mDNSResponder rejects pointers to pointers", example: "A→B→A")
    static let utf8Names = r("MDNS-008", "names-utf8", .error, "Names are UTF-8", spec: "RFC 6762 §16; RFC 6763 §4.1.1",
        "No other 8-bit encodings. (Unicode NFC is not checked.)", example: "label bytes C3 28")
    static let rdlength = r("MDNS-009", "rdlength-in-bounds", .error, "RDLENGTH does not run past the datagram", spec: "RFC 1035 §3.2.1, §4.1.3",
        "", interop: "avahi, python-zeroconf and mDNSResponder drop the record", example: "RDLENGTH 300 with 120 bytes left")
    static let rdata = r("MDNS-010", "rdata-exact-length", .error, "Typed RDATA uses exactly RDLENGTH", spec: "RFC 1035 §3.3; RFC 3596 §2.2; RFC 2782; RFC 4034 §4.1; RFC 6891 §6.1.2",
        "A = 4 bytes, AAAA = 16, one name for PTR/CNAME/NS, 6 bytes + name for SRV, strings that fill TXT, two strings for HINFO.",
        interop: "avahi fails the packet; python-zeroconf drops the record and resyncs", example: "A record with RDLENGTH 6")
    static let ttlMSB = r("MDNS-011", "ttl-high-bit", .warning, "TTL has the most significant bit clear", spec: "RFC 2181 §8",
        "Receivers treat such a TTL as 0, a goodbye.", interop: "Wireshark dns.ttl.high_bit_set", example: "TTL 0x80000000")
    static let rrClass = r("MDNS-012", "record-class-type", .error, "Records are class IN and never of a query-only type", spec: "RFC 6762 §6; RFC 1035 §3.2.3",
        "Class other than IN is a warning; TYPE 0, ANY, AXFR, IXFR, MAILA, MAILB as a record type is an error.", example: "answer of TYPE 255")
    static let opt = r("MDNS-013", "edns-opt-placement", .error, "One OPT, in Additional, owner root, version 0, Z zero", spec: "RFC 6891 §6.1.1, §6.1.3, §6.2.5",
        "A payload size below 512 is treated as 512 (info).", interop: "mDNSResponder looks for OPT only in Additional", example: "OPT in the Answer section")
    static let ednsOptions = r("MDNS-014", "edns-options", .error, "EDNS options fill RDATA exactly; Owner option is well formed", spec: "RFC 6891 §6.1.2; draft-cheshire-edns0-owner-option",
        "An Owner option (code 4) has version 0 and length 8, 14, 18 or 20.", interop: "mDNSResponder accepts only Owner lengths 8, 14, 18, 20", example: "option 4 with length 10")
    static let rdataCompression = r("MDNS-015", "rdata-compression", .error, "Only types whose names may be compressed use pointers in RDATA", spec: "RFC 6762 §18.14",
        "SVCB, HTTPS, NAPTR and other newer types carry uncompressed names.", example: "pointer inside HTTPS RDATA")
    static let nsecBitmap = r("MDNS-016", "nsec-bitmap", .error, "NSEC bitmap blocks are ordered, 1–32 bytes, no trailing zero", spec: "RFC 4034 §4.1.2",
        "", interop: "python-zeroconf drops the record", example: "bitmap length 0")
    static let queryID = r("MDNS-101", "query-id-zero", .warning, "Multicast queries from port 5353 have ID 0", spec: "RFC 6762 §18.1",
        "Legacy one-shot queriers (other source ports) use IDs legitimately.", example: "query ID 0x1A2B from port 5353")
    static let responseID = r("MDNS-102", "response-id-zero", .error, "Multicast responses have ID 0", spec: "RFC 6762 §18.1",
        "Legacy unicast responses echo the query ID instead.", example: "response to 224.0.0.251 with ID 0x1234")
    static let responseAA = r("MDNS-103", "response-aa", .error, "Responses set AA", spec: "RFC 6762 §18.4", "", example: "flags 0x8000")
    static let queryAA = r("MDNS-104", "query-aa-clear", .error, "Queries clear AA", spec: "RFC 6762 §18.4", "", interop: "tcpdump prints [b2&3=0x400]", example: "query with AA")
    static let opcode = r("MDNS-105", "opcode-zero", .error, "OPCODE is 0", spec: "RFC 6762 §18.3",
        "Receivers silently ignore other opcodes.", interop: "avahi drops it; python-zeroconf does not check", example: "OPCODE 5 to 224.0.0.251")
    static let rcode = r("MDNS-106", "rcode-zero", .error, "RCODE is 0", spec: "RFC 6762 §18.11",
        "Receivers silently ignore messages with another RCODE.", interop: "avahi drops it; python-zeroconf processes it", example: "response with RCODE 3")
    static let tc = r("MDNS-107", "response-tc-clear", .error, "Multicast responses clear TC", spec: "RFC 6762 §18.5", "", example: "multicast response with TC")
    static let rd = r("MDNS-108", "rd-clear", .warning, "RD is 0", spec: "RFC 6762 §18.6", "Legacy stub resolvers set it (info).", example: "query with RD")
    static let zFlags = r("MDNS-109", "ra-z-ad-cd-clear", .error, "RA, Z, AD and CD are 0", spec: "RFC 6762 §18.7–§18.10", "", example: "flags 0x8480")
    static let questionsInResponse = r("MDNS-201", "response-no-questions", .error, "Multicast responses carry no questions", spec: "RFC 6762 §6",
        "Legacy unicast responses repeat the question instead (MDNS-404).", interop: "avahi drops the whole response", example: "multicast response with QDCOUNT 1")
    static let qclass = r("MDNS-202", "qclass-in-any", .warning, "QCLASS is IN or ANY", spec: "RFC 6762 §6, §6.5, §18.12", "", example: "QCLASS 3")
    static let qtype = r("MDNS-203", "qtype-no-zone-transfer", .error, "No AXFR, IXFR, MAILA or MAILB questions", spec: "RFC 6762 §6.5; RFC 1035 §3.2.3", "", example: "QTYPE 252")
    static let legacyQuery = r("MDNS-204", "legacy-query-form", .info, "Legacy queries carry no QU bit, known answers or authority", spec: "RFC 6762 §5.4, §6.7",
        "", interop: "avahi drops legacy queries with answers or authority", example: "query from port 51234 with the QU bit")
    static let authority = r("MDNS-205", "authority-section-use", .error, "Authority records in a query name a question; responses carry none", spec: "RFC 6762 §8.1, §8.2",
        "Probe records must match a question name; authority in a response is a warning.", interop: "avahi drops responses with authority records", example: "response with NSCOUNT 1")
    static let knownAnswerFlush = r("MDNS-206", "known-answer-no-flush", .error, "Known answers have no cache-flush bit", spec: "RFC 6762 §10.2", "", example: "query answer of class 0x8001")
    static let probeFlush = r("MDNS-207", "probe-no-flush", .warning, "Probe records have no cache-flush bit", spec: "Apple BCT; RFC 6762 §8.2",
        "", interop: "Apple BCT: CACHE FLUSH BIT NOT SET IN PROPOSED ANSWER OF PROBES", example: "probe authority SRV with class 0x8001")
    static let sections = r("MDNS-208", "section-sanity", .error, "Responses have answers; queries have questions or known answers", spec: "RFC 6762 §6, §7.2",
        "A response without answers is an error; an empty query a warning.", interop: "avahi drops responses with no answers", example: "response with counts 0/0/0/3")
    static let sharedFlush = r("MDNS-301", "shared-no-flush", .error, "Shared records (browse PTRs) never carry cache-flush", spec: "RFC 6762 §10.2",
        "", example: "_http._tcp.local. PTR with class 0x8001")
    static let uniqueFlush = r("MDNS-302", "unique-flush", .error, "Unique records in multicast responses carry cache-flush", spec: "RFC 6762 §10.2",
        "A, AAAA, SRV, TXT, HINFO, NSEC and reverse PTR.", interop: "Apple BCT: CACHE FLUSH BIT SET IN NON-SHARED RESPONSES", example: "SRV of class 0x0001")
    static let ttls = r("MDNS-303", "recommended-ttl", .warning, "TTLs near 120 s (host records) and 4500 s (others)", spec: "RFC 6762 §10",
        "Below a tenth of the recommendation is a warning; Apple's 4500 s host records and browse PTRs below 1125 s are info.",
        interop: "mDNSResponder uses 4500 s for all records; python-zeroconf raises PTR TTLs below 1125 s", example: "PTR TTL 10")
    static let rrsetTTL = r("MDNS-304", "rrset-same-ttl", .error, "Records of one RRSet carry the same TTL", spec: "RFC 2181 §5.2", "", example: "two A records with TTL 120 and 4500")
    static let nsecForm = r("MDNS-305", "nsec-restricted-form", .error, "NSEC: next name = owner, window 0 only, NSEC bit clear", spec: "RFC 6762 §6.1",
        "The NSEC bit is an error; other deviations warnings.", example: "NSEC with next name other.local.")
    static let nsecConsistent = r("MDNS-306", "nsec-consistent", .error, "An NSEC does not deny a type the message carries for that name", spec: "RFC 6762 §6.1; RFC 4034 §4.1.2", "", example: "NSEC {AAAA} plus an AAAA for the name")
    static let srvTarget = r("MDNS-307", "srv-target-host", .error, "SRV targets are host names", spec: "RFC 6763 §8; RFC 2782", "Not the root, not a service instance.", example: "SRV target .")
    static let additionalRecords = r("MDNS-308", "additional-records", .warning, "Instance answers include SRV, TXT and addresses", spec: "RFC 6763 §12.1, §12.2",
        "", interop: "Apple BCT: REQUIRED ADDITIONAL RECORDS IN ANSWERS", example: "PTR answer with an empty Additional section")
    static let otherFamily = r("MDNS-309", "address-other-family", .warning, "Address answers also give the other family or an NSEC", spec: "RFC 6762 §6.2", "", example: "A answer with neither AAAA nor NSEC")
    static let addressValid = r("MDNS-310", "address-valid-on-link", .error, "Address records list only addresses valid on the link", spec: "RFC 6762 §6.2",
        "Loopback, unspecified and multicast addresses are errors; an IPv4 address outside the sender's /24 is info (heuristic without interface data).", example: "host.local. A 127.0.0.1")
    static let emptyTXT = r("MDNS-311", "txt-not-empty", .error, "TXT is never empty (one zero byte means no data)", spec: "RFC 6763 §6.1; RFC 1035 §3.3.14",
        "Zero-length strings among others are info.", interop: "mDNSResponder rejects RDLENGTH 0; avahi drops zero-length strings", example: "TXT with RDLENGTH 0")
    static let txtKeys = r("MDNS-312", "txt-key-syntax", .error, "TXT keys are 1+ printable ASCII characters without '='", spec: "RFC 6763 §6.4",
        "Keys over 9 characters are a warning.", example: "string =value")
    static let txtDuplicate = r("MDNS-313", "txt-duplicate-key", .warning, "A key appears once per TXT record", spec: "RFC 6763 §6.4", "Compared case-insensitively; clients use the first.", example: "path=/a and PATH=/b")
    static let txtSize = r("MDNS-314", "txt-size", .warning, "TXT stays small", spec: "RFC 6763 §6.2", "Over 1300 bytes is a warning, over 400 info.", example: "TXT RDLENGTH 1800")
    static let instanceStructure = r("MDNS-315", "instance-name-structure", .error, "Instance names are Instance.Service.Domain", spec: "RFC 6763 §4.1, §7",
        "SRV owners and browse PTR targets are instances.", example: "browse PTR RDATA _ipp._tcp.local.")
    static let serviceLabel = r("MDNS-316", "service-name-syntax", .error, "Service labels are _ + 1–15 letters, digits, hyphens", spec: "RFC 6763 §7, §7.2; RFC 6335 §5.1",
        "At least one letter, no leading/trailing or double hyphen; protocol _tcp or _udp.", example: "_my_service._tcp")
    static let instanceLabel = r("MDNS-317", "instance-label", .error, "Instance labels are ≤ 63 octets of UTF-8 with no control characters", spec: "RFC 6763 §4.1.1", "", example: "instance label with 0x0A")
    static let subtype = r("MDNS-318", "subtype-ptr", .warning, "Subtype PTRs point to instances of the same service", spec: "RFC 6763 §7.1", "", example: "_printer._sub._http._tcp PTR x._ipp._tcp")
    static let enumeration = r("MDNS-319", "service-enumeration", .error, "_services._dns-sd._udp PTRs point to service types", spec: "RFC 6763 §9", "", example: "RDATA My Printer._ipp._tcp.local.")
    static let hostNames = r("MDNS-320", "host-name-characters", .info, "Host names use letters, digits and hyphens", spec: "Apple BCT; RFC 1123 §2.1",
        "RFC 6762 allows UTF-8; Apple's conformance test does not.", interop: "Apple BCT: LEGAL CHARACTERS IN ADDRESS RECORD NAMES", example: "My Host.local. A")
    static let duplicates = r("MDNS-321", "no-duplicate-records", .warning, "A packet carries no duplicate records", spec: "Apple BCT; RFC 6763 §12",
        "", interop: "Apple BCT: NO DUPLICATE RECORDS IN PACKETS", example: "the same SRV in Answer and Additional")
    static let localNames = r("MDNS-322", "local-names", .info, "Names are under local. or the link-local reverse zones", spec: "RFC 6762 §3, §4", "", example: "question printer.example.com.")
    static let sourcePort = r("MDNS-401", "response-source-port", .error, "Responses come from UDP port 5353", spec: "RFC 6762 §6",
        "Receivers must ignore responses from other ports.", interop: "avahi drops them; python-zeroconf does not check", example: "response from port 49152")
    static let responseDestination = r("MDNS-402", "response-destination", .error, "Multicast responses go to 224.0.0.251 / FF02::FB port 5353", spec: "RFC 6762 §6", "", example: "response to 224.0.0.251:5000")
    static let legacyQuestion = r("MDNS-404", "legacy-response-question", .error, "Legacy unicast responses repeat the question", spec: "RFC 6762 §6.7", "", example: "response to port 53123 with QDCOUNT 0")
    static let legacyTTL = r("MDNS-405", "legacy-response-form", .error, "Legacy unicast responses: no cache-flush, TTL ≤ 10 s", spec: "RFC 6762 §6.7, §10.2",
        "Cache-flush is an error, a longer TTL a warning.", interop: "python-zeroconf does not cap the TTL; avahi and mDNSResponder use 10 s", example: "TTL 4500 to an ephemeral port")
    static let ipTTL = r("MDNS-406", "ip-ttl-255", .warning, "Responses use IP TTL / hop limit 255", spec: "RFC 6762 §11",
        "Queries with another TTL are info.", interop: "avahi's check-response-ttl option drops other TTLs; Apple BCT: mDNS IP TTL CHECK", example: "response with TTL 64")
    static let onLink = r("MDNS-407", "source-on-link", .error, "Unicast responses come from an on-link source", spec: "RFC 6762 §11, §5.5",
        "Without interface data this is a /24 heuristic (info).", interop: "avahi and mDNSResponder check the source is on-link", example: "unicast response from 10.9.9.9 on 192.168.1.0/24")
    static let size = r("MDNS-408", "packet-size", .error, "An mDNS packet is at most 9000 bytes", spec: "RFC 6762 §17", "", interop: "python-zeroconf drops payloads over 8966 bytes", example: "IPv4 total length 9100")
    static let fragmented = r("MDNS-409", "fragmented-single-record", .error, "A fragmented packet carries one record", spec: "RFC 6762 §17", "", example: "3000-byte response with 12 records in fragments")
    static let group = r("MDNS-410", "mdns-group", .error, "Multicast mDNS uses 224.0.0.251 or FF02::FB", spec: "RFC 6762 §3, §5, §20, §22",
        "Other FF0X::FB scopes are info.", example: "query to 224.0.0.252:5353")

    public static let descriptors: [RuleDescriptor] = [
        header, counts, trailing, labels, nameLength, pointerDirection, pointerLoop, utf8Names, rdlength, rdata, ttlMSB,
        rrClass, opt, ednsOptions, rdataCompression, nsecBitmap, queryID, responseID, responseAA, queryAA, opcode, rcode,
        tc, rd, zFlags, questionsInResponse, qclass, qtype, legacyQuery, authority, knownAnswerFlush, probeFlush, sections,
        sharedFlush, uniqueFlush, ttls, rrsetTTL, nsecForm, nsecConsistent, srvTarget, additionalRecords, otherFamily,
        addressValid, emptyTXT, txtKeys, txtDuplicate, txtSize, instanceStructure, serviceLabel, instanceLabel, subtype,
        enumeration, hostNames, duplicates, localNames, sourcePort, responseDestination, legacyQuestion, legacyTTL, ipTTL,
        onLink, size, fragmented, group,
    ]
}
