import DNS
import Findings
import NetLayers
import WireFormat

// PROF-2xx judged across messages: an IPP Everywhere or AirPrint claim comes from a subtype
// PTR that may arrive in another message than the TXT it is judged with, and a printer's
// instances under `_ipp`, `_ipps`, `_printer` and `_pdl-datastream` share one instance
// name. The rows live in `MDNSVerdicts` (MARK: Printing profiles); the rules keep nothing.

extension MDNSEvent {
    /// The printing instances of a response (none for other events): where every printing
    /// session rule starts, cheaply.
    var printingInstances: [ProfileInstance]? {
        guard let i = input, i.isResponse, !i.decoded.profileInstances.isEmpty else { return nil }
        return i.decoded.profileInstances
    }
}

extension ProfileInstance {
    /// The subtype PTR of this message that lists the instance under `_sub` claiming
    /// `profile` (`_print` or `_universal`): its record index (a goodbye included).
    func claimPointer(_ profile: ServiceProfile, in m: MDNSMessageView) -> Int? {
        guard profiles.contains(profile) else { return nil }
        return m.profilePointers.first { $0.instance == index && $0.claim == profile }?.record
    }

    /// Whether this message has the instance's browse PTR (`_ipps._tcp` → it), TTL above 0.
    func isBrowsed(in m: MDNSMessageView) -> Bool {
        m.profilePointers.contains {
            $0.instance == index && m.records[$0.record].dnssd.kind == .serviceType
                && m.records[$0.record].record.ttl > 0
        }
    }

    /// Whether the message carries a live record of the instance (SRV, TXT or a PTR to it).
    func isLive(in m: MDNSMessageView) -> Bool {
        if let s = srv, m.records[s].record.ttl > 0 { return true }
        if let t = txt, m.records[t].record.ttl > 0 { return true }
        return m.profilePointers.contains { $0.instance == index && m.records[$0.record].record.ttl > 0 }
    }

    /// The instance label's bytes (at most a label's 63), for reports made at the end.
    func instanceLabel(in p: [UInt8]) -> [UInt8] {
        var first: Range<Int>? = nil
        name.forEachLabelRange(in: p) { r in if first == nil { first = r } }
        return first.map { Array(p[$0.prefix(63)]) } ?? []
    }

    /// A key of a TXT value (case-insensitive), 0 when absent or empty.
    func valueKey(_ key: StaticString, in m: MDNSMessageView) -> UInt64 {
        let p = m.message.payload
        guard case .some(.some(let v)) = txtValue(key, in: m), !v.isEmpty else { return 0 }
        var h = ASCII.keySeed
        ASCII.addToKey(p[v], &h)
        return h == 0 ? 1 : h
    }
}

/// An instance's subtype claim and its latest TXT, joined across messages by instance name
/// (PROF-202, PROF-212): the TXT is judged once per content while both are live (the
/// claim's PTR and the TXT within their TTLs).
struct PrintClaimJoin {
    var claimFrame = 0
    /// When the claim's PTR runs out (nil: none live).
    var claimUntil: Timestamp? = nil
    var txtFrame = 0
    var txtUntil: Timestamp? = nil
    /// What the rule found wrong in the TXT (its own bits; 0: nothing).
    var facts: UInt32 = 0
    /// The TXT's RDATA identity (`RecordInfo.rdataKey`), and that of the one last judged with
    /// a live claim.
    var digest: UInt64 = 0
    var judged: UInt64? = nil
    var last: Timestamp

