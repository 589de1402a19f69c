import Findings
import WireFormat

/// The CONTRACT's `device` and `service` JSON records, and the text table of an inventory.
public enum InventoryRecords {
    /// Devices the text summary lists without `-v`.
    public static let compactLimit = 10

    static func writeCounts(_ c: SeverityCounts, to w: inout JSONWriter) {
        w.beginObject()
        w.member("error", c.error)
        w.member("warning", c.warning)
        w.member("info", c.info)
        w.endObject()
    }

    /// A device's record, written as it is made.
    public static func writeDevice(_ d: InventoryDevice, to w: inout JSONWriter) {
        w.beginObject()
        w.member("type", "device")
        w.member("file", orNull: d.file)
        if !d.segments.isEmpty { w.member("segments", d.segments) }
        w.member("protocol", d.proto.rawValue)
        w.member("id", d.id)
        w.member("addresses", d.addresses)
        w.member("macs", d.macs)
        w.member("first_seen", d.firstSeen)
        w.member("last_seen", d.lastSeen)
        w.member("messages", d.messages)
        w.key("findings")
        writeCounts(d.findings, to: &w)
        switch d.proto {
        case .ssdp:
            w.member("server", orNull: d.server)
            w.member("upnp_version", orNull: d.upnpVersion)
            w.member("types", d.types)
            w.member("locations", d.locations)
            writeNumbers("boot_ids", d.bootIDs, to: &w)
            writeNumbers("max_age", d.maxAge, to: &w)
            w.member("byebye", d.byebye)
            w.member("embedded", d.embedded)
        case .mdns:
            w.member("services", d.services)
            w.member("goodbye", d.goodbye)
        }
        if !d.profiles.isEmpty { writeProfiles(d.profiles, to: &w) }
        if !d.memberships.isEmpty { w.member("memberships", d.memberships) }
        if !d.forwarded.isEmpty { writeForwarded(d.forwarded, to: &w) }
        if d.incomplete { w.member("incomplete", true) }
        w.endObject()
    }

    /// Numbers from the wire, as JSON lines have always carried them (as 64-bit signed
    /// integers: a value past `Int64.max` comes out negative).
    static func writeNumbers(_ k: StaticString, _ v: [UInt64], to w: inout JSONWriter) {
        w.key(k)
        w.beginArray()
        for n in v { w.int(Int(truncatingIfNeeded: n)) }
        w.endArray()
    }

    /// A device's or service's `forwarded`: where it went after its first segment.
    static func writeForwarded(_ list: [InventoryForwarding], to w: inout JSONWriter) {
        w.key("forwarded")
        w.beginArray()
        for fw in list {
            w.beginObject()
            w.member("segment", fw.segment)
            w.member("from", fw.from)
            w.member("source", fw.source)
            w.member("after_us", Int((fw.after * 1_000_000).rounded()))
            w.endObject()
        }
        w.endArray()
    }

    /// The text inventory's `forwarded` row of `fw`: `to lan by 10.98.1.1, 0.2 ms after iot`.
    static func forwardedText(_ fw: InventoryForwarding) -> String {
        let e = TerminalText.escaped
        let us = Int((fw.after * 1_000_000).rounded())
        let ms = "\(us / 1000).\(us % 1000 / 100)"
        return "to \(e(fw.segment)) by \(e(fw.source)), \(ms) ms after \(e(fw.from))"
    }

    /// A service instance's record, written as it is made.
    public static func writeService(_ s: InventoryService, to w: inout JSONWriter) {
        w.beginObject()
        w.member("type", "service")
        w.member("file", orNull: s.file)
        if !s.segments.isEmpty { w.member("segments", s.segments) }
        w.member("instance", s.instance)
        w.member("service_type", s.serviceType)
        w.member("subtypes", s.subtypes)
        w.member("host", orNull: s.host)
        w.member("port", orNull: s.port)
        w.member("txt", s.txt)
        w.member("addresses", s.addresses)
        w.member("first_seen", s.firstSeen)
        w.member("last_seen", s.lastSeen)
        w.member("goodbye", s.goodbye)
        w.key("findings")
        writeCounts(s.findings, to: &w)
        if !s.forwarded.isEmpty { writeForwarded(s.forwarded, to: &w) }
        if !s.profiles.isEmpty { writeProfiles(s.profiles, to: &w) }
        w.endObject()
    }

