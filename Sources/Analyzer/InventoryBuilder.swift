import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// Turns the session models of one input into inventory entries, at the end of that input.
enum InventoryBuilder {
    /// The names of the run's segments `indices` (`Segments`; the unnamed one left out).
    static func segmentNames(_ indices: [UInt16]?, _ names: [String]) -> [String] {
        (indices ?? []).compactMap { Segments.name($0, in: names) }
    }

    /// SSDP: one entry per root device. A UUID that never named itself `upnp:rootdevice` is an
    /// embedded device of the root that advertised the same LOCATION from the same address
    /// (its types, messages and findings count for that root); one with no such root is
    /// listed on its own (its root was not seen). `segments`: the segments (run indices,
    /// increasing) each device was seen on, named by `names`; a root lists its embedded
    /// devices' too.
    static func addSSDP(
        _ model: SSDPSessionModel, findings: [UInt64: SeverityCounts], segments: [UInt64: [UInt16]] = [:],
        names: [String] = [], profiles: ProfileFindings = ProfileFindings(), file: String?,
        to inventory: inout Inventory
    ) {
        var segments = segments
        let listed = model.inventories
        let order = inOrder(model.devices, firstFrame: \.firstFrame, name: { listed[$0]?.uuid ?? "" })
        let records = order.compactMap { key in model.devices[key].map { (key: key, value: $0) } }
        var roots: [UInt64] = []
        var standalone: [UInt64] = []
        var entries: [UInt64: InventoryDevice] = [:]
        var sightings: [UInt64: SegmentSightings] = [:]
        for (key, d) in records {
            let inv = listed[key] ?? SSDPDeviceInventory()
            entries[key] = entry(d, inv, findings: findings[key] ?? SeverityCounts(), file: file)
            sightings[key] = inv.sightings
            if inv.isRoot { roots.append(key) }
        }
        // A device belongs to the first root (in `roots`' order) that shares a source address
        // and a LOCATION with it: the roots are indexed by address once, so each device looks
        // only at the roots it shares an address with.
        var rootsByAddress: [IPAddress: [Int]] = [:]
        for (index, r) in roots.enumerated() {
            for s in model.devices[r]?.sources ?? [] where rootsByAddress[s.address]?.last != index {
                rootsByAddress[s.address, default: []].append(index)
            }
        }
        for (key, d) in records where listed[key]?.isRoot != true {
            let locations = listed[key]?.locationKeys ?? []
            let candidates = Set(d.sources.flatMap { rootsByAddress[$0.address] ?? [] }).sorted()
            let owner = candidates.lazy.map { roots[$0] }.first { r in
                guard let rootLocations = listed[r]?.locationKeys else { return false }
                return locations.contains { rootLocations.contains($0) }
            }
            guard let owner, var root = entries[owner], let child = entries[key] else {
                standalone.append(key)
                continue
            }
            merge(child, into: &root)
            entries[owner] = root
            if let seen = segments[key] { segments[owner] = Array(Set(seen + (segments[owner] ?? []))).sorted() }
            sightings[owner, default: SegmentSightings()].merge(listed[key]?.sightings ?? SegmentSightings())
        }
        // The profile each advertised type claims (a capture has few distinct types).
        var claimedByType: [String: ServiceProfile?] = [:]
        for key in roots + standalone {
            guard var e = entries[key] else { continue }
            e.segments = segmentNames(segments[key], names)
            e.forwarded = forwarding(sightings[key] ?? SegmentSightings(), names)
            var claimed = ServiceProfiles()
            for t in e.types {
                let p =
                    claimedByType[t]
                    ?? {
                        let p = ServiceProfile.claimed(bySSDPType: t)
                        claimedByType[t] = p
                        return p
                    }()
                if let p { claimed.insert(p) }
            }
            // Findings name a device by its `uuid:…` identity (or the USN's, for an embedded one).
            let judged = profiles.byDevice[e.id.lowercased()] ?? profiles.byDevice["uuid:" + e.id.lowercased()]
            e.profiles = ProfileFindings.verdicts(judged, claimed: claimed)
            inventory.add(e)
        }
        if !inventory.protocols.contains(.ssdp) { inventory.protocols.append(.ssdp) }
    }

