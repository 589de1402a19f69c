import Findings
import NetLayers
import Rules
import SSDP

/// SSDP messages as text lines and JSON fields (strings are built only here).
/// Bytes that are not valid UTF-8 are shown with U+FFFD replacement characters.
enum SSDPRender {
    static func text(_ v: ArraySlice<UInt8>) -> String { String(decoding: v, as: UTF8.self) }

    static func record(_ m: SSDPMessage, _ d: Datagram, srcText: String, dstText: String, verbose: Bool, fields wantFields: Bool = true) -> MessageRecord {
        var summary: String
        func add(_ label: String, _ name: SSDPHeaderName) {
            if let v = m.value(name) { summary += " \(label)=\(text(v))" }
        }
        switch m.kind {
        case .mSearch:
            summary = d.dst.isMulticast ? "M-SEARCH" : "M-SEARCH (unicast)"
            add("ST", .st)
            add("MX", .mx)
        case .notify:
            switch m.notificationSubtype {
            case .alive: summary = "NOTIFY alive"
            case .byebye: summary = "NOTIFY byebye"
            case .update: summary = "NOTIFY update"
            default: summary = "NOTIFY" + (m.value(.nts).map { " NTS=\(text($0))" } ?? "")
            }
            add("NT", .nt)
            add("USN", .usn)
            if m.notificationSubtype != .byebye { add("LOCATION", .location) }
        case .response:
            let status = m.startTokens.dropFirst().map { text($0) }.joined(separator: " ")
            summary = status.isEmpty ? text(m.startLine) : status
            add("ST", .st)
            add("USN", .usn)
            add("LOCATION", .location)
        case .other:
            summary = "other \"\(text(m.startLine.prefix(80)))\""
        }
        var detail: [String] = []
        if verbose {
            detail.append(text(m.startLine))
            for h in m.headers {
                detail.append(h.missingColon ? text(h.name) : "\(text(h.name)): \(text(h.value))")
            }
            if !m.body.isEmpty { detail.append("[\(m.body.count) byte(s) of body]") }
        }
        var fields: [(String, JSONValue)] = []
        if wantFields {
            fields = [
                ("start_line", .string(text(m.startLine))),
                ("headers", .array(m.headers.map { .array([.string(text($0.name)), .string(text($0.value))]) })),
            ]
            if let sub = m.notificationSubtype {
                fields.append(("nts", .string(sub == .alive ? "alive" : sub == .byebye ? "byebye" : sub == .update ? "update" : "other")))
            }
            if let v = m.claimedUPnPVersion { fields.append(("upnp_version", .string(v.description))) }
        }
        return MessageRecord(
            frame: d.frame, time: d.time, src: srcText, sport: d.srcPort, dst: dstText,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .ssdp, kind: m.kind.rawValue, summary: summary, detail: detail,
            fields: fields)
    }
}
