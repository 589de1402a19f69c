import DNS
import Findings
import NetLayers
import WireFormat

// The Matter rules that join records across packets (shared/rules/profiles.md, Scope
// "Stateful"): PROF-005 (a host's address families, keyed by SRV target), PROF-007, PROF-009
// and PROF-011 (subtype PTRs against the TXT of the instance they name, keyed by instance
// name). Their rows are `MDNSVerdicts`' "Matter profile" tables; each returns at once on a
// message without a Matter instance.

/// A value a Matter rule read from a record, and until when the record lives (sent time plus
/// TTL): a comparison with another record holds only while both live.
struct MatterSighting: Sendable {
    var value: UInt64
    var frame: Int
    var expires: Timestamp

    init(_ value: UInt64, frame: Int, time: Timestamp, ttl: UInt32) {
        self.value = value
        self.frame = frame
        expires = time.adding(seconds: Int64(ttl))
    }

    func isLive(at t: Timestamp) -> Bool { t <= expires }
}

extension Matter {
    /// Whether the message has an instance claiming `profile`: the session rules' first test.
    static func has(_ profile: ServiceProfile, in m: MDNSMessageView) -> Bool {
        m.profileInstances.contains { $0.profiles.contains(profile) }
    }

    /// The key of the SRV target of `i` in this message (the node it runs on), if any.
    static func hostKey(_ i: ProfileInstance, in m: MDNSMessageView) -> UInt64? { target(i, in: m)?.info.key }

    /// The frames of `sightings` other than `frame`, for a report's related frames.
    static func others(_ frames: [Int], but frame: Int) -> [Int] {
        var out: [Int] = []
        for f in frames where f != frame && !out.contains(f) { out.append(f) }
        return out
    }
}

/// One subtype PTR of a message, as the subtype rules group them: under which subtype name,
/// naming which instance on which host.
struct MatterSubtypePTR {
    var owner: UInt64
    var instance: UInt64
    var host: UInt64
    var record: Int
}

extension MatterSubtypePTR {
    /// Reports (under `d`) a subtype name of one host's PTRs in `ptrs` naming more than one of
    /// its instances; `what` says which subtype ("long discriminator").
    static func judgeOneInstance(
        _ ptrs: [MatterSubtypePTR], _ what: String, _ m: MDNSMessageView, _ d: RuleDescriptor,
        _ out: inout SessionReports
    ) {
        for (n, x) in ptrs.enumerated() {
            // The first PTR of each (owner, host) with another instance after it.
            guard !ptrs[..<n].contains(where: { $0.owner == x.owner && $0.host == x.host }),
                let y = ptrs[(n + 1)...].first(where: {
                    $0.owner == x.owner && $0.host == x.host && $0.instance != x.instance
                })
            else { continue }
            out.report(
                d,
                "\(what) subtype \(m.name(m.records[x.record].record.name)) names two instances of one node (\(name(x, m)) and \(name(y, m))): it names exactly one",
                related: [], profile: .matterCommissionable, instance: x.instance)
        }
    }

    static func name(_ x: MatterSubtypePTR, _ m: MDNSMessageView) -> String {
        guard case .name(let t) = m.records[x.record].record.value else { return "?" }
        return m.name(t)
    }
}