    /// mDNS: one `device` per host name (address record owners and SRV targets, so a target
    /// with no address record is listed, with no advertised address), then one `service`
    /// per DNS-SD instance, each in the order it first appeared.
    ///
    /// Findings: a host counts the findings of messages that speak for it (the owner of the
    /// first address record, else the first SRV target: `MDNSJudge.host`), stateful and
    /// end-of-input ones included. A service counts the PROF findings about it (by its key),
    /// and those of its SRV target's other findings from the session rules whose message
    /// names the instance; the other per-message rules' findings
    /// name a place in the message, not an instance, and count for the host only. An mDNS
    /// finding that names no host (a probe's, a query's, a session rule's on a message that
    /// speaks for none: `byAddress`, by source address) counts for the host whose addresses
    /// include its source, when exactly one host's do (the HTML page joins that sender's lane
    /// into the host's by the same test).
    static func addMDNS(
        _ model: MDNSSessionModel, findings: [UInt64: SeverityCounts],
        texts: [UInt64: HostFindingTexts], segments: [UInt64: [UInt16]] = [:],
        byAddress: [String: SeverityCounts] = [:], names: [String] = [],
        profiles: ProfileFindings = ProfileFindings(), file: String?, to inventory: inout Inventory
    ) {
        if !inventory.protocols.contains(.mdns) { inventory.protocols.append(.mdns) }
        let hostKeys = inOrder(
            model.hosts, firstFrame: \.firstFrame, name: { model.hosts[$0]?.name ?? "" }, where: { $0.name != "." })
        var entries: [InventoryDevice] = []
        entries.reserveCapacity(hostKeys.count)
        // Each host's advertised addresses as text, for its entry and its services'.
        var addressTexts: [UInt64: [String]] = [:]
        for key in hostKeys {
            guard let h = model.hosts[key] else { continue }
            var e = InventoryDevice(proto: .mdns, id: h.name)
            e.file = file
            e.segments = segmentNames(segments[key], names)
            // Its advertised addresses, then those it sent from; a forwarder's address or MAC
            // is none of its own (even where a copy came before the original it copied), unless
            // the MAC is the only one it sent from (a reflector's own host name).
            let advertised = h.addresses.map(\.description)
            addressTexts[key] = advertised
            e.addresses = advertised
            for s in h.sources where !h.addresses.contains(s) && !model.forwarders.contains(s) {
                e.addresses.append(s.description)
            }
            e.macs = h.macs.filter { !model.forwarderMACs.contains($0) || h.macs.count == 1 }.map {
                hexString($0, separator: 0x3A)
            }
            e.firstSeen = h.firstSeen
            e.lastSeen = h.lastSeen
            e.messages = h.messages
            e.findings = findings[key] ?? SeverityCounts()
            e.services = h.services
            e.goodbye = h.goodbye
            e.incomplete =
                h.historyIncomplete || h.addresses.count >= MDNSHostState.maxAddresses
                || h.services.count >= MDNSHostState.maxServices
            entries.append(e)
        }
        if !byAddress.isEmpty {
            // Each address of exactly one host (-1: of several).
            var claims: [String: Int] = [:]
            for (i, e) in entries.enumerated() {
                for a in e.addresses { claims[a] = claims[a].map { $0 == i ? i : -1 } ?? i }
            }
            for (a, counts) in byAddress {
                guard let i = claims[a], i >= 0 else { continue }
                entries[i].findings.add(counts)
            }
        }
        for e in entries { inventory.add(e) }
        let serviceKeys = inOrder(
            model.services, firstFrame: \.firstFrame, name: { model.services[$0]?.instance ?? "" })
        let services = serviceKeys.compactMap { model.services[$0] }
        var byHost: [UInt64: [Int]] = [:]
        for (i, s) in services.enumerated() {
            if let hk = s.hostKey { byHost[hk, default: []].append(i) }
        }
        var serviceFindings = [SeverityCounts](repeating: SeverityCounts(), count: services.count)
        for (hk, indices) in byHost {
            let names = indices.map { services[$0].instance }
            for t in texts[hk]?.texts ?? [] {
                for n in named(in: t.message, among: names) { serviceFindings[indices[n]].add(t.counts) }
            }
        }
        // The profiles each service type claims: a capture has a few dozen types and
        // thousands of instances.
        var claimedByType: [String: ServiceProfiles] = [:]
        for (i, s) in services.enumerated() {
            var e = InventoryService(instance: s.instance)
            e.file = file
            e.segments = segmentNames(segments[serviceKeys[i]], names)
            e.serviceType = s.serviceType
            e.subtypes = s.subtypes
            e.host = s.host
            e.port = s.port.map(Int.init)
            e.txt = s.txt
            if let hk = s.hostKey, let h = model.hosts[hk] {
                e.addresses = addressTexts[hk] ?? h.addresses.map(\.description)
                e.findings = serviceFindings[i]
            }
            e.firstSeen = s.firstSeen
            e.lastSeen = s.lastSeen
            e.goodbye = s.goodbye
            e.forwarded = forwarding(s.sightings, names)
            var claimed =
                claimedByType[s.serviceType]
                ?? {
                    let c = ServiceProfile.claimed(serviceType: s.serviceType, subtypes: [])
                    claimedByType[s.serviceType] = c
                    return c
                }()
            if !s.subtypes.isEmpty {
                claimed.formUnion(ServiceProfile.claimed(serviceType: s.serviceType, subtypes: s.subtypes))
            }
            if let c = profiles.countsByInstance[WordKey(serviceKeys[i])] { e.findings.add(c) }
            let judged = profiles.byInstance[WordKey(serviceKeys[i])]
            if claimed != [] || judged != nil { e.profiles = ProfileFindings.verdicts(judged, claimed: claimed) }
            inventory.add(e)
        }
    }

