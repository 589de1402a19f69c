import Findings
import NetLayers
import WireFormat

/// One packet of a link's multicast discovery life, as the membership rules see it, in
/// capture order: an IGMP or MLD message (a querier asking, a host reporting or leaving),
/// or an SSDP or mDNS message reduced to who sent it to which discovery group and in what
/// role. The membership rules judge whether the hosts that use discovery groups are members
/// of them where switches snoop memberships (RFC 4541).
public struct MulticastEvent: Sendable, SessionEvent {
    public typealias Store = MulticastStore

    /// What a discovery message was.
    public struct Discovery: Sendable {
        public enum Family: String, Sendable {
            case mdns = "mDNS"
            case ssdp = "SSDP"
        }
        public enum Role: Sendable {
            /// An mDNS query from port 5353, or a multicast M-SEARCH.
            case query
            /// An mDNS response from port 5353, or a search response.
            case answer
            /// A NOTIFY.
            case announce
        }
        public var proto: Family
        public var role: Role
        /// A query some of whose answers come by multicast (an mDNS query to the group with a
        /// QM question): its sender must listen to the group when they come.
        public var answeredByMulticast: Bool
        /// An mDNS response sent to the group: the longest TTL of its records with a TTL
        /// above 0 (0: none), and whether a record has TTL 0 (a goodbye).
        public var liveTTL: UInt32
        public var goodbye: Bool

        public init(
            proto: Family, role: Role, answeredByMulticast: Bool = false, liveTTL: UInt32 = 0, goodbye: Bool = false
        ) {
            self.proto = proto
            self.role = role
            self.answeredByMulticast = answeredByMulticast
            self.liveTTL = liveTTL
            self.goodbye = goodbye
        }

        /// The group a host using `proto` from an address of `family` listens to.
        public func group(for source: IPAddress) -> IPAddress {
            switch (proto, source.isIPv6) {
            case (.mdns, false): MulticastStore.mdnsV4
            case (.mdns, true): MulticastStore.mdnsV6
            case (.ssdp, false): MulticastStore.ssdpV4
            case (.ssdp, true): MulticastStore.ssdpV6
            }
        }
    }

    public enum Kind: Sendable {
        case membership(MembershipMessage)
        case discovery(Discovery)
        /// The end of the input: the store is the final one, `time` the latest packet time.
        case end
    }

    public var frame: Int
    /// The packet's time, or the latest time seen before it when the capture's clock went
    /// backwards (`timeWentBack`): times in events never decrease.
    public var time: Timestamp
    public var timeWentBack = false
    public var src: IPAddress
    public var dst: IPAddress
    /// The sender's link-layer address (empty when the link type has none).
    public var sourceMAC: MACBytes
    public var kind: Kind

    public init(frame: Int, time: Timestamp, src: IPAddress, dst: IPAddress, sourceMAC: MACBytes, kind: Kind) {
        self.frame = frame
        self.time = time
        self.src = src
        self.dst = dst
        self.sourceMAC = sourceMAC
        self.kind = kind
    }

    public var atEnd: Bool {
        if case .end = kind { return true }
        return false
    }

    /// The host that sent it: by its link-layer address when the link has one (a host
    /// reports IPv6 memberships from its link-local address, whatever address it speaks
    /// mDNS from), else by its IP address.
    public var host: MulticastHost { MulticastHost(mac: sourceMAC, address: src) }
}

/// A host on a link, as membership is judged: its link-layer address, or its IP address on
/// a link without one.
public struct MulticastHost: WordHashable, Sendable {
    var mac: MACBytes
    var address: IPAddress?

    init(mac: MACBytes, address: IPAddress) {
        self.mac = mac
        self.address = mac.count > 0 ? nil : address
    }

    public func feedWords<S: WordSink>(into sink: inout S) {
        sink.add(mac.bits)
        sink.add(UInt64(mac.count))
        address?.feedWords(into: &sink)
    }
}

/// A frame and its time.
public struct MulticastFrameTime: Sendable {
    public var frame: Int
    public var time: Timestamp
}