/// PROF-005: a Matter host publishes AAAA records; A records are an observation.
struct MatterAAAARule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-005", "matter-aaaa-records", .error,
        "A Matter SRV target has AAAA records; A records for it are an observation", profiles: .matter,
        spec:
            "Matter Core (connectedhomeip#7175: \"Nodes SHALL publish AAAA records for all available IPv6 addresses\"); TC-SC-4.1 steps 13/21/27, TC-SC-4.3 step 8; IPv6-only reading per connectedhomeip#25932, #16837 (wording not confirmed)",
        "Per SRV target of a Matter service (`_matterc._udp`, `_matterd._udp`, `_matter._tcp`): the node publishes AAAA records for the IPv6 addresses it accepts commissioning and operational messages on. A host seen with A records and no AAAA over the window (the SRV's TTL, 120 s from the SDK) is non-conforming; A records beside AAAA are an observation (Matter 1.0 nodes publish IPv6 only; controllers without IPv4 mis-resolve them). DiscoScope reads the window as follows: a host's addresses are those any packet of the capture gave it (the session model's); concluded when the SRV's TTL has run out on live capture, and at the end of the input offline; a host with no address at all is MDNS-518's, and one whose history the analyzer dropped is not judged.",
        basis: .notConfirmed,
        interop: "controllers built without IPv4 mis-resolve a Matter host that also publishes A records",
        example: "_matterc SRV target 240AC48E5170.local. answered only with A 192.168.1.115", scope: .stateful,
        lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    MatterExample.announce("_matterc._udp", MatterExample.node, txt: ["D=3840"], aaaa: false, a: true)),
                severity: .warning),
            // AAAA and an extra A record: an observation.
            RuleExample(
                mdns(MatterExample.announce("_matter._tcp", MatterExample.operationalNode, txt: ["T=0"], a: true)),
                severity: .info),
        ],
        nonTriggering: [
            RuleExample(mdns(MatterExample.announce("_matterc._udp", MatterExample.node, txt: ["D=3840"]))),
            // Near miss: the AAAA comes in an answer of its own, within the window.
            RuleExample([
                mdns(MatterExample.announce("_matterc._udp", MatterExample.node, txt: ["D=3840"], aaaa: false), at: 0),
                mdns(
                    response {
                        $0.record(.answer, MatterExample.host, 28, flush: true, rdata: B.aaaa(MatterExample.ipv6))
                    }, at: 5),
            ]),
        ])

    /// A Matter host name watched since its first SRV (a verdict row, `MDNSVerdicts.matterHosts`).
    struct Watch {
        var frame: Int
        var time: Timestamp
        var source: IPAddress
        var profile: ServiceProfile
        /// When the SRV's TTL runs out: live capture concludes then.
        var due: Timestamp
        var concluded = false
        var last: Timestamp
    }

    /// Later than any packet time: a row whose window ended with no address waits for the end.
    static let never = Timestamp(seconds: .max, nanoseconds: 0)

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, i.isResponse else { return }
        let m = i.view
        guard !m.profileInstances.isEmpty else { return }
        for inst in m.profileInstances {
            let both = ServiceProfiles(rawValue: inst.profiles.rawValue & descriptor.profiles.rawValue)
            guard let profile = both.first, let t = Matter.target(inst, in: m),
                m.records[t.srv].record.ttl > 0
            else { continue }
            let ttl = m.records[t.srv].record.ttl
            let fresh = Watch(
                frame: e.frame, time: e.time, source: e.src, profile: profile,
                due: e.time.adding(seconds: Int64(ttl) + 1), last: e.time)
            let due = store.verdicts.matterHosts.update(
                MDNSNameKey(t.info.key), default: fresh, at: e.time, evicted: &out.evictions
            ) { w -> Timestamp? in
                w.last = e.time
                return w.concluded ? nil : w.due
            }
            if let due, store.verdicts.matterHostsDue.map({ due < $0 }) ?? true {
                store.verdicts.matterHostsDue = due
            }
        }
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let next = store.verdicts.matterHostsDue, next < now else { return }
        report(by: now, atEnd: false, &store, &out)
    }

    static func finish(in store: inout MDNSSessionStore, into out: inout SessionReports) {
        report(by: nil, atEnd: true, &store, &out)
    }

    /// Judges the hosts whose window ran out by `now` (all at the end of the input): once per
    /// host. On live capture a host with no address yet waits for the end.
    private static func report(
        by now: Timestamp?, atEnd: Bool, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        let due = store.verdicts.matterHosts.slots(
            where: { w in !w.concluded && (now.map { w.due < $0 } ?? true) }, by: \.frame)
        var judged: [MDNSNameKey] = []
        var waiting: [MDNSNameKey] = []
        for slot in due {
            let key = store.verdicts.matterHosts.rows.keys[slot]
            let w = store.verdicts.matterHosts[slot]
            guard let host = store.model.hosts[key.bits], !host.historyIncomplete,
                !store.model.mayHaveForgotten(key.bits)
            else {
                judged.append(key)
                continue
            }
            let v4 = host.addresses.filter { if case .v4 = $0 { true } else { false } }
            let v6 = host.addresses.contains { if case .v6 = $0 { true } else { false } }
            guard !host.addresses.isEmpty || atEnd else {
                waiting.append(key)
                continue
            }
            judged.append(key)
            guard !v4.isEmpty else { continue }
            let service = host.services.first.map { " (SRV target of \($0))" } ?? ""
            let addresses = v4.map(\.description).joined(separator: ", ")
            if v6 {
                out.reportAtEnd(
                    descriptor, severity: .info,
                    "Matter host \(host.name)\(service) also has A records (\(addresses)): Matter nodes publish their IPv6 addresses, and controllers built without IPv4 may resolve these",
                    frames: [w.frame], time: w.time, source: w.source, profile: w.profile)
            } else {
                out.reportAtEnd(
                    descriptor,
                    "Matter host \(host.name)\(service) had only A records (\(addresses)) and no AAAA: a Matter node publishes AAAA records for the IPv6 addresses it accepts messages on",
                    frames: [w.frame], time: w.time, source: w.source, profile: w.profile)
            }
        }
        for key in judged { store.verdicts.matterHosts.modify(key) { $0.concluded = true } }
        // Looked at again at the end of the input only.
        for key in waiting { store.verdicts.matterHosts.modify(key) { $0.due = Self.never } }
        store.verdicts.matterHostsDue = store.verdicts.matterHosts.rows.values.lazy.filter { !$0.concluded }.map(\.due)
            .min()
    }
}

