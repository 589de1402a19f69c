import Findings
import WireFormat

/// The CONTRACT's `device` and `service` JSON records, and the text table of an inventory.
public enum InventoryRecords {
    /// Devices the text summary lists without `-v`.
    public static let compactLimit = 10

    static func strings(_ a: [String]) -> JSONValue { .array(a.map { .string($0) }) }

    static func counts(_ c: SeverityCounts) -> JSONValue {
        .object([("error", .int(c.error)), ("warning", .int(c.warning)), ("info", .int(c.info))])
    }

    public static func deviceObject(_ d: InventoryDevice) -> JSONValue {
        var f: [(String, JSONValue)] = [("type", .string("device")), ("file", d.file.map { .string($0) } ?? .null)]
        if !d.segments.isEmpty { f.append(("segments", strings(d.segments))) }
        f += [
            ("protocol", .string(d.proto.rawValue)), ("id", .string(d.id)), ("addresses", strings(d.addresses)),
            ("macs", strings(d.macs)), ("first_seen", .rawNumber(d.firstSeen.microsecondText)),
            ("last_seen", .rawNumber(d.lastSeen.microsecondText)), ("messages", .int(d.messages)),
            ("findings", counts(d.findings)),
        ]
        switch d.proto {
        case .ssdp:
            f += [
                ("server", d.server.map { .string($0) } ?? .null),
                ("upnp_version", d.upnpVersion.map { .string($0) } ?? .null), ("types", strings(d.types)),
                ("locations", strings(d.locations)), ("boot_ids", .array(d.bootIDs.map { .int($0) })),
                ("max_age", .array(d.maxAge.map { .int($0) })), ("byebye", .bool(d.byebye)),
                ("embedded", strings(d.embedded)),
            ]
        case .mdns:
            f += [("services", strings(d.services)), ("goodbye", .bool(d.goodbye))]
        }
        if !d.profiles.isEmpty { f.append(("profiles", profiles(d.profiles))) }
        if !d.memberships.isEmpty { f.append(("memberships", strings(d.memberships))) }
        if !d.forwarded.isEmpty { f.append(("forwarded", forwarded(d.forwarded))) }
        if d.incomplete { f.append(("incomplete", .bool(true))) }
        return .object(f)
    }

    /// A device's or service's `forwarded`: where it went after its first segment.
    static func forwarded(_ list: [InventoryForwarding]) -> JSONValue {
        .array(
            list.map {
                .object([
                    ("segment", .string($0.segment)), ("from", .string($0.from)), ("source", .string($0.source)),
                    ("after_us", .int(Int(($0.after * 1_000_000).rounded()))),
                ])
            })
    }

    /// The text inventory's `forwarded` row of `fw`: `to lan by 10.98.1.1, 0.2 ms after iot`.
    static func forwardedText(_ fw: InventoryForwarding) -> String {
        let e = TerminalText.escaped
        let us = Int((fw.after * 1_000_000).rounded())
        let ms = "\(us / 1000).\(us % 1000 / 100)"
        return "to \(e(fw.segment)) by \(e(fw.source)), \(ms) ms after \(e(fw.from))"
    }

    public static func serviceObject(_ s: InventoryService) -> JSONValue {
        var f: [(String, JSONValue)] = [("type", .string("service")), ("file", s.file.map { .string($0) } ?? .null)]
        if !s.segments.isEmpty { f.append(("segments", strings(s.segments))) }
        f += [
            ("instance", .string(s.instance)), ("service_type", .string(s.serviceType)),
            ("subtypes", strings(s.subtypes)), ("host", s.host.map { .string($0) } ?? .null),
            ("port", s.port.map { .int($0) } ?? .null), ("txt", strings(s.txt)), ("addresses", strings(s.addresses)),
            ("first_seen", .rawNumber(s.firstSeen.microsecondText)),
            ("last_seen", .rawNumber(s.lastSeen.microsecondText)), ("goodbye", .bool(s.goodbye)),
            ("findings", counts(s.findings)),
        ]
        if !s.forwarded.isEmpty { f.append(("forwarded", forwarded(s.forwarded))) }
        if !s.profiles.isEmpty { f.append(("profiles", profiles(s.profiles))) }
        return .object(f)
    }

    /// An entry's `profiles`: each claimed profile, whether it meets it (no error or warning
    /// of its rules) and the rules that reported, with their highest severity.
    static func profiles(_ list: [InventoryProfile]) -> JSONValue {
        .array(
            list.map { p in
                .object([
                    ("profile", .string(p.profile.rawValue)), ("meets", .bool(p.meets())),
                    (
                        "findings",
                        .array(
                            p.failed.map {
                                .object([
                                    ("rule", .string($0.rule.rawValue)), ("severity", .string($0.severity.rawValue)),
                                ])
                            })
                    ),
                ])
            })
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
        for d in inventory.devices {
            deviceObject(d).write(into: &out)
            out.append(0x0A)
        }
        for s in inventory.services {
            serviceObject(s).write(into: &out)
            out.append(0x0A)
        }
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
