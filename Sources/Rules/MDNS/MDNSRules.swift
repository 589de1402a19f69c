import DNS
import Findings
import NetLayers
import WireFormat

/// The stateless mDNS / DNS-SD rules, in catalog order.
public enum MDNSRules {
    typealias C = MDNSCatalog

    static func anomalyRule(_ d: RuleDescriptor, _ kinds: [DNSAnomaly.Kind], severity: Severity? = nil, suppressWhenTruncated: Bool = true,
        _ text: @escaping @Sendable (DNSAnomaly) -> String) -> MDNSRule
    {
        MDNSRule(d) { i, out in
            if suppressWhenTruncated && i.truncated { return }
            for a in i.message.anomalies where kinds.contains(a.kind) {
                let place = a.section.map { " (\($0.rawValue)[\(a.index)])" } ?? ""
                out.report(d, severity: severity, text(a) + place, field: "offset \(a.offset)")
            }
        }
    }

    static func looksLikeText(_ p: [UInt8]) -> Bool {
        let head = p.prefix(16)
        guard head.count >= 4 else { return false }
        return head.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    static let metaTypes: Set<UInt16> = [0, 251, 252, 253, 254, 255]
    static let nameCompressible: Set<UInt16> = [2, 5, 12, 39, 6, 15, 18, 21, 36, 17, 26, 33, 47]

    public static let all: [MDNSRule] = [
        MDNSRule(C.header) { i, out in
            if i.message.anomalies.contains(where: { $0.kind == .shortHeader }) && !i.truncated {
                out.report(C.header, "payload of \(i.datagram.payload.count) byte(s) is shorter than a DNS header"
                    + (looksLikeText(i.datagram.payload) ? " and looks like text, not DNS: an application misusing the mDNS group" : ""))
            }
        },
        MDNSRule(C.counts) { i, out in
            guard !i.truncated, i.message.payload.count >= 12, !i.message.isComplete else { return }
            let h = i.header
            if looksLikeText(i.message.payload) {
                out.report(C.counts, "payload does not look like DNS (it starts with \"\(MDNSText.show(i.message.payload.prefix(24)))\"): an application is misusing port 5353")
                return
            }
            if let a = i.message.anomalies.first(where: { $0.kind == .countsBeyondData }) {
                out.report(C.counts, "counts \(h.qdcount)/\(h.ancount)/\(h.nscount)/\(h.arcount) run past the data at offset \(a.offset)", field: "offset \(a.offset)")
            }
        },
        anomalyRule(C.trailing, [.trailingBytes]) { a in "extra bytes after the last counted record, from offset \(a.offset)" },
        anomalyRule(C.labels, [.labelType]) { a in "label length byte at offset \(a.offset) has a reserved or extended label type" },
        anomalyRule(C.nameLength, [.nameTooLong]) { a in "name at offset \(a.offset) is longer than 255 octets" },
        anomalyRule(C.pointerDirection, [.badPointer]) { a in "compression pointer at offset \(a.offset) does not point backwards into the message body" },
        MDNSRule(C.pointerLoop) { (i: MDNSMessageView, out) in
            for a in i.message.anomalies {
                if a.kind == .pointerLoop {
                    out.report(C.pointerLoop, severity: .error, "compression pointer at offset \(a.offset) re-enters labels already read (a loop)", field: "offset \(a.offset)")
                } else if a.kind == .pointerToPointer {
                    out.report(C.pointerLoop, severity: .info, "compression pointer at offset \(a.offset) points to another pointer (mDNSResponder rejects this)", field: "offset \(a.offset)")
                }
            }
        },
        MDNSRule(C.utf8Names) { (i: MDNSMessageView, out) in
            var bad: [String] = []
            for q in i.message.questions { q.name.forEachLabel(in: i.message.payload) { if !ASCII.isValidUTF8($0) { bad.append(i.name(q.name)) } } }
            for r in i.records where !r.allLabelsUTF8 { bad.append(i.name(r.record.name)) }
            if let first = bad.first { out.report(C.utf8Names, "name \(first) is not valid UTF-8") }
        },
        anomalyRule(C.rdlength, [.rdlengthOverrun]) { a in "RDLENGTH at offset \(a.offset) runs past the end of the datagram" },
        anomalyRule(C.rdata, [.rdataLength]) { a in "RDATA at offset \(a.offset) does not fill its RDLENGTH exactly for its type" },
        MDNSRule(C.ttlMSB) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.type != .opt && r.record.ttl & 0x8000_0000 != 0 {
                out.report(C.ttlMSB, "\(i.name(r.record.name)) \(r.record.type) has TTL \(r.record.ttl) with the top bit set (receivers read 0)")
            }
        },
        MDNSRule(C.rrClass) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.type != .opt {
                if metaTypes.contains(r.record.type.rawValue) {
                    out.report(C.rrClass, severity: .error, "\(i.name(r.record.name)) is a record of query-only type \(r.record.type)")
                } else if r.record.rrclass != 1 {
                    out.report(C.rrClass, severity: .warning, "\(i.name(r.record.name)) \(r.record.type) has class \(r.record.rrclass), not IN")
                }
            }
        },
        MDNSRule(C.opt) { (i: MDNSMessageView, out) in
            let opts = i.records.filter { $0.record.type == .opt }
            if opts.count > 1 { out.report(C.opt, "\(opts.count) OPT records") }
            for o in opts {
                if o.section != .additional { out.report(C.opt, "OPT record in the \(o.section.rawValue) section") }
                if o.labelCount > 0 { out.report(C.opt, "OPT owner is \(i.name(o.record.name)), not the root") }
                let version = (o.record.ttl >> 16) & 0xFF
                if version != 0 { out.report(C.opt, "EDNS version \(version), not 0") }
                if o.record.ttl & 0x7FFF != 0 { out.report(C.opt, "EDNS Z bits are not zero") }
                if o.record.rawClass < 512 { out.report(C.opt, severity: .info, "EDNS UDP payload size \(o.record.rawClass) is below 512 (read as 512)") }
            }
        },
        anomalyRule(C.ednsOptions, [.optionLength, .ownerOption]) { a in
            a.kind == .ownerOption ? "EDNS Owner option at offset \(a.offset) has a version other than 0 or a length other than 8, 14, 18 or 20"
                : "EDNS option at offset \(a.offset) runs past its RDATA"
        },
        anomalyRule(C.rdataCompression, [.compressedRDataName], suppressWhenTruncated: false) { a in "compression pointer at offset \(a.offset) inside RDATA of a type whose names are not compressed" },
        anomalyRule(C.nsecBitmap, [.nsecBitmap]) { a in "NSEC type bitmap block at offset \(a.offset) is out of order, empty, longer than 32 bytes or ends in a zero octet" },
        MDNSRule(C.queryID) { i, out in
            if i.isQuery, i.isMulticast, i.datagram.srcPort == 5353, i.header.id != 0 {
                out.report(C.queryID, "multicast query from port 5353 has ID \(hex16(i.header.id)), not 0")
            }
        },
        MDNSRule(C.responseID) { i, out in
            if i.isResponse, i.isMulticast, i.header.id != 0 {
                out.report(C.responseID, "multicast response has ID \(hex16(i.header.id)), not 0")
            }
        },
        MDNSRule(C.responseAA) { (i: MDNSMessageView, out) in
            if i.isResponse, !i.header.aa { out.report(C.responseAA, "response without the AA bit (flags \(hex16(i.header.flags)))") }
        },
        MDNSRule(C.queryAA) { (i: MDNSMessageView, out) in
            if i.isQuery, i.header.aa { out.report(C.queryAA, "query with the AA bit set (flags \(hex16(i.header.flags)))") }
        },
        MDNSRule(C.opcode) { i, out in
            if i.header.opcode != 0 && i.datagram.dstPort == 5353 { out.report(C.opcode, "OPCODE \(i.header.opcode); receivers ignore the message") }
        },
        MDNSRule(C.rcode) { i, out in
            if i.header.rcode != 0 && !i.isLegacyResponse { out.report(C.rcode, "RCODE \(i.header.rcode); receivers ignore the message") }
        },
        MDNSRule(C.tc) { i, out in
            if i.isResponse, i.isMulticast, i.header.tc { out.report(C.tc, "multicast response with TC set") }
        },
        MDNSRule(C.rd) { i, out in
            if i.header.rd { out.report(C.rd, severity: i.isLegacyQuery || i.isLegacyResponse ? .info : .warning, "RD is set") }
        },
        MDNSRule(C.zFlags) { i, out in
            guard i.isMulticast else { return }
            let h = i.header
            let set = [("RA", h.ra), ("Z", h.z), ("AD", h.ad), ("CD", h.cd)].filter(\.1).map(\.0)
            if !set.isEmpty { out.report(C.zFlags, "\(set.joined(separator: ", ")) set in a multicast message (flags \(hex16(h.flags)))") }
        },
        MDNSRule(C.questionsInResponse) { i, out in
            if i.isResponse, !i.isLegacyResponse, i.header.qdcount > 0 {
                out.report(C.questionsInResponse, "response carries \(i.header.qdcount) question(s); avahi drops the whole packet")
            }
        },
        MDNSRule(C.qclass) { (i: MDNSMessageView, out) in
            for q in i.message.questions where q.qclass != 1 && q.qclass != 255 {
                out.report(C.qclass, "question \(i.name(q.name)) has class \(q.qclass)")
            }
        },
        MDNSRule(C.qtype) { (i: MDNSMessageView, out) in
            for q in i.message.questions where (251...254).contains(q.type.rawValue) {
                out.report(C.qtype, "question \(i.name(q.name)) asks for \(q.type)")
            }
        },
        MDNSRule(C.legacyQuery) { i, out in
            guard i.isLegacyQuery else { return }
            if i.message.questions.contains(where: \.unicastResponse) { out.report(C.legacyQuery, "legacy query (port \(i.datagram.srcPort)) sets the QU bit") }
            if i.header.ancount > 0 || i.header.nscount > 0 {
                out.report(C.legacyQuery, "legacy query carries \(i.header.ancount) answer(s) and \(i.header.nscount) authority record(s); avahi drops it")
            }
        },
        MDNSRule(C.authority) { (i: MDNSMessageView, out) in
            guard !i.message.authorities.isEmpty else { return }
            if i.isResponse {
                out.report(C.authority, severity: .warning, "response carries \(i.message.authorities.count) authority record(s); avahi drops it")
                return
            }
            for a in i.records where a.section == .authority && !i.message.questions.contains(where: { $0.name.equals(a.record.name, in: i.message.payload) }) {
                out.report(C.authority, severity: .error, "probe record \(i.name(a.record.name)) matches no question")
            }
        },
        MDNSRule(C.knownAnswerFlush) { (i: MDNSMessageView, out) in
            guard i.isQuery else { return }
            for r in i.records where r.section == .answer && r.record.cacheFlush {
                out.report(C.knownAnswerFlush, "known answer \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
            }
        },
        MDNSRule(C.probeFlush) { (i: MDNSMessageView, out) in
            guard i.isQuery else { return }
            for r in i.records where r.section == .authority && r.record.cacheFlush {
                out.report(C.probeFlush, "probe record \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
            }
        },
        MDNSRule(C.sections) { (i: MDNSMessageView, out) in
            guard i.message.isComplete else { return }
            let h = i.header
            if i.isResponse && h.ancount == 0 {
                out.report(C.sections, severity: .error, "response with no answers (counts \(h.qdcount)/\(h.ancount)/\(h.nscount)/\(h.arcount)); avahi drops it")
            } else if i.isQuery && h.qdcount == 0 && h.ancount == 0 {
                out.report(C.sections, severity: .warning, "query with neither questions nor known answers")
            }
        },
        MDNSRule(C.sharedFlush) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.cacheFlush && i.isShared(r) {
                out.report(C.sharedFlush, "shared record \(i.name(r.record.name)) PTR has the cache-flush bit")
            }
        },
        MDNSRule(C.uniqueFlush) { i, out in
            guard i.isResponse, i.isMulticast, !i.isLegacyResponse else { return }
            for r in i.records where r.section != .authority && i.isUnique(r) && !r.record.cacheFlush && r.record.ttl != 0 {
                out.report(C.uniqueFlush, "unique record \(i.name(r.record.name)) \(r.record.type) lacks the cache-flush bit")
            }
        },
        MDNSRule(C.ttls) { i, out in
            guard i.isResponse, !i.isLegacyResponse else { return }
            for r in i.records where r.record.type != .opt && r.record.type != .nsec && r.record.ttl != 0 {
                let host = i.isHostRecord(r)
                let ttl = r.record.ttl
                if host {
                    if ttl < 12 { out.report(C.ttls, severity: .warning, "\(i.name(r.record.name)) \(r.record.type) TTL \(ttl); 120 s is recommended") }
                    else if ttl == 4500 { out.report(C.ttls, severity: .info, "\(i.name(r.record.name)) \(r.record.type) TTL 4500 (Apple's choice; RFC 6762 recommends 120 s for host records)") }
                } else if ttl < 450 {
                    out.report(C.ttls, severity: .warning, "\(i.name(r.record.name)) \(r.record.type) TTL \(ttl); 4500 s is recommended")
                } else if i.isShared(r) && ttl < 1125 {
                    out.report(C.ttls, severity: .info, "browse PTR \(i.name(r.record.name)) TTL \(ttl) (python-zeroconf raises PTR TTLs below 1125 s)")
                }
            }
        },
        MDNSRule(C.rrsetTTL) { (i: MDNSMessageView, out) in
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
                    guard b.record.type == a.record.type && b.record.rrclass == a.record.rrclass
                        && b.record.ttl != a.record.ttl && a.record.ttl != 0 && b.record.ttl != 0
                        && b.record.name.equals(a.record.name, in: i.message.payload)
                    else { continue }
                    out.report(C.rrsetTTL, "\(i.name(a.record.name)) \(a.record.type) records carry TTLs \(a.record.ttl) and \(b.record.ttl)")
                    reported = true
                    break
                }
            }
        },
        MDNSRule(C.nsecForm) { (i: MDNSMessageView, out) in
            guard i.isResponse else { return }
            for r in i.records {
                guard case .nsec(let next, let bitmap) = r.record.value else { continue }
                if !next.equals(r.record.name, in: i.message.payload) {
                    out.report(C.nsecForm, severity: .warning, "NSEC \(i.name(r.record.name)) names \(i.name(next)) as next, not itself")
                }
                if i.message.nsecHasTypeAbove255(bitmap) { out.report(C.nsecForm, severity: .warning, "NSEC \(i.name(r.record.name)) uses a window other than 0") }
                if i.message.nsecHas(bitmap, .nsec) { out.report(C.nsecForm, severity: .error, "NSEC \(i.name(r.record.name)) sets the NSEC bit in a synthesized NSEC") }
            }
        },
        MDNSRule(C.nsecConsistent) { (i: MDNSMessageView, out) in
            for r in i.records {
                guard case .nsec(_, let bitmap) = r.record.value else { continue }
                // The bitmap lists the types that exist; any other type is denied.
                for o in i.records where o.record.type != .nsec && o.record.type != .opt && !i.message.nsecHas(bitmap, o.record.type)
                    && o.record.name.equals(r.record.name, in: i.message.payload)
                {
                    out.report(C.nsecConsistent, "NSEC \(i.name(r.record.name)) denies \(o.record.type) but the message carries one")
                    break
                }
            }
        },
        MDNSRule(C.srvTarget) { (i: MDNSMessageView, out) in
            for r in i.records {
                guard case .srv(_, _, _, let target) = r.record.value, let t = r.target else { continue }
                if t.labelCount == 0 { out.report(C.srvTarget, "SRV \(i.name(r.record.name)) has the root as target") }
                else if t.dnssd.kind == .instance { out.report(C.srvTarget, "SRV target \(i.name(target)) is a service instance name, not a host") }
            }
        },
        MDNSRule(C.additionalRecords) { i, out in
            guard i.isResponse, i.isMulticast else { return }
            let p = i.message.payload
            for r in i.records where r.section == .answer {
                if case .name(let target) = r.record.value, r.record.type == .ptr, r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype,
                    r.target?.dnssd.kind == .instance
                {
                    let hasSRV = i.records.contains { $0.record.type == .srv && $0.record.name.equals(target, in: p) }
                    let hasTXT = i.records.contains { $0.record.type == .txt && $0.record.name.equals(target, in: p) }
                    if !hasSRV || !hasTXT {
                        out.report(C.additionalRecords, "PTR answer \(i.name(target)) without its \([hasSRV ? nil : "SRV", hasTXT ? nil : "TXT"].compactMap { $0 }.joined(separator: " and "))")
                    }
                }
            }
        },
        MDNSRule(C.otherFamily) { i, out in
            guard i.isResponse, i.isMulticast else { return }
            let p = i.message.payload
            for r in i.records where r.section == .answer && (r.record.type == .a || r.record.type == .aaaa) {
                let other: RecordType = r.record.type == .a ? .aaaa : .a
                let covered = i.records.contains { ($0.record.type == other || $0.record.type == .nsec) && $0.record.name.equals(r.record.name, in: p) }
                if !covered {
                    out.report(C.otherFamily, "\(r.record.type) answer for \(i.name(r.record.name)) without \(other) or an NSEC denying it")
                    return
                }
            }
        },
        MDNSRule(C.addressValid) { i, out in
            guard i.isResponse else { return }
            for r in i.records {
                let addr: IPAddress
                switch r.record.value {
                case .a(let v): addr = .v4(v)
                case .aaaa(let hi, let lo): addr = .v6(hi, lo)
                default: continue
                }
                if addr.isLoopback || addr.isUnspecified || addr.isMulticast {
                    out.report(C.addressValid, severity: .error, "\(i.name(r.record.name)) \(r.record.type) \(addr) is not usable on the link")
                } else if case .v4(let a) = addr, case .v4(let s) = i.datagram.src, a >> 8 != s >> 8, !addr.isLinkLocal {
                    out.report(C.addressValid, severity: .info, "\(i.name(r.record.name)) A \(addr) is outside the sender's /24 (\(i.datagram.src)); another interface's address?")
                }
            }
        },
        MDNSRule(C.emptyTXT) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.type == .txt {
                if r.record.rdata.isEmpty {
                    out.report(C.emptyTXT, severity: .error, "TXT \(i.name(r.record.name)) is empty (RDLENGTH 0); use a single zero byte")
                } else {
                    var count = 0
                    var empty = false
                    i.message.forEachCharacterString(r.record) { s in
                        count += 1
                        if s.isEmpty { empty = true }
                        return true
                    }
                    if count > 1 && empty {
                        out.report(C.emptyTXT, severity: .info, "TXT \(i.name(r.record.name)) mixes empty strings with others (avahi drops them)")
                    }
                }
            }
        },
        MDNSRule(C.txtKeys) { (i: MDNSMessageView, out) in
            let p = i.message.payload
            for r in i.records where r.record.type == .txt && r.dnssd.kind == .instance {
                i.message.forEachTXTKey(r.record) { string, key in
                    guard !string.isEmpty else { return true }
                    if key.isEmpty {
                        out.report(C.txtKeys, severity: .error, "TXT \(i.name(r.record.name)) string \"\(MDNSText.show(p[string].prefix(40)))\" has no key")
                    } else if p[key].contains(where: { $0 < 0x20 || $0 > 0x7E }) {
                        out.report(C.txtKeys, severity: .error, "TXT \(i.name(r.record.name)) key \"\(MDNSText.show(p[key]))\" is not printable ASCII")
                    } else if key.count > 9 {
                        out.report(C.txtKeys, severity: .warning, "TXT key \(MDNSText.show(p[key])) is \(key.count) characters (9 at most recommended)")
                    }
                    return true
                }
            }
        },
        MDNSRule(C.txtDuplicate) { (i: MDNSMessageView, out) in
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
                    out.report(C.txtDuplicate, "TXT \(i.name(r.record.name)) repeats key \(MDNSText.show(p[key]))")
                }
            }
        },
        MDNSRule(C.txtSize) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.type == .txt {
                let n = r.record.rdata.count
                if n > 1300 { out.report(C.txtSize, severity: .warning, "TXT \(i.name(r.record.name)) is \(n) bytes (over 1300 is not recommended)") }
                else if n > 400 { out.report(C.txtSize, severity: .info, "TXT \(i.name(r.record.name)) is \(n) bytes") }
            }
        },
        MDNSRule(C.instanceStructure) { (i: MDNSMessageView, out) in
            for r in i.records {
                if r.record.type == .srv && r.dnssd.kind != .instance && !r.hasUnderscoreLabel {
                    out.report(C.instanceStructure, "SRV owner \(i.name(r.record.name)) is not Instance.Service.Domain")
                }
                if case .name(let t) = r.record.value, r.record.type == .ptr, r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype {
                    if r.target?.dnssd.kind != .instance { out.report(C.instanceStructure, "browse PTR \(i.name(r.record.name)) points to \(i.name(t)), not a service instance") }
                }
            }
        },
        MDNSRule(C.serviceLabel) { (i: MDNSMessageView, out) in
            // Labels are checked as payload ranges; a slice and the problem's text are made
            // only for a label that fails.
            func check(_ range: Range<Int>?, _ d: DNSSDName) -> Bool {
                guard let range, d.kind != .other, let problem = serviceLabelProblem(i.message.payload, range) else { return false }
                out.report(C.serviceLabel, "service label \(MDNSText.show(i.bytes(range))): \(problem)")
                return true
            }
            for q in i.questionNames where check(q.serviceLabel, q.dnssd) { return }
            for r in i.records where check(r.serviceLabel, r.dnssd) { return }
        },
        MDNSRule(C.instanceLabel) { (i: MDNSMessageView, out) in
            for r in i.records where r.dnssd.kind == .instance {
                guard let first = r.firstLabel else { continue }
                let label = i.bytes(first)
                if label.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                    out.report(C.instanceLabel, "instance label of \(i.name(r.record.name)) contains control characters")
                    return
                }
            }
        },
        MDNSRule(C.subtype) { (i: MDNSMessageView, out) in
            let p = i.message.payload
            for r in i.records where r.record.type == .ptr && r.dnssd.kind == .subtype {
                guard case .name(let t) = r.record.value, let service = r.serviceLabel, let td = r.target else { continue }
                if let ts = td.serviceLabel, td.dnssd.kind == .instance, !ASCII.equalsIgnoringCase(p, ts, service) {
                    out.report(C.subtype, "subtype PTR \(i.name(r.record.name)) points to \(i.name(t)) of another service")
                }
            }
        },
        MDNSRule(C.enumeration) { (i: MDNSMessageView, out) in
            for r in i.records where r.record.type == .ptr && r.dnssd.kind == .serviceEnumeration {
                guard case .name(let t) = r.record.value else { continue }
                if r.target?.dnssd.kind != .serviceType {
                    out.report(C.enumeration, "_services._dns-sd._udp PTR points to \(i.name(t)), not a service type")
                }
            }
        },
        MDNSRule(C.hostNames) { (i: MDNSMessageView, out) in
            for r in i.records where (r.record.type == .a || r.record.type == .aaaa) && r.labelCount > 0 && !r.hostLabelsLDH {
                let p = i.message.payload
                if let bad = i.labelRanges(r.record.name).dropLast().first(where: { !MDNSInput.isLDH(p, $0) }) {
                    out.report(C.hostNames, "host name \(i.name(r.record.name)) has label \(MDNSText.show(p[bad])) outside letters, digits and hyphens")
                    return
                }
            }
        },
        MDNSRule(C.duplicates) { (i: MDNSMessageView, out) in
            let p = i.message.payload
            let records = i.records
            for k in records.indices where records[k].record.type != .opt {
                let a = records[k]
                if ((k + 1)..<records.count).contains(where: { j in
                    let b = records[j]
                    return b.record.type == a.record.type && b.record.rrclass == a.record.rrclass
                        && b.record.name.equals(a.record.name, in: p) && sameRData(a.record, b.record, p)
                }) {
                    out.report(C.duplicates, "\(i.name(a.record.name)) \(a.record.type) appears twice in the packet")
                    return
                }
            }
        },
        MDNSRule(C.localNames) { (i: MDNSMessageView, out) in
            func report(_ n: DNSName) { out.report(C.localNames, "\(i.name(n)) is not under local. or a link-local reverse zone") }
            for (q, info) in zip(i.message.questions, i.questionNames) where !info.isLocalName {
                report(q.name)
                return
            }
            for r in i.records where r.record.type != .opt && !r.isLocalName {
                report(r.record.name)
                return
            }
        },
        MDNSRule(C.sourcePort) { i, out in
            if i.isResponse, i.datagram.srcPort != 5353 { out.report(C.sourcePort, "response from port \(i.datagram.srcPort); receivers must ignore it") }
        },
        MDNSRule(C.responseDestination) { i, out in
            guard i.isResponse, i.isMulticast else { return }
            if i.datagram.dstPort != 5353 { out.report(C.responseDestination, "multicast response to port \(i.datagram.dstPort)") }
        },
        MDNSRule(C.legacyQuestion) { i, out in
            if i.isLegacyResponse, i.header.qdcount == 0 {
                out.report(C.legacyQuestion, "unicast response to port \(i.datagram.dstPort) does not repeat the question")
            }
        },
        MDNSRule(C.legacyTTL) { i, out in
            guard i.isLegacyResponse else { return }
            if let r = i.records.first(where: { $0.record.cacheFlush }) {
                out.report(C.legacyTTL, severity: .error, "legacy unicast response: \(i.name(r.record.name)) \(r.record.type) has the cache-flush bit")
            }
            if let r = i.records.first(where: { $0.record.type != .opt && $0.record.ttl > 10 }) {
                out.report(C.legacyTTL, severity: .warning, "legacy unicast response: \(i.name(r.record.name)) \(r.record.type) TTL \(r.record.ttl) (10 s at most)")
            }
        },
        MDNSRule(C.ipTTL) { i, out in
            guard i.datagram.hopLimit != 255 else { return }
            if i.isResponse {
                out.report(C.ipTTL, severity: .warning, "response sent with IP \(i.datagram.isIPv6 ? "hop limit" : "TTL") \(i.datagram.hopLimit); older queriers ignore anything but 255")
            } else if !i.isLegacyQuery {
                out.report(C.ipTTL, severity: .info, "query sent with IP \(i.datagram.isIPv6 ? "hop limit" : "TTL") \(i.datagram.hopLimit)")
            }
        },
        MDNSRule(C.onLink) { i, out in
            guard i.isResponse, !i.isMulticast, case .v4(let s) = i.datagram.src, case .v4(let d) = i.datagram.dst else { return }
            if s >> 8 != d >> 8 {
                out.report(C.onLink, severity: .info, "unicast response from \(i.datagram.src) to \(i.datagram.dst): not on the same /24, possibly off-link")
            }
        },
        MDNSRule(C.size) { i, out in
            if i.datagram.ipPacketLength > 9000 { out.report(C.size, "packet of \(i.datagram.ipPacketLength) bytes (9000 at most)") }
        },
        MDNSRule(C.fragmented) { i, out in
            let n = i.message.answers.count + i.message.authorities.count + i.message.additionals.count
            if i.datagram.wasFragmented && n > 1 {
                out.report(C.fragmented, "IP-fragmented packet carries \(n) records; a packet larger than the MTU may carry only one")
            }
        },
        MDNSRule(C.group) { i, out in
            let d = i.datagram
            guard d.dst.isMulticast, d.dstPort == 5353 else { return }
            if d.dst == .mdnsIPv4 || d.dst == .mdnsIPv6 { return }
            if case .v6(let hi, let lo) = d.dst, lo == 0xFB, hi & 0xFFF0_FFFF_FFFF_FFFF == 0xFF00_0000_0000_0000 {
                out.report(C.group, severity: .info, "mDNS to \(d.dst), a scope RFC 6762 does not use")
            } else {
                out.report(C.group, severity: .error, "UDP/5353 traffic to \(d.dst), not 224.0.0.251 or FF02::FB")
            }
        },
    ]

    static func hex16(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - s.count) + s
    }

    /// What is wrong with the service label `p[r]` (RFC 6335 §5.1: `_`, then 1–15 letters,
    /// digits and single inner hyphens, at least one letter); nil when nothing is. Read in
    /// place: a string is made only for a label that fails.
    static func serviceLabelProblem(_ p: [UInt8], _ range: Range<Int>) -> String? {
        let r = range.clamped(to: p.indices)
        guard let f = r.first, p[f] == 0x5F else { return "does not start with _" }
        let body = (r.lowerBound + 1)..<r.upperBound
        if body.isEmpty || body.count > 15 { return "\(body.count) characters after _ (1–15)" }
        var letter = false
        var doubleHyphen = false
        var previous: UInt8 = 0
        for k in body {
            let b = p[k]
            if ASCII.isAlpha(b) {
                letter = true
            } else if b == 0x2D {
                if previous == 0x2D { doubleHyphen = true }
            } else if !ASCII.isDigit(b) {
                return "characters other than letters, digits and hyphens"
            }
            previous = b
        }
        if !letter { return "no letter" }
        if p[body.lowerBound] == 0x2D || p[body.upperBound - 1] == 0x2D { return "leading or trailing hyphen" }
        if doubleHyphen { return "double hyphen" }
        return nil
    }

    /// RDATA equality, comparing embedded names by value (they may be compressed differently).
    static func sameRData(_ a: ResourceRecord, _ b: ResourceRecord, _ p: [UInt8]) -> Bool {
        switch (a.value, b.value) {
        case (.name(let x), .name(let y)): return x.equals(y, in: p)
        case (.srv(let p1, let w1, let o1, let x), .srv(let p2, let w2, let o2, let y)):
            return p1 == p2 && w1 == w2 && o1 == o2 && x.equals(y, in: p)
        case (.nsec(let x, let bx), .nsec(let y, let by)): return x.equals(y, in: p) && p[bx].elementsEqual(p[by])
        default: return p[a.rdata].elementsEqual(p[b.rdata])
        }
    }
}