/// PROF-007: the discriminator subtypes `_L<d>` and `_S<s>` match the instance's `D`.
struct MatterDiscriminatorSubtypesRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-007", "matter-discriminator-subtypes", .error,
        "_L<d> and _S<s> carry the instance's D and D >> 8, and each names one instance of the node",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.3 Commissioning Subtypes; harness assert_valid_long_discriminator_subtype, assert_valid_short_discriminator_subtype; TC-SC-4.1 steps 9–10; SDK ServiceNaming.cpp MakeServiceSubtype",
        "`_L<d>._sub._matterc._udp` carries the full discriminator (a Matter decimal of 0–4095) and `_S<s>._sub._matterc._udp` its upper 4 bits (0–15). Each names exactly one instance of the node, both the same one, and `d` equals that instance's `D`, `s` equals `D >> 8`. DiscoScope reads this as follows: the values are compared per instance name while both the subtype PTR and the TXT live (sent time plus TTL), reported on the message that brings the second; \"of the node\" is the instances with one SRV target in one message (an advertising proxy answers for many nodes).",
        example: "_L3840._sub._matterc._udp.local. PTR to an instance whose TXT has D=3841", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3841"], subtypes: ["_L3840"])),
            RuleExample(MatterExample.commissionable(["D=3840"], subtypes: ["_S14"])),
            RuleExample(MatterExample.commissionable(["D=3840"], subtypes: ["_L04000"])),
            RuleExample(MatterExample.commissionable(["D=3840"], subtypes: ["_S16"])),
            // The TXT first, the subtype PTR later (within the TXT's TTL).
            RuleExample([
                mdns(MatterExample.announce("_matterc._udp", MatterExample.node, txt: ["D=3840"]), at: 0),
                mdns(subtypePTR("_L3841"), at: 10),
            ]),
            // Two instances of one node under one long discriminator.
            RuleExample(mdns(twoInstances("_L3840", "_L3840"))),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840"], subtypes: ["_L3840", "_S15"])),
            // Near miss: the TXT's TTL ran out before the subtype PTR came.
            RuleExample([
                mdns(MatterExample.announce("_matterc._udp", MatterExample.node, txt: ["D=3840"], ttl: 5), at: 0),
                mdns(subtypePTR("_L3841"), at: 10),
            ]),
        ])

    /// One subtype PTR `sub` to the example node.
    static func subtypePTR(_ sub: String) -> DNSBuilder {
        response {
            $0.record(
                .answer, "\(sub)._sub._matterc._udp.local", 12,
                rdata: B.name("\(MatterExample.node)._matterc._udp.local"))
        }
    }

    /// Two instances on one host, listed under `first` and `second`.
    static func twoInstances(_ first: String, _ second: String) -> DNSBuilder {
        response { b in
            for (n, sub) in [(MatterExample.node, first), ("0011223344556677", second)] {
                let name = "\(n)._matterc._udp.local"
                b.record(.answer, "\(sub)._sub._matterc._udp.local", 12, rdata: B.name(name))
                b.record(.additional, name, 33, flush: true, rdata: B.srv(5540, MatterExample.host))
                b.record(.additional, name, 16, flush: true, rdata: B.txt(["D=3840"]))
            }
        }
    }

    /// What the rule knows of one instance (a verdict row, `MDNSVerdicts.matterDiscriminators`).
    struct Row {
        var d: MatterSighting?
        var long: MatterSighting?
        var short: MatterSighting?
        var last: Timestamp
    }

    static let long: UInt8 = 0x6C  // l
    static let short: UInt8 = 0x73  // s

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        let m = i.view
        guard Matter.has(.matterCommissionable, in: m), Matter.judges(m) else { return }
        let p = m.message.payload
        var longs: [MatterSubtypePTR] = []
        var shorts: [MatterSubtypePTR] = []
        for inst in m.profileInstances where inst.profiles.contains(.matterCommissionable) {
            var long: MatterSighting?? = nil
            var short: MatterSighting?? = nil
            let host = Matter.hostKey(inst, in: m)
            Matter.forEachSubtype(of: inst, in: m) { k, letter, digits in
                guard letter == Self.long || letter == Self.short else { return }
                let rr = m.records[k].record
                let n: MatterNumber = letter == Self.long ? .discriminator : .shortDiscriminator
                let what = letter == Self.long ? "long discriminator" : "short discriminator"
                switch n.parse(p[digits]) {
                case .failure(let f):
                    out.report(
                        descriptor, "subtype \(m.name(rr.name)): the \(what) \(n.problem(f))", related: [],
                        profile: .matterCommissionable, instance: inst.nameKey)
                case .success(let v):
                    let seen: MatterSighting? =
                        rr.ttl > 0 ? MatterSighting(v, frame: e.frame, time: e.time, ttl: rr.ttl) : nil
                    if letter == Self.long { long = .some(seen) } else { short = .some(seen) }
                    if rr.ttl > 0, let host {
                        let x = MatterSubtypePTR(
                            owner: m.records[k].nameKey, instance: inst.nameKey, host: host, record: k)
                        if letter == Self.long { longs.append(x) } else { shorts.append(x) }
                    }
                }
            }
            var d: MatterSighting?? = nil
            if let t = inst.txt {
                let ttl = m.records[t].record.ttl
                let value = ttl > 0 ? Matter.number("D", .discriminator, of: inst, in: m) : nil
                d = .some(value.map { MatterSighting($0, frame: e.frame, time: e.time, ttl: ttl) })
            }
            guard long != nil || short != nil || d != nil else { continue }
            let row = store.verdicts.matterDiscriminators.update(
                MDNSNameKey(inst.nameKey), default: Row(last: e.time), at: e.time, evicted: &out.evictions
            ) { row -> Row in
                if let long { row.long = long }
                if let short { row.short = short }
                if let d { row.d = d }
                row.last = e.time
                return row
            }
            compare(row, inst, m, e, &out)
        }
        MatterSubtypePTR.judgeOneInstance(longs, "long discriminator", m, descriptor, &out)
        MatterSubtypePTR.judgeOneInstance(shorts, "short discriminator", m, descriptor, &out)
        // Both subtypes of a node name the same instance.
        for s in shorts {
            guard let l = longs.first(where: { $0.host == s.host }),
                !longs.contains(where: { $0.host == s.host && $0.instance == s.instance })
            else { continue }
            out.report(
                descriptor,
                "short discriminator subtype \(m.name(m.records[s.record].record.name)) names \(MatterSubtypePTR.name(s, m)), the long one \(m.name(m.records[l.record].record.name)) another instance of the node (\(MatterSubtypePTR.name(l, m))): both name the same",
                related: [], profile: .matterCommissionable, instance: s.instance)
        }
    }

    /// Reports a live subtype value that does not match the live `D`, when this message brought
    /// one of the two.
    private static func compare(
        _ row: Row, _ inst: ProfileInstance, _ m: MDNSMessageView, _ e: MDNSEvent, _ out: inout SessionReports
    ) {
        guard let d = row.d, d.isLive(at: e.time) else { return }
        if let l = row.long, l.isLive(at: e.time), l.value != d.value, l.frame == e.frame || d.frame == e.frame {
            out.report(
                descriptor,
                "long discriminator subtype _L\(l.value) (frame \(l.frame)) names \(m.name(inst.name)), whose TXT has D=\(d.value) (frame \(d.frame)): _L carries the instance's discriminator",
                related: Matter.others([l.frame, d.frame], but: e.frame), profile: .matterCommissionable,
                instance: inst.nameKey)
        }
        if let s = row.short, s.isLive(at: e.time), s.value != d.value >> 8, s.frame == e.frame || d.frame == e.frame {
            out.report(
                descriptor,
                "short discriminator subtype _S\(s.value) (frame \(s.frame)) names \(m.name(inst.name)), whose TXT has D=\(d.value) (frame \(d.frame)): _S carries its upper 4 bits, \(d.value >> 8)",
                related: Matter.others([s.frame, d.frame], but: e.frame), profile: .matterCommissionable,
                instance: inst.nameKey)
        }
    }
}

