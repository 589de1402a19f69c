import ArgumentParser
import Findings
import Glibc
import Reporting
import WireFormat

extension DiscoScope {
    /// `discoscope diff OLD NEW`: what changed between two captures (or saved inventories).
    struct DiffCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Compare two captures (or inventories saved with `inventory --format jsonl`).",
            discussion: """
                Devices and services that appeared, disappeared or changed (addresses, SERVER, \
                UPnP version, types, LOCATIONs, embedded devices, SRV host and port, TXT; never \
                counts or times), and findings that are new or fixed, matched by rule, device (or \
                sender) and message, with frame numbers, times and measured values ignored.
                Exit status: 1 when NEW lost a device or service that OLD had, or has a new \
                finding at or above --fail-on (default error); 0 otherwise; 2 on a usage or input error.
                With --segments, a side that is a capture names the files of its segments joined by \
                `+` (`old-lan.pcap+old-iot.pcap`, as `analyze --segments` names the session): they \
                are analysed as one session, and the segments each device, host and service was \
                seen on are compared too (when both sides have segments).
                """)

        @Argument(help: ArgumentHelp("The earlier capture or saved inventory.", valueName: "old"))
        var old: String

        @Argument(help: ArgumentHelp("The later capture or saved inventory.", valueName: "new"))
        var new: String

        @OptionGroup var segments: SegmentOptions

        @Option(name: .long, help: "Output format: text or jsonl.")
        var format: ReportFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to PATH instead of standard output.", valueName: "path"))
        var output: String?

        @Option(name: .long, help: "Fail (exit 1) on a new finding at or above this severity (default: error).")
        var failOn: FailOn = .error

        func run() throws {
            let names = try segmentNames()
            try refuseOutputOntoInput(output, inputs: [old, new] + names.flatMap { $0?.files ?? [] })
            guard let a = Side.load(old, segments: names[0]), let b = Side.load(new, segments: names[1]) else {
                throw ExitCode(2)
            }
            let d = InventoryDiff(old: a, new: b)
            let text: String
            switch format {
            case .jsonl: text = d.lines()
            case .text: text = d.text(old: old, new: new, failOn: failOn.threshold)
            }
            guard writeReport(text, to: output) else { throw ExitCode(2) }
            throw ExitCode(d.fails(failOn: failOn.threshold) ? 1 : 0)
        }

        /// With `--segments`: each side's files (its argument split at `+`, unless a saved
        /// inventory or a file of that name exists) and their segment names; a
        /// `--segment-name` applies to the side whose file it names. Nil for a side without.
        func segmentNames() throws -> [(files: [String], names: [String])?] {
            guard segments.segments else { return [nil, nil] }
            let sides = [old, new].map { side -> [String] in
                if access(side, F_OK) == 0 { return [side] }
                return side.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
            }
            for n in segments.segmentName {
                let file = String(n.prefix { $0 != "=" })
                let known = sides.joined().contains {
                    $0 == file || $0.split(separator: "/").last.map(String.init) == file
                }
                if !known, n.contains("=") {
                    Frontend.warn("--segment-name \(n): \(file) is not one of the files")
                    throw ExitCode(2)
                }
            }
            return try sides.map { files in
                let given = segments.segmentName.filter { n in
                    let file = String(n.prefix { $0 != "=" })
                    return !n.contains("=")
                        || files.contains { $0 == file || $0.split(separator: "/").last.map(String.init) == file }
                }
                switch MergedSession.segmentNames(files, names: given) {
                case .success(let names): return (files, names)
                case .failure(let e):
                    Frontend.warn(e.description)
                    throw ExitCode(2)
                }
            }
        }
    }
}

/// One side of a diff: its inventory and findings.
struct Side {
    var inventory: Inventory
    var findings: [DiffFinding]

    /// A capture, or a saved inventory (a file whose first character is `{`); nil after
    /// saying why it cannot be read. `segments`: the files of a session of several segments
    /// and their names (`diff --segments`), which `path` names joined by `+`.
    static func load(_ path: String, segments: (files: [String], names: [String])? = nil) -> Side? {
        if let text = readFile(path, limit: 256 << 20), text.first(where: { !$0.isWhitespace }) == "{" {
            return parse(text, path: path)
        }
        let r = segments.map { Survey.run($0.files, segments: $0.names) } ?? Survey.run([path])
        guard !r.inputError else { return nil }
        return Side(inventory: r.inventory, findings: r.findings.map(DiffFinding.init))
    }

