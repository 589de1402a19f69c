import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about records over time: conflicts, rate, goodbyes and updates, DNS-SD
// completeness, and the in-order half of MDNS-308.

/// MDNS-514: two hosts do not keep asserting one unique RRSet with different RDATA.
///
/// A conflict is noted when a host sends a cache-flush record of a unique RRSet while another
/// host's member with other RDATA is still live in caches; it is reported when it persists:
/// both hosts asserted their RDATA again after it was noted, at least `grace` later. A
/// conflict resolved by the loser renaming (it stops) is not reported.
struct ConflictRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-514", "unique-record-conflict", .error, "Two hosts do not keep asserting one unique RRSet",
        spec: "RFC 6762 §9, §6.6",
        "A unique RRSet (name, type, class) sent with the cache-flush bit from two source addresses with different RDATA, neither sending the other's, both still asserting it at least 1 s after the conflict showed. Identical RDATA (cooperating responders, or a dual-stack host sending its whole RRSet over IPv4 and IPv6) is allowed.",
        interop: "caches flush each other's RDATA on every announcement: lookups flip between hosts",
        example: "192.168.1.5 and 192.168.1.9 both announce printer.local. A with their own address for 10 s",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.30", src: "192.168.1.30", at: 0.5),
                announce("192.168.1.20", src: "192.168.1.20", at: 2),
                announce("192.168.1.30", src: "192.168.1.30", at: 3),
            ])
        ],
        nonTriggering: [
            // The newcomer lost and went quiet: the owner's defence is not a conflict.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.30", src: "192.168.1.30", at: 0.5),
                announce("192.168.1.20", src: "192.168.1.20", at: 2),
                announce("192.168.1.20", src: "192.168.1.20", at: 4),
            ]),
            // Cooperating responders: the same RDATA.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.20", src: "192.168.1.30", at: 2),
                announce("192.168.1.20", src: "192.168.1.20", at: 4),
            ]),
        ])

    static let grace = 1.0
    static let capacity = 16384

    struct Pair: Hashable {
        var set: MDNSRRSetKey
        var hosts: Set<IPAddress>
    }
    struct Noted {
        var frame: Int
        var time: Timestamp
        var reported = false
    }
    private var noted: [Pair: Noted] = [:]

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, !e.atEnd, e.srcPort == 5353 else { return }
        for r in i.records where r.section != .authority && r.record.cacheFlush && r.record.ttl > 0 && i.isUnique(r) {
            let rr = r.record
            let key = MDNSRRSetKey(name: r.nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            guard let set = store.model.rrsets[key] else { continue }
            let rdata = r.rdataKey
            for m in set.members
            where m.owner != e.src && m.rdata != rdata && m.cacheFlush && m.isLive(at: e.time)
                && set.member(rdata: m.rdata, owner: e.src) == nil
            {
                let pair = Pair(set: key, hosts: [m.owner, e.src])
                guard let n = noted[pair] else {
                    MDNSSession.makeRoom(
                        &noted, cap: Self.capacity, now: e.time, horizon: 3600, time: { $0.time }, &out)
                    noted[pair] = Noted(frame: e.frame, time: e.time)
                    continue
                }
                guard !n.reported, m.lastFrame > n.frame, MDNSSession.since(n.time, e.time) >= Self.grace else {
                    continue
                }
                noted[pair]?.reported = true
                out.report(
                    Self.descriptor,
                    "\(i.name(rr.name)) \(rr.type) asserted with other RDATA than \(m.owner) sends (frames \(m.firstFrame)–\(m.lastFrame)); the conflict shown at frame \(n.frame) persists",
                    related: [m.lastFrame, n.frame])
            }
        }
    }
}