    /// The keys of the `rows` that `include` admits, in the order their entity first appeared
    /// (`firstFrame`, then the key's `name` for rows first seen in the same frame). The keys
    /// are sorted, not the rows: a row is large, and moving it retains everything it holds.
    static func inOrder<Row>(
        _ rows: [UInt64: Row], firstFrame: (Row) -> Int, name: (UInt64) -> String,
        where include: (Row) -> Bool = { _ in true }
    ) -> [UInt64] {
        var order: [(key: UInt64, frame: Int)] = []
        order.reserveCapacity(rows.count)
        for (key, row) in rows where include(row) { order.append((key, firstFrame(row))) }
        order.sort { a, b in a.frame != b.frame ? a.frame < b.frame : name(a.key) < name(b.key) }
        return order.map(\.key)
    }

    /// Where a service or device went after the segment that showed it first, from its
    /// sightings.
    static func forwarding(_ sightings: SegmentSightings, _ names: [String]) -> [InventoryForwarding] {
        let seen = sightings.inOrder
        guard let first = seen.first, seen.count > 1 else { return [] }
        func name(_ k: UInt16) -> String { Segments.name(k, in: names) ?? "#\(k)" }
        return seen.dropFirst().map {
            InventoryForwarding(
                segment: name($0.segment), from: name(first.segment), source: $0.source.description,
                after: max(0, Timestamp.seconds(from: first.time, to: $0.time)))
        }
    }