/// The multicast state of one link (each segment of a session has its own): the queriers
/// heard, which hosts reported which discovery groups, and which hosts used them. Bounded:
/// every table is a `SessionTable`, and the groups are the four discovery groups.
public struct MulticastStore: SessionStore {
    public typealias Event = MulticastEvent

    public static let mdnsV4 = IPAddress.v4(0xE000_00FB)
    public static let mdnsV6 = IPAddress.v6(0xFF02 << 48, 0xFB)
    public static let ssdpV4 = IPAddress.v4(0xEFFF_FFFA)
    public static let ssdpV6 = IPAddress.v6(0xFF02 << 48, 0xC)
    public static let discoveryGroups = [mdnsV4, mdnsV6, ssdpV4, ssdpV6]

    /// RFC 3376 §8.4, RFC 3810 §9.4: the Group Membership Interval (Multicast Address
    /// Listening Interval) with the default Robustness Variable (2), Query Interval (125 s)
    /// and Query Response Interval (10 s): 2 × 125 + 10 s. A snooping switch forgets a
    /// membership not reported again for this long (RFC 4541 §2.1.1).
    public static let membershipInterval = 260.0

    /// A membership query heard (IGMP for IPv4 groups, MLD for IPv6 ones).
    public struct Query: Sendable {
        public var at: MulticastFrameTime
        public var querier: IPAddress
        public var version: MembershipMessage.Version
        public var maxResponse: Double
        /// The group it asks about (nil: every group).
        public var group: IPAddress?
    }
    /// The first and the latest query of each family.
    public private(set) var firstQueryV4: Query?
    public private(set) var firstQueryV6: Query?
    public private(set) var lastQueryV4: Query?
    public private(set) var lastQueryV6: Query?

    func firstQuery(for group: IPAddress) -> Query? { group.isIPv6 ? firstQueryV6 : firstQueryV4 }
    func lastQuery(for group: IPAddress) -> Query? { group.isIPv6 ? lastQueryV6 : lastQueryV4 }

    /// A host's membership of a discovery group.
    public struct MemberKey: WordHashable, Sendable {
        public var host: MulticastHost
        public var group: IPAddress

        public func feedWords<S: WordSink>(into sink: inout S) {
            host.feedWords(into: &sink)
            group.feedWords(into: &sink)
        }
    }
    public struct Member: Sendable {
        public var first: MulticastFrameTime
        public var last: MulticastFrameTime
        /// Whether its latest report keeps it listening (a leave or TO_IN {} does not).
        public var listens: Bool
    }
    /// Every host that reported a discovery group, by host and group.
    public private(set) var members = SessionTable<MemberKey, Member>(
        cap: 16384, horizon: .infinity, activity: \.last.time)

    /// A host's use of a discovery group.
    public struct Use: Sendable {
        public var address: IPAddress
        public var first: MulticastFrameTime
        public var role: MulticastEvent.Discovery.Role
        public var proto: MulticastEvent.Discovery.Family
        /// Its first query answered by multicast.
        public var firstQuery: MulticastFrameTime?
        public var last: Timestamp
    }
    /// Every host that sent discovery messages, by host and the group it must listen to.
    public private(set) var users = SessionTable<MemberKey, Use>(cap: 16384, horizon: .infinity, activity: \.last)

    /// What a host's multicast mDNS responses left in caches, by host and the group they went
    /// to (SEG-104): its latest response with live records, until when the longest of their
    /// TTLs keeps them, and whether a goodbye came after it.
    public struct Announced: Sendable {
        public var address: IPAddress
        public var last: MulticastFrameTime
        public var liveUntil: Timestamp
        public var goodbye: Bool
    }
    public private(set) var announced = SessionTable<MemberKey, Announced>(
        cap: 16384, horizon: 86400, activity: \.last.time)

    /// The latest report of each discovery group that kept a host listening (any host).
    public struct GroupReports: Sendable {
        public var group: IPAddress
        public var last: MulticastFrameTime
    }
    public private(set) var groups: [GroupReports] = []

    func reports(of group: IPAddress) -> GroupReports? { groups.first { $0.group == group } }