/// MDNS-518: every DNS-SD instance with an SRV has a TXT, and its SRV target an address.
///
/// Judged at the end of the input, for instances whose live SRV was seen in at least two
/// messages (a service seen once may have been caught mid-answer).
struct ServiceCompletenessRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-518", "dns-sd-completeness", .error, "Every DNS-SD instance has a TXT, and its SRV target an address",
        spec: "RFC 6763 §6; RFC 2782",
        "At the end of the input: an instance whose SRV was seen in two or more messages and never a TXT is an error; an SRV target for which no A or AAAA was seen is a warning. Instances said goodbye to, or whose state was dropped, are not judged.",
        interop: "DNS-SD browsers (Bonjour, avahi) resolve an instance only once both SRV and TXT arrived",
        example: "SRV for x._http._tcp.local. seen repeatedly, never a TXT", scope: .stateful, lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([mdns(srvOnly(), at: 0), mdns(srvOnly(), at: 2)], severity: .error),
            RuleExample([mdns(srvAndTXT(), at: 0), mdns(srvAndTXT(), at: 2)], severity: .warning),
        ],
        nonTriggering: [
            RuleExample([mdns(service(), at: 0), mdns(service(), at: 2)]),
            // Seen once: not enough to conclude anything is missing.
            RuleExample([mdns(srvOnly(), at: 0)]),
        ])

    static func srvOnly() -> DNSBuilder {
        response { b in
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            hostA(&b, .additional)
        }
    }
    static func srvAndTXT() -> DNSBuilder {
        response { b in
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            b.record(.answer, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
        }
    }

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard e.atEnd else { return }
        let judged = store.model.services.values.filter {
            $0.srvMessages >= 2 && !$0.goodbye && !$0.historyIncomplete && $0.firstSRVFrame != nil
        }.sorted { ($0.firstSRVFrame ?? 0) < ($1.firstSRVFrame ?? 0) }
        for s in judged {
            let frame = s.firstSRVFrame ?? s.firstFrame
            let source = s.firstSRVSource ?? .v4(0)
            if !s.sawTXT {
                out.reportAtEnd(
                    Self.descriptor,
                    "SRV for \(s.instance) seen in \(s.srvMessages) messages, never a TXT record: every DNS-SD service must have one",
                    frames: [frame], time: s.firstSeen, source: source, device: s.host)
            }
            if let hk = s.hostKey, let target = s.host, store.model.hosts[hk]?.addresses.isEmpty ?? true,
                !store.model.mayHaveForgotten(hk), target != "."
            {
                out.reportAtEnd(
                    Self.descriptor, severity: .warning,
                    "SRV target \(target) of \(s.instance) never had an A or AAAA record over the capture",
                    frames: [frame], time: s.firstSeen, source: source, device: target)
            }
        }
    }
}

