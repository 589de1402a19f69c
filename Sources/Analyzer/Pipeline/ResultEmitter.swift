import Findings
import Reporting
import WireFormat

/// Emitting, the end of the pipeline (on the reading thread, in capture order): each batch's
/// results go to the reporter, its findings into the summary's counts, and the devices,
/// service types and findings per device it names into the tallies the summary and the
/// inventory read. Every tally is bounded; a bound reached is said once (`limit`).
struct ResultEmitter {
    private(set) var reporter: any Reporter
    private var devices: Set<UInt64> = []
    private var services: Set<UInt64> = []
    private var devicesFull = false
    private var servicesFull = false
    /// Findings of the current input by device key, for the inventory; bounded like the
    /// session model (keys beyond the bound are not counted).
    private(set) var deviceFindings: [UInt64: SeverityCounts] = [:]
    /// mDNS findings that name no host, by source address text, for the inventory (bounded
    /// like `deviceFindings`).
    private(set) var addressFindings: [String: SeverityCounts] = [:]
    /// Stateful mDNS findings by host key, for the services' counts: bounded by
    /// `maxDeviceFindings` hosts and `maxFindingTextsPerHost` findings each.
    private(set) var hostFindingTexts: [UInt64: HostFindingTexts] = [:]
    /// The named segments each device, host and service instance of the current input was
    /// seen on (by the session models' keys), in increasing order: the inventory's
    /// `segments`. Bounded by `Inventory.maxEntries` keys and `maxSegmentsPerKey` each.
    private(set) var segmentsSeen: [UInt64: [UInt16]] = [:]
    /// The PROF findings of the current input: about DNS-SD instances by their name keys,
    /// about SSDP devices by their lower-cased identity; bounded by `maxDeviceFindings` each.
    private(set) var profileFindings = ProfileFindings()

    /// Distinct devices and service types counted (their keys only: 64 bits each); the
    /// bound keeps memory flat under a flood of made-up names.
    static let maxDevices = 65536
    static let maxDeviceFindings = 16384
    static let maxFindingTextsPerHost = 256
    static let maxSegmentsPerKey = 64
    static let deviceLimit = LimitReached(
        limit: "devices", value: maxDevices,
        message:
            "more than \(maxDevices) distinct devices or hosts: only the first \(maxDevices) are counted, so the figure is a lower bound (a fixed bound that keeps memory flat under floods of made-up names)"
    )
    static let serviceLimit = LimitReached(
        limit: "services", value: maxDevices,
        message:
            "more than \(maxDevices) distinct DNS-SD service types: only the first \(maxDevices) are counted, so the figure is a lower bound (a fixed bound that keeps memory flat under floods of made-up names)"
    )

    init(reporter: any Reporter) { self.reporter = reporter }

    /// Distinct devices (SSDP root UUIDs, mDNS hosts) and DNS-SD service types counted.
    var deviceCount: Int { devices.count }
    var serviceCount: Int { services.count }

    /// Takes one batch's results in capture order: counts, device and service sets, output.
    mutating func emit(
        _ r: borrowing BatchOutput, summary: inout RunSummary, limit: (LimitReached, inout RunSummary) -> Void
    ) {
        for t in r.tally.inOrder {
            summary.count(rule: t.rule, name: t.name, t.severity, times: t.count)
            if let e = t.example, summary.hidingExamples[t.rule] == nil { summary.hidingExamples[t.rule] = e }
        }
        for f in r.tally.profileFindings { profileFindings.add(f, cap: Self.maxDeviceFindings) }
        summary.suppressed += r.suppressed
        for (key, counts) in r.deviceFindings
        where deviceFindings.count < Self.maxDeviceFindings || deviceFindings[key] != nil {
            deviceFindings[key, default: SeverityCounts()].add(counts)
        }
        for a in r.addressFindings
        where addressFindings.count < Self.maxDeviceFindings || addressFindings[a.source] != nil {
            addressFindings[a.source, default: SeverityCounts()].add(a.counts)
        }
        for t in r.hostFindingTexts
        where hostFindingTexts.count < Self.maxDeviceFindings || hostFindingTexts[t.key] != nil {
            if hostFindingTexts[t.key, default: HostFindingTexts()].taken < Self.maxFindingTextsPerHost {
                hostFindingTexts[t.key, default: HostFindingTexts()].take(t.message, t.severity)
            }
        }
        for s in r.sightings { noteSighting(s.key, s.segment) }
        for k in r.deviceKeys where devices.count < Self.maxDevices || devices.contains(k) { devices.insert(k) }
        for s in r.services where services.count < Self.maxDevices || services.contains(s) { services.insert(s) }
        if devices.count >= Self.maxDevices && !devicesFull && r.deviceKeys.contains(where: { !devices.contains($0) }) {
            devicesFull = true
            limit(Self.deviceLimit, &summary)
        }
        if services.count >= Self.maxDevices && !servicesFull && r.services.contains(where: { !services.contains($0) })
        {
            servicesFull = true
            limit(Self.serviceLimit, &summary)
        }
        if !r.chunk.bytes.isEmpty { reporter.emit(r.chunk) }
        for (record, findings) in r.messages {
            if let record {
                reporter.message(record, findings: findings)
            } else {
                for f in findings { reporter.finding(f) }
            }
        }
    }

