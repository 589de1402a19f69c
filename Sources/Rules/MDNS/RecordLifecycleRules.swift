import DNS
import Findings
import NetLayers
import WireFormat

// MDNS-5xx about records over time: conflicts, rate, goodbyes and updates, DNS-SD
// completeness, and the in-order half of MDNS-308.

/// MDNS-514: two hosts do not keep asserting one unique RRSet with different RDATA, and a
/// host acts on a conflict with a record it owns.
///
/// A conflict is noted when a host sends a cache-flush record of a unique RRSet while another
/// host's member with other RDATA is still live in caches; it is reported when it persists:
/// both hosts asserted their RDATA again after it was noted, at least `grace` later. A
/// conflict resolved by the loser renaming (it stops) is not reported.
///
/// The owner's side (RFC 6762 §9: a responder that receives a response with a conflicting
/// record for a unique record it holds MUST immediately reset it to probing): when host B
/// sends conflicting RDATA for an RRSet host A was asserting, A is expected to probe for the
/// name, to defend it (assert its RDATA again within `defence`), to withdraw it (goodbye), or
/// to go quiet (rename). A that asserts it again later with neither a probe nor a defence in
/// between did not act on the conflict: reported at that assertion, whether or not B still
/// asserts (B may have withdrawn meanwhile). Kept in its own verdict rows
/// (`MDNSVerdicts.unactedConflicts`, by RRSet and owner), one finding per conflict pair: the
/// "persists" finding is not raised again for a pair reported this way. Part of MDNS-514 (no
/// new ID): the catalog's MDNS-514 already states that "the loser must stop using the name
/// and re-probe"; this is the same §9 obligation seen from the owner's side.
struct ConflictRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-514", "unique-record-conflict", .error, "Two hosts do not keep asserting one unique RRSet",
        spec: "RFC 6762 §9, §6.6",
        "A unique RRSet (name, type, class) sent with the cache-flush bit from two source addresses with different RDATA, neither sending the other's, both still asserting it at least 1 s after the conflict showed. Also the owner's side (§9: it MUST reset a conflicted unique record to probing): host B multicasts a cache-flush record (TTL above 0) with other RDATA for an RRSet whose member host A sent and is still live, and A later asserts its own RDATA again without having acted on it: no probe for the name from A, no re-assertion within 1 s of B's record (a defence), no goodbye, in between. DiscoScope reads this as follows: A's re-assertion within 1 s is taken as defending the name; A that goes quiet (renamed, or lost) is silent; B's record from the same link-layer address as A's (one host over several addresses), a forwarder's copy, or a message from B that also carries A's RDATA is no conflict. Identical RDATA (cooperating responders, or a dual-stack host sending its whole RRSet over IPv4 and IPv6) is allowed.",
        interop: "caches flush each other's RDATA on every announcement: lookups flip between hosts",
        example:
            "192.168.1.5 and 192.168.1.9 both announce printer.local. A with their own address for 10 s; 192.168.1.9 announces printer.local. A 192.168.1.9 once, and 192.168.1.5 answers with its own address 8 s later without probing",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // Both hosts defend at once, again and again: the conflict persists.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.30", src: "192.168.1.30", at: 0.5),
                announce("192.168.1.20", src: "192.168.1.20", at: 1),
                announce("192.168.1.30", src: "192.168.1.30", at: 1.4),
                announce("192.168.1.20", src: "192.168.1.20", at: 2.2),
            ]),
            // The owner re-asserts 1.5 s after the conflicting record, without probing.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.30", src: "192.168.1.30", at: 0.5),
                announce("192.168.1.20", src: "192.168.1.20", at: 2),
            ]),
            // troglobit mdnsd 0.12: another host announces the name with its address three
            // times and stops; the owner neither probes nor defends, and answers a query
            // with its own address 7 s later.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.33", src: "192.168.1.30", at: 5),
                announce("192.168.1.33", src: "192.168.1.30", at: 6),
                announce("192.168.1.33", src: "192.168.1.30", at: 7),
                mdns(ask("printer.local", 1), src: "192.168.1.5", at: 14),
                announce("192.168.1.20", src: "192.168.1.20", at: 14.001),
            ]),
        ],
        nonTriggering: [
            // The newcomer lost and went quiet: the owner's defence (0.5 s after the
            // conflicting record) is not a conflict.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.30", src: "192.168.1.30", at: 0.5),
                announce("192.168.1.20", src: "192.168.1.20", at: 1),
                announce("192.168.1.20", src: "192.168.1.20", at: 4),
            ]),
            // Near miss: the owner resets to probing after the conflicting record, wins
            // (the other host stops) and announces again.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.33", src: "192.168.1.30", at: 5),
                probe(at: 5.1), probe(at: 5.35), probe(at: 5.6),
                announce("192.168.1.20", src: "192.168.1.20", at: 5.85),
                announce("192.168.1.20", src: "192.168.1.20", at: 14),
            ]),
            // Near miss: the same conflicting address from the owner's own link-layer address
            // (one host, two IPv4 addresses): no conflict.
            RuleExample(
                [
                    announce("192.168.1.20", src: "192.168.1.20", at: 0),
                    announce("192.168.1.33", src: "192.168.1.33", at: 5),
                    announce("192.168.1.20", src: "192.168.1.20", at: 14),
                ].map(onOneHost)),
            // Cooperating responders: the same RDATA.
            RuleExample([
                announce("192.168.1.20", src: "192.168.1.20", at: 0),
                announce("192.168.1.20", src: "192.168.1.30", at: 2),
                announce("192.168.1.20", src: "192.168.1.20", at: 4),
            ]),
        ])

    /// `d` sent from one link-layer address (every datagram of the example: one host).
    static func onOneHost(_ d: Datagram) -> Datagram {
        var d = d
        d.sourceMAC = MACBytes([0x02, 0x00, 0x00, 0x00, 0x00, 0x20])
        return d
    }

    static let grace = 1.0
    /// An owner asserting its RDATA again this soon after a conflicting record defends it.
    static let defence = 1.0

    /// A unique RRSet and the two hosts asserting it.
    struct Pair: Hashable {
        var set: MDNSRRSetKey
        var hosts: Set<IPAddress>
    }
    /// A conflict noted (a verdict row, `MDNSVerdicts.conflicts`).
    struct Noted {
        var frame: Int
        var time: Timestamp
        var reported = false
    }

    /// A unique RRSet and the host that owned it when another sent conflicting RDATA.
    struct OwnerKey: WordHashable {
        var set: MDNSRRSetKey
        var owner: IPAddress

        func feedWords<S: WordSink>(into sink: inout S) {
            set.feedWords(into: &sink)
            owner.feedWords(into: &sink)
        }
    }
    /// The first conflicting record another host sent for an RRSet the owner asserted, not yet
    /// acted on (a verdict row, `MDNSVerdicts.unactedConflicts`).
    struct Unacted {
        /// The owner and the RRSet's name (its key's, for finding the rows a probe settles).
        var owner: IPAddress
        var name: UInt64
        /// The conflicting response, and who sent it.
        var frame: Int
        var time: Timestamp
        var other: IPAddress
        var otherMAC: MACBytes
        /// The owner's last assertion before it.
        var ownerFrame: Int
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, e.srcPort == 5353 else { return }
        if i.isProbe {
            // Probing for a name after a conflict: the owner acted on it.
            if !store.verdicts.unactedConflicts.isEmpty { noteProbe(e, i, &store) }
            return
        }
        guard i.isResponse else { return }
        let mac = i.datagram.sourceMAC
        for r in i.records where r.section != .authority && r.record.cacheFlush && i.isUnique(r) {
            let rr = r.record
            let key = MDNSRRSetKey(name: r.nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            if !store.verdicts.unactedConflicts.isEmpty,
                judgeOwner(e, i, r, key, mac, &store, &out)
            {
                continue
            }
            guard rr.ttl > 0, let set = store.model.rrsets[key] else { continue }
            let rdata = r.rdataKey
            for m in set.members
            where m.owner != e.src && m.rdata != rdata && m.cacheFlush && m.isLive(at: e.time)
                && set.member(rdata: m.rdata, owner: e.src) == nil
            {
                if !e.forwarded { noteUnacted(e, i, key, m, mac, &store, &out) }
                let pair = Pair(set: key, hosts: [m.owner, e.src])
                guard let n = store.verdicts.conflicts[pair] else {
                    store.verdicts.conflicts.insert(
                        Noted(frame: e.frame, time: e.time), for: pair, at: e.time, evicted: &out.evictions)
                    continue
                }
                guard !n.reported, m.lastFrame > n.frame, MDNSSession.since(n.time, e.time) >= Self.grace else {
                    continue
                }
                store.verdicts.conflicts.modify(pair) { $0.reported = true }
                out.report(
                    Self.descriptor,
                    "\(i.name(rr.name)) \(rr.type) asserted with other RDATA than \(m.owner) sends (frames \(m.firstFrame)–\(m.lastFrame)); the conflict shown at frame \(n.frame) persists",
                    related: [m.lastFrame, n.frame])
            }
        }
    }

    /// The owner of an RRSet another host sent conflicting RDATA for sends a record of it
    /// again: a defence (soon), a goodbye, the other's RDATA, or an assertion that ignores
    /// the conflict (reported). Whether it reported.
    private static func judgeOwner(
        _ e: MDNSEvent, _ i: MDNSInput, _ r: MDNSInput.RecordInfo, _ key: MDNSRRSetKey, _ mac: MACBytes,
        _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) -> Bool {
        let owner = OwnerKey(set: key, owner: e.src)
        guard let slot = store.verdicts.unactedConflicts.slot(of: owner) else { return false }
        let u = store.verdicts.unactedConflicts[slot]
        store.verdicts.unactedConflicts.remove(at: slot)
        let since = MDNSSession.since(u.time, e.time)
        // A defence, a goodbye, the other host's RDATA taken up, or the same host after all.
        guard r.record.ttl > 0, since > Self.defence + MDNSSession.jitter, !e.timeWentBack,
            mac.count == 0 || u.otherMAC.count == 0 || mac != u.otherMAC,
            store.model.rrsets[key]?.member(rdata: r.rdataKey, owner: u.other) == nil
        else { return false }
        let pair = Pair(set: key, hosts: [e.src, u.other])
        if let n = store.verdicts.conflicts[pair], n.reported { return false }
        store.verdicts.conflicts.update(
            pair, default: Noted(frame: u.frame, time: u.time), at: e.time, evicted: &out.evictions
        ) { $0.reported = true }
        var still = ""
        if let m = store.model.rrsets[key]?.members.first(where: { $0.owner == u.other && $0.isLive(at: e.time) }),
            m.lastFrame > u.frame
        {
            still = "; \(u.other) asserted its own again after it (frames \(m.firstFrame)–\(m.lastFrame))"
        }
        out.report(
            Self.descriptor,
            "\(i.name(r.record.name)) \(r.record.type) asserted again \(String(format1: since)) s after \(u.other) sent other RDATA for it (frame \(u.frame)), with no probe for the name, no defence within 1 s and no goodbye in between: a host seeing a conflicting record for a unique RRSet it owns must reset it to probing (§9)\(still)",
            related: [u.frame, u.ownerFrame])
        return true
    }

    /// Notes host `e.src`'s conflicting record against `m`'s owner, the first since the owner
    /// last acted.
    private static func noteUnacted(
        _ e: MDNSEvent, _ i: MDNSInput, _ key: MDNSRRSetKey, _ m: MDNSRecordState, _ mac: MACBytes,
        _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        let owner = OwnerKey(set: key, owner: m.owner)
        guard store.verdicts.unactedConflicts.slot(of: owner) == nil,
            // The message carries the owner's RDATA too: cooperating, not conflicting.
            !i.records.contains(where: {
                $0.section != .authority && $0.nameKey == key.name && $0.record.type.rawValue == key.type
                    && $0.rdataKey == m.rdata
            })
        else { return }
        store.verdicts.unactedConflicts.add(
            Unacted(
                owner: m.owner, name: key.name, frame: e.frame, time: e.time, other: e.src, otherMAC: mac,
                ownerFrame: m.lastFrame),
            forAbsent: owner, at: e.time, evicted: &out.evictions)
    }

    /// A probe from an owner for a name with a conflict pending: acted on.
    private static func noteProbe(_ e: MDNSEvent, _ i: MDNSInput, _ store: inout MDNSSessionStore) {
        var names: [UInt64] = []
        for r in i.records where r.section == .authority && i.isUnique(r) && !names.contains(r.nameKey) {
            names.append(r.nameKey)
        }
        guard !names.isEmpty else { return }
        store.verdicts.unactedConflicts.keep { !($0.owner == e.src && names.contains($0.name)) }
    }
}