/// MDNS-506: a responder multicasts a record at most once per second (per source address).
///
/// Announcements are not exempt. RFC 6762 §6 names one exception to the one-second floor,
/// "answering probe queries", and §8.3 asks for announcements "one second apart", which is
/// the same floor. So avahi's second announcement of its host records, sent 0.93 s after the
/// first because it rides along with a service's announcement, is reported: §6.4 lets a
/// responder delay a response to aggregate it with a later one, never send one early. Only
/// the capture's jitter (10 ms) is allowed for. The gap is printed in milliseconds, so a
/// record sent again 960 ms later does not read as "1.0 s".
struct RecordRateRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-506", "record-once-per-second", .error, "A record is multicast at most once per second",
        spec: "RFC 6762 §6",
        "Per source address (a dual-stack host sends over IPv4 and IPv6) and record (name, type, class, RDATA, TTL above 0): multicast again less than 1 s after its last multicast, with no probe for its name in between.",
        interop: "wasted airtime on Wi-Fi; RFC 6762 §6 protects the network with this limit",
        example: "record R multicast at t and t + 0.4 s, no probe in between", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample([announce(at: 0), announce(at: 0.4)])],
        nonTriggering: [
            RuleExample([announce(at: 0), announce(at: 1.0)]),
            // Defending the name against a probe.
            RuleExample([announce(at: 0), probe(src: "192.168.1.30", at: 0.2), announce(at: 0.25)]),
            // The same record over IPv6 from the same host.
            RuleExample([announce(at: 0), announce(src: "fe80::1", at: 0.01)]),
        ])

    /// The last probe seen for a name (any prober).
    private var probed: [UInt64: Timestamp] = [:]
    static let capacity = 16384

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        if i.isProbe {
            MDNSSession.makeRoom(&probed, cap: Self.capacity, now: e.time, horizon: 2, time: { $0 }, &out)
            for r in i.records where r.section == .authority { probed[r.nameKey] = e.time }
            return
        }
        guard i.isResponse, e.dst.isMulticast, !e.timeWentBack else { return }
        for r in i.records where r.section != .authority && r.record.type != .opt && r.record.ttl > 0 {
            let rr = r.record
            let nameKey = r.nameKey
            guard let set = store.model.rrsets[MDNSRRSetKey(name: nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)],
                let m = set.member(rdata: r.rdataKey, owner: e.src), !m.goodbye,
                let last = m.lastMulticast
            else { continue }
            let gap = MDNSSession.since(last.time, e.time)
            guard gap < 1 - MDNSSession.jitter else { continue }
            if let t = probed[nameKey], t >= last.time { continue }
            out.report(
                Self.descriptor,
                "\(i.name(rr.name)) \(rr.type) multicast again \(ResponseDelayRule.ms(gap)) ms after frame \(last.frame); at most once per second",
                related: [last.frame])
            return
        }
    }
}

/// MDNS-515: goodbyes and updates.
///
/// Shared RDATA has no cache-flush bit, so when it changes the old RDATA needs a goodbye
/// first (RFC 6762 §8.4, MUST). Which RDATA replaces which is visible on the wire only when
/// the two name the same thing: a browse PTR naming a new instance whose SRV (in the same
/// message, or seen before) has the target and port of an instance the same source put in
/// that PTR RRSet before, live and not said goodbye to, is that service renamed. A rename
/// while probing (avahi's and python-zeroconf's conflict handling) announced nothing under
/// the old name and is not reported.
struct GoodbyeUpdateRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-515", "goodbye-and-update", .error, "Goodbyes are used as updates need them",
        spec: "RFC 6762 §8.4, §10.1",
        "A browse PTR (shared) naming a new instance whose SRV has the target and port of an instance the same source announced in that PTR RRSet, still live and never said goodbye to: the instance was renamed without a goodbye for the old PTR (error); a unique record's goodbye (TTL 0) followed within 1 s by new RDATA for the same RRSet from the same source (warning: cache-flush already replaces it); TTL 0 in a Known-Answer or probe record (info).",
        example: "TTL 0 for printer.local. A 10.0.0.5, then A 10.0.0.6 0.1 s later", scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [announce(at: 0), announce(ttl: 0, at: 2), announce("192.168.1.21", at: 2.1)], severity: .warning),
            RuleExample([mdns(service(), at: 0), mdns(renamed(), at: 10)], severity: .error),
            RuleExample(
                mdns(
                    query { b in
                        b.question("_ipp._tcp.local", 12)
                        b.record(.answer, "_ipp._tcp.local", 12, ttl: 0, rdata: B.name("Office._ipp._tcp.local"))
                    }), severity: .info),
        ],
        nonTriggering: [
            RuleExample([announce(at: 0), announce("192.168.1.21", at: 2.1)]),
            RuleExample([announce(at: 0), announce(ttl: 0, at: 2), announce("192.168.1.21", at: 5)]),
            // The old PTR said goodbye to first.
            RuleExample([
                mdns(service(), at: 0),
                mdns(
                    response {
                        $0.record(.answer, "_ipp._tcp.local", 12, ttl: 0, rdata: B.name("Office._ipp._tcp.local"))
                    }, at: 9.9),
                mdns(renamed(), at: 10),
            ]),
        ])

    /// The instance of `service()` renamed to `Office (2)`: same SRV target and port.
    static func renamed() -> DNSBuilder {
        response { b in
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office (2)._ipp._tcp.local"))
            b.record(.additional, "Office (2)._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            b.record(.additional, "Office (2)._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp"]))
        }
    }

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        if i.isQuery {
            if let r = i.records.first(where: { $0.record.ttl == 0 && $0.record.type != .opt }) {
                out.report(
                    Self.descriptor, severity: .info,
                    "\(r.section == .authority ? "probe" : "Known-Answer") record \(i.name(r.record.name)) \(r.record.type) with TTL 0",
                    related: [])
            }
            return
        }
        if judgeRename(e, i, store.model, &out) { return }
        for r in i.records where r.section != .authority && r.record.ttl > 0 && i.isUnique(r) {
            let rr = r.record
            let key = MDNSRRSetKey(name: r.nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            let rdata = r.rdataKey
            guard let set = store.model.rrsets[key], set.member(rdata: rdata, owner: e.src) == nil,
                let bye = set.members.first(where: {
                    $0.owner == e.src && $0.goodbye && MDNSSession.since($0.lastSeen, e.time) <= 1
                })
            else { continue }
            out.report(
                Self.descriptor, severity: .warning,
                "goodbye (frame \(bye.lastFrame)) before new RDATA of the unique \(i.name(rr.name)) \(rr.type): the cache-flush bit already replaces it, the goodbye should be omitted",
                related: [bye.lastFrame])
            return
        }
    }
}