    /// The indices of the `names` that `text` names. An occurrence counts when it stands on
    /// its own: no name byte just before or after it (`b.local.` is not named by
    /// `ab.local.`), and no longer name of `names` around it (`Printer._ipp._tcp.local.` is
    /// not named by `Office Printer._ipp._tcp.local.`: labels may hold spaces).
    ///
    /// Names and messages come from the same presentation of names, so bytes are compared;
    /// `String` comparison by canonical equivalence was most of the inventory's time on busy
    /// captures.
    static func named(in text: String, among names: [String]) -> [Int] {
        var found: [(index: Int, start: Int, end: Int)] = []
        let t = text.utf8.span
        for (index, name) in names.enumerated() {
            let n = name.utf8.span
            guard n.count > 0, n.count <= t.count else { continue }
            var i = 0
            while i <= t.count - n.count {
                var k = 0
                while k < n.count, t[i + k] == n[k] { k += 1 }
                let end = i + n.count
                if k == n.count, i == 0 || !isNameByte(t[i - 1]), end == t.count || !isNameByte(t[end]) {
                    found.append((index, i, end))
                }
                i += 1
            }
        }
        var named: [Int] = []
        for f in found where !named.contains(f.index) {
            let covered = found.contains { g in
                g.end - g.start > f.end - f.start && g.start <= f.start && g.end >= f.end
            }
            if !covered { named.append(f.index) }
        }
        return named
    }

    /// The part of `text` that `named(in:among:)` can find an instance name in: up to the last
    /// dot followed by a byte that is not a name byte (or by the end), empty when there is
    /// none. An instance name's presentation ends with a dot and must not be followed by a
    /// name byte, so nothing after that point is part of a name found; a finding's message
    /// keeps its names first and its explanation after them, and only this part is kept to
    /// the end of the input.
    static func nameable(_ text: String) -> String {
        let t = text.utf8.span
        var end = t.count
        while end > 0, !(t[end - 1] == 0x2E && (end == t.count || !isNameByte(t[end]))) { end -= 1 }
        if end == t.count { return text }
        return String(decoding: text.utf8.prefix(end), as: UTF8.self)
    }

    /// A byte that can continue a name's presentation: a letter, digit, `-`, `_`, `.`, `\\`
    /// or part of a UTF-8 sequence.
    private static func isNameByte(_ b: UInt8) -> Bool {
        ASCII.isAlpha(b) || ASCII.isDigit(b) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x5C || b >= 0x80
    }

    private static func entry(
        _ d: SSDPDeviceState, _ inv: SSDPDeviceInventory, findings: SeverityCounts, file: String?
    ) -> InventoryDevice {
        var e = InventoryDevice(proto: .ssdp, id: inv.uuid)
        e.file = file
        e.addresses = d.sources.map { $0.address.description }
        e.macs = inv.macs.map(macText)
        e.firstSeen = d.firstSeen
        e.lastSeen = d.lastSeen
        e.messages = inv.messages
        e.findings = findings
        e.server = inv.server
        e.upnpVersion = d.claimedVersion.map { "\($0)" }
        e.types = inv.types
        e.locations = inv.locations
        e.bootIDs = inv.bootIDs
        e.maxAge = inv.maxAges
        e.byebye = inv.byebyeLast
        e.incomplete = inv.incomplete || d.historyIncomplete
        return e
    }

    private static func merge(_ child: InventoryDevice, into root: inout InventoryDevice) {
        root.embedded.append(child.id)
        for a in child.addresses where !root.addresses.contains(a) { root.addresses.append(a) }
        for m in child.macs where !root.macs.contains(m) { root.macs.append(m) }
        for t in child.types where !root.types.contains(t) { root.types.append(t) }
        for m in child.maxAge where !root.maxAge.contains(m) { root.maxAge.append(m) }
        root.firstSeen = min(root.firstSeen, child.firstSeen)
        root.lastSeen = max(root.lastSeen, child.lastSeen)
        root.messages &+= child.messages
        root.findings.add(child.findings)
        root.incomplete = root.incomplete || child.incomplete
    }

    static func macText(_ m: MACBytes) -> String { hexString(m.bytes, separator: 0x3A) }
}
