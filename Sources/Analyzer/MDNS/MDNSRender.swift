import DNS
import Findings
import NetLayers
import WireFormat

/// mDNS messages as text lines and CONTRACT JSON fields (strings are built only here).
package enum MDNSRender {
    /// What a message's record shows apart from its datagram's addressing: the summary (in
    /// the caller's buffer), `-v` lines and JSON fields. It depends on the message and on
    /// `Context` alone, so a datagram repeating a payload reuses it.
    struct Content {
        var detail: [String]
        var fields: [(String, JSONValue)]
        /// `fields` as JSON text, written once for every datagram that shows this content.
        var fieldsJSON: [UInt8]
        var isResponse: Bool
    }

    /// What of the datagram the content depends on.
    struct Context: Equatable {
        /// Source port other than 5353 (a legacy query).
        var legacySource: Bool
        /// Destination port other than 5353 (a legacy response).
        var legacyDestination: Bool
        var truncated: Bool
        init(_ d: borrowing Datagram) {
            legacySource = d.srcPort != 5353
            legacyDestination = d.dstPort != 5353
            truncated = d.isTruncated
        }
    }

    /// A record from content built before, with its summary's bytes (shared, not copied).
    static func record(
        _ c: Content, _ d: borrowing Datagram, srcText: String, dstText: String, summary: [UInt8]
    ) -> MessageRecord {
        var r = MessageRecord(
            frame: d.frame, time: d.time, src: srcText, sport: d.srcPort, dst: dstText,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .mdns, kind: c.isResponse ? "response" : "query",
            summaryUTF8: summary,
            detail: c.detail, fields: c.fields)
        if !c.fields.isEmpty { r.share(fieldsJSON: c.fieldsJSON) }
        return r
    }

    static func content(
        _ m: DNSMessage, _ context: Context, verbose: Bool, fields wantFields: Bool, into b: inout [UInt8]
    ) -> Content {
        let p = m.payload
        let h = m.header
        // The summary is built as bytes and stays bytes (the text renderer copies them).
        b.removeAll(keepingCapacity: true)
        if m.payload.count < 12 {
            b.append("not DNS (")
            b.append(decimal: m.payload.count)
            b.append(" bytes)")
        } else if !h.qr {
            b.append(context.legacySource ? "legacy query" : m.authorities.isEmpty ? "query" : "probe")
            if h.id != 0 {
                b.append(" id ")
                b.append(decimal: Int(h.id))
            }
            for (k, q) in m.questions.enumerated() {
                b.append(k == 0 ? " " : ", ")
                if q.unicastResponse { b.append("[QU] ") }
                q.type.append(to: &b)
                b.append(0x20)
                q.name.appendPresentation(in: p, to: &b)
            }
            if !m.answers.isEmpty {
                b.append(" (")
                b.append(decimal: m.answers.count)
                b.append(m.answers.count == 1 ? " known answer)" : " known answers)")
            }
            if h.tc { b.append(" [TC]") }
        } else {
            b.append(context.legacyDestination ? "legacy response: " : "response: ")
            for (k, rr) in m.answers.enumerated() {
                if k > 0 { b.append(", ") }
                appendBrief(rr, m, to: &b)
            }
            if !m.additionals.isEmpty {
                b.append(" (+")
                b.append(decimal: m.additionals.count)
                b.append(" additional)")
            }
        }
        if !m.isComplete && m.payload.count >= 12 { b.append(" [malformed]") }
        if context.truncated { b.append(" [truncated]") }
        var detail: [String] = []
        if verbose {
            detail.append(
                "id \(h.id) flags 0x\(String(h.flags, radix: 16)) qd \(h.qdcount) an \(h.ancount) ns \(h.nscount) ar \(h.arcount)"
            )
            for q in m.questions {
                detail.append(
                    "question \(q.name.presentation(in: p)) \(q.type) class \(q.qclass)\(q.unicastResponse ? " QU" : "")"
                )
            }
            for (s, rr) in m.records { detail.append("\(s.rawValue.dropLast()) \(full(rr, m))") }
        }
        // JSON fields only for JSON lines, and only for a payload that holds a DNS header.
        let fields: [(String, JSONValue)] =
            !wantFields || m.payload.count < 12
            ? []
            : [
                ("id", .int(h.id)),
                (
                    "flags",
                    .object([
                        ("qr", .bool(h.qr)), ("opcode", .int(h.opcode)), ("aa", .bool(h.aa)), ("tc", .bool(h.tc)),
                        ("rd", .bool(h.rd)),
                        ("ra", .bool(h.ra)), ("z", .bool(h.z)), ("ad", .bool(h.ad)), ("cd", .bool(h.cd)),
                        ("rcode", .int(h.rcode)),
                    ])
                ),
                (
                    "questions",
                    .array(
                        m.questions.map { q in
                            .object([
                                ("name", .string(q.name.presentation(in: p))), ("type", .string(q.type.description)),
                                ("class", .int(q.qclass)), ("unicast_response", .bool(q.unicastResponse)),
                            ])
                        })
                ),
                ("answers", .array(m.answers.map { json($0, m) })),
                ("authorities", .array(m.authorities.map { json($0, m) })),
                ("additionals", .array(m.additionals.map { json($0, m) })),
            ]
        var fieldsText: [UInt8] = []
        JSONValue.writeMembers(fields, into: &fieldsText)
        return Content(detail: detail, fields: fields, fieldsJSON: fieldsText, isResponse: h.qr)
    }

    package static func rdataText(_ rr: ResourceRecord, _ m: DNSMessage) -> String {
        var b: [UInt8] = []
        appendRdata(rr, m, to: &b)
        return String(decoding: b, as: UTF8.self)
    }

    static func appendRdata(_ rr: ResourceRecord, _ m: DNSMessage, to b: inout [UInt8]) {
        let p = m.payload
        switch rr.value {
        case .a(let v): IPAddress.v4(v).appendText(to: &b)
        case .aaaa(let hi, let lo): IPAddress.v6(hi, lo).appendText(to: &b)
        case .name(let n): n.appendPresentation(in: p, to: &b)
        case .srv(let pr, let w, let port, let t):
            b.append(decimal: Int(pr))
            b.append(0x20)
            b.append(decimal: Int(w))
            b.append(0x20)
            b.append(decimal: Int(port))
            b.append(0x20)
            t.appendPresentation(in: p, to: &b)
        case .txt:
            b.append(0x5B)
            var first = true
            m.forEachCharacterString(rr) { s in
                if !first { b.append(0x20) }
                first = false
                DNSText.appendCharacterString(s, to: &b)
                return true
            }
            b.append(0x5D)
        case .hinfo:
            var first = true
            m.forEachCharacterString(rr) { s in
                if !first { b.append(0x20) }
                first = false
                b.append(0x22)
                DNSText.appendCharacterString(s, to: &b)
                b.append(0x22)
                return true
            }
        case .nsec(let n, let bitmap):
            n.appendPresentation(in: p, to: &b)
            b.append(" (")
            for (k, t) in m.nsecTypes(bitmap).enumerated() {
                if k > 0 { b.append(0x20) }
                t.append(to: &b)
            }
            b.append(0x29)
        case .opt:
            b.append("udp ")
            b.append(decimal: Int(rr.rawClass))
        case .unknown:
            b.append(decimal: rr.rdata.count)
            b.append(" bytes")
        }
    }

    static func appendBrief(_ rr: ResourceRecord, _ m: DNSMessage, to b: inout [UInt8]) {
        rr.type.append(to: &b)
        b.append(0x20)
        appendRdata(rr, m, to: &b)
        if rr.cacheFlush { b.append(" (flush)") }
        if rr.ttl == 0 {
            b.append(" goodbye")
        } else {
            b.append(" TTL ")
            b.append(decimal: Int(rr.ttl))
        }
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
            rdata = .object([
                ("priority", .int(pr)), ("weight", .int(w)), ("port", .int(port)),
                ("target", .string(t.presentation(in: p))),
            ])
        case .txt:
            rdata = .object([("strings", .array(m.characterStrings(rr).map { .string(DNSText.characterString($0)) }))])
        case .hinfo:
            let s = m.characterStrings(rr)
            rdata = .object([
                ("cpu", .string(s.first.map { DNSText.characterString($0) } ?? "")),
                ("os", .string(s.count > 1 ? DNSText.characterString(s[1]) : "")),
            ])
        case .nsec(let n, let bitmap):
            rdata = .object([
                ("next", .string(n.presentation(in: p))),
                ("types", .array(m.nsecTypes(bitmap).map { .string($0.description) })),
            ])
        case .opt:
            var options: [JSONValue] = []
            for o in m.ednsOptions(rr) {
                var fields: [(String, JSONValue)] = [("code", .int(o.code))]
                if o.code == 4, let owner = EDNSOwnerOption(o.data) {
                    fields.append(
                        (
                            "owner",
                            .object([
                                ("version", .int(owner.version)), ("sequence", .int(owner.sequence)),
                                ("primary_mac", .string(mac(owner.primaryMAC))),
                                ("wakeup_mac", owner.wakeupMAC.map { .string(mac($0)) } ?? .null),
                                ("password", owner.password.map { .string(hexString($0)) } ?? .null),
                            ])
                        ))
                } else {
                    fields.append(("hex", .string(hexString(o.data))))
                }
                options.append(.object(fields))
            }
            rdata = .object([
                ("udp_payload_size", .int(rr.rawClass)), ("extended_rcode", .int((rr.ttl >> 24) & 0xFF)),
                ("version", .int((rr.ttl >> 16) & 0xFF)), ("do", .bool(rr.ttl & 0x8000 != 0)),
                ("options", .array(options)),
            ])
        case .unknown: rdata = .object([("hex", .string(hexString(p[rr.rdata])))])
        }
        return .object([
            ("name", .string(rr.name.presentation(in: p))), ("type", .string(rr.type.description)),
            ("class", .int(rr.rrclass)),
            ("cache_flush", .bool(rr.cacheFlush)), ("ttl", .int(rr.ttl)), ("rdata", rdata),
        ])
    }

    static func mac(_ b: ArraySlice<UInt8>) -> String {
        b.map { x in
            let s = String(x, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: ":")
    }
}