    static func parse(_ text: String, path: String) -> Side? {
        var side = Side(inventory: Inventory(), findings: [])
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy(\.isWhitespace) { continue }
            let v: JSONValue
            do { v = try JSONValue.parse(String(line)) } catch {
                Frontend.warn("\(path):\(number): not a JSON line (\(error))")
                return nil
            }
            switch v["type"]?.stringValue {
            case "device": if let d = InventoryDevice(json: v) { side.inventory.add(d) }
            case "service": if let s = InventoryService(json: v) { side.inventory.add(s) }
            case "finding":
                if let rule = v["rule"]?.stringValue, let sev = v["severity"]?.stringValue.flatMap(Severity.init),
                    let message = v["message"]?.stringValue
                {
                    side.findings.append(
                        DiffFinding(
                            rule: rule, severity: sev, source: v["source"]?.stringValue ?? "",
                            device: v["device"]?.stringValue, message: message))
                }
            default: continue
            }
        }
        side.inventory.protocols = [.ssdp, .mdns]
        return side
    }
}

/// A finding as `diff` matches it: by its identity (`FindingIdentity`: rule, device or
/// sender, and message with frame numbers, times and measured values read as `#`).
struct DiffFinding: Hashable {
    var rule: String
    var severity: Severity
    var source: String
    var device: String?
    var message: String

    init(rule: String, severity: Severity, source: String, device: String?, message: String) {
        self.rule = rule
        self.severity = severity
        self.source = source
        self.device = device
        self.message = message
    }

    init(_ f: Finding) {
        self.init(rule: f.rule.rawValue, severity: f.severity, source: f.source, device: f.device, message: f.message)
    }

    var key: String { FindingIdentity.key(rule: rule, source: source, device: device, message: message) }
}

extension InventoryDevice {
    init?(json v: JSONValue) {
        guard let id = v["id"]?.stringValue, let p = v["protocol"]?.stringValue.flatMap(RuleProtocol.init) else {
            return nil
        }
        self.init(proto: p, id: id)
        file = v["file"]?.stringValue
        segments = strings(v["segments"])
        addresses = strings(v["addresses"])
        macs = strings(v["macs"])
        firstSeen = timestamp(v["first_seen"])
        lastSeen = timestamp(v["last_seen"])
        messages = Int(clamping: v["messages"]?.intValue ?? 0)
        findings = counts(v["findings"])
        server = v["server"]?.stringValue
        upnpVersion = v["upnp_version"]?.stringValue
        types = strings(v["types"])
        locations = strings(v["locations"])
        bootIDs = (v["boot_ids"]?.arrayValue ?? []).compactMap { $0.intValue.flatMap { UInt64(exactly: $0) } }
        maxAge = (v["max_age"]?.arrayValue ?? []).compactMap { $0.intValue.flatMap { UInt64(exactly: $0) } }
        byebye = v["byebye"]?.boolValue ?? false
        embedded = strings(v["embedded"])
        services = strings(v["services"])
        goodbye = v["goodbye"]?.boolValue ?? false
    }
}

extension InventoryService {
    init?(json v: JSONValue) {
        guard let instance = v["instance"]?.stringValue else { return nil }
        self.init(instance: instance)
        file = v["file"]?.stringValue
        segments = strings(v["segments"])
        serviceType = v["service_type"]?.stringValue ?? ""
        subtypes = strings(v["subtypes"])
        host = v["host"]?.stringValue
        port = v["port"]?.intValue.map { Int(clamping: $0) }
        txt = strings(v["txt"])
        addresses = strings(v["addresses"])
        firstSeen = timestamp(v["first_seen"])
        lastSeen = timestamp(v["last_seen"])
        goodbye = v["goodbye"]?.boolValue ?? false
        findings = counts(v["findings"])
    }
}

private func strings(_ v: JSONValue?) -> [String] { (v?.arrayValue ?? []).compactMap(\.stringValue) }

private func counts(_ v: JSONValue?) -> SeverityCounts {
    func n(_ k: String) -> Int { Int(clamping: v?[k]?.intValue ?? 0) }
    return SeverityCounts(error: n("error"), warning: n("warning"), info: n("info"))
}

/// `1700000000.123456` → a timestamp (zero when it is not such a number).
private func timestamp(_ v: JSONValue?) -> Timestamp {
    guard let t = v?.numberText else { return .zero }
    let parts = t.split(separator: ".", maxSplits: 1)
    guard let first = parts.first, let s = Int64(first) else { return .zero }
    var ns: Int64 = 0
    if parts.count == 2 {
        let digits = String(parts[1].prefix(9))
        ns =
            (Int64(digits) ?? 0)
            * [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000][
                9 - digits.count]
    }
    return Timestamp(seconds: s, nanoseconds: UInt32(clamping: ns))
}

