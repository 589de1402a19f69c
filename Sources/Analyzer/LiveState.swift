import DNS
import Findings
import Rules
import SSDP
import WireFormat

/// SSDP and mDNS messages counted by the kind their decoder gave them (the `kind` of a
/// message record): a fixed set, so a metrics label made of it stays bounded.
public struct MessageKindCounts: Sendable, Hashable {
    public var ssdpMSearch = 0
    public var ssdpNotify = 0
    public var ssdpResponse = 0
    public var ssdpOther = 0
    public var mdnsQuery = 0
    public var mdnsResponse = 0

    public init() {}

    /// Each kind with the protocol and kind texts message records carry, in a fixed order.
    public var all: [(proto: RuleProtocol, kind: String, count: Int)] {
        [
            (.ssdp, "m-search", ssdpMSearch), (.ssdp, "notify", ssdpNotify), (.ssdp, "response", ssdpResponse),
            (.ssdp, "other", ssdpOther), (.mdns, "query", mdnsQuery), (.mdns, "response", mdnsResponse),
        ]
    }

    mutating func add(ssdpKind kind: SSDPMessage.Kind) {
        switch kind {
        case .mSearch: ssdpMSearch &+= 1
        case .notify: ssdpNotify &+= 1
        case .response: ssdpResponse &+= 1
        case .other: ssdpOther &+= 1
        }
    }

    mutating func add(mdnsResponse isResponse: Bool) {
        if isResponse { mdnsResponse &+= 1 } else { mdnsQuery &+= 1 }
    }

    mutating func add(_ o: MessageKindCounts) {
        ssdpMSearch &+= o.ssdpMSearch
        ssdpNotify &+= o.ssdpNotify
        ssdpResponse &+= o.ssdpResponse
        ssdpOther &+= o.ssdpOther
        mdnsQuery &+= o.mdnsQuery
        mdnsResponse &+= o.mdnsResponse
    }
}

/// What a live run has reported so far, kept as the batches are emitted (on the reading
/// thread): messages by kind and findings by rule and severity. Rules come from the
/// catalog, so the table is bounded by the catalog's size times three severities.
public struct LiveTally: Sendable {
    public struct RuleSeverity: Hashable, Sendable {
        public var rule: RuleID
        public var severity: Severity
    }
    public private(set) var messages = MessageKindCounts()
    public private(set) var findings: [RuleSeverity: Int] = [:]

    public init() {}

    mutating func take(_ r: borrowing BatchOutput) {
        messages.add(r.kinds)
        for t in r.tally.inOrder {
            findings[RuleSeverity(rule: t.rule, severity: t.severity), default: 0] &+= t.count
        }
    }
}

/// The current session's devices, hosts and service instances as they stand (live
/// capture's metrics read it), with until when each mDNS host and service instance stays
/// cached by what it announced: a host by its address records, an instance by its SRV and
/// TXT records (an SSDP device's max-ages are in its inventory entry).
public struct LiveView: Sendable {
    public var inventory = Inventory()
    /// Until when each mDNS host (by name, as `InventoryDevice.id`) and service instance (by
    /// instance name) stays cached; nil where no record with a TTL above 0 was kept for it.
    public var hostsCachedUntil: [String: Timestamp] = [:]
    public var servicesCachedUntil: [String: Timestamp] = [:]
    /// Table entries evicted so far, the current session's included.
    public var stateEvicted = 0

    public init() {}

    /// The end of the caching that records of `name` (a model key) of `types` announce:
    /// the latest end over their members that did not say goodbye.
    static func cachedUntil(_ model: MDNSSessionModel, key: UInt64, types: [RecordType]) -> Timestamp? {
        var end: Timestamp? = nil
        for t in types {
            // Class IN (the cache-flush bit is masked in the model's keys).
            guard let set = model.rrset(key, t, 1) else { continue }
            for m in set.members where !m.goodbye && m.ttl > 0 {
                let until = m.lastSeen.adding(seconds: Int64(m.ttl))
                if end.map({ until > $0 }) ?? true { end = until }
            }
        }
        return end
    }

    /// The view of an input in progress: its inventory as it would be built at its end, and
    /// the mDNS caching ends from `mdns`'s records.
    static func build(
        ssdp: SSDPSessionModel, mdns: MDNSSessionModel, findings: [UInt64: SeverityCounts],
        texts: [UInt64: HostFindingTexts], segments: [UInt64: [UInt16]], byAddress: [String: SeverityCounts],
        names: [String], file: String?
    ) -> LiveView {
        var v = LiveView()
        InventoryBuilder.addSSDP(
            ssdp, findings: findings, segments: segments, names: names, file: file, to: &v.inventory)
        InventoryBuilder.addMDNS(
            mdns, findings: findings, texts: texts, segments: segments, byAddress: byAddress, names: names, file: file,
            to: &v.inventory)
        for (key, h) in mdns.hosts {
            if let until = cachedUntil(mdns, key: key, types: [.a, .aaaa]) { v.hostsCachedUntil[h.name] = until }
        }
        for (key, s) in mdns.services {
            if let until = cachedUntil(mdns, key: key, types: [.srv, .txt]) {
                v.servicesCachedUntil[s.instance] = until
            }
        }
        return v
    }
}
