import DNS
import Findings
import NetLayers
import WireFormat

// SEG-1xx: multicast membership of the discovery groups. A switch that snoops IGMP and MLD
// (RFC 4541) forwards a group's traffic only to the ports where a host reported membership
// of it, and forgets a membership not reported again within the membership interval; a
// querier makes hosts report again. These rules judge each link (segment) of a session by
// the membership messages and the discovery messages captured on it.

/// What a host misses when a snooping switch prunes its group: by its role.
private func consequence(_ u: MulticastStore.Use) -> String {
    switch (u.proto, u.role) {
    case (.mdns, .query): "it hears none of the multicast answers to its queries"
    case (.mdns, _): "it hears no queries, so its records are heard only when it announces them"
    case (.ssdp, .query): "it hears no NOTIFY announcements or byebyes, only answers to its own searches"
    case (.ssdp, _): "it hears no M-SEARCH, so it is found only by its NOTIFY announcements"
    }
}

private func what(_ u: MulticastStore.Use) -> String {
    switch (u.proto, u.role) {
    case (.mdns, .query): "sends mDNS queries"
    case (.mdns, _): "sends mDNS responses"
    case (.ssdp, .query): "sends M-SEARCH"
    case (.ssdp, .answer): "answers M-SEARCH"
    case (.ssdp, .announce): "sends NOTIFY"
    }
}

private func protocolName(_ group: IPAddress) -> String { group.isIPv6 ? "MLD" : "IGMP" }

/// A membership packet of an example, on segment 0 unless told.
func membershipPacket(
    _ m: MembershipMessage, src: String, dst: String? = nil, at seconds: Double, segment: UInt16 = 0
) -> ExamplePacket {
    let source = IPAddress(text: Array(src.utf8)) ?? .v4(0)
    let to =
        dst.flatMap { IPAddress(text: Array($0.utf8)) } ?? (source.isIPv6 ? .v6(0xFF02 << 48, 0x16) : .v4(0xE000_0016))
    return .membership(
        MembershipPacket(
            frame: 1, time: exampleTime(seconds), src: source, dst: to, hopLimit: 1, sourceMAC: MACBytes(),
            segment: segment, message: .success(m)))
}

/// An IGMPv3 (MLDv2 for an IPv6 source) report from `src` that joins `group` (TO_EX {}), or
/// reports it is a member (IS_EX {}, the answer to a query), or leaves it (TO_IN {}).
func joins(
    _ group: String, src: String, at seconds: Double, mode: MembershipMessage.GroupRecord.Mode = .toExclude
) -> ExamplePacket {
    let g = IPAddress(text: Array(group.utf8)) ?? .v4(0)
    let m = MembershipMessage(
        version: g.isIPv6 ? .mldV2 : .igmpV3, kind: .report,
        records: [MembershipMessage.GroupRecord(mode: mode, group: g, sourceCount: 0)])
    return membershipPacket(m, src: src, at: seconds)
}

/// A general IGMPv3 query (MLDv2 for an IPv6 source; IGMPv2 or MLDv1 when `v2`) from `src`,
/// max response 10 s.
func generalQuery(src: String = "192.168.1.1", v2: Bool = false, at seconds: Double) -> ExamplePacket {
    let v6 = src.contains(":")
    let version: MembershipMessage.Version = v6 ? (v2 ? .mldV1 : .mldV2) : (v2 ? .igmpV2 : .igmpV3)
    let m = MembershipMessage(version: version, kind: .query, maxResponse: 10)
    return membershipPacket(m, src: src, dst: v6 ? "ff02::1" : "224.0.0.1", at: seconds)
}

