import DNS
import Findings
import NetLayers
import WireFormat

/// mDNS messages as text lines and CONTRACT JSON fields (strings are built only here).
enum MDNSRender {
    static func record(_ m: DNSMessage, _ d: Datagram, srcText: String, dstText: String, verbose: Bool, fields wantFields: Bool = true) -> MessageRecord {
        let p = m.payload
        let h = m.header
        var summary: String
        if m.payload.count < 12 {
            summary = "not DNS (\(m.payload.count) bytes)"
        } else if !h.qr {
            var parts: [String] = []
            for q in m.questions {
                parts.append((q.unicastResponse ? "[QU] " : "") + "\(q.type) \(q.name.presentation(in: p))")
            }
            summary = (d.srcPort != 5353 ? "legacy query" : m.authorities.isEmpty ? "query" : "probe")
                + (h.id != 0 ? " id \(h.id)" : "") + (parts.isEmpty ? "" : " " + parts.joined(separator: ", "))
            if !m.answers.isEmpty { summary += " (\(m.answers.count) known answer\(m.answers.count == 1 ? "" : "s"))" }
            if h.tc { summary += " [TC]" }
        } else {
            summary = (d.dstPort != 5353 ? "legacy response" : "response") + ":"
            summary += " " + m.answers.map { brief($0, m) }.joined(separator: ", ")
            if !m.additionals.isEmpty { summary += " (+\(m.additionals.count) additional)" }
        }
        if !m.isComplete && m.payload.count >= 12 { summary += " [malformed]" }
        if d.isTruncated { summary += " [truncated]" }
        var detail: [String] = []
        if verbose {
            detail.append("id \(h.id) flags 0x\(String(h.flags, radix: 16)) qd \(h.qdcount) an \(h.ancount) ns \(h.nscount) ar \(h.arcount)")
            for q in m.questions {
                detail.append("question \(q.name.presentation(in: p)) \(q.type) class \(q.qclass)\(q.unicastResponse ? " QU" : "")")
            }
            for (s, rr) in m.records { detail.append("\(s.rawValue.dropLast()) \(full(rr, m))") }
        }
        // JSON fields only for JSON lines, and only for a payload that holds a DNS header.
        let fields: [(String, JSONValue)] = !wantFields || m.payload.count < 12 ? [] : [
            ("id", .int(h.id)),
            ("flags", .object([
                ("qr", .bool(h.qr)), ("opcode", .int(h.opcode)), ("aa", .bool(h.aa)), ("tc", .bool(h.tc)), ("rd", .bool(h.rd)),
                ("ra", .bool(h.ra)), ("z", .bool(h.z)), ("ad", .bool(h.ad)), ("cd", .bool(h.cd)), ("rcode", .int(h.rcode)),
            ])),
            ("questions", .array(m.questions.map { q in
                .object([("name", .string(q.name.presentation(in: p))), ("type", .string(q.type.description)),
                         ("class", .int(q.qclass)), ("unicast_response", .bool(q.unicastResponse))])
            })),
            ("answers", .array(m.answers.map { json($0, m) })),
            ("authorities", .array(m.authorities.map { json($0, m) })),
            ("additionals", .array(m.additionals.map { json($0, m) })),
        ]
        return MessageRecord(
            frame: d.frame, time: d.time, src: srcText, sport: d.srcPort, dst: dstText,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .mdns, kind: h.qr ? "response" : "query", summary: summary,
            detail: detail, fields: fields)
    }

    static func rdataText(_ rr: ResourceRecord, _ m: DNSMessage) -> String {
        let p = m.payload
        switch rr.value {
        case .a(let v): return IPAddress.v4(v).description
        case .aaaa(let hi, let lo): return IPAddress.v6(hi, lo).description
        case .name(let n): return n.presentation(in: p)
        case .srv(let pr, let w, let port, let t): return "\(pr) \(w) \(port) \(t.presentation(in: p))"
        case .txt: return "[" + m.characterStrings(rr).map { DNSText.characterString($0) }.joined(separator: " ") + "]"
        case .hinfo: return m.characterStrings(rr).map { "\"\(DNSText.characterString($0))\"" }.joined(separator: " ")
        case .nsec(let n, let bitmap): return "\(n.presentation(in: p)) (\(m.nsecTypes(bitmap).map(\.description).joined(separator: " ")))"
        case .opt: return "udp \(rr.rawClass)"
        case .unknown: return "\(rr.rdata.count) bytes"
        }
    }