    /// Takes in what message `m` (event `e`) shows of `instance` for `claim`, and returns
    /// the TXT's facts and the two frames when it is due to be judged now.
    static func observe(
        _ instance: ProfileInstance, claim: ServiceProfile, in m: MDNSMessageView, _ e: MDNSEvent,
        table: inout SessionTable<MDNSNameKey, PrintClaimJoin>, evicted: inout Int, facts: () -> UInt32
    ) -> (facts: UInt32, claimFrame: Int, txtFrame: Int)? {
        let pointer = instance.claimPointer(claim, in: m)
        let txt = instance.txt.map { m.records[$0] }
        let key = MDNSNameKey(instance.nameKey)
        guard pointer != nil || txt != nil else { return nil }
        // The TXT's content, by the identity the decoding gave its RDATA (0: none live).
        let digest = txt.map { $0.record.ttl > 0 ? $0.rdataKey : 0 } ?? 0
        let now = e.time
        return table.update(key, default: PrintClaimJoin(last: now), at: now, evicted: &evicted) { row in
            row.last = now
            if let k = pointer {
                let ttl = m.records[k].record.ttl
                row.claimFrame = e.frame
                row.claimUntil = ttl > 0 ? now.adding(seconds: Int64(ttl)) : nil
            }
            if let t = txt {
                if t.record.ttl == 0 {
                    row.txtUntil = nil
                } else {
                    row.txtFrame = e.frame
                    row.txtUntil = now.adding(seconds: Int64(t.record.ttl))
                    if digest != row.digest {
                        row.digest = digest
                        row.facts = facts()
                    }
                }
            }
            guard let c = row.claimUntil, c >= now, let u = row.txtUntil, u >= now, row.judged != row.digest else {
                return nil
            }
            row.judged = row.digest
            return (row.facts, row.claimFrame, row.txtFrame)
        }
    }

    /// The frames a report names besides the current one.
    static func related(_ frames: (facts: UInt32, claimFrame: Int, txtFrame: Int), current: Int) -> [Int] {
        [frames.claimFrame, frames.txtFrame].filter { $0 != current && $0 > 0 }.reduce(into: []) {
            if !$0.contains($1) { $0.append($1) }
        }
    }
}

/// A response with only the subtype PTR `<sub>._sub._ipp._tcp.local.` → Office.
func claimOnly(_ sub: String, service: String = "_ipp._tcp") -> DNSBuilder {
    response {
        $0.record(.answer, "\(sub)._sub.\(service).local", 12, ttl: 4500, rdata: B.name("Office.\(service).local"))
    }
}

/// PROF-202: the TXT of an IPP Everywhere instance has the required keys.
struct PrintRequiredKeysRule: SessionRule {
    /// The claim and the TXT may come in different messages: it reads every printer's.
    static var observedProfiles: ServiceProfiles { .printing }

    static let descriptor = RuleDescriptor.profile(
        "PROF-202", "print-required-keys", .error,
        "An IPP Everywhere TXT has adminurl, pdl, rp and UUID (and TLS under _ipps._tcp)",
        profiles: ServiceProfiles(.ippEverywhere), spec: "IPP Everywhere Self-Cert Manual §5 B-2, B-5.3",
        "An instance listed under `_print._sub._ipp._tcp` has the TXT keys `adminurl`, `pdl`, `rp` and `UUID`; "
            + "one under `_print._sub._ipps._tcp` also `TLS` (the self-certification tool's required keys). The "
            + "claim comes from the subtype PTR, which may come in another message than the TXT: the two are "
            + "joined by instance name while both are within their TTLs, and each TXT content is judged once.",
        example: "a _print._sub instance whose TXT lacks UUID", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("UUID", nil)))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", nil), service: "_ipps._tcp"))),
            // The claim first, the TXT in a later message.
            RuleExample([
                mdns(claimOnly("_print"), at: 0),
                mdns(txtResponse(B.txt(everywhereTXT.settingTXT("UUID", nil))), at: 2),
            ]),
            // The TXT first, the claim later.
            RuleExample([
                mdns(txtResponse(B.txt(everywhereTXT.settingTXT("UUID", nil))), at: 0),
                mdns(claimOnly("_print"), at: 2),
            ]),
        ],
        nonTriggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT, service: "_ipps._tcp"))),
            // Near miss: not listed under _print (a plain Bonjour printer need not have UUID).
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("UUID", nil), subtypes: []))),
        ])

    static let keys: [StaticString] = ["adminurl", "pdl", "rp", "UUID", "TLS"]

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let instances = e.printingInstances, let i = e.input else { return }
        let m = i.decoded
        for instance in instances where instance.profiles.contains(.bonjourPrinting) {
            guard let name = instance.printing, name.service == .ipp || name.service == .ipps else {
                continue
            }
            let due = PrintClaimJoin.observe(
                instance, claim: .ippEverywhere, in: m, e, table: &store.verdicts.everywhereClaims,
                evicted: &out.evictions
            ) {
                var missing: UInt32 = 0
                for (k, key) in keys.enumerated() where !instance.hasTXTKey(key, in: m) {
                    if k < 4 || name.service == .ipps { missing |= 1 << UInt32(k) }
                }
                return missing
            }
            guard let due, due.facts != 0 else { continue }
            let list = keys.enumerated().filter { due.facts & (1 << UInt32($0.offset)) != 0 }.map { "\($0.element)" }
            out.report(
                Self.descriptor,
                "IPP Everywhere printer \(instance.shown(in: m)) (listed under _print._sub): its TXT lacks \(list.joined(separator: ", "))",
                related: PrintClaimJoin.related(due, current: e.frame), profile: .ippEverywhere,
                instance: instance.nameKey)
        }
    }
}