/// SEG-101: a host that uses a discovery group reports membership of it where a querier
/// asks for memberships.
struct DiscoveryWithoutMembershipRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-101", "discovery-without-membership", .warning,
        "A host that uses a discovery group reports membership of it",
        spec:
            "RFC 4541 §2.1.1 (snooping switches forward a group only to ports with members); RFC 3376 §5, RFC 3810 §6 (hosts report their memberships to queries); RFC 6762 §5, §11; UDA 2.0 §1.1",
        "On a link where a membership querier asks with version 3 (an IGMPv3 query for IPv4 groups, an MLDv2 query for IPv6 ones) and other hosts report the group: a host that sends mDNS from port 5353 (queries or responses), sends NOTIFY or M-SEARCH to 239.255.255.250 (ff02::c), or answers M-SEARCH, that was active when the query asked (its first discovery message before the query's maximum response time ran out, its last after the query), and that never reports membership of the group of its protocol and address family (224.0.0.251, ff02::fb, 239.255.255.250, ff02::c) although the capture ran past that response time. Judged at the end of the input. Version 1 and 2 queriers are not judged: their hosts suppress their report when they hear another host's (RFC 2236 §3, RFC 2710 §4), so a silent member is normal there. Hosts are told apart by their link-layer address (a host reports MLD from its link-local address, whatever address it speaks from), else by their IP address. DiscoScope reads this as follows: an SSDP control point that searches must also listen for NOTIFY (UDA: it listens to the group for announcements); an mDNS querier from another port than 5353 (a legacy querier, answered by unicast) is not judged.",
        interop:
            "A snooping switch prunes the group from the host's port: the host goes deaf to discovery after the first membership interval (260 s) or at once. That is certain for 239.255.255.250 and the IPv6 groups (ff02::fb, ff02::c: MLD snooping covers every link-scope group but ff02::1); for 224.0.0.251 RFC 4541 §2.1.2 asks switches to flood the whole 224.0.0.x range, as Linux bridges do, but many access points and switches prune it too. Captured on a host's own switch port, other hosts' reports may be hidden (switches forward reports only towards the querier): capture at the querier's port or a mirror; the rule judges a host only where reports of the group from other hosts are seen",
        example:
            "an IGMP querier asks every 125 s; a camera sends mDNS responses to 224.0.0.251 and never sends an IGMP report for it",
        scope: .stateful, hides: true)

    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    generalQuery(at: 1),
                    joins("224.0.0.251", src: "192.168.1.30", at: 2, mode: .isExclude),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 3)),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 12)),
                ])
        ],
        nonTriggering: [
            // The responder reported membership when asked.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    generalQuery(at: 1),
                    joins("224.0.0.251", src: "192.168.1.30", at: 2, mode: .isExclude),
                    joins("224.0.0.251", src: "192.168.1.20", at: 2.5, mode: .isExclude),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 3)),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 12)),
                ]),
            // No querier on the link: nobody asks for reports, so none is missing.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 3)),
                ]),
            // A querier, but no report of the group from anyone: reports are not visible here.
            RuleExample(
                packets: [generalQuery(at: 1), .datagram(mdns(service(), src: "192.168.1.20", at: 12))]),
            // The capture ended before the query's maximum response time ran out.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 0.5)),
                    generalQuery(at: 1),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 2)),
                ]),
            // An IGMPv2 querier: the host may have suppressed its report on hearing another's.
            RuleExample(
                packets: [
                    generalQuery(v2: true, at: 1),
                    joins("224.0.0.251", src: "192.168.1.30", at: 2, mode: .isExclude),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 3)),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 12)),
                ]),
            // The host appeared after the query's response time (it joined before the capture
            // or will report to the next query).
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    generalQuery(at: 1),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 17)),
                ]),
            // A legacy querier (port other than 5353) is answered by unicast.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    generalQuery(at: 1),
                    .datagram(mdns(ask("printer.local", 1), src: "192.168.1.20", sport: 40000, at: 3)),
                    .datagram(mdns(ask("printer.local", 1), src: "192.168.1.20", sport: 40000, at: 12)),
                ]),
        ])

    static func judge(_ e: MulticastEvent, in store: inout MulticastStore, into out: inout SessionReports) {
        guard e.atEnd, !store.verdicts.unreported else { return }
        store.verdicts.unreported = true
        let end = e.time
        for k in store.users.slots(where: { _ in true }, by: \.first.frame) {
            let key = store.users.rows.keys[k]
            let u = store.users[k]
            guard store.members[key] == nil, store.reports(of: key.group) != nil else { continue }
            // A version 3 (MLDv2) query that asked while the host was active, whose answers
            // the capture holds: the host's first discovery message before its response time
            // ended, its last after the query.
            let asked = [store.firstQuery(for: key.group), store.lastQuery(for: key.group)].compactMap { $0 }.first {
                let deadline = Timestamp.seconds(from: $0.at.time, to: end) >= $0.maxResponse
                let active =
                    Timestamp.seconds(from: $0.at.time, to: u.first.time) <= $0.maxResponse && $0.at.time <= u.last
                let v3 = $0.version == .igmpV3 || $0.version == .mldV2
                return v3 && deadline && active && ($0.group == nil || $0.group == key.group)
            }
            guard let q = asked else { continue }
            out.reportAtEnd(
                descriptor,
                "\(u.address) \(what(u)) (frame \(u.first.frame)) but never reported membership of \(key.group), while \(protocolName(key.group)) querier \(q.querier) asks for memberships (frame \(q.at.frame)) and other hosts report it: a snooping switch prunes \(key.group) from its port, so \(consequence(u))",
                frames: [u.first.frame, q.at.frame], time: u.first.time, source: u.address)
        }
    }
}