    static func brief(_ rr: ResourceRecord, _ m: DNSMessage) -> String {
        var s = "\(rr.type) \(rdataText(rr, m))"
        if rr.cacheFlush { s += " (flush)" }
        s += rr.ttl == 0 ? " goodbye" : " TTL \(rr.ttl)"
        return s
    }

    static func full(_ rr: ResourceRecord, _ m: DNSMessage) -> String {
        "\(rr.name.presentation(in: m.payload)) \(rr.type) class \(rr.rrclass)\(rr.cacheFlush ? " (flush)" : "") TTL \(rr.ttl) \(rdataText(rr, m))"
    }

    static func json(_ rr: ResourceRecord, _ m: DNSMessage) -> JSONValue {
        let p = m.payload
        let rdata: JSONValue
        switch rr.value {
        case .a(let v): rdata = .object([("address", .string(IPAddress.v4(v).description))])
        case .aaaa(let hi, let lo): rdata = .object([("address", .string(IPAddress.v6(hi, lo).description))])
        case .name(let n): rdata = .object([("target", .string(n.presentation(in: p)))])
        case .srv(let pr, let w, let port, let t):
            rdata = .object([("priority", .int(pr)), ("weight", .int(w)), ("port", .int(port)), ("target", .string(t.presentation(in: p)))])
        case .txt: rdata = .object([("strings", .array(m.characterStrings(rr).map { .string(DNSText.characterString($0)) }))])
        case .hinfo:
            let s = m.characterStrings(rr)
            rdata = .object([("cpu", .string(s.first.map { DNSText.characterString($0) } ?? "")),
                             ("os", .string(s.count > 1 ? DNSText.characterString(s[1]) : ""))])
        case .nsec(let n, let bitmap):
            rdata = .object([("next", .string(n.presentation(in: p))), ("types", .array(m.nsecTypes(bitmap).map { .string($0.description) }))])
        case .opt:
            var options: [JSONValue] = []
            for o in m.ednsOptions(rr) {
                var fields: [(String, JSONValue)] = [("code", .int(o.code))]
                if o.code == 4, let owner = EDNSOwnerOption(o.data) {
                    fields.append(("owner", .object([
                        ("version", .int(owner.version)), ("sequence", .int(owner.sequence)),
                        ("primary_mac", .string(mac(owner.primaryMAC))),
                        ("wakeup_mac", owner.wakeupMAC.map { .string(mac($0)) } ?? .null),
                        ("password", owner.password.map { .string(hexString($0)) } ?? .null),
                    ])))
                } else {
                    fields.append(("hex", .string(hexString(o.data))))
                }
                options.append(.object(fields))
            }
            rdata = .object([
                ("udp_payload_size", .int(rr.rawClass)), ("extended_rcode", .int((rr.ttl >> 24) & 0xFF)),
                ("version", .int((rr.ttl >> 16) & 0xFF)), ("do", .bool(rr.ttl & 0x8000 != 0)), ("options", .array(options)),
            ])
        case .unknown: rdata = .object([("hex", .string(hexString(p[rr.rdata])))])
        }
        return .object([
            ("name", .string(rr.name.presentation(in: p))), ("type", .string(rr.type.description)), ("class", .int(rr.rrclass)),
            ("cache_flush", .bool(rr.cacheFlush)), ("ttl", .int(rr.ttl)), ("rdata", rdata),
        ])
    }

    static func mac(_ b: ArraySlice<UInt8>) -> String {
        b.map { x in let s = String(x, radix: 16); return s.count == 1 ? "0" + s : s }.joined(separator: ":")
    }
}