extension GoodbyeUpdateRule {
    /// A browse PTR renaming an instance without a goodbye for the old PTR; whether reported.
    fileprivate func judgeRename(
        _ e: MDNSEvent, _ i: MDNSInput, _ model: borrowing MDNSSessionModel, _ out: inout SessionReports
    ) -> Bool {
        guard i.isResponse, e.dst.isMulticast, e.srcPort == 5353 else { return false }
        for r in i.records where r.section == .answer && r.record.ttl > 0 && i.isShared(r) {
            guard case .name(let target) = r.record.value, r.target?.dnssd.kind == .instance else { continue }
            let key = MDNSRecordKey(r)
            guard let set = model.rrsets[key.set], set.member(rdata: key.rdata, owner: e.src) == nil,
                let new = srv(of: target, i, model)
            else { continue }
            for old in set.members where old.owner == e.src && !old.goodbye && old.isLive(at: e.time) {
                guard let s = model.services[old.rdata], !s.goodbye, s.hostKey == new.host, s.port == new.port
                else { continue }
                out.report(
                    Self.descriptor, severity: .error,
                    "\(i.name(r.record.name)) PTR now names \(i.name(target)) with the SRV target and port of \(s.instance) (last sent frame \(old.lastFrame)), which got no goodbye: shared RDATA that changes is said goodbye to first",
                    related: [old.lastFrame])
                return true
            }
        }
        return false
    }

    /// The SRV target key and port of an instance: from this message, else as last seen.
    private func srv(of instance: DNSName, _ i: MDNSInput, _ model: borrowing MDNSSessionModel) -> (
        host: UInt64, port: UInt16
    )? {
        let p = i.message.payload
        for r in i.records where r.record.type == .srv && r.record.ttl > 0 && r.record.name.equals(instance, in: p) {
            if case .srv(_, _, let port, let t) = r.record.value { return (t.key(in: p), port) }
        }
        guard let s = model.services[instance.key(in: p)], !s.goodbye, let h = s.hostKey, let port = s.port else {
            return nil
        }
        return (h, port)
    }
}