/// SEG-102: a link whose hosts report discovery memberships has a querier, so that they are
/// reported again before snooping switches forget them.
struct MembershipsAgeOutRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-102", "memberships-age-out", .info, "Memberships of a discovery group are refreshed by a querier",
        spec:
            "RFC 4541 §2.1.1; RFC 3376 §8.4 (Group Membership Interval), RFC 3810 §9.4 (Multicast Address Listening Interval); RFC 6762 §5",
        "On a link where hosts reported membership of a discovery group (224.0.0.251, ff02::fb, 239.255.255.250, ff02::c): a discovery message sent to the group more than the membership interval (260 s: 2 × 125 s + 10 s, the defaults) after the latest report of it, with no membership query of its family (IGMP, MLD) within that interval. Hosts report again only when asked, so a snooping switch has forgotten every membership of the group by then: it stops forwarding the group to those ports, or floods it, as it is built. Reported once per link and group, at the end of the input.",
        interop:
            "Linux bridges snoop by default with no querier (multicast_snooping=1, multicast_querier=0); many managed switches too: mDNS and SSDP work for about four minutes after hosts join, then stop until someone joins again. A querier on the link (the router, or the switch's own) fixes it",
        example: "hosts join 224.0.0.251 at start-up, no IGMP query follows, mDNS traffic goes on 10 minutes later",
        scope: .stateful)

    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.30", at: 1)),
                    .datagram(mdns(service(), src: "192.168.1.30", at: 300)),
                ])
        ],
        nonTriggering: [
            // A querier asks, and the host reports again.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    generalQuery(at: 125),
                    joins("224.0.0.251", src: "192.168.1.30", at: 126, mode: .isExclude),
                    .datagram(mdns(service(), src: "192.168.1.30", at: 300)),
                ]),
            // Within the membership interval of the report.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.30", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.30", at: 250)),
                ]),
            // No host ever reported the group: nothing to age out (SEG-101 is about such hosts).
            RuleExample(
                packets: [
                    .datagram(mdns(service(), src: "192.168.1.30", at: 1)),
                    .datagram(mdns(service(), src: "192.168.1.30", at: 300)),
                ]),
        ])

    static func judge(_ e: MulticastEvent, in store: inout MulticastStore, into out: inout SessionReports) {
        guard case .discovery = e.kind, e.dst.isMulticast, !e.timeWentBack, let r = store.reports(of: e.dst),
            !store.verdicts.agedOut.contains(e.dst)
        else { return }
        let interval = MulticastStore.membershipInterval
        let since = Timestamp.seconds(from: r.last.time, to: e.time)
        guard since > interval else { return }
        let q = store.lastQuery(for: e.dst)
        if let q, Timestamp.seconds(from: q.at.time, to: e.time) <= interval { return }
        store.verdicts.agedOut.insert(e.dst)
        let querier =
            q.map { "the last \(protocolName(e.dst)) query was frame \($0.at.frame), from \($0.querier)" }
            ?? "no \(protocolName(e.dst)) querier was heard on this link"
        out.reportAtEnd(
            descriptor,
            "\(e.src) sends to \(e.dst) (frame \(e.frame)) \(Int(since)) s after the latest membership report of it (frame \(r.last.frame)), and \(querier): snooping switches forget memberships after \(Int(interval)) s unless a querier makes hosts report again, and then stop forwarding the group (or flood it)",
            frames: [e.frame, r.last.frame], time: e.time, source: e.src)
    }
}