/// What changed from one side to the other.
struct InventoryDiff {
    enum Change: String { case appeared, disappeared, changed }
    struct EntryChange {
        var change: Change
        var kind: String
        var id: String
        var fields: [(String, JSONValue, JSONValue)] = []
    }
    struct FindingChange {
        var change: String
        var finding: DiffFinding
        var count: Int
    }
    var changes: [EntryChange] = []
    var findingChanges: [FindingChange] = []

    init(old: Side, new: Side) {
        func key(_ d: InventoryDevice) -> String { "\(d.proto.rawValue)\u{0}\(d.id)" }
        // Several files on a side may show the same device: the first entry stands for it.
        func index<T>(_ xs: [T], _ k: (T) -> String) -> ([String], [String: T]) {
            var order: [String] = []
            var map: [String: T] = [:]
            for x in xs where map[k(x)] == nil {
                order.append(k(x))
                map[k(x)] = x
            }
            return (order, map)
        }
        let (oldDevOrder, oldDevs) = index(old.inventory.devices, key)
        let (newDevOrder, newDevs) = index(new.inventory.devices, key)
        for k in oldDevOrder {
            guard let o = oldDevs[k] else { continue }
            if let n = newDevs[k] {
                let f = Self.fields(o, n)
                if !f.isEmpty { changes.append(EntryChange(change: .changed, kind: "device", id: o.id, fields: f)) }
            } else {
                changes.append(EntryChange(change: .disappeared, kind: "device", id: o.id))
            }
        }
        for k in newDevOrder where oldDevs[k] == nil {
            if let n = newDevs[k] { changes.append(EntryChange(change: .appeared, kind: "device", id: n.id)) }
        }
        let (oldSvcOrder, oldSvcs) = index(old.inventory.services) { $0.instance.lowercased() }
        let (newSvcOrder, newSvcs) = index(new.inventory.services) { $0.instance.lowercased() }
        for k in oldSvcOrder {
            guard let o = oldSvcs[k] else { continue }
            if let n = newSvcs[k] {
                let f = Self.fields(o, n)
                if !f.isEmpty {
                    changes.append(EntryChange(change: .changed, kind: "service", id: o.instance, fields: f))
                }
            } else {
                changes.append(EntryChange(change: .disappeared, kind: "service", id: o.instance))
            }
        }
        for k in newSvcOrder where oldSvcs[k] == nil {
            if let n = newSvcs[k] { changes.append(EntryChange(change: .appeared, kind: "service", id: n.instance)) }
        }
        func tally(_ fs: [DiffFinding]) -> ([String], [String: (DiffFinding, Int)]) {
            var order: [String] = []
            var map: [String: (DiffFinding, Int)] = [:]
            for f in fs {
                if let e = map[f.key] {
                    map[f.key] = (e.0, e.1 + 1)
                } else {
                    order.append(f.key)
                    map[f.key] = (f, 1)
                }
            }
            return (order, map)
        }
        let (oldOrder, oldF) = tally(old.findings)
        let (newOrder, newF) = tally(new.findings)
        for k in newOrder where oldF[k] == nil {
            if let (f, n) = newF[k] { findingChanges.append(FindingChange(change: "new", finding: f, count: n)) }
        }
        for k in oldOrder where newF[k] == nil {
            if let (f, n) = oldF[k] { findingChanges.append(FindingChange(change: "fixed", finding: f, count: n)) }
        }
    }

    /// The advertised fields that differ (lists compared as sets).
    static func fields(_ o: InventoryDevice, _ n: InventoryDevice) -> [(String, JSONValue, JSONValue)] {
        var out: [(String, JSONValue, JSONValue)] = []
        func list(_ name: String, _ a: [String], _ b: [String]) {
            if Set(a) != Set(b) { out.append((name, .array(a.map { .string($0) }), .array(b.map { .string($0) }))) }
        }
        func one(_ name: String, _ a: String?, _ b: String?) {
            if a != b { out.append((name, a.map { .string($0) } ?? .null, b.map { .string($0) } ?? .null)) }
        }
        list("addresses", o.addresses, n.addresses)
        segmentsChanged(o.segments, n.segments, into: &out)
        one("server", o.server, n.server)
        one("upnp_version", o.upnpVersion, n.upnpVersion)
        list("types", o.types, n.types)
        list("locations", o.locations, n.locations)
        list("embedded", o.embedded, n.embedded)
        list("services", o.services, n.services)
        return out
    }