/// PROF-212: an AirPrint instance has a non-empty URF and a pdl with image/urf or
/// application/pdf.
struct AirPrintKeysRule: SessionRule {
    /// The claim and the TXT may come in different messages: it reads every printer's.
    static var observedProfiles: ServiceProfiles { .printing }

    static let descriptor = RuleDescriptor.profile(
        "PROF-212", "airprint-keys", .error,
        "An AirPrint instance (under _universal._sub) has a non-empty URF and a pdl with image/urf or application/pdf",
        profiles: ServiceProfiles(.airPrint),
        spec: "Apple AirPrint (not public); OpenPrinting/ippusbxd#40, watson/ipp-printer#5",
        "iOS lists a printer advertised under `_universal._sub._ipp._tcp` (or `_ipps`) only when its TXT has a "
            + "non-empty `URF` key (Apple raster capabilities such as `V1.4,W8,CP1,RS600,DM1`, or `none` for a "
            + "PDF-only service) and a `pdl` that lists `image/urf` or `application/pdf`. The subtype alone does "
            + "not make a printer AirPrint. The claim comes from the subtype PTR, joined with the TXT by instance "
            + "name as for PROF-202. The AirPrint specification is not public: a warning.",
        basis: .notConfirmed,
        interop: "iOS does not list the printer (OpenPrinting/ipp-usb#4, watson/ipp-printer#5)",
        example: "a _universal._sub._ipp._tcp instance with URF=", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("URF", ""), subtypes: ["_universal"]))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("URF", nil), subtypes: ["_universal"]))),
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("pdl", "application/pdf,image/urf"), subtypes: ["_universal"])))
        ])

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let instances = e.printingInstances, let i = e.input else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in instances where instance.profiles.contains(.bonjourPrinting) {
            guard let name = instance.printing, name.service == .ipp || name.service == .ipps else {
                continue
            }
            let due = PrintClaimJoin.observe(
                instance, claim: .airPrint, in: m, e, table: &store.verdicts.airPrintClaims, evicted: &out.evictions
            ) {
                var facts: UInt32 = 0
                switch instance.txtValue("URF", in: m) {
                case .none: facts |= 1
                case .some(let v) where (v?.isEmpty ?? true): facts |= 2
                default: break
                }
                if case .some(.some(let v)) = instance.txtValue("pdl", in: m),
                    PrintingTXT.lists(p, v, "image/urf") || PrintingTXT.lists(p, v, "application/pdf")
                {
                } else {
                    facts |= 4
                }
                return facts
            }
            guard let due, due.facts != 0 else { continue }
            var why: [String] = []
            if due.facts & 1 != 0 { why.append("has no URF key") }
            if due.facts & 2 != 0 { why.append("has an empty URF (URF=none for a PDF-only service)") }
            if due.facts & 4 != 0 { why.append("has no pdl with image/urf or application/pdf") }
            out.report(
                Self.descriptor,
                "AirPrint printer \(instance.shown(in: m)) (listed under _universal._sub): its TXT \(why.joined(separator: " and ")); iOS does not list it",
                related: PrintClaimJoin.related(due, current: e.frame), profile: .airPrint, instance: instance.nameKey)
        }
    }
}

/// PROF-201: an IPP Everywhere printer with a TLS key also advertises `_ipps._tcp` under
/// the same instance name, listed under `_print._sub._ipps._tcp`.
struct IPPSSiblingRule: SessionRule {
    /// The claim and the TXT may come in different messages: it reads every printer's.
    static var observedProfiles: ServiceProfiles { .printing }