    /// `key` seen on `segment`: kept in order, once (a key seen on more than
    /// `maxSegmentsPerKey` segments keeps the first ones).
    private mutating func noteSighting(_ key: UInt64, _ segment: UInt16) {
        if let list = segmentsSeen[key] {
            // Most sightings repeat a segment already noted: a look at a short list.
            guard !list.contains(segment), list.count < Self.maxSegmentsPerKey else { return }
            segmentsSeen[key] = (list + [segment]).sorted()
        } else if segmentsSeen.count < Inventory.maxEntries {
            segmentsSeen[key] = [segment]
        }
    }

    /// The end of an input: its findings and segments per device, for its inventory, and
    /// fresh tallies for the next input.
    mutating func takeInputFindings() -> (
        devices: [UInt64: SeverityCounts], hostTexts: [UInt64: HostFindingTexts],
        segments: [UInt64: [UInt16]], addresses: [String: SeverityCounts], profiles: ProfileFindings
    ) {
        defer {
            deviceFindings.removeAll()
            hostFindingTexts.removeAll()
            segmentsSeen.removeAll()
            addressFindings.removeAll()
            profileFindings = ProfileFindings()
        }
        return (deviceFindings, hostFindingTexts, segmentsSeen, addressFindings, profileFindings)
    }

    /// The run's segment names changed (a name was added): the reporter hears of it before
    /// any record of the new segment.
    mutating func setSegmentNames(_ names: [String]) { reporter.setSegmentNames(names) }

    mutating func beginFile(_ index: Int, name: String) { reporter.beginFile(index, name: name) }
    mutating func inventory(_ inventory: Inventory) { reporter.inventory(inventory) }
    mutating func finish(_ summary: RunSummary) { reporter.finish(summary) }
}

/// The stateful mDNS findings of one host, as the inventory counts them for its services:
/// of each message only the part that can name a service instance
/// (`InventoryBuilder.nameable`), each distinct part once with the severities of the findings
/// that had it.
struct HostFindingTexts {
    /// Findings taken, whatever their messages.
    private(set) var taken = 0
    private(set) var texts: [(message: String, counts: SeverityCounts)] = []

    mutating func take(_ message: String, _ severity: Severity) {
        taken += 1
        let part = InventoryBuilder.nameable(message)
        guard !part.isEmpty else { return }
        if let k = texts.firstIndex(where: { $0.message == part }) {
            texts[k].counts.add(severity)
        } else {
            var counts = SeverityCounts()
            counts.add(severity)
            texts.append((part, counts))
        }
    }
}

/// An input's PROF findings, by what they are about, as the inventory's profile verdicts read
/// them (`InventoryProfile`).
struct ProfileFindings {
    private(set) var byInstance: [WordKey: [InventoryProfile]] = [:]
    private(set) var byDevice: [String: [InventoryProfile]] = [:]
    /// The findings about each instance, counted (its inventory entry's `findings`).
    private(set) var countsByInstance: [WordKey: SeverityCounts] = [:]

    /// Takes `f` in, unless `cap` subjects are kept already and `f` is about another.
    mutating func add(_ f: ProfileFinding, cap: Int) {
        if f.instance != 0 {
            let key = WordKey(f.instance)
            guard byInstance.count < cap || byInstance[key] != nil else { return }
            Self.add(f, to: &byInstance[key, default: []])
            countsByInstance[key, default: SeverityCounts()].add(f.severity)
        } else if let d = f.device?.lowercased() {
            guard byDevice.count < cap || byDevice[d] != nil else { return }
            Self.add(f, to: &byDevice[d, default: []])
        }
    }

    private static func add(_ f: ProfileFinding, to list: inout [InventoryProfile]) {
        if let k = list.firstIndex(where: { $0.profile == f.profile }) {
            list[k].add(f.rule, f.severity)
        } else {
            var p = InventoryProfile(f.profile)
            p.add(f.rule, f.severity)
            list.append(p)
        }
    }

    /// The verdicts of a subject that claims `claimed`: one per claimed or judged profile,
    /// in profile order.
    static func verdicts(_ judged: [InventoryProfile]?, claimed: ServiceProfiles) -> [InventoryProfile] {
        var all = claimed.members.map { p in judged?.first { $0.profile == p } ?? InventoryProfile(p) }
        for j in judged ?? [] where !claimed.contains(j.profile) { all.append(j) }
        return all.sorted { $0.profile < $1.profile }
    }
}