/// MDNS-518: every DNS-SD instance with an SRV has a TXT, and its SRV target an address.
///
/// Judged at the end of the input, for instances whose live SRV was seen in at least two
/// messages (a service seen once may have been caught mid-answer).
struct ServiceCompletenessRule: SessionRule {
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

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard e.atEnd else { return }
        let services = store.model.services
        let judged = services.positions(
            where: { $0.srvMessages >= 2 && !$0.goodbye && !$0.historyIncomplete && $0.firstSRVFrame != nil },
            by: { $0.firstSRVFrame ?? 0 })
        for k in judged {
            let s = services.values[k]
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
/// answering probes: "when responding via multicast to a probe, a Multicast DNS responder is
/// only required to delay its transmission as necessary to ensure an interval of at least
/// 250 ms since the last time the record was multicast". §8.3 asks for announcements "one
/// second apart", the same floor. So avahi's second announcement of its host records, sent
/// 0.93 s after the first because it rides along with a service's announcement, is reported:
/// §6.4 lets a responder delay a response to aggregate it with a later one, never send one
/// early. Only the capture's jitter (10 ms) is allowed for. The gap is printed in
/// milliseconds, so a record sent again 960 ms later does not read as "1.0 s".
struct RecordRateRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-506", "record-once-per-second", .error, "A record is multicast at most once per second",
        spec: "RFC 6762 §6",
        "Per source address (a dual-stack host sends over IPv4 and IPv6) and record (name, type, class, RDATA, TTL above 0): multicast again less than 1 s after its last multicast; in a response answering another host's probe, less than 250 ms after it (§6). DiscoScope reads this as follows: a response answers a probe when it is the responder's first since another host's probe for one of its names, less than 250 ms before (probes are answered at once, and the prober decides 250 ms after its probe); the whole response answers it. A host's own probes (from any of its addresses: hosts are told apart by link-layer address where the link has one), and its later responses, answer nothing.",
        interop: "wasted airtime on Wi-Fi; RFC 6762 §6 protects the network with this limit",
        example: "record R multicast at t and t + 0.4 s, no probe in between", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([announce(at: 0), announce(at: 0.4)]),
            // A probe for another name answers nothing in this response.
            RuleExample([
                mdns(ProbingRule.instanceAnnouncement(), at: 0),
                probe(src: "192.168.1.30", at: 0.5),
                mdns(ProbingRule.instanceAnnouncement(), at: 0.501),
            ]),
            // A host answering its own probe defends nothing.
            RuleExample([announce(at: 0), probe(at: 0.2), announce(at: 0.25)]),
            // A probe answer still waits 250 ms after the record's last multicast.
            RuleExample([announce(at: 0), probe(src: "192.168.1.30", at: 0.1), announce(at: 0.101)]),
            // Sent 300 ms after the probe: not its answer.
            RuleExample([announce(at: 0), probe(src: "192.168.1.30", at: 0.2), announce(at: 0.5)]),
            // The probe was answered (frame 3); the announcement after is not its answer.
            RuleExample([
                announce(at: 0), probe(src: "192.168.1.30", at: 0.2), announce(at: 0.25), announce(at: 0.3),
            ]),
        ],
        nonTriggering: [
            RuleExample([announce(at: 0), announce(at: 1.0)]),
            // Defending the name against a probe.
            RuleExample([announce(at: 0), probe(src: "192.168.1.30", at: 0.2), announce(at: 0.25)]),
            // Answering a probe for the service type (python-zeroconf's): the SRV and TXT go
            // with the probed PTR, and the whole response answers the probe.
            RuleExample([
                mdns(ProbingRule.instanceAnnouncement(), at: 0),
                mdns(ProbingRule.typeProbe(), src: "192.168.1.30", at: 0.5),
                mdns(ProbingRule.instanceAnnouncement(), at: 0.501),
            ]),
            // The same record over IPv6 from the same host.
            RuleExample([announce(at: 0), announce(src: "fe80::1", at: 0.01)]),
        ])

    /// The floor between two multicasts of a record, and in an answer to a probe (§6).
    static let floor = 1.0
    static let probeAnswerFloor = 0.25
    /// A response this soon after another host's probe for one of its names answers it.
    static let probeAnswer = 0.25

    /// The latest probe for a name: when, from where, and who answered it since.
    struct ProbeSeen {
        var time: Timestamp
        /// By link-layer address where the link has one: a dual-stack host probes over IPv4
        /// and IPv6 from two addresses.
        var prober: MulticastHost
        /// The addresses whose answer to it came (a few at most: more answer nothing more). By
        /// address, as the rule counts: a dual-stack host answers over each family.
        var answeredBy: [IPAddress] = []
        static let maxAnswers = 8

        /// Whether a response from `responder` (on `host`) at `time` answers this probe: the
        /// first from its address since the probe, soon after, and not the prober's own.
        func isAnswered(by responder: IPAddress, _ host: MulticastHost, at time: Timestamp) -> Bool {
            host != prober && MDNSSession.since(self.time, time) <= RecordRateRule.probeAnswer
                && !answeredBy.contains(responder)
        }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        let sender = MulticastHost(mac: i.datagram.sourceMAC, address: e.src)
        if i.isProbe {
            // The last probe for each name, and who sent it (`MDNSVerdicts.probedNames`); the
            // prober's copy over its other address family, in the same round, is the same probe.
            let probe = ProbeSeen(time: e.time, prober: sender)
            for r in i.records where r.section == .authority {
                store.verdicts.probedNames.update(
                    MDNSNameKey(r.nameKey), default: probe, at: e.time, evicted: &out.evictions
                ) {
                    if !($0.prober == sender && MDNSSession.since($0.time, e.time) <= ProbingRule.round) {
                        $0 = probe
                    }
                }
            }
            return
        }
        guard i.isResponse, !e.timeWentBack else { return }
        // A probe's answer may be unicast (to a QU probe): the responder's later multicast is
        // then not the answer.
        var answersProbe = false
        for r in i.records where r.section != .authority {
            guard let p = store.verdicts.probedNames[MDNSNameKey(r.nameKey)],
                p.isAnswered(by: e.src, sender, at: e.time)
            else {
                continue
            }
            answersProbe = true
            store.verdicts.probedNames.modify(MDNSNameKey(r.nameKey)) {
                if $0.answeredBy.count < ProbeSeen.maxAnswers { $0.answeredBy.append(e.src) }
            }
        }
        guard e.dst.isMulticast else { return }
        let floor = answersProbe ? Self.probeAnswerFloor : Self.floor
        for r in i.records where r.section != .authority && r.record.type != .opt && r.record.ttl > 0 {
            let rr = r.record
            let nameKey = r.nameKey
            guard
                let set = store.model.rrsets[MDNSRRSetKey(name: nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)],
                let m = set.member(rdata: r.rdataKey, owner: e.src), !m.goodbye,
                let last = m.lastMulticast
            else { continue }
            let gap = MDNSSession.since(last.time, e.time)
            guard gap < floor - MDNSSession.jitter else { continue }
            out.report(
                Self.descriptor,
                answersProbe
                    ? "\(i.name(rr.name)) \(rr.type) multicast again \(ResponseDelayRule.ms(gap)) ms after frame \(last.frame), answering a probe; at least 250 ms apart"
                    : "\(i.name(rr.name)) \(rr.type) multicast again \(ResponseDelayRule.ms(gap)) ms after frame \(last.frame); at most once per second",
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
///
/// A goodbye for a record nobody sent with a TTL above 0 is info (any address: a host whose
/// address changed says goodbye from the new one to what it announced from the old), judged
/// only for a host whose start the capture shows: its first packet, more than 1 s after the
/// capture began, was a probe (hosts probe when they start or join a link), so everything it
/// announced since is in the capture (and the model has not forgotten the name).
struct GoodbyeUpdateRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-515", "goodbye-and-update", .error, "Goodbyes are used as updates need them",
        spec: "RFC 6762 §8.4, §10.1",
        "A browse PTR (shared) naming a new instance whose SRV has the target and port of an instance the same source announced in that PTR RRSet, still live and never said goodbye to: the instance was renamed without a goodbye for the old PTR (error); a unique record's goodbye (TTL 0) followed within 1 s by new RDATA for the same RRSet from the same source (warning: cache-flush already replaces it); TTL 0 in a Known-Answer or probe record (info); a goodbye for a record nobody in the capture sent with a TTL above 0 (info). DiscoScope reads \"never announced\" as follows: judged only for a source whose start the capture shows (its first packet, more than 1 s after the capture began, was a probe), so that an announcement made before the capture began is not taken for none.",
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
            // The capture shows the host start (it probes); it says goodbye to an address it
            // never announced.
            RuleExample(startedHost() + [announce("192.168.1.21", ttl: 0, at: 5)], severity: .info),
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
            // The goodbye is for what the host announced.
            RuleExample(startedHost() + [announce(ttl: 0, at: 5)]),
            // The capture does not show the host start: what it announced earlier is unknown.
            RuleExample([mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), announce("192.168.1.21", ttl: 0, at: 2)]),
        ])

    /// 192.168.1.20 starts 2 s into the capture: probes printer.local. and announces it.
    static func startedHost() -> [Datagram] {
        [
            mdns(ask("_ipp._tcp.local"), src: "192.168.1.5"), probe(at: 2), probe(at: 2.25), probe(at: 2.5),
            announce(at: 2.75), announce(at: 3.75),
        ]
    }

    /// The instance of `service()` renamed to `Office (2)`: same SRV target and port.
    static func renamed() -> DNSBuilder {
        response { b in
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office (2)._ipp._tcp.local"))
            b.record(.additional, "Office (2)._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            b.record(.additional, "Office (2)._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp"]))
        }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd else { return }
        // A source whose first packet, a second or more into the capture, is a probe: its start.
        if i.isProbe, store.model.senders[e.src] == nil, let start = store.model.start,
            MDNSSession.since(start, e.time) > 1
        {
            store.verdicts.startedHosts.insert(e.time, for: e.src, at: e.time, evicted: &out.evictions)
        }
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
        if judgeUnannounced(e, i, store, &out) { return }
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
    /// A goodbye for a record the source never sent with a TTL above 0, from a source whose
    /// start the capture shows; whether reported.
    fileprivate static func judgeUnannounced(
        _ e: MDNSEvent, _ i: MDNSInput, _ store: borrowing MDNSSessionStore, _ out: inout SessionReports
    ) -> Bool {
        guard e.srcPort == 5353, let started = store.verdicts.startedHosts[e.src],
            let first = store.model.senders[e.src]?.firstFrame
        else { return false }
        for r in i.records where r.section != .authority && r.record.ttl == 0 && r.record.type != .opt {
            let key = MDNSRecordKey(r)
            guard !store.model.mayHaveForgotten(key.set.name) else { continue }
            if let set = store.model.rrsets[key.set] {
                if set.historyIncomplete { continue }
                // Announced by any address: a host whose address changed (a DHCP lease on
                // another network) says goodbye from its new address to what it announced from
                // its old one.
                if set.members.contains(where: { $0.rdata == key.rdata && $0.ttl > 0 }) { continue }
            }
            out.report(
                Self.descriptor, severity: .info,
                "goodbye (TTL 0) for \(i.name(r.record.name)) \(r.record.type), which no one in the capture announced, though it shows this source from its start (its first packet, a probe, frame \(first), \(String(format1: MDNSSession.since(started, e.time))) s before)",
                related: [first])
            return true
        }
        return false
    }

    /// A browse PTR renaming an instance without a goodbye for the old PTR; whether reported.
    fileprivate static func judgeRename(
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
    private static func srv(of instance: DNSName, _ i: MDNSInput, _ model: borrowing MDNSSessionModel) -> (
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
struct UpdateRateRule: SessionRule {
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
    /// A source's RDATA changes of an RRSet (a verdict row, `MDNSVerdicts.rdataChanges`).
    struct Changes {
        /// The changes of the last `window` seconds, oldest first (the latest `limit + 1`;
        /// none once reported).
        var recent: [MDNSFrameTime] = []
        /// The latest change kept (none: the row goes first when room is needed).
        var activity: Timestamp { recent.last?.time ?? .zero }
    }
    static let limit = 10
    static let window = 60.0

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, !e.atEnd, !e.timeWentBack else { return }
        for r in i.records where r.section == .answer && r.record.ttl > 0 && i.isUnique(r) {
            let rr = r.record
            let set = MDNSRRSetKey(name: r.nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            guard let s = store.model.rrsets[set], s.member(rdata: r.rdataKey, owner: e.src) == nil,
                s.members.contains(where: { $0.owner == e.src })
            else { continue }
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let first = store.verdicts.rdataChanges.update(
                Key(set: set, source: e.src), default: Changes(), at: e.time, evicted: &out.evictions
            ) { c -> MDNSFrameTime? in
                c.recent.removeAll { MDNSSession.since($0.time, now.time) > Self.window }
                c.recent.append(now)
                if c.recent.count > Self.limit + 1 { c.recent.removeFirst() }
                guard c.recent.count == Self.limit + 1, let first = c.recent.first else { return nil }
                c.recent = []
                return first
            }
            if let first {
                out.report(
                    Self.descriptor,
                    "\(i.name(rr.name)) \(rr.type) changed \(Self.limit + 1) times within \(String(format1: MDNSSession.since(first.time, e.time))) s (since frame \(first.frame)); at most 10 per minute",
                    related: [first.frame])
            }
        }
    }
}

/// MDNS-308, its in-order half: an instance PTR answer comes with the instance's SRV and TXT,
/// and an SRV answer with the address records of its target, unless the same source
/// multicast them within the last second (RFC 6762 §6 then forbids sending them again).
///
/// An SRV answer is judged only when its source is known to have the target's addresses:
/// it sent an A or AAAA of the target before (a target with no address anywhere is MDNS-518's,
/// at the end of the input; another host's addresses are not this responder's to give).
/// Any one address record of the target counts: which families a host sends is MDNS-309's.
struct AdditionalRecordsRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-308", "additional-records", .warning, "Instance answers include SRV, TXT and addresses",
        spec: "RFC 6763 §12.1, §12.2",
        "Judged in capture order, on multicast responses: a PTR answer naming an instance without its SRV or TXT; an SRV answer (TTL above 0) whose target has no A or AAAA in the message, when the same source sent an A or AAAA of that target before (so it has one to give). Records the same source multicast in the last second count as present (a responder must not send a record twice within one second). Silent for an SRV target the source never gave an address (MDNS-518 judges one nobody gave an address, at the end of the input), for the target \".\" and for truncated datagrams; one address record of either family is enough.",
        interop: "Apple BCT: REQUIRED ADDITIONAL RECORDS IN ANSWERS",
        example: "PTR answer with an empty Additional section")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(ptrOnly())),
            // The host announced its address; a later SRV answer leaves it out.
            RuleExample([mdns(service(), at: 0), mdns(srvOnly(), at: 10)]),
        ],
        nonTriggering: [
            RuleExample(mdns(service())),
            RuleExample([mdns(service(), at: 0), mdns(ptrOnly(), at: 0.5)]),
            // The address was multicast 0.5 s before: it may not be sent again yet.
            RuleExample([mdns(service(), at: 0), mdns(srvOnly(), at: 0.5)]),
            // Near miss: the address in the message, in the Answer section.
            RuleExample([mdns(service(), at: 0), mdns(srvWithAddress(), at: 10)]),
            // Near miss: no address was ever given for the target (MDNS-518's case).
            RuleExample([mdns(srvOnly(), at: 0), mdns(srvOnly(), at: 10)]),
            // Near miss: another host gave the target's address.
            RuleExample([mdns(service(), src: "192.168.1.30", at: 0), mdns(srvOnly(), at: 10)]),
        ])

    static func ptrOnly() -> DNSBuilder {
        response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) }
    }
    static func srvOnly() -> DNSBuilder {
        response { b in
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            b.record(.answer, "Office._ipp._tcp.local", 16, flush: true, ttl: 4500, rdata: B.txt(["rp=ipp/print"]))
        }
    }
    static func srvWithAddress() -> DNSBuilder {
        response { b in
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, rdata: B.srv(631, "printer.local"))
            hostA(&b, .answer)
        }
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, i.isMulticast, !e.atEnd, !e.isTruncated else { return }
        let p = i.message.payload
        /// Whether this source multicast a record of `name` and type `t` in the last second.
        func recent(_ name: UInt64, _ t: RecordType) -> Bool {
            guard let set = store.model.rrset(name, t, 1) else { return false }
            return set.members.contains {
                $0.owner == e.src && $0.lastMulticast.map { MDNSSession.since($0.time, e.time) < 1 } ?? false
            }
        }
        for r in i.records where r.section == .answer {
            switch r.record.type {
            case .ptr:
                guard case .name(let target) = r.record.value,
                    r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype, r.target?.dnssd.kind == .instance
                else { continue }
                func present(_ t: RecordType) -> Bool {
                    i.records.contains { $0.record.type == t && $0.record.name.equals(target, in: p) }
                        || recent(target.key(in: p), t)
                }
                let hasSRV = present(.srv)
                let hasTXT = present(.txt)
                if !hasSRV || !hasTXT {
                    out.report(
                        Self.descriptor,
                        "PTR answer \(i.name(target)) without its \([hasSRV ? nil : "SRV", hasTXT ? nil : "TXT"].compactMap { $0 }.joined(separator: " and "))",
                        related: [])
                }
            case .srv:
                guard r.record.ttl > 0, case .srv(_, _, _, let target) = r.record.value, let t = r.target,
                    t.labelCount > 0
                else { continue }
                let key = t.key
                let inMessage = i.records.contains {
                    ($0.record.type == .a || $0.record.type == .aaaa) && $0.nameKey == key
                }
                if inMessage || recent(key, .a) || recent(key, .aaaa) { continue }
                // Only a source that has an address of the target to give.
                func gave(_ type: RecordType) -> Bool {
                    store.model.rrset(key, type, 1)?.members.contains { $0.owner == e.src && !$0.goodbye } ?? false
                }
                guard gave(.a) || gave(.aaaa) else { continue }
                out.report(
                    Self.descriptor,
                    "SRV answer \(i.name(r.record.name)) without an A or AAAA of its target \(i.name(target)), which this host has",
                    related: [])
            default: continue
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
struct WholeRRSetRule: SessionRule {
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
    /// What a source last sent of a unique RRSet (a verdict row, `MDNSVerdicts.rrsetClaims`).
    /// The model's members are not this: they count every transmission (without the
    /// cache-flush bit, from other ports, goodbyes), not the last cache-flush message or burst.
    struct Claim {
        /// The members of its last cache-flush message or burst (at most `maxMembers`).
        var rdata: [UInt64]
        /// The burst's first message.
        var frame: Int
        /// The burst's last message.
        var time: Timestamp
        /// A cache-flush message that left members out, until they are sent again.
        var omission: Omission?
    }
    /// A cache-flush message that left members out. Few claims have one: it is kept by
    /// reference (immutable, so a copy of the store shares it safely) to keep every claim
    /// small.
    final class Omission: Sendable {
        let rdata: [UInt64]
        let frame: Int
        let time: Timestamp
        let before: Int

        init(rdata: [UInt64], frame: Int, time: Timestamp, before: Int) {
            self.rdata = rdata
            self.frame = frame
            self.time = time
            self.before = before
        }

        /// The same omission of the members that `stillLeftOut` keeps (nil when none is).
        func keeping(_ stillLeftOut: (UInt64) -> Bool) -> Omission? {
            let left = rdata.filter(stillLeftOut)
            return left.isEmpty ? nil : Omission(rdata: left, frame: frame, time: time, before: before)
        }
    }
    /// The Known-Answers of a query `MDNSWindows.queries` does not hold (a probe, or a query
    /// sent by unicast), kept for a second in `MDNSVerdicts.otherKnownAnswers`.
    struct Listed {
        var time: Timestamp
        var records: [MDNSRecordKey]
    }
    static let burst = 1.0
    static let maxMembers = MDNSMessageView.maxFlushedMembers

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, !e.timeWentBack else { return }
        if i.isQuery {
            // Multicast queries other than probes are in the store's window of queries.
            guard !i.message.answers.isEmpty, i.isProbe || !e.dst.isMulticast else { return }
            store.verdicts.otherKnownAnswers.age(to: e.time)
            store.verdicts.otherKnownAnswers.append(
                Listed(time: e.time, records: i.answerRecords.prefix(256).map { MDNSRecordKey($0) }),
                evicted: &out.evictions)
            return
        }
        guard i.isResponse, e.srcPort == 5353 else { return }
        // Goodbyes end ownership.
        for r in i.records where r.record.ttl == 0 && r.record.cacheFlush && r.section != .authority && i.isUnique(r) {
            let k = MDNSRecordKey(r)
            store.verdicts.rrsetClaims.modify(Key(source: e.src, set: k.set)) { c in
                c.rdata.removeAll { $0 == k.rdata }
                c.omission = c.omission?.keeping { $0 != k.rdata }
            }
        }
        // This message's members per RRSet, in order (made with its decoding).
        var reported = false
        for (set, now) in i.decoded.flushedRRSets {
            let key = Key(source: e.src, set: set)
            // Nothing adds or removes a claim until this group's is written back.
            guard let slot = store.verdicts.rrsetClaims.slot(of: key) else {
                store.verdicts.rrsetClaims.add(
                    Claim(rdata: now, frame: e.frame, time: e.time), forAbsent: key, at: e.time,
                    evicted: &out.evictions)
                continue
            }
            let claim = store.verdicts.rrsetClaims[slot]
            let (last, first) = (claim.time, claim.frame)
            var omission: Omission? = nil
            if let o = claim.omission {
                if MDNSSession.since(o.time, e.time) <= Self.burst {
                    omission = o.keeping { !now.contains($0) }
                } else {
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
            if MDNSSession.since(last, e.time) <= Self.burst {
                Self.addToBurst(&store.verdicts.rrsetClaims[slot], now, omission: omission, at: e.time)
                continue
            }
            if omission == nil {
                let sent = claim.rdata
                let left = sent.filter { r in
                    !now.contains(r) && !listed(MDNSRecordKey(set: set, rdata: r), store, at: e.time)
                        && !(store.model.rrsets[set]?.members.contains {
                            $0.rdata == r && $0.owner != e.src
                                && $0.lastMulticast.map { MDNSSession.since($0.time, e.time) <= Self.burst } ?? false
                        } ?? false)
                }
                if !left.isEmpty, left.count < sent.count {
                    omission = Omission(rdata: left, frame: e.frame, time: e.time, before: first)
                }
            }
            store.verdicts.rrsetClaims[slot] = Claim(rdata: now, frame: e.frame, time: e.time, omission: omission)
        }
    }

    /// The same burst: its members add up.
    private static func addToBurst(_ c: inout Claim, _ now: [UInt64], omission: Omission?, at time: Timestamp) {
        c.omission = omission
        for r in now where !c.rdata.contains(r) && c.rdata.count < Self.maxMembers { c.rdata.append(r) }
        c.time = time
    }

    /// Whether a query of the last second listed `record` as a Known-Answer (not those whose
    /// capture clock went back).
    private static func listed(_ record: MDNSRecordKey, _ store: borrowing MDNSSessionStore, at now: Timestamp)
        -> Bool
    {
        store.windows.queries(within: Self.burst, of: now).contains { !$0.timeWentBack && $0.listed(record) != nil }
            || store.verdicts.otherKnownAnswers.elements.contains {
                MDNSSession.since($0.time, now) <= Self.burst && $0.records.contains(record)
            }
    }
}

/// MDNS-522: a DNS-SD service instance whose records all ran out with no refresh and no
/// goodbye went silent; reported when that happens (live capture's timer), or at the end of
/// a capture that outlived them.
struct InstanceExpiredRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "MDNS-522", "instance-expired", .info,
        "A DNS-SD instance that goes away says goodbye rather than letting its records run out",
        spec: "RFC 6762 §10.1, §5.2; RFC 6763 §4",
        "RFC 6762 §10.1: a host that is shutting down sends goodbye packets (the records with TTL 0), so that caches drop them at once; otherwise a cache keeps a record until its TTL runs out (§5.2), and a browser (RFC 6763 §4) shows the instance until then. Per instance name: the PTR naming it (its service type's, or a subtype's), its SRV and its TXT, as last multicast from port 5353 with a TTL above 0. When the longest-lived of them has run out (sent time plus TTL plus 1 s of jitter: the PTR's, 4500 s, usually, so an SRV of TTL 120 that nobody re-queries does not count as gone) with no record of the instance since and no goodbye for its PTR or SRV, it went silent: reported once, with the last of its records' frame, and again only after it is announced anew. Needs the PTR to have been seen: an instance known by its SRV or TXT alone may still be cached under a PTR sent before the capture; silent too when the analyzer had dropped what it knew of the instance. This is the finding that tells a sensor an instance went silent (a presence metric only stops counting it). Live capture reports it on its timer, about a second after its records ran out; offline it is reported at the end of the input only when the capture's mDNS traffic ran on at least another TTL (the longest) past that moment. DiscoScope infers from the capture alone: a responder answers for its records only when asked (browsers re-query at 80 % of a TTL, §5.2), so on a link where nothing browses for the type an instance that is still there looks the same; hence info. Unicast answers (to a querier, or legacy) are not counted.",
        interop:
            "browsers drop the instance when its records run out; without a goodbye they list it as present until then, and a sensor learns it is gone only from this silence",
        example:
            "PTR (TTL 4500), SRV (TTL 120) and TXT (TTL 4500) of Office._ipp._tcp.local. at t, then nothing of it and no goodbye: at t + 4501 s its records ran out",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // Announced once with TTL 60 for all three, then the capture runs past 2 × 61 s.
            RuleExample([
                mdns(announcement(ttl: 60), at: 0), mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 130),
            ])
        ],
        nonTriggering: [
            // Near miss: the instance said goodbye.
            RuleExample([
                mdns(announcement(ttl: 60), at: 0), mdns(announcement(ttl: 0), at: 20),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 130),
            ]),
            // Near miss: the SRV (TTL 60) ran out long ago, but the PTR (TTL 4500) still lives.
            RuleExample([
                mdns(announcement(ttl: 60, ptrTTL: 4500), at: 0),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 130),
            ]),
            // Near miss: refreshed at 30 s; the capture ends 39 s after that ran out, under a
            // TTL more.
            RuleExample([
                mdns(announcement(ttl: 60), at: 0), mdns(announcement(ttl: 60), at: 30),
                mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 130),
            ]),
            // Near miss: SRV and TXT alone, no PTR seen (it may be cached from before).
            RuleExample([mdns(srvAndTXT(ttl: 60), at: 0), mdns(ask("_http._tcp.local"), src: "192.168.1.5", at: 130)]),
        ])

    static func announcement(ttl: UInt32, ptrTTL: UInt32? = nil) -> DNSBuilder {
        response { b in
            b.record(.answer, "_http._tcp.local", 12, ttl: ptrTTL ?? ttl, rdata: B.name("Lamp._http._tcp.local"))
            b.record(.answer, "Lamp._http._tcp.local", 33, flush: true, ttl: ttl, rdata: B.srv(80, "lamp.local"))
            b.record(.answer, "Lamp._http._tcp.local", 16, flush: true, ttl: ttl, rdata: B.txt(["path=/"]))
            b.record(.additional, "lamp.local", 1, flush: true, ttl: ttl, rdata: B.a("192.168.1.20"))
        }
    }

    static func srvAndTXT(ttl: UInt32) -> DNSBuilder {
        response { b in
            b.record(.answer, "Lamp._http._tcp.local", 33, flush: true, ttl: ttl, rdata: B.srv(80, "lamp.local"))
            b.record(.answer, "Lamp._http._tcp.local", 16, flush: true, ttl: ttl, rdata: B.txt(["path=/"]))
        }
    }

    /// An instance's PTR as last multicast (`MDNSVerdicts.instanceLeases`, by instance name
    /// key): its SRV and TXT are read from the model when the PTR has run out.
    struct Watch {
        var ttl: UInt32
        var frame: Int
        var time: Timestamp
        var source: IPAddress
        /// When to look at it again: its PTR's expiry, or a later one of its SRV or TXT.
        var due: Timestamp

        /// When the PTR runs out, plus 1 s of jitter.
        var expiry: Timestamp { Self.expiry(of: time, ttl) }

        static func expiry(of time: Timestamp, _ ttl: UInt32) -> Timestamp {
            time.adding(seconds: Int64(ttl) + 1)
        }
    }

    private typealias Slot = SessionTable<MDNSNameKey, Watch>.Slot

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, i.isResponse, i.isMulticast, e.srcPort == 5353 else { return }
        let p = i.message.payload
        let records = i.records
        for k in records.indices {
            // Only the PTRs naming an instance, read in place: every other record leaves at
            // the type test, before a copy or a lookup (SRV and TXT are the model's).
            guard records[k].record.type == .ptr, records[k].section != .authority else { continue }
            let kind = records[k].dnssd.kind
            guard kind == .serviceType || kind == .subtype, case .name(let t) = records[k].record.value else {
                continue
            }
            let name = MDNSNameKey(records[k].target?.key ?? t.key(in: p))
            let ttl = records[k].record.ttl
            guard ttl > 0 else {
                // A goodbye for its browse PTR: the instance left (one for a subtype PTR drops
                // only the subtype; one for its SRV is read from the model).
                if kind == .serviceType { store.verdicts.instanceLeases.remove(name) }
                continue
            }
            let fresh = Watch(ttl: ttl, frame: e.frame, time: e.time, source: e.src, due: Watch.expiry(of: e.time, ttl))
            let due = store.verdicts.instanceLeases.update(name, default: fresh, at: e.time, evicted: &out.evictions) {
                // Of a browse PTR and a subtype PTR in one message, the longer-lived.
                if $0.frame != e.frame || $0.ttl < ttl { $0 = fresh }
                return $0.due
            }
            if store.verdicts.nextInstanceExpiry.map({ due < $0 }) ?? true { store.verdicts.nextInstanceExpiry = due }
        }
    }

    /// The latest multicast of the instance's SRV or TXT records the model holds (not said
    /// goodbye to): when it runs out, its frame and the longest TTL.
    private static func other(
        _ name: UInt64, _ type: RecordType, in model: MDNSSessionModel
    ) -> (expiry: Timestamp, last: MDNSFrameTime, ttl: UInt32)? {
        guard let set = model.rrset(name, type, 1) else { return nil }
        var latest: (expiry: Timestamp, last: MDNSFrameTime, ttl: UInt32)?
        for m in set.members where !m.goodbye && m.ttl > 0 {
            guard let last = m.lastMulticast else { continue }
            let x = Watch.expiry(of: last.time, m.ttl)
            if latest.map({ x > $0.expiry }) ?? true { latest = (x, last, max(m.ttl, latest?.ttl ?? 0)) }
        }
        return latest
    }

    static func conclude(by now: Timestamp, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let next = store.verdicts.nextInstanceExpiry, next < now else { return }
        report(by: now, outlived: false, &store, &out)
    }

    /// Offline: only what ran out at least a TTL before the last packet.
    static func finish(in store: inout MDNSSessionStore, into out: inout SessionReports) {
        report(by: store.model.latest, outlived: true, &store, &out)
    }

    /// Reports the instances whose records ran out by `now` (and leaves them, so that a new
    /// announcement starts anew); those the model dropped, or whose SRV said goodbye, go
    /// unreported.
    private static func report(
        by now: Timestamp, outlived: Bool, _ store: inout MDNSSessionStore, _ out: inout SessionReports
    ) {
        let due = store.verdicts.instanceLeases.slots(where: { $0.due < now }, by: \.frame)
        var gone: [MDNSNameKey] = []
        var later: [(MDNSNameKey, Timestamp)] = []
        for slot in due {
            let key = store.verdicts.instanceLeases.rows.keys[slot]
            let w = store.verdicts.instanceLeases[slot]
            guard let service = store.model.services[key.bits], !service.goodbye, !service.historyIncomplete else {
                gone.append(key)
                continue
            }
            let srv = other(key.bits, .srv, in: store.model)
            let txt = other(key.bits, .txt, in: store.model)
            var expiry = w.expiry
            var last = MDNSFrameTime(frame: w.frame, time: w.time)
            var longest = w.ttl
            for o in [srv, txt] {
                guard let o else { continue }
                if o.expiry > expiry { expiry = o.expiry }
                if o.last.frame > last.frame { last = o.last }
                longest = max(longest, o.ttl)
            }
            // Its SRV or TXT lives on: looked at again when that runs out.
            guard expiry < now else {
                later.append((key, expiry))
                continue
            }
            if outlived { guard Timestamp.seconds(from: expiry, to: now) >= Double(longest) else { continue } }
            gone.append(key)
            let ttls =
                "PTR TTL \(w.ttl) s" + (srv.map { ", SRV TTL \($0.ttl) s" } ?? "")
                + (txt.map { ", TXT TTL \($0.ttl) s" } ?? "")
            out.reportAtEnd(
                Self.descriptor,
                "instance \(service.instance) went silent: its records (\(ttls); the last at frame \(last.frame)) ran out with no refresh and no goodbye (\(String(format1: Timestamp.seconds(from: last.time, to: now))) s since that frame): browsers drop it",
                frames: [last.frame], time: last.time, source: w.source)
        }
        for (key, x) in later { store.verdicts.instanceLeases.modify(key) { $0.due = x } }
        for k in gone { store.verdicts.instanceLeases.remove(k) }
        store.verdicts.nextInstanceExpiry = store.verdicts.instanceLeases.rows.values.lazy.map(\.due).min()
    }
}