    static let descriptor = RuleDescriptor.profile(
        "PROF-201", "ipp-everywhere-ipps-sibling", .error,
        "An IPP Everywhere printer with a TLS key also advertises _ipps._tcp under its name, listed under _print._sub",
        profiles: ServiceProfiles(.ippEverywhere),
        spec: "IPP Everywhere Self-Cert Manual §5 B-1, B-5, B-5.2; PWG 5100.14 §4.2 (wording not confirmed)",
        "An IPP Everywhere printer is listed under `_print._sub._ipp._tcp`. When its TXT has a `TLS` key it "
            + "supports IPP over TLS, and advertises `_ipps._tcp` with the same instance name, itself listed under "
            + "`_print._sub._ipps._tcp` (the self-certification tool searches for it). Judged at the end of the "
            + "capture, by instance name: reported when no `_ipps._tcp` instance of the name was seen (the capture "
            + "running on at least 10 s after the claim), or when its browse PTR was seen but never its "
            + "`_print._sub` PTR. The specification's own sentence was not read: a warning.",
        basis: .notConfirmed,
        example: "a _print._sub._ipp._tcp instance with TLS=1.2 and no _ipps._tcp instance of that name",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 30),
            ]),
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(printerAnnouncement(everywhereTXT, service: "_ipps._tcp", subtypes: []), at: 1),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 30),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(printerAnnouncement(everywhereTXT, service: "_ipps._tcp"), at: 1),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 30),
            ]),
            // Near miss: no TLS key, no IPPS expected.
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", nil)), at: 0),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 30),
            ]),
        ])

    /// What the capture showed of one instance name's `_ipp` and `_ipps` instances.
    struct Row {
        /// The `_ipp` instance's `_print._sub` PTR, and a TXT of it with a TLS key.
        var claim: MDNSFrameTime? = nil
        var tls: MDNSFrameTime? = nil
        var source: IPAddress = .v4(0)
        /// The `_ipps` instance: any live record, its browse PTR, its `_print._sub` PTR.
        var ipps = false
        var ippsBrowsed = false
        var ippsPrint = false
        var label: [UInt8] = []
        /// The name key of the instance `label` was taken from (`Finding.profileInstance`).
        var instance: UInt64 = 0
        var last: Timestamp
    }

    static let grace = 10.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let instances = e.printingInstances, let i = e.input else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in instances where instance.profiles.contains(.bonjourPrinting) {
            guard let name = instance.printing, name.service == .ipp || name.service == .ipps,
                instance.isLive(in: m)
            else { continue }
            let key = WordKey(name.label)
            let claimed = instance.claimPointer(.ippEverywhere, in: m).map { m.records[$0].record.ttl > 0 } ?? false
            let tls = name.service == .ipp && instance.hasJudgeableTXT(in: m) && instance.hasTXTKey("TLS", in: m)
            if name.service == .ipp, !claimed, !tls, store.verdicts.ippsSiblings[key] == nil { continue }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            store.verdicts.ippsSiblings.update(key, default: Row(last: e.time), at: e.time, evicted: &out.evictions) {
                row in
                row.last = e.time
                switch name.service {
                case .ipp:
                    if claimed, row.claim == nil {
                        row.claim = now
                        row.source = e.src
                        row.label = instance.instanceLabel(in: p)
                        row.instance = instance.nameKey
                    }
                    if tls, row.tls == nil { row.tls = now }
                default:
                    row.ipps = true
                    if instance.isBrowsed(in: m) { row.ippsBrowsed = true }
                    if claimed { row.ippsPrint = true }
                }
            }
        }
    }

    static func finish(in store: inout MDNSSessionStore, into out: inout SessionReports) {
        let latest = store.model.latest
        let table = store.verdicts.ippsSiblings
        for slot in table.slots(where: { $0.claim != nil && $0.tls != nil }, by: { $0.claim?.frame ?? 0 }) {
            let row = table[slot]
            guard let claim = row.claim, let tls = row.tls else { continue }
            let since = max(claim.time, tls.time)
            let label = MDNSText.show(row.label)
            let frames = claim.frame == tls.frame ? [claim.frame] : [claim.frame, tls.frame].sorted()
            if !row.ipps {
                guard Timestamp.seconds(from: since, to: latest) >= grace else { continue }
                out.reportAtEnd(
                    Self.descriptor,
                    "IPP Everywhere printer \(label)._ipp._tcp has a TLS key, but no \(label)._ipps._tcp instance was seen",
                    frames: frames, time: claim.time, source: row.source, profile: .ippEverywhere,
                    instance: row.instance)
            } else if row.ippsBrowsed, !row.ippsPrint {
                out.reportAtEnd(
                    Self.descriptor,
                    "IPP Everywhere printer \(label)._ipp._tcp has a TLS key, but \(label)._ipps._tcp is never listed under _print._sub._ipps._tcp",
                    frames: frames, time: claim.time, source: row.source, profile: .ippEverywhere,
                    instance: row.instance)
            }
        }
    }
}