    /// An entry's `profiles`: each claimed profile, whether it meets it (no error or warning
    /// of its rules) and the rules that reported, with their highest severity.
    static func writeProfiles(_ list: [InventoryProfile], to w: inout JSONWriter) {
        w.key("profiles")
        w.beginArray()
        for p in list {
            w.beginObject()
            w.member("profile", p.profile.rawValue)
            w.member("meets", p.meets())
            w.key("findings")
            w.beginArray()
            for f in p.failed {
                w.beginObject()
                w.member("rule", f.rule.rawValue)
                w.member("severity", f.severity.rawValue)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
    }

    /// `matter-commissionable ✔, ipp-everywhere ✘ PROF-202`.
    public static func profilesText(_ list: [InventoryProfile]) -> String {
        list.map(\.verdictText).joined(separator: ", ")
    }

    /// `2024-05-01 12:00:03`, to the second, `utcOffset` seconds ahead of UTC.
    public static func dateTime(_ t: Timestamp, utcOffset: Int64) -> String {
        let c = CivilTime(seconds: t.seconds, utcOffset: utcOffset)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year)-" + two(c.month) + "-" + two(c.day) + " " + two(c.hour) + ":" + two(c.minute) + ":"
            + two(c.second)
    }

    /// The summary's compact table of devices: protocol, id, addresses, what it is, findings;
    /// each column as wide as its widest cell (up to a bound, past which a cell overflows).
    public static func compactLines(_ devices: some Collection<InventoryDevice>) -> [String] {
        let e = TerminalText.escaped
        let rows = devices.map { d in
            var what =
                d.proto == .ssdp ? (d.types.first.map(shortType) ?? d.server ?? "") : "\(d.services.count) service(s)"
            if what.isEmpty { what = "-" }
            return [
                d.proto == .ssdp ? "ssdp" : "mdns", e(d.id), e(d.addresses.prefix(2).joined(separator: ", ")), e(what),
                d.findings.text,
            ]
        }
        var widths = [0, 0, 0, 0]
        for r in rows {
            for k in widths.indices { widths[k] = max(widths[k], min(r[k].count + 1, 48)) }
        }
        // The segments it was seen on, when its session had several (after the findings, in
        // the text's `[NAME]` form).
        let onSegments = devices.map { d in
            d.segments.isEmpty ? "" : "  [" + e(d.segments.joined(separator: ", ")) + "]"
        }
        return zip(rows, onSegments).map { r, on in
            widths.indices.map { r[$0].padding(widths[$0]) }.joined() + r[4] + on
        }
    }

    /// `urn:schemas-upnp-org:device:MediaServer:1` → `MediaServer:1`.
    static func shortType(_ t: String) -> String {
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count >= 2 ? parts.suffix(2).joined(separator: ":") : t
    }

    /// One line per device, then one per service instance.
    public static func lines(_ inventory: Inventory) -> String {
        var out: [UInt8] = []
        write(inventory, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `lines` as UTF-8, appended to `out` (no string made per record).
    public static func write(_ inventory: Inventory, into out: inout [UInt8]) {
        var w = JSONWriter()
        swap(&w.bytes, &out)
        for d in inventory.devices {
            writeDevice(d, to: &w)
            w.endLine()
        }
        for s in inventory.services {
            writeService(s, to: &w)
            w.endLine()
        }
        swap(&w.bytes, &out)
    }

    /// The readable table: each device with its fields, its services under it. Every value
    /// from the wire is escaped for the terminal.
    public static func text(_ inventory: Inventory, timeText: (Timestamp) -> String) -> String {
        let e = TerminalText.escaped
        var out = ""
        var lastFile: String?? = .none
        for d in inventory.devices {
            if inventory.devices.contains(where: { $0.file != d.file }) || lastFile == nil, lastFile != .some(d.file) {
                if lastFile != nil { out += "\n" }
                out += "\(e(d.file ?? "input"))\n"
                lastFile = .some(d.file)
            }
            out += "\n\(d.proto == .ssdp ? "SSDP device" : "mDNS host") \(e(d.id))\n"
            func row(_ k: String, _ v: String) { out += "  " + k.padding(12) + v + "\n" }
            if !d.segments.isEmpty { row("segments", e(d.segments.joined(separator: ", "))) }
            if !d.memberships.isEmpty { row("joined", e(d.memberships.joined(separator: ", "))) }
            row("addresses", d.addresses.isEmpty ? "none" : e(d.addresses.joined(separator: ", ")))
            if !d.macs.isEmpty { row("macs", d.macs.joined(separator: ", ")) }
            if d.proto == .ssdp {
                row("server", d.server.map(e) ?? "none")
                if let v = d.upnpVersion { row("upnp", v) }
                for (k, t) in d.types.enumerated() { row(k == 0 ? "types" : "", e(t)) }
                for (k, l) in d.locations.enumerated() { row(k == 0 ? "location" : "", e(l)) }
                if !d.bootIDs.isEmpty { row("boot ids", d.bootIDs.map(String.init).joined(separator: ", ")) }
                if !d.maxAge.isEmpty { row("max-age", d.maxAge.map(String.init).joined(separator: ", ")) }
                for (k, u) in d.embedded.enumerated() { row(k == 0 ? "embedded" : "", e(u)) }
                for fw in d.forwarded { row("forwarded", forwardedText(fw)) }
            }
            row(
                "seen",
                "\(timeText(d.firstSeen)) to \(timeText(d.lastSeen)), \(d.messages) message(s)"
                    + (d.byebye ? ", said byebye last" : "") + (d.goodbye ? ", said goodbye last" : ""))
            row("findings", d.findings.text)
            if !d.profiles.isEmpty { row("profiles", profilesText(d.profiles)) }
            if d.incomplete { row("note", "some lists reached their bound and are incomplete") }
            for s in inventory.services where s.host == d.id && s.file == d.file {
                out += service(s, indent: "  ", timeText: timeText)
            }
        }
        let hosts = Set(inventory.devices.filter { $0.proto == .mdns }.map { "\($0.file ?? "")\u{0}\($0.id)" })
        let orphans = inventory.services.filter { s in !hosts.contains("\(s.file ?? "")\u{0}\(s.host ?? "")") }
        if !orphans.isEmpty {
            out += "\nServices whose host was not seen\n"
            for s in orphans { out += service(s, indent: "", timeText: timeText) }
        }
        if inventory.leftOut > 0 {
            out += "\n\(inventory.leftOut) more device(s) or service(s) left out (the inventory's bound)\n"
        }
        return out
    }

    static func service(_ s: InventoryService, indent: String, timeText: (Timestamp) -> String) -> String {
        let e = TerminalText.escaped
        var out = "\(indent)  service \(e(s.instance))\n"
        func row(_ k: String, _ v: String) { out += indent + "    " + k.padding(10) + v + "\n" }
        row(
            "type",
            e(s.serviceType) + (s.subtypes.isEmpty ? "" : " (subtypes \(e(s.subtypes.joined(separator: ", "))))"))
        if !s.segments.isEmpty { row("segments", e(s.segments.joined(separator: ", "))) }
        row("srv", s.host.map { "\(e($0)) port \(s.port.map(String.init) ?? "?")" } ?? "no SRV record seen")
        if !s.txt.isEmpty { row("txt", e(s.txt.joined(separator: " "))) }
        if !s.addresses.isEmpty { row("addresses", e(s.addresses.joined(separator: ", "))) }
        row("seen", "\(timeText(s.firstSeen)) to \(timeText(s.lastSeen))" + (s.goodbye ? ", said goodbye last" : ""))
        for fw in s.forwarded { row("forwarded", forwardedText(fw)) }
        row("findings", s.findings.text)
        if !s.profiles.isEmpty { row("profiles", profilesText(s.profiles)) }
        return out
    }
}
