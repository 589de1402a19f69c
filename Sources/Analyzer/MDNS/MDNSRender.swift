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
        /// The CONTRACT's JSON fields as text (`MessageRecord.fieldsJSON`), written once for
        /// every datagram that shows this content.
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
        MessageRecord(
            frame: d.frame, time: d.time, src: srcText, sport: d.srcPort, dst: dstText,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .mdns, kind: c.isResponse ? "response" : "query",
            summaryUTF8: summary,
            detail: c.detail, fieldsJSON: c.fieldsJSON)
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
            for (s, rr) in m.records { detail.append("\(s.singular) \(full(rr, m))") }
        }
        // JSON fields only when asked for, and only for a payload that holds a DNS header.
        var w = JSONWriter()
        if wantFields && m.payload.count >= 12 {
            // Sized once for what most messages make (names spelt out in full, in every
            // record), not grown from empty.
            w.bytes.reserveCapacity(6 &* m.payload.count &+ 256)
            writeFields(m, to: &w)
        }
        return Content(detail: detail, fieldsJSON: w.bytes, isResponse: h.qr)
    }

    /// The CONTRACT's fields of a DNS message (header, flags, every section), as JSON
    /// members.
    static func writeFields(_ m: DNSMessage, to w: inout JSONWriter) {
        let h = m.header
        var text = FieldText()
        w.member("id", Int(h.id))
        w.key("flags")
        w.beginObject()
        w.member("qr", h.qr)
        w.member("opcode", Int(h.opcode))
        w.member("aa", h.aa)
        w.member("tc", h.tc)
        w.member("rd", h.rd)
        w.member("ra", h.ra)
        w.member("z", h.z)
        w.member("ad", h.ad)
        w.member("cd", h.cd)
        w.member("rcode", Int(h.rcode))
        w.endObject()
        w.key("questions")
        w.beginArray()
        for q in m.questions {
            w.beginObject()
            writeOwner(q.name, q.type, q.qclass, m, text: &text, to: &w)
            w.member("unicast_response", q.unicastResponse)
            w.endObject()
        }
        w.endArray()
        w.key("answers")
        writeRecords(m.answers, m, text: &text, to: &w)
        w.key("authorities")
        writeRecords(m.authorities, m, text: &text, to: &w)
        w.key("additionals")
        writeRecords(m.additionals, m, text: &text, to: &w)
    }

    /// What writing one message's fields reuses: one buffer for text, and the names written
    /// so far as JSON strings, by where their first label is (records mostly name what an
    /// earlier record named, through compression pointers: each is made once). At most
    /// `maxNames` are kept; later names are made each time.
    struct FieldText {
        var bytes: [UInt8] = []
        var names: [UInt8] = []
        var written: [(label: Int, json: Range<Int>)] = []
        static let maxNames = 32
    }

    /// `text`'s buffer emptied, filled by `make`, written as a JSON string.
    private static func writeText(_ text: inout FieldText, to w: inout JSONWriter, _ make: (inout [UInt8]) -> Void) {
        text.bytes.removeAll(keepingCapacity: true)
        make(&text.bytes)
        w.string(utf8: text.bytes)
    }

    private static func writeName(_ n: DNSName, _ m: DNSMessage, text: inout FieldText, to w: inout JSONWriter) {
        let label = n.firstLabelRange(in: m.payload)?.lowerBound ?? -1
        if let k = text.written.firstIndex(where: { $0.label == label }) {
            w.value(json: text.names, text.written[k].json)
            return
        }
        text.bytes.removeAll(keepingCapacity: true)
        n.appendPresentation(in: m.payload, to: &text.bytes)
        guard text.written.count < FieldText.maxNames else {
            w.string(utf8: text.bytes)
            return
        }
        let start = text.names.count
        text.bytes.withUnsafeBufferPointer { JSONValue.writeString(utf8: $0, into: &text.names) }
        let json = start..<text.names.count
        text.written.append((label, json))
        w.value(json: text.names, json)
    }

    private static func writeType(_ t: RecordType, text: inout FieldText, to w: inout JSONWriter) {
        writeText(&text, to: &w) { t.append(to: &$0) }
    }

    /// What a question and a record start with: name, type and class.
    private static func writeOwner(
        _ name: DNSName, _ type: RecordType, _ rrclass: UInt16, _ m: DNSMessage, text: inout FieldText,
        to w: inout JSONWriter
    ) {
        w.key("name")
        writeName(name, m, text: &text, to: &w)
        w.key("type")
        writeType(type, text: &text, to: &w)
        w.member("class", Int(rrclass))
    }

    private static func writeRecords(
        _ records: [ResourceRecord], _ m: DNSMessage, text: inout FieldText, to w: inout JSONWriter
    ) {
        w.beginArray()
        for rr in records { writeRecord(rr, m, text: &text, to: &w) }
        w.endArray()
    }

    /// A resource record: owner, type, class, cache-flush bit, TTL and its RDATA's fields.
    static func writeRecord(_ rr: ResourceRecord, _ m: DNSMessage, text: inout FieldText, to w: inout JSONWriter) {
        let p = m.payload
        w.beginObject()
        writeOwner(rr.name, rr.type, rr.rrclass, m, text: &text, to: &w)
        w.member("cache_flush", rr.cacheFlush)
        w.member("ttl", Int(rr.ttl))
        w.key("rdata")
        w.beginObject()
        switch rr.value {
        case .a(let v):
            w.key("address")
            writeText(&text, to: &w) { IPAddress.v4(v).appendText(to: &$0) }
        case .aaaa(let hi, let lo):
            w.key("address")
            writeText(&text, to: &w) { IPAddress.v6(hi, lo).appendText(to: &$0) }
        case .name(let n):
            w.key("target")
            writeName(n, m, text: &text, to: &w)
        case .srv(let pr, let wt, let port, let t):
            w.member("priority", Int(pr))
            w.member("weight", Int(wt))
            w.member("port", Int(port))
            w.key("target")
            writeName(t, m, text: &text, to: &w)
        case .txt:
            w.key("strings")
            w.beginArray()
            m.forEachCharacterString(rr) { s in
                writeText(&text, to: &w) { DNSText.appendCharacterString(s, to: &$0) }
                return true
            }
            w.endArray()
        case .hinfo:
            let s = m.characterStrings(rr)
            w.key("cpu")
            writeText(&text, to: &w) { t in s.first.map { DNSText.appendCharacterString($0, to: &t) } }
            w.key("os")
            writeText(&text, to: &w) { t in if s.count > 1 { DNSText.appendCharacterString(s[1], to: &t) } }
        case .nsec(let n, let bitmap):
            w.key("next")
            writeName(n, m, text: &text, to: &w)
            w.key("types")
            w.beginArray()
            for t in m.nsecTypes(bitmap) { writeType(t, text: &text, to: &w) }
            w.endArray()
        case .opt:
            w.member("udp_payload_size", Int(rr.rawClass))
            w.member("extended_rcode", Int((rr.ttl >> 24) & 0xFF))
            w.member("version", Int((rr.ttl >> 16) & 0xFF))
            w.member("do", rr.ttl & 0x8000 != 0)
            w.key("options")
            w.beginArray()
            for o in m.ednsOptions(rr) {
                w.beginObject()
                w.member("code", Int(o.code))
                if o.code == 4, let owner = EDNSOwnerOption(o.data) {
                    w.key("owner")
                    w.beginObject()
                    w.member("version", Int(owner.version))
                    w.member("sequence", Int(owner.sequence))
                    w.member("primary_mac", mac(owner.primaryMAC))
                    w.member("wakeup_mac", orNull: owner.wakeupMAC.map { mac($0) })
                    w.member("password", orNull: owner.password.map { hexString($0) })
                    w.endObject()
                } else {
                    w.member("hex", hexString(o.data))
                }
                w.endObject()
            }
            w.endArray()
        case .unknown:
            w.member("hex", hexString(p[rr.rdata]))
        }
        w.endObject()
        w.endObject()
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

    static func mac(_ b: ArraySlice<UInt8>) -> String { hexString(b, separator: 0x3A) }
}