/// SEG-103: an mDNS querier listens to the group before it asks (the answers come by
/// multicast).
struct QueryBeforeJoinRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-103", "query-before-join", .info, "An mDNS querier joins the group before it asks",
        spec:
            "RFC 6762 §5.2, §6 (answers to QM questions are multicast); RFC 3376 §5.1, RFC 3810 §6.1; RFC 4541 §2.1.1",
        "A host whose first membership report of the mDNS group of its family in the capture is a join (an IGMPv3/MLDv2 state-change record TO_EX or ALLOW, or a version 1/2 report with no query of its family in the preceding 11 s), after it sent an mDNS query from port 5353 to the group with a QM question, while another host's multicast response to the group came between the query and the join: that response, likely an answer, reached the host's port before a snooping switch knew it listens. Reported at the end of the input. DiscoScope reads this as follows: an M-SEARCH is answered by unicast and a QU question may be, so only mDNS queries with a QM question count; and a join that comes before any response is only late on paper (Linux sends the report of IP_ADD_MEMBERSHIP from a timer, a few milliseconds after the call, while shared answers wait 20-120 ms), so it is not reported.",
        interop:
            "A browser that opens its socket and sends before IP_ADD_MEMBERSHIP takes effect (or a stack that joins lazily) misses the first answers; mDNS retries hide it, at the cost of a second of discovery",
        example:
            "10.98.1.20 asks PTR _ipp._tcp.local (QM); 192.168.1.30 answers 5 ms later; 10.98.1.20's IGMPv3 report joins 224.0.0.251 after that",
        scope: .stateful)

    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                packets: [
                    .datagram(mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0)),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 0.005)),
                    joins("224.0.0.251", src: "192.168.1.5", at: 0.5),
                ])
        ],
        nonTriggering: [
            // The join comes before any response (as Linux's, a timer tick after the socket
            // joined): the answers find the host a member.
            RuleExample(
                packets: [
                    .datagram(mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0)),
                    joins("224.0.0.251", src: "192.168.1.5", at: 0.01),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 0.05)),
                ]),
            // Joined first.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.5", at: 0),
                    .datagram(mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0.01)),
                ]),
            // The report answers a query (IS_EX): the host was a member before the capture.
            RuleExample(
                packets: [
                    .datagram(mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 0)),
                    generalQuery(at: 1),
                    joins("224.0.0.251", src: "192.168.1.5", at: 2, mode: .isExclude),
                ]),
            // A QU question: the first answers come by unicast.
            RuleExample(
                packets: [
                    .datagram(mdns(ask("_ipp._tcp.local", qu: true), src: "192.168.1.5", at: 0)),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 0.005)),
                    joins("224.0.0.251", src: "192.168.1.5", at: 0.5),
                ]),
        ])

    static func judge(_ e: MulticastEvent, in store: inout MulticastStore, into out: inout SessionReports) {
        guard case .membership(let m) = e.kind, m.kind == .report else { return }
        let host = e.host
        for r in m.records where r.listens && (r.group == MulticastStore.mdnsV4 || r.group == MulticastStore.mdnsV6) {
            let key = MulticastStore.MemberKey(host: host, group: r.group)
            guard store.members[key] == nil, let u = store.users[key], let q = u.firstQuery,
                let a = store.lastAnswer(to: r.group), a.host != host, a.at.frame > q.frame, isJoin(r, m, e, store)
            else { continue }
            let delay = Int((Timestamp.seconds(from: q.time, to: e.time) * 1000).rounded())
            out.reportAtEnd(
                descriptor,
                "\(u.address) sent an mDNS query to \(r.group) (frame \(q.frame)) \(delay) ms before it joined the group (frame \(e.frame)), and \(a.address)'s multicast response (frame \(a.at.frame)) came in between: a snooping switch does not yet forward the group to it, so answers sent before the join may not reach it",
                frames: [q.frame, a.at.frame, e.frame], time: q.time, source: u.address)
        }
    }

    /// Whether a record joins its group, rather than reporting a membership that was there.
    private static func isJoin(
        _ r: MembershipMessage.GroupRecord, _ m: MembershipMessage, _ e: MulticastEvent, _ store: MulticastStore
    ) -> Bool {
        switch m.version {
        case .igmpV3, .mldV2:
            return r.mode == .toExclude || r.mode == .allowNewSources
        case .igmpV1, .igmpV2, .mldV1:
            guard let q = store.lastQuery(for: r.group) else { return true }
            return Timestamp.seconds(from: q.at.time, to: e.time) > max(q.maxResponse, 10) + 1
        }
    }
}