/// MDNS-516: a host changes the RDATA of one RRSet at most 10 times per minute.
struct UpdateRateRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-516", "update-rate", .warning, "A host updates a record at most 10 times per minute",
        spec: "RFC 6762 §8.4",
        "Per source and RRSet: new RDATA (a member that source had not sent, while it had sent another) more than 10 times within 60 s.",
        example: "TXT of one instance changes 30 times in a minute", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample((0..<12).map { k in txtUpdate(k, at: Double(k) * 4) })],
        nonTriggering: [RuleExample((0..<12).map { k in txtUpdate(k, at: Double(k) * 7) })])

    static func txtUpdate(_ k: Int, at t: Double) -> Datagram {
        mdns(txtResponse(B.txt(["v=\(k)"])), at: t)
    }

    struct Key: Hashable {
        var set: MDNSRRSetKey
        var source: IPAddress
    }
    private var changes: [Key: [MDNSFrameTime]] = [:]
    static let capacity = 16384
    static let limit = 10
    static let window = 60.0

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, !e.atEnd, !e.timeWentBack else { return }
        for r in i.records where r.section == .answer && r.record.ttl > 0 && i.isUnique(r) {
            let rr = r.record
            let set = MDNSRRSetKey(name: r.nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            guard let s = store.model.rrsets[set], s.member(rdata: r.rdataKey, owner: e.src) == nil,
                s.members.contains(where: { $0.owner == e.src })
            else { continue }
            let key = Key(set: set, source: e.src)
            MDNSSession.makeRoom(
                &changes, cap: Self.capacity, now: e.time, horizon: Self.window, time: { $0.last?.time ?? .zero }, &out)
            var list = changes[key, default: []].filter { MDNSSession.since($0.time, e.time) <= Self.window }
            list.append(MDNSFrameTime(frame: e.frame, time: e.time))
            if list.count > Self.limit + 1 { list.removeFirst() }
            changes[key] = list
            if list.count == Self.limit + 1, let first = list.first {
                out.report(
                    Self.descriptor,
                    "\(i.name(rr.name)) \(rr.type) changed \(Self.limit + 1) times within \(String(format1: MDNSSession.since(first.time, e.time))) s (since frame \(first.frame)); at most 10 per minute",
                    related: [first.frame])
                changes[key] = []
            }
        }
    }
}

/// MDNS-308, its in-order half: an instance PTR answer comes with the instance's SRV and TXT,
/// unless the same source multicast them within the last second (RFC 6762 §6 then forbids
/// sending them again).
struct AdditionalRecordsRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-308", "additional-records", .warning, "Instance answers include SRV, TXT and addresses",
        spec: "RFC 6763 §12.1, §12.2",
        "Judged in capture order: a multicast PTR answer naming an instance without its SRV or TXT, unless the same source multicast them in the last second (a responder must not send a record twice within one second).",
        interop: "Apple BCT: REQUIRED ADDITIONAL RECORDS IN ANSWERS",
        example: "PTR answer with an empty Additional section")
    static let examples = RuleExamples(
        triggering: [RuleExample(mdns(ptrOnly()))],
        nonTriggering: [
            RuleExample(mdns(service())),
            RuleExample([mdns(service(), at: 0), mdns(ptrOnly(), at: 0.5)]),
        ])

    static func ptrOnly() -> DNSBuilder {
        response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) }
    }

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, i.isMulticast, !e.atEnd, !e.isTruncated else { return }
        let p = i.message.payload
        for r in i.records where r.section == .answer && r.record.type == .ptr {
            guard case .name(let target) = r.record.value,
                r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype, r.target?.dnssd.kind == .instance
            else { continue }
            func present(_ t: RecordType) -> Bool {
                if i.records.contains(where: { $0.record.type == t && $0.record.name.equals(target, in: p) }) {
                    return true
                }
                // Sent by this source within the last second: it may not be sent again yet.
                guard let set = store.model.rrset(target.key(in: p), t, 1) else { return false }
                return set.members.contains {
                    $0.owner == e.src && $0.lastMulticast.map { MDNSSession.since($0.time, e.time) < 1 } ?? false
                }
            }
            let hasSRV = present(.srv)
            let hasTXT = present(.txt)
            if !hasSRV || !hasTXT {
                out.report(
                    Self.descriptor,
                    "PTR answer \(i.name(target)) without its \([hasSRV ? nil : "SRV", hasTXT ? nil : "TXT"].compactMap { $0 }.joined(separator: " and "))",
                    related: [])
            }
        }
    }
}