    /// The latest multicast answer (an mDNS response, or an SSDP message other than
    /// M-SEARCH) sent to each discovery group, and by whom.
    public struct GroupAnswer: Sendable {
        public var group: IPAddress
        public var at: MulticastFrameTime
        public var host: MulticastHost
        public var address: IPAddress
    }
    public private(set) var answers: [GroupAnswer] = []

    func lastAnswer(to group: IPAddress) -> GroupAnswer? { answers.first { $0.group == group } }

    /// What the rules still have to decide (`MulticastVerdicts`).
    var verdicts = MulticastVerdicts()
    private var tableEvictions = 0

    public init() {}

    public var evicted: Int { tableEvictions }

    public mutating func update(with e: MulticastEvent) {
        let now = MulticastFrameTime(frame: e.frame, time: e.time)
        switch e.kind {
        case .membership(let m):
            if m.kind == .query {
                let q = Query(at: now, querier: e.src, version: m.version, maxResponse: m.maxResponse, group: m.group)
                if e.src.isIPv6 {
                    if firstQueryV6 == nil { firstQueryV6 = q }
                    lastQueryV6 = q
                } else {
                    if firstQueryV4 == nil { firstQueryV4 = q }
                    lastQueryV4 = q
                }
                return
            }
            let host = e.host
            for r in m.records where Self.discoveryGroups.contains(r.group) {
                let key = MemberKey(host: host, group: r.group)
                let listens = r.listens
                members.update(
                    key, default: Member(first: now, last: now, listens: listens), at: e.time,
                    evicted: &tableEvictions
                ) {
                    $0.last = now
                    $0.listens = listens
                }
                guard listens else { continue }
                if let k = groups.firstIndex(where: { $0.group == r.group }) {
                    groups[k].last = now
                } else {
                    groups.append(GroupReports(group: r.group, last: now))
                }
            }
        case .discovery(let d):
            let key = MemberKey(host: e.host, group: d.group(for: e.src))
            if d.role != .query, Self.discoveryGroups.contains(e.dst) {
                let a = GroupAnswer(group: e.dst, at: now, host: key.host, address: e.src)
                if let k = answers.firstIndex(where: { $0.group == e.dst }) {
                    answers[k] = a
                } else {
                    answers.append(a)
                }
            }
            if d.proto == .mdns, d.role == .answer, e.dst == key.group, d.liveTTL > 0 || d.goodbye {
                let until = Timestamp(seconds: e.time.seconds &+ Int64(d.liveTTL), nanoseconds: e.time.nanoseconds)
                announced.update(
                    key, default: Announced(address: e.src, last: now, liveUntil: until, goodbye: false), at: e.time,
                    evicted: &tableEvictions
                ) {
                    if d.liveTTL > 0 {
                        $0.address = e.src
                        $0.last = now
                        // After a goodbye, only what was announced since counts.
                        $0.liveUntil = $0.goodbye ? until : max($0.liveUntil, until)
                        $0.goodbye = false
                    } else {
                        $0.goodbye = true
                    }
                }
            }
            let query = d.answeredByMulticast ? now : nil
            users.update(
                key,
                default: Use(address: e.src, first: now, role: d.role, proto: d.proto, firstQuery: query, last: e.time),
                at: e.time, evicted: &tableEvictions
            ) {
                if $0.firstQuery == nil { $0.firstQuery = query }
                $0.last = e.time
            }
        case .end:
            break
        }
    }
}

/// What the membership rules still have to decide, kept for them by the store.
struct MulticastVerdicts {
    /// SEG-102: the groups whose aged-out memberships were reported.
    var agedOut: Set<IPAddress> = []
    /// SEG-101: the concluded.
    var unreported = false
    /// SEG-104: per host and group, the frame of the last live response already judged at a
    /// leave (judged again only after the host announces anew).
    var leftWithoutGoodbye = SessionTable<MulticastStore.MemberKey, Int>(
        cap: 16384, horizon: .infinity, activity: { _ in .zero })
    /// SEG-104: leaves with records still cached, until the end of the input (reported then)
    /// or until the host sends mDNS to the group again (it did not stop: dropped).
    var pendingLeaves = SessionTable<MulticastStore.MemberKey, LeaveWithoutGoodbyeRule.Leave>(
        cap: 4096, horizon: .infinity, activity: \.time)
}