    static func fields(_ o: InventoryService, _ n: InventoryService) -> [(String, JSONValue, JSONValue)] {
        var out: [(String, JSONValue, JSONValue)] = []
        func list(_ name: String, _ a: [String], _ b: [String], ordered: Bool = false) {
            if ordered ? a != b : Set(a) != Set(b) {
                out.append((name, .array(a.map { .string($0) }), .array(b.map { .string($0) })))
            }
        }
        if o.serviceType != n.serviceType {
            out.append(("service_type", .string(o.serviceType), .string(n.serviceType)))
        }
        list("subtypes", o.subtypes, n.subtypes)
        if o.host != n.host {
            out.append(("host", o.host.map { .string($0) } ?? .null, n.host.map { .string($0) } ?? .null))
        }
        if o.port != n.port { out.append(("port", o.port.map { .int($0) } ?? .null, n.port.map { .int($0) } ?? .null)) }
        list("txt", o.txt, n.txt, ordered: true)
        list("addresses", o.addresses, n.addresses)
        segmentsChanged(o.segments, n.segments, into: &out)
        return out
    }

    /// The segments an entry was seen on, compared when both sides were sessions of several
    /// segments (a side of one link names none).
    static func segmentsChanged(_ a: [String], _ b: [String], into out: inout [(String, JSONValue, JSONValue)]) {
        guard !a.isEmpty, !b.isEmpty, Set(a) != Set(b) else { return }
        out.append(("segments", .array(a.map { .string($0) }), .array(b.map { .string($0) })))
    }

    /// NEW lost a device or service, or has a new finding at or above `failOn`.
    func fails(failOn: Severity?) -> Bool {
        if changes.contains(where: { $0.change == .disappeared }) { return true }
        guard let t = failOn else { return false }
        return findingChanges.contains { $0.change == "new" && $0.finding.severity >= t }
    }

    func lines() -> String {
        var out = ""
        for c in changes {
            var f: [(String, JSONValue)] = [
                ("type", .string("change")), ("change", .string(c.change.rawValue)), ("kind", .string(c.kind)),
                ("id", .string(c.id)),
            ]
            if c.change == .changed { f.append(("fields", .object(c.fields.map { ($0.0, .array([$0.1, $0.2])) }))) }
            out += JSONValue.object(f).serialized() + "\n"
        }
        for c in findingChanges {
            let f = c.finding
            out +=
                JSONValue.object([
                    ("type", .string("finding_change")), ("change", .string(c.change)), ("rule", .string(f.rule)),
                    ("severity", .string(f.severity.rawValue)), ("device", f.device.map { .string($0) } ?? .null),
                    ("message", .string(f.message)), ("count", .int(c.count)),
                ]).serialized() + "\n"
        }
        return out
    }

    func text(old: String, new: String, failOn: Severity?) -> String {
        let e = TerminalText.escaped
        var out = "Comparing \(e(old)) (old) with \(e(new)) (new)\n"
        if changes.isEmpty && findingChanges.isEmpty {
            return out
                + "\nNo differences: the same devices and services, advertising the same, with the same findings.\n"
        }
        if !changes.isEmpty {
            out += "\nDevices and services\n"
            for c in changes {
                let mark = c.change == .appeared ? "+" : c.change == .disappeared ? "-" : "~"
                out += "  \(mark) \(c.kind) \(e(c.id)) \(c.change.rawValue)\n"
                for (name, a, b) in c.fields {
                    out += "      \(name): \(e(a.serialized())) → \(e(b.serialized()))\n"
                }
            }
        }
        if !findingChanges.isEmpty {
            out += "\nFindings\n"
            for c in findingChanges {
                let f = c.finding
                let times = c.count > 1 ? " (×\(c.count))" : ""
                out +=
                    "  \(c.change == "new" ? "+ new  " : "- fixed") \(f.severity.rawValue) \(f.rule)"
                    + (f.device.map { " \(e($0))" } ?? "") + ": \(e(f.message))\(times)\n"
            }
        }
        let lost = changes.filter { $0.change == .disappeared }.count
        let newBad =
            failOn.map { t in findingChanges.filter { $0.change == "new" && $0.finding.severity >= t }.count } ?? 0
        var why: [String] = []
        if lost > 0 { why.append("NEW lost \(lost) device(s) or service(s)") }
        if newBad > 0, let t = failOn { why.append("\(newBad) new finding(s) at or above \(t.rawValue)") }
        out += "\nResult: " + (why.isEmpty ? "pass" : "fail (\(why.joined(separator: "; ")))") + "\n"
        return out
    }
}