/// SEG-104: an mDNS responder says goodbye to its records before it leaves the group.
///
/// A capture cannot see a host shut down, but it can see it leave the mDNS group: a host
/// that stops mDNS on a link (a daemon's exit, `resolvectl mdns IF no`) drops its membership,
/// and the kernel reports the leave. Records it multicast are still in peers' caches until
/// their TTL runs out; RFC 6762 §10.1 asks for goodbyes (TTL 0) so that they go at once.
struct LeaveWithoutGoodbyeRule: SessionRule {
    static let descriptor = RuleDescriptor.mdns(
        "SEG-104", "leave-without-goodbye", .warning,
        "An mDNS responder says goodbye to its records before it leaves the group",
        spec: "RFC 6762 §10.1; RFC 3376 §5.1, RFC 3810 §6.1 (a leave: TO_IN {}, IGMPv2 leave, MLDv1 done)",
        "A host (by link-layer address, else IP address) leaves the mDNS group (224.0.0.251, ff02::fb: an IGMPv3/MLDv2 record TO_IN or IS_IN with no source, an IGMPv2 leave or MLDv1 done) while records it multicast to that group are still within their TTL (its latest response to the group with a record of TTL above 0, plus the longest TTL in it), and it sent the group no record with TTL 0 after that response, nor any mDNS message to the group after the leave. DiscoScope reads such a leave as the end of the host's mDNS on that link (a passive tool sees no shutdown); a host that said goodbye to any record after its last announcement is taken to have said goodbye. Silent for a host that never multicast a response, whose records' TTLs ran out, that leaves the other family's group only, and at the end of the capture (nothing shows the host stopped). Reported at the end of the input, once per host and group (again only after it announces anew).",
        interop:
            "peers keep the host's services and addresses for up to their TTL (75 min for service records): browsers list a gone service and connect to a dead address",
        example:
            "a responder multicasts its records (TTL 120, 4500) and 40 s later sends an IGMP TO_IN {} for 224.0.0.251, no TTL-0 record before",
        scope: .stateful)

    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.20", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 1)),
                    joins("224.0.0.251", src: "192.168.1.20", at: 40, mode: .toInclude),
                ])
        ],
        nonTriggering: [
            // Goodbyes first.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.20", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 1)),
                    .datagram(mdns(goodbyes(), src: "192.168.1.20", at: 39)),
                    joins("224.0.0.251", src: "192.168.1.20", at: 40, mode: .toInclude),
                ]),
            // Near miss: the records' TTLs (4500 s at most) ran out before the leave.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.20", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 1)),
                    joins("224.0.0.251", src: "192.168.1.20", at: 4600, mode: .toInclude),
                ]),
            // Near miss: a querier leaving (it never multicast a response).
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.5", at: 0),
                    .datagram(mdns(ask("_ipp._tcp.local"), src: "192.168.1.5", at: 1)),
                    joins("224.0.0.251", src: "192.168.1.5", at: 40, mode: .toInclude),
                ]),
            // Near miss: the host goes on sending to the group after the leave (another
            // program of it, not a member, still speaks mDNS).
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.20", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 1)),
                    joins("224.0.0.251", src: "192.168.1.20", at: 40, mode: .toInclude),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 41)),
                ]),
            // Near miss: the capture ends with the host still in the group.
            RuleExample(
                packets: [
                    joins("224.0.0.251", src: "192.168.1.20", at: 0),
                    .datagram(mdns(service(), src: "192.168.1.20", at: 1)),
                ]),
        ])

    /// The goodbyes of `service()`'s records.
    static func goodbyes() -> DNSBuilder {
        response { b in
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 0, rdata: B.name("Office._ipp._tcp.local"))
            b.record(.answer, "Office._ipp._tcp.local", 33, flush: true, ttl: 0, rdata: B.srv(631, "printer.local"))
        }
    }

    /// A leave with records still cached (`MulticastVerdicts.pendingLeaves`).
    struct Leave: Sendable {
        var frame: Int
        var time: Timestamp
        var address: IPAddress
        var lastLive: Int
        var cached: Int
    }

    static func judge(_ e: MulticastEvent, in store: inout MulticastStore, into out: inout SessionReports) {
        switch e.kind {
        case .end:
            let leaves = store.verdicts.pendingLeaves.rows.sorted { $0.value.frame < $1.value.frame }
            for (key, l) in leaves {
                out.reportAtEnd(
                    descriptor,
                    "\(l.address) leaves \(key.group) (frame \(l.frame)) with records it multicast there still cached for up to \(l.cached) s (its last response with live records: frame \(l.lastLive)), no goodbye (TTL 0) before, and no mDNS to the group after: peers keep the records until their TTL runs out",
                    frames: [l.frame, l.lastLive], time: l.time, source: l.address)
            }
            store.verdicts.pendingLeaves.removeAll()
        case .discovery(let d):
            // The host speaks to the group again: the leave did not end its mDNS.
            guard d.proto == .mdns, !store.verdicts.pendingLeaves.isEmpty else { return }
            store.verdicts.pendingLeaves.remove(MulticastStore.MemberKey(host: e.host, group: d.group(for: e.src)))
        case .membership(let m):
            guard m.kind == .report || m.kind == .leave else { return }
            if m.kind == .leave {
                if let g = m.group, g == MulticastStore.mdnsV4 || g == MulticastStore.mdnsV6 {
                    left(g, e, &store, &out)
                }
                return
            }
            for r in m.records
            where !r.listens && (r.group == MulticastStore.mdnsV4 || r.group == MulticastStore.mdnsV6) {
                left(r.group, e, &store, &out)
            }
        }
    }

    /// A leave of `group` by the host of `e`: pending when records it multicast there are
    /// still cached and no goodbye followed them.
    private static func left(
        _ group: IPAddress, _ e: MulticastEvent, _ store: inout MulticastStore, _ out: inout SessionReports
    ) {
        let key = MulticastStore.MemberKey(host: e.host, group: group)
        guard let a = store.announced[key], !a.goodbye, a.liveUntil > e.time,
            store.verdicts.leftWithoutGoodbye[key] != a.last.frame
        else { return }
        store.verdicts.leftWithoutGoodbye.insert(a.last.frame, for: key, at: e.time, evicted: &out.evictions)
        let cached = Int(Timestamp.seconds(from: e.time, to: a.liveUntil).rounded())
        store.verdicts.pendingLeaves.insert(
            Leave(frame: e.frame, time: e.time, address: a.address, lastLive: a.last.frame, cached: cached), for: key,
            at: e.time, evicted: &out.evictions)
    }
}