/// MDNS-517: a host sending a member of a unique RRSet sends the whole RRSet.
///
/// The cache-flush bit tells caches that the message (or the burst it starts) holds the whole
/// RRSet: members received more than a second earlier are flushed (RFC 6762 §10.2). A host
/// whose cache-flush message leaves out a member it sent before may simply have dropped that
/// member (that is how a unique RRSet shrinks), so the omission is judged only when the host
/// shows it still owns the member: it sends it again later, more than a second after the
/// message that left it out (within a second it is the same burst). Per source address.
/// Not judged for members a query of the last second listed as Known-Answers (Known-Answer
/// suppression, §7.1, may leave them out) or another host multicast in the last second
/// (duplicate answer suppression, §7.4), nor after the host said goodbye to them.
struct WholeRRSetRule: StatefulSessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-517", "whole-unique-rrset", .error, "A host sends every member of a unique RRSet together",
        spec: "RFC 6762 §10.2",
        "Per source and unique RRSet: a cache-flush message (or burst within 1 s) leaving out a member the source sent before, which it sends again more than 1 s later (so it still owns it). Members left out by Known-Answer or duplicate answer suppression, or said goodbye to, are not counted.",
        interop: "peers flush the members left out a second later: lookups lose one of the host's addresses",
        example:
            "host sends printer.local. A 10.0.0.5 and A 10.0.0.6, then only A 10.0.0.5 with cache-flush, then both again",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                mdns(twoAddresses(), at: 0), mdns(aResponse("192.168.1.20"), at: 10), mdns(twoAddresses(), at: 20),
            ])
        ],
        nonTriggering: [
            // The host dropped an address: the smaller set stays.
            RuleExample([
                mdns(twoAddresses(), at: 0), mdns(aResponse("192.168.1.20"), at: 10),
                mdns(aResponse("192.168.1.20"), at: 20),
            ]),
            // One burst: the second address follows within a second.
            RuleExample([
                mdns(twoAddresses(), at: 0), mdns(aResponse("192.168.1.20"), at: 10),
                mdns(aResponse("192.168.1.21"), at: 10.2),
                mdns(twoAddresses(), at: 20),
            ]),
        ])

    static func twoAddresses() -> DNSBuilder {
        response { b in
            b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20"))
            b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.21"))
        }
    }

    struct Key: Hashable {
        var source: IPAddress
        var set: MDNSRRSetKey
    }
    /// The members a source last sent of an RRSet, in one message or burst.
    struct Sent {
        var rdata: [UInt64]
        var frame: Int
        var time: Timestamp
    }
    /// A cache-flush message that left members out.
    struct Omission {
        var rdata: [UInt64]
        var frame: Int
        var time: Timestamp
        var before: Int
    }
    private var sent: [Key: Sent] = [:]
    private var omissions: [Key: Omission] = [:]
    /// Known-Answers of the queries of the last second, oldest first (searched only when a
    /// response leaves members out, so kept unhashed).
    private var listed: [(time: Timestamp, records: [MDNSRecordKey])] = []
    static let capacity = 65536
    /// Queries with Known-Answers kept for the last second.
    static let listedCapacity = 1024
    static let burst = 1.0
    static let maxMembers = 16

    mutating func observe(_ e: MDNSEvent, in store: borrowing MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, !e.timeWentBack else { return }
        MDNSSession.dropStale(&listed, now: e.time, window: Self.burst, time: { $0.time })
        if i.isQuery {
            guard !i.message.answers.isEmpty else { return }
            if listed.count >= Self.listedCapacity {
                listed.removeFirst()
                out.evicted()
            }
            listed.append((e.time, i.answerRecords.prefix(256).map { MDNSRecordKey($0) }))
            return
        }
        guard i.isResponse, e.srcPort == 5353 else { return }
        // This message's members per RRSet, in order (a message holds a few RRSets: searched
        // in a list); goodbyes end ownership.
        var groups: [(set: MDNSRRSetKey, rdata: [UInt64])] = []
        for r in i.records where r.section != .authority && i.isUnique(r) && r.record.cacheFlush {
            let k = MDNSRecordKey(r)
            if r.record.ttl == 0 {
                let key = Key(source: e.src, set: k.set)
                sent[key]?.rdata.removeAll { $0 == k.rdata }
                omissions[key]?.rdata.removeAll { $0 == k.rdata }
                continue
            }
            if let g = groups.firstIndex(where: { $0.set == k.set }) {
                if !groups[g].rdata.contains(k.rdata), groups[g].rdata.count < Self.maxMembers {
                    groups[g].rdata.append(k.rdata)
                }
            } else {
                groups.append((k.set, [k.rdata]))
            }
        }
        var reported = false
        for (set, now) in groups {
            let key = Key(source: e.src, set: set)
            if !omissions.isEmpty, let o = omissions[key] {
                if MDNSSession.since(o.time, e.time) <= Self.burst {
                    let left = o.rdata.filter { !now.contains($0) }
                    omissions[key] =
                        left.isEmpty ? nil : Omission(rdata: left, frame: o.frame, time: o.time, before: o.before)
                } else {
                    omissions[key] = nil
                    let back = o.rdata.filter { now.contains($0) }
                    if !back.isEmpty, !reported,
                        let name = i.records.first(where: {
                            $0.section != .authority && MDNSRecordKey($0).set == set
                        })
                    {
                        reported = true
                        out.report(
                            Self.descriptor,
                            "frame \(o.frame) sent \(i.name(name.record.name)) \(name.record.type) with the cache-flush bit but without \(back.count) member(s) this host sent before (frame \(o.before)) and sends again here: caches flushed them",
                            related: [o.frame, o.before])
                    }
                }
            }
            guard let at = sent.index(forKey: key) else {
                MDNSSession.makeRoom(&sent, cap: Self.capacity, now: e.time, horizon: 3600, time: { $0.time }, &out)
                sent[key] = Sent(rdata: now, frame: e.frame, time: e.time)
                continue
            }
            let s = sent.values[at]
            if MDNSSession.since(s.time, e.time) <= Self.burst {
                // The same burst: its members add up.
                for r in now where !sent.values[at].rdata.contains(r) && sent.values[at].rdata.count < Self.maxMembers {
                    sent.values[at].rdata.append(r)
                }
                sent.values[at].time = e.time
                continue
            }
            if omissions[key] == nil {
                let left = s.rdata.filter { r in
                    let rk = MDNSRecordKey(set: set, rdata: r)
                    return !now.contains(r) && !listed.contains { $0.records.contains(rk) }
                        && !(store.model.rrsets[set]?.members.contains {
                            $0.rdata == r && $0.owner != e.src
                                && $0.lastMulticast.map { MDNSSession.since($0.time, e.time) <= Self.burst } ?? false
                        } ?? false)
                }
                if !left.isEmpty, left.count < s.rdata.count {
                    MDNSSession.makeRoom(
                        &omissions, cap: Self.capacity, now: e.time, horizon: 3600, time: { $0.time }, &out)
                    omissions[key] = Omission(rdata: left, frame: e.frame, time: e.time, before: s.frame)
                }
            }
            sent.values[at] = Sent(rdata: now, frame: e.frame, time: e.time)
        }
    }
}
