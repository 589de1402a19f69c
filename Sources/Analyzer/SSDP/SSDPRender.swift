import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// SSDP messages as text lines and JSON fields (strings are built only here).
/// Bytes that are not valid UTF-8 are shown with U+FFFD replacement characters.
enum SSDPRender {
    static func text(_ v: ArraySlice<UInt8>) -> String { String(decoding: v, as: UTF8.self) }

    /// `text(v)` appended as bytes: valid UTF-8 as it is, else through the repairing decoder.
    static func appendText(_ v: ArraySlice<UInt8>, to b: inout [UInt8]) {
        if ASCII.isValidUTF8(v) { b.append(contentsOf: v) } else { b.append(string: text(v)) }
    }

    /// `b`: the caller's buffer for the summary's bytes (reused message after message).
    /// The input itself is passed, not its message and datagram: read from the input by the
    /// caller, each was copied for the call (retaining every array it holds).
    static func record(
        _ input: SSDPInput, srcText: String, dstText: String, verbose: Bool, fields: [UInt8],
        scratch b: inout [UInt8]
    ) -> MessageRecord {
        let m = input.captured ?? input.message
        let d = input.datagram
        // The summary is built as bytes and stays bytes (the text renderer copies them).
        b.removeAll(keepingCapacity: true)
        func add(_ label: StaticString, _ name: SSDPHeaderName) {
            guard let v = m.value(name) else { return }
            b.append(0x20)
            b.append(label)
            b.append(0x3D)
            appendText(v, to: &b)
        }
        switch m.kind {
        case .mSearch:
            b.append(d.dst.isMulticast ? "M-SEARCH" : "M-SEARCH (unicast)")
            add("ST", .st)
            add("MX", .mx)
        case .notify:
            switch m.notificationSubtype {
            case .alive: b.append("NOTIFY alive")
            case .byebye: b.append("NOTIFY byebye")
            case .update: b.append("NOTIFY update")
            default:
                b.append("NOTIFY")
                if let nts = m.value(.nts) {
                    b.append(" NTS=")
                    appendText(nts, to: &b)
                }
            }
            add("NT", .nt)
            add("USN", .usn)
            if m.notificationSubtype != .byebye { add("LOCATION", .location) }
        case .response:
            // The status tokens after the version, else the whole start line.
            if m.startTokens.count > 1 {
                for k in 1..<m.startTokens.count {
                    if k > 1 { b.append(0x20) }
                    appendText(m.startTokens[k], to: &b)
                }
            }
            if b.isEmpty { appendText(m.startLine, to: &b) }
            add("ST", .st)
            add("USN", .usn)
            add("LOCATION", .location)
        case .other:
            b.append("other \"")
            appendText(m.startLine.prefix(80), to: &b)
            b.append(0x22)
        }
        var detail: [String] = []
        if verbose {
            detail.append(text(m.startLine))
            for h in m.headers {
                detail.append(h.missingColon ? text(m.name(of: h)) : "\(text(m.name(of: h))): \(text(m.value(of: h)))")
            }
            if !m.body.isEmpty { detail.append("[\(m.body.count) byte(s) of body]") }
        }
        var r = MessageRecord(
            frame: d.frame, time: d.time, src: srcText, sport: d.srcPort, dst: dstText,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .ssdp, kind: m.kind.rawValue, summaryUTF8: [], detail: detail,
            fieldsJSON: fields)
        // The summary's buffer is lent to the record (the caller takes it back).
        swap(&r.summaryUTF8, &b)
        return r
    }

    /// `writeFields` of `m` (the message as captured), sized once (its text and a few bytes
    /// of JSON per header), not grown from empty.
    static func fieldsJSON(_ m: SSDPMessage) -> [UInt8] {
        var w = JSONWriter()
        w.bytes.reserveCapacity(m.payload.count &+ 16 &* m.headers.count &+ 64)
        writeFields(m, to: &w)
        return w.bytes
    }

    /// The CONTRACT's fields of an SSDP message: start line, headers in order, NTS and the
    /// UPnP version it claims, as JSON members.
    static func writeFields(_ m: SSDPMessage, to w: inout JSONWriter) {
        w.key("start_line")
        writeText(m.startLine, to: &w)
        w.key("headers")
        w.beginArray()
        for h in m.headers {
            w.beginArray()
            writeText(m.name(of: h), to: &w)
            writeText(m.value(of: h), to: &w)
            w.endArray()
        }
        w.endArray()
        if let sub = m.notificationSubtype {
            w.member("nts", sub == .alive ? "alive" : sub == .byebye ? "byebye" : sub == .update ? "update" : "other")
        }
        if let v = m.claimedUPnPVersion {
            w.member("upnp_version", v.description)
        }
    }

    /// `text(v)` as a JSON string: valid UTF-8 straight from the bytes.
    static func writeText(_ v: ArraySlice<UInt8>, to w: inout JSONWriter) {
        if ASCII.isValidUTF8(v) {
            v.withUnsafeBufferPointer { w.string(utf8: $0) }
        } else {
            w.string(text(v))
        }
    }
}