/// PROF-009: `_CM._sub._matterc._udp` lists an instance exactly when its `CM` is not 0.
struct MatterCommissioningSubtypeRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-009", "matter-cm-subtype", .error,
        "_CM lists an instance exactly when the instance advertises CM other than 0",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.3, §4.3.1.7 (derived); TC-SC-4.1 _verify_commissionable_subtypes; SDK ServiceNaming.cpp MakeServiceSubtype kCommissioningMode",
        "A node in commissioning mode (`CM` 1 or 2) is listed under `_CM._sub._matterc._udp`; a node in Extended Discovery (`CM=0`, or no `CM`) is not. DiscoScope reads this as follows: a `_CM` PTR (TTL above 0) naming an instance whose live TXT says CM=0 is reported on that message; an instance that advertised CM other than 0 and was listed under none of the `_CM` PTRs within its TXT's TTL is reported when that window ends (at the end of the input offline), and only when the capture shows its other subtype PTRs in that window (the node announces its subtypes, so the missing `_CM` is not just unasked for).",
        interop:
            "commissioners browse _CM to find nodes ready to commission (arendst/Tasmota#24026, espressif/esp-matter#970)",
        example: "_CM._sub._matterc._udp.local. PTR to an instance whose TXT has CM=0", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "CM=0"], subtypes: ["_L3840", "_CM"])),
            RuleExample(MatterExample.commissionable(["D=3840"], subtypes: ["_CM"])),
            // In commissioning mode, its subtypes announced without _CM.
            RuleExample(MatterExample.commissionable(["D=3840", "CM=1"], subtypes: ["_L3840", "_S15"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "CM=0"], subtypes: ["_L3840", "_S15"])),
            RuleExample(MatterExample.commissionable(["D=3840", "CM=1"], subtypes: ["_L3840", "_S15", "_CM"])),
            // Near miss: the _CM PTR comes in a message of its own, within the TXT's TTL.
            RuleExample([
                MatterExample.commissionable(["D=3840", "CM=2"], subtypes: ["_L3840", "_S15"]),
                mdns(MatterDiscriminatorSubtypesRule.subtypePTR("_CM"), at: 1),
            ]),
            // Near miss: no subtype PTR of the node seen, only its browse answer.
            RuleExample(MatterExample.commissionable(["D=3840", "CM=1"])),
        ])

    /// An instance that advertised CM other than 0 and was not listed under `_CM` since.
    struct Open {
        var frame: Int
        var time: Timestamp
        var due: Timestamp
        var value: UInt64
        /// Its other subtype PTRs were seen in the window.
        var sawSubtypes: Bool
    }
    /// What the rule knows of one instance (a verdict row, `MDNSVerdicts.matterCMListings`).
    struct Row {
        var cm: MatterSighting?
        var listed: MatterSighting?
        var open: Open?
        var reported = false
        var source: IPAddress
        var last: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        let m = i.view
        guard Matter.has(.matterCommissionable, in: m), Matter.judges(m) else { return }
        let p = m.message.payload
        for inst in m.profileInstances where inst.profiles.contains(.matterCommissionable) {
            var listing: UInt32? = nil
            var otherSubtype = false
            Matter.forEachSubtype(of: inst, in: m) { k, _, _ in
                let rr = m.records[k].record
                if let r = m.records[k].firstLabel, ASCII.equalsIgnoringCase(p, r, "_CM") {
                    listing = max(listing ?? 0, rr.ttl)
                } else if rr.ttl > 0 {
                    otherSubtype = true
                }
            }
            // The TXT's CM (absent: 0); nil when there is no TXT, or its CM is malformed (PROF-008).
            var cm: MatterSighting?? = nil
            if let t = inst.txt {
                let ttl = m.records[t].record.ttl
                if ttl == 0 {
                    cm = .some(nil)
                } else if let pair = Matter.pair("CM", of: inst, in: m) {
                    if case .success(let v) = Matter.value(pair, .commissioningMode, in: p) {
                        cm = .some(MatterSighting(v, frame: e.frame, time: e.time, ttl: ttl))
                    }
                } else {
                    cm = .some(MatterSighting(0, frame: e.frame, time: e.time, ttl: ttl))
                }
            }
            guard listing != nil || cm != nil || otherSubtype else { continue }
            let now = e.time
            let frame = e.frame
            let src = e.src
            let cut = e.isTruncated
            let row = store.verdicts.matterCMListings.update(
                MDNSNameKey(inst.nameKey), default: Row(source: src, last: now), at: now, evicted: &out.evictions
            ) { row -> Row in
                row.last = now
                if let listing {
                    row.listed = listing > 0 ? MatterSighting(0, frame: frame, time: now, ttl: listing) : nil
                    if listing > 0, let o = row.open, now <= o.due { row.open = nil }
                }
                if let cm {
                    row.cm = cm
                    if let c = cm, c.value != 0 {
                        // A datagram the snap length cut may have lost its _CM PTR: no window.
                        if row.open == nil, !row.reported, !cut, !(row.listed?.isLive(at: now) ?? false) {
                            row.open = Open(
                                frame: frame, time: now, due: c.expires, value: c.value, sawSubtypes: false)
                            row.source = src
                        }
                    } else if let o = row.open, now <= o.due {
                        row.open = nil
                    }
                }
                if otherSubtype, let o = row.open, now <= o.due { row.open?.sawSubtypes = true }
                return row
            }
            if let o = row.open, store.verdicts.matterCMDue.map({ o.due < $0 }) ?? true {
                store.verdicts.matterCMDue = o.due
            }
            // Listed under _CM by this message while the TXT says CM=0.
            if let l = row.listed, l.frame == e.frame, let c = row.cm, c.value == 0, c.isLive(at: now) {
                let written = Matter.pair("CM", of: inst, in: m) == nil && c.frame == e.frame ? "has no CM" : "has CM=0"
                out.report(
                    descriptor,
                    "_CM._sub._matterc._udp names \(m.name(inst.name)), whose TXT \(written) (frame \(c.frame)): only a node in commissioning mode is listed under _CM",
                    related: Matter.others([c.frame], but: e.frame), profile: .matterCommissionable,
                    instance: inst.nameKey)
            }
        }
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let next = store.verdicts.matterCMDue, next < now else { return }
        report(by: now, &store, &out)
    }

    static func finish(in store: inout MDNSSessionStore, into out: inout SessionReports) {
        report(by: nil, &store, &out)
    }

    /// Reports the instances in commissioning mode never listed under `_CM` in their window,
    /// once each: those whose window ended by `now`, or all at the end of the input.
    private static func report(by now: Timestamp?, _ store: inout MDNSSessionStore, _ out: inout SessionReports) {
        let due = store.verdicts.matterCMListings.slots(
            where: { row in
                guard let o = row.open else { return false }
                return now.map { o.due < $0 } ?? true
            }, by: { $0.open?.frame ?? 0 })
        var done: [MDNSNameKey] = []
        for slot in due {
            let key = store.verdicts.matterCMListings.rows.keys[slot]
            let row = store.verdicts.matterCMListings[slot]
            done.append(key)
            guard let o = row.open, o.sawSubtypes else { continue }
            let name = store.model.services[key.bits]?.instance ?? "an instance"
            out.reportAtEnd(
                descriptor,
                "\(name) advertised CM=\(o.value) (frame \(o.frame)), in commissioning mode, and its subtypes, but no _CM._sub._matterc._udp PTR named it within its TXT's TTL: a node in commissioning mode is listed under _CM",
                frames: [o.frame], time: o.time, source: row.source, profile: .matterCommissionable, instance: key.bits)
        }
        for key in done {
            store.verdicts.matterCMListings.modify(key) {
                if $0.open?.sawSubtypes ?? false { $0.reported = true }
                $0.open = nil
            }
        }
        store.verdicts.matterCMDue = store.verdicts.matterCMListings.rows.values.lazy.compactMap(\.open?.due).min()
    }
}