/// PROF-206: one printer, one identity across its instances and over time.
struct PrintIdentityRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-206", "print-identity-consistent", .warning,
        "The _ipp, _ipps and _pdl-datastream instances of one name share UUID, ty and adminurl; UUID does not change",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-5.5 (derived); CUPS, PAPPL",
        "One printer, one identity: the `UUID` (and `ty`, `adminurl`) of the `_ipp._tcp`, `_ipps._tcp` and "
            + "`_pdl-datastream._tcp` instances with the same instance name are equal (CUPS and PAPPL write one "
            + "TXT for all; the self-certification tool checks that the IPPS values match), and an instance's "
            + "`UUID` does not change within the capture, even after a goodbye and a new announcement: clients key "
            + "their queues on it (istopwg/ippsample#15).",
        example: "Office._ipp._tcp UUID=4509…eec and Office._ipps._tcp UUID=7d1f…001", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("UUID", "7d1f0a3c-0000-4000-8000-000000000001"), service: "_ipps._tcp"),
                    at: 1),
            ]),
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(printerAnnouncement(everywhereTXT, ttl: 0), at: 10),
                mdns(
                    printerAnnouncement(everywhereTXT.settingTXT("UUID", "7d1f0a3c-0000-4000-8000-000000000001")),
                    at: 20),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                mdns(printerAnnouncement(everywhereTXT), at: 0),
                mdns(printerAnnouncement(everywhereTXT, service: "_ipps._tcp"), at: 1),
                mdns(printerAnnouncement(everywhereTXT), at: 60),
            ])
        ])

    /// What one instance of the name last showed: keys of its values (0: absent), its frame.
    struct Seen {
        var uuid: UInt64 = 0
        var ty: UInt64 = 0
        var adminurl: UInt64 = 0
        var frame = 0
    }

    /// One instance name's `_ipp`, `_ipps` and `_pdl-datastream` instances.
    struct Row {
        var ipp = Seen()
        var ipps = Seen()
        var pdl = Seen()
        /// A key of the values last reported as differing, so that re-announcements of the
        /// same values do not report them again.
        var reported: UInt64 = 0
        var last: Timestamp

        subscript(s: PrintService) -> Seen {
            get { s == .ipp ? ipp : s == .ipps ? ipps : pdl }
            set {
                switch s {
                case .ipp: ipp = newValue
                case .ipps: ipps = newValue
                default: pdl = newValue
                }
            }
        }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let instances = e.printingInstances, let i = e.input else { return }
        let m = i.decoded
        for instance in instances where instance.profiles.contains(.bonjourPrinting) {
            guard let name = instance.printing, name.service != .printer, instance.hasJudgeableTXT(in: m)
            else { continue }
            let now = Seen(
                uuid: instance.valueKey("UUID", in: m), ty: instance.valueKey("ty", in: m),
                adminurl: instance.valueKey("adminurl", in: m), frame: e.frame)
            guard now.uuid != 0 || now.ty != 0 || now.adminurl != 0 else { continue }
            var findings: [(String, Int)] = []
            store.verdicts.printIdentities.update(
                WordKey(name.label), default: Row(last: e.time), at: e.time, evicted: &out.evictions
            ) { row in
                row.last = e.time
                let before = row[name.service]
                if before.uuid != 0, now.uuid != 0, before.uuid != now.uuid {
                    findings.append(("its UUID changed since frame \(before.frame)", before.frame))
                }
                row[name.service] = now
                var differing = ASCII.keySeed
                var pairs: [(String, Int)] = []
                for other in [PrintService.ipp, .ipps, .pdlDatastream] where other != name.service {
                    let o = row[other]
                    guard o.frame != 0 else { continue }
                    var what: [String] = []
                    if o.uuid != 0, now.uuid != 0, o.uuid != now.uuid { what.append("UUID") }
                    if o.ty != 0, now.ty != 0, o.ty != now.ty { what.append("ty") }
                    if o.adminurl != 0, now.adminurl != 0, o.adminurl != now.adminurl { what.append("adminurl") }
                    guard !what.isEmpty else { continue }
                    differing ^= o.uuid &+ o.ty &* 3 &+ o.adminurl &* 5 &+ UInt64(other.rawValue)
                    differing = differing &* 0x0000_0100_0000_01B3
                    pairs.append(
                        (
                            "its \(what.joined(separator: ", ")) \(what.count == 1 ? "differs" : "differ") from the \(other.text) instance's (frame \(o.frame))",
                            o.frame
                        ))
                }
                if !pairs.isEmpty {
                    differing ^= now.uuid &+ now.ty &* 3 &+ now.adminurl &* 5
                    if differing != row.reported {
                        row.reported = differing
                        findings += pairs
                    }
                }
            }
            for (text, frame) in findings {
                out.report(
                    Self.descriptor, "printer \(instance.shown(in: m)): \(text)", related: [frame],
                    profile: instance.profiles.first, instance: instance.nameKey)
            }
        }
    }
}