/// PROF-011: the subtypes `_V<vendor>` and `_T<device type>` match the instance's `VP` and `DT`.
struct MatterVendorDeviceTypeSubtypesRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-011", "matter-vendor-devtype-subtypes", .error,
        "_V<v> and _T<t> carry the instance's vendor ID and DT, and name the instance the discriminator subtype names",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.3; harness assert_valid_vendor_subtype, assert_valid_devtype_subtype; TC-SC-4.1 _verify_commissionable_subtypes; SC-4.x helper verify_devtype_subtype; SDK ServiceNaming.cpp MakeServiceSubtype",
        "`_V<v>._sub._matterc._udp` carries a vendor ID (a Matter decimal of 0–65535) equal to the vendor in the `VP` of the instance it names; `_T<t>._sub._matterc._udp` a device type (0–4294967295) equal to that instance's `DT`. Both name the instance the node's discriminator subtypes name. DiscoScope reads this as follows: values are compared per instance name while both records live (sent time plus TTL), reported on the message that brings the second; the instance of the discriminator subtype is compared within one message, per SRV target (node).",
        example: "_V65520._sub._matterc._udp.local. PTR to an instance with VP=65521+32768", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "VP=65521+32768"], subtypes: ["_V065521"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=65521+32768"], subtypes: ["_V65520"])),
            RuleExample(MatterExample.commissionable(["D=3840", "DT=256"], subtypes: ["_T257"])),
            RuleExample(MatterExample.commissionable(["D=3840", "DT=256"], subtypes: ["_T4294967296"])),
            // The vendor subtype names another instance of the node than the discriminator's.
            RuleExample(mdns(MatterDiscriminatorSubtypesRule.twoInstances("_L3840", "_V65521"))),
        ],
        nonTriggering: [
            RuleExample(
                MatterExample.commissionable(
                    ["D=3840", "VP=65521+32768", "DT=256"], subtypes: ["_L3840", "_V65521", "_T256"]))
        ])

    /// What the rule knows of one instance (a verdict row, `MDNSVerdicts.matterVendorSubtypes`).
    struct Row {
        var vendor: MatterSighting?
        var deviceType: MatterSighting?
        var v: MatterSighting?
        var t: MatterSighting?
        var last: Timestamp
    }

    static let vendorLetter: UInt8 = 0x76  // v
    static let typeLetter: UInt8 = 0x74  // t

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        let m = i.view
        guard Matter.has(.matterCommissionable, in: m), Matter.judges(m) else { return }
        let p = m.message.payload
        var discriminators: [MatterSubtypePTR] = []
        var others: [MatterSubtypePTR] = []
        for inst in m.profileInstances where inst.profiles.contains(.matterCommissionable) {
            var v: MatterSighting?? = nil
            var t: MatterSighting?? = nil
            let host = Matter.hostKey(inst, in: m)
            Matter.forEachSubtype(of: inst, in: m) { k, letter, digits in
                let rr = m.records[k].record
                if letter == MatterDiscriminatorSubtypesRule.long || letter == MatterDiscriminatorSubtypesRule.short {
                    if rr.ttl > 0, let host {
                        discriminators.append(
                            MatterSubtypePTR(owner: m.records[k].nameKey, instance: inst.nameKey, host: host, record: k)
                        )
                    }
                    return
                }
                guard letter == Self.vendorLetter || letter == Self.typeLetter else { return }
                let n: MatterNumber = letter == Self.vendorLetter ? .vendorID : .deviceType
                switch n.parse(p[digits]) {
                case .failure(let f):
                    out.report(
                        descriptor,
                        "subtype \(m.name(rr.name)): the \(letter == Self.vendorLetter ? "vendor ID" : "device type") \(n.problem(f))",
                        related: [], profile: .matterCommissionable, instance: inst.nameKey)
                case .success(let value):
                    let seen: MatterSighting? =
                        rr.ttl > 0 ? MatterSighting(value, frame: e.frame, time: e.time, ttl: rr.ttl) : nil
                    if letter == Self.vendorLetter { v = .some(seen) } else { t = .some(seen) }
                    if rr.ttl > 0, let host {
                        others.append(
                            MatterSubtypePTR(owner: m.records[k].nameKey, instance: inst.nameKey, host: host, record: k)
                        )
                    }
                }
            }
            var vendor: MatterSighting?? = nil
            var deviceType: MatterSighting?? = nil
            if let x = inst.txt {
                let ttl = m.records[x].record.ttl
                var vp: UInt64? = nil
                if ttl > 0, let pair = Matter.pair("VP", of: inst, in: m), let value = pair.value {
                    vp = MatterVendorProductRule.parse(p, value)?.vendor
                }
                let dt = ttl > 0 ? Matter.number("DT", .deviceType, of: inst, in: m) : nil
                vendor = .some(vp.map { MatterSighting($0, frame: e.frame, time: e.time, ttl: ttl) })
                deviceType = .some(dt.map { MatterSighting($0, frame: e.frame, time: e.time, ttl: ttl) })
            }
            guard v != nil || t != nil || vendor != nil else { continue }
            let row = store.verdicts.matterVendorSubtypes.update(
                MDNSNameKey(inst.nameKey), default: Row(last: e.time), at: e.time, evicted: &out.evictions
            ) { row -> Row in
                if let v { row.v = v }
                if let t { row.t = t }
                if let vendor { row.vendor = vendor }
                if let deviceType { row.deviceType = deviceType }
                row.last = e.time
                return row
            }
            compare(row.v, row.vendor, "vendor subtype _V", "VP vendor ID", inst, m, e, &out)
            compare(row.t, row.deviceType, "device type subtype _T", "DT", inst, m, e, &out)
        }
        // Each names an instance the node's discriminator subtypes name.
        for x in others {
            guard discriminators.contains(where: { $0.host == x.host }),
                !discriminators.contains(where: { $0.host == x.host && $0.instance == x.instance })
            else { continue }
            out.report(
                descriptor,
                "subtype \(m.name(m.records[x.record].record.name)) names \(MatterSubtypePTR.name(x, m)), which none of the node's discriminator subtypes names: both name the same instance",
                related: [], profile: .matterCommissionable, instance: x.instance)
        }
    }

    /// Reports a live subtype value unlike the live TXT value, when this message brought one.
    private static func compare(
        _ sub: MatterSighting?, _ txt: MatterSighting?, _ what: String, _ key: String, _ inst: ProfileInstance,
        _ m: MDNSMessageView, _ e: MDNSEvent, _ out: inout SessionReports
    ) {
        guard let s = sub, let x = txt, s.isLive(at: e.time), x.isLive(at: e.time), s.value != x.value,
            s.frame == e.frame || x.frame == e.frame
        else { return }
        out.report(
            descriptor,
            "\(what)\(s.value) (frame \(s.frame)) names \(m.name(inst.name)), whose \(key) is \(x.value) (frame \(x.frame)): the subtype carries the instance's value",
            related: Matter.others([s.frame, x.frame], but: e.frame), profile: .matterCommissionable,
            instance: inst.nameKey)
    }
}