/// PROF-211: a port-0 `_printer._tcp` name reservation has an `_ipp` or `_ipps` sibling.
struct LPDPlaceholderRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-211", "lpd-placeholder-sibling", .info,
        "A port-0 _printer._tcp instance (an LPD name reservation) has an _ipp._tcp or _ipps._tcp instance of its name",
        profiles: ServiceProfiles(.bonjourPrinting), spec: "RFC 6763 §8 (flagship naming; derived); CUPS, PAPPL",
        "CUPS and PAPPL register `_printer._tcp` with SRV port 0 and no (or an empty) TXT to reserve the printer's "
            + "name without offering LPD: a legal placeholder, not a broken service. It reserves the name of a "
            + "printer offered under `_ipp._tcp` or `_ipps._tcp`; a placeholder whose name has no such instance in "
            + "the capture reserves a name for nothing, or the IPP instance is missing. Reported at the end of the "
            + "capture. (Its SRV target still follows MDNS-307.)",
        example: "Office._printer._tcp SRV port 0 and no Office._ipp._tcp or Office._ipps._tcp in the capture",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(printerAnnouncement([], service: "_printer._tcp", subtypes: [], port: 0))])
        ],
        nonTriggering: [
            RuleExample([
                mdns(printerAnnouncement([], service: "_printer._tcp", subtypes: [], port: 0), at: 0),
                mdns(printerAnnouncement(everywhereTXT), at: 1),
            ])
        ])

    struct Row {
        var placeholder: MDNSFrameTime? = nil
        var source: IPAddress = .v4(0)
        var label: [UInt8] = []
        /// The name key of the instance `label` was taken from (`Finding.profileInstance`).
        var instance: UInt64 = 0
        var sibling = false
        var last: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let instances = e.printingInstances, let i = e.input else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in instances where instance.profiles.contains(.bonjourPrinting) {
            guard let name = instance.printing, name.service != .pdlDatastream, instance.isLive(in: m)
            else { continue }
            var placeholder = false
            if name.service == .printer {
                guard let s = instance.srv, m.records[s].record.ttl > 0,
                    case .srv(_, _, let port, _) = m.records[s].record.value, port == 0
                else { continue }
                placeholder = true
            }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            store.verdicts.lpdPlaceholders.update(
                WordKey(name.label), default: Row(last: e.time), at: e.time, evicted: &out.evictions
            ) { row in
                row.last = e.time
                if placeholder {
                    if row.placeholder == nil {
                        row.placeholder = now
                        row.source = e.src
                        row.label = instance.instanceLabel(in: p)
                        row.instance = instance.nameKey
                    }
                } else {
                    row.sibling = true
                }
            }
        }
    }

    static func finish(in store: inout MDNSSessionStore, into out: inout SessionReports) {
        let table = store.verdicts.lpdPlaceholders
        for slot in table.slots(where: { $0.placeholder != nil && !$0.sibling }, by: { $0.placeholder?.frame ?? 0 }) {
            let row = table[slot]
            guard let at = row.placeholder else { continue }
            let label = MDNSText.show(row.label)
            out.reportAtEnd(
                Self.descriptor,
                "\(label)._printer._tcp reserves its name with SRV port 0, but no \(label)._ipp._tcp or \(label)._ipps._tcp instance was seen",
                frames: [at.frame], time: at.time, source: row.source, profile: .bonjourPrinting, instance: row.instance
            )
        }
    }
}
