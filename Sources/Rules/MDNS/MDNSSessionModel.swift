import DNS
import NetLayers
import WireFormat

/// A table entry that remembers when it was last seen.
protocol MDNSSeenEntry {
    var lastFrame: Int { get set }
    var lastSeen: Timestamp { get set }
}

extension MDNSHostState: MDNSSeenEntry {}
extension MDNSServiceState: MDNSSeenEntry {}

/// What the capture has shown of mDNS hosts, DNS-SD services and records so far, in capture
/// order. The analyzer's in-order stage updates it after the session rules have seen each
/// message (rules see the model as it was before the message, lent beside the event); the
/// inventory reads it as it is at the end of a session.
///
/// Keys are 64-bit case-folded keys of names (`DNSName.key(in:)`). Names are kept as text
/// only for hosts and services (made once, when their entry is made).
///
/// Bounded: every table has a cap. Entries age out by packet time (`sweep`); when a table is
/// full, the least recently seen eighth is dropped and counted in `evicted` (the summary's
/// `state_evicted`). The keys of dropped entries are remembered (bounded too), so that a
/// rule concluding from what was *not* seen can ask `mayHaveForgotten` and stay silent.
public struct MDNSSessionModel: Sendable {
    /// Hosts by the key of their host name (address record owners, SRV targets).
    public private(set) var hosts: [UInt64: MDNSHostState] = [:]
    /// DNS-SD service instances by the key of their instance name.
    public private(set) var services: [UInt64: MDNSServiceState] = [:]
    /// Records seen in responses, by RRSet.
    public private(set) var rrsets: [MDNSRRSetKey: MDNSRRSetState] = [:]
    /// Probes by prober and probed name: the host's probing phase.
    public private(set) var probes: [MDNSProbeKey: MDNSProbeState] = [:]
    /// How many of `probes`' rows each probed name has (a name is in it while some host's
    /// probes for it are kept): whether anyone probed a name is one lookup, not a scan of
    /// every row.
    private var probers: [UInt64: Int] = [:]
    /// Questions by querier and question: the querier's history.
    public private(set) var questions: [MDNSQuestionKey: MDNSQuestionState] = [:]
    /// Senders by source address: when they were first and last heard, their last QU or
    /// unicast query (pending QU questions), their last TC query (Known-Answer continuation).
    public private(set) var senders: [IPAddress: MDNSSenderState] = [:]
    /// Sources (and their link-layer addresses) that sent a forwarder's copy of a host's
    /// records (`MDNSEvent.forwarded`, `MDNSInput.isRelayed`), at most `maxForwarders`: no
    /// address of a host, though a copy that came before its original (interfaces written out
    /// of time order) was taken as the host's message.
    public private(set) var forwarders: Set<IPAddress> = []
    public private(set) var forwarderMACs: Set<[UInt8]> = []
    public static let maxForwarders = 64
    /// The first packet of the session: what came before it is unknown.
    public private(set) var start: Timestamp?
    public private(set) var startFrame = 0
    /// The latest packet time taken in.
    public private(set) var latest: Timestamp = .zero
    /// Entries dropped because their table was full.
    public private(set) var evicted = 0

    private var forgotten: Set<UInt64> = []
    private var forgottenOverflow = false
    private var lastSweep: Timestamp = .zero

    public static let maxHosts = 16384
    public static let maxServices = 16384
    public static let maxRRSets = 65536
    public static let maxProbes = 16384
    public static let maxQuestions = 65536
    public static let maxSenders = 16384
    static let maxForgotten = 65536
    /// Packet time between two age-out sweeps.
    static let sweepInterval: Int64 = 60
    /// An entry silent this long is dropped (a record whose TTL is longer lives twice its TTL).
    static let horizon: Int64 = 3600
    /// Probing and questions are short-lived phases: kept this long after their last packet.
    static let phaseHorizon: Int64 = 600
    /// TTLs longer than this are taken as this for ageing (a record is not kept for days).
    static let longestTTL: Int64 = 86400

    public init() {}

    /// Whether what the model knew under `key` (a host, service or RRSet name key) may have
    /// been dropped: conclusions from absence are then not drawn.
    /// Whether some host's probes for the name `key` are kept (`probes`).
    public func isProbed(_ key: UInt64) -> Bool { probers[key] != nil }

    public func mayHaveForgotten(_ key: UInt64) -> Bool {
        forgottenOverflow || (!forgotten.isEmpty && forgotten.contains(key))
    }

    public func rrset(_ name: UInt64, _ type: RecordType, _ rrclass: UInt16) -> MDNSRRSetState? {
        rrsets[MDNSRRSetKey(name: name, type: type.rawValue, rrclass: rrclass)]
    }

    /// Takes in one message (after the rules saw it).
    public mutating func update(with event: MDNSEvent) {
        guard let input = event.input else { return }
        let e = Arrival(
            frame: event.frame, time: event.time, src: event.src, multicast: event.dst.isMulticast,
            segment: input.datagram.segment, captured: input.datagram.time,
            forwarded: event.forwarded || input.isRelayed)
        if start == nil {
            start = e.time
            startFrame = e.frame
        }
        latest = e.time
        sweep(at: e.time)
        noteSender(e, input)
        if input.isResponse {
            takeRecords(e, input)
        } else {
            takeQuery(e, input)
        }
    }

    /// What the model keeps of an event besides its message: small, so the closures that
    /// change entries in place capture it without copying the event.
    private struct Arrival {
        var frame: Int
        var time: Timestamp
        var src: IPAddress
        var multicast: Bool
        /// The segment the message was captured on (0: the session names none).
        var segment: UInt16
        /// The packet's own timestamp (`time` never goes below an earlier packet's): where a
        /// service first appeared on each segment is compared by it.
        var captured: Timestamp
        /// A forwarder's copy of a host's records (`MDNSEvent.forwarded`,
        /// `MDNSInput.isRelayed`): the host's records, not the host's message.
        var forwarded: Bool
    }

    // MARK: Senders

    private mutating func noteSender(_ e: Arrival, _ input: MDNSInput) {
        if senders.count >= Self.maxSenders, senders[e.src] == nil {
            noteEvicted(senders.removeLeastActive(by: \.lastSeen))
        }
        senders.change(e.src, default: MDNSSenderState(firstFrame: e.frame, firstSeen: e.time)) {
            Self.note(e, input, in: &$0)
        }
    }

    private static func note(_ e: Arrival, _ input: MDNSInput, in s: inout MDNSSenderState) {
        s.lastFrame = e.frame
        s.lastSeen = e.time
        s.messages &+= 1
        guard input.isQuery else { return }
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        if !e.multicast || input.message.questions.contains(where: { $0.unicastResponse }) {
            s.lastUnicastQuery = now
        }
        if input.header.tc { s.lastTruncatedQuery = now }
        if input.message.questions.isEmpty || input.header.tc { s.lastKnownAnswerPacket = now }
    }

    // MARK: Queries, probes

    private mutating func takeQuery(_ e: Arrival, _ input: MDNSInput) {
        let p = input.message.payload
        if input.isProbe {
            // Only unique records are probed; a shared record beside them is not a claim.
            for r in input.records where r.section == .authority && input.isUnique(r) {
                let rr = r.record
                let key = MDNSProbeKey(source: e.src, name: r.nameKey)
                let isNew = probes.index(forKey: key) == nil
                if probes.count >= Self.maxProbes, isNew {
                    let gone = probes.removeLeastActive(by: \.lastSeen)
                    dropProbers(gone)
                    noteEvicted(gone)
                }
                let qu = input.message.questions.contains { $0.unicastResponse && $0.name.equals(rr.name, in: p) }
                probes.change(key, default: MDNSProbeState(firstFrame: e.frame, firstSeen: e.time)) {
                    $0.take(frame: e.frame, time: e.time, qu: qu)
                }
                if isNew { probers[key.name, default: 0] += 1 }
            }
            return
        }
        for (q, name) in zip(input.message.questions, input.questionNames) {
            let key = MDNSQuestionKey(source: e.src, name: name.key, type: q.type.rawValue)
            if questions.count >= Self.maxQuestions, questions[key] == nil {
                noteEvicted(questions.removeLeastActive(by: \.lastSeen))
            }
            if let k = questions.index(forKey: key) {
                questions.values[k].take(frame: e.frame, time: e.time)
            } else {
                questions[key] = MDNSQuestionState(frame: e.frame, time: e.time)
            }
        }
    }

    // MARK: Records

    private mutating func takeRecords(_ e: Arrival, _ input: MDNSInput) {
        let p = input.message.payload
        var hostsTouched: [UInt64] = []
        for info in input.records where info.section != .authority && info.record.type != .opt {
            let rr = info.record
            let nameKey = info.nameKey
            let key = MDNSRRSetKey(name: nameKey, type: rr.type.rawValue, rrclass: rr.rrclass)
            if rrsets.count >= Self.maxRRSets, rrsets[key] == nil {
                noteEvicted(rrsets.removeLeastActive(by: \.lastSeen))
            }
            let forgotten = mayHaveForgotten(nameKey)
            rrsets.change(
                key,
                default: MDNSRRSetState(
                    firstFrame: e.frame, firstSeen: e.time, unique: input.isUnique(info), historyIncomplete: forgotten)
            ) {
                $0.take(
                    rdata: info.rdataKey, owner: e.src, ttl: rr.ttl, cacheFlush: rr.cacheFlush,
                    multicast: e.multicast, frame: e.frame, time: e.time)
            }
            switch rr.type {
            case .a, .aaaa:
                let address = rr.value.address
                touchHost(nameKey, rr.name, p, e) { h in
                    if let address, rr.ttl > 0, !h.addresses.contains(address),
                        h.addresses.count < MDNSHostState.maxAddresses
                    {
                        h.addresses.append(address)
                    }
                    h.goodbye = rr.ttl == 0
                }
                if !hostsTouched.contains(nameKey) { hostsTouched.append(nameKey) }
            case .srv:
                guard case .srv(_, _, let port, let target) = rr.value else { break }
                let targetKey = info.target?.key ?? target.key(in: p)
                var instance: String? = nil
                touchService(nameKey, rr.name, info, p, e) { s in
                    // Text only when the target is new to the service (the common case is
                    // the same SRV again).
                    if s.hostKey != targetKey || s.host == nil { s.host = target.presentation(in: p) }
                    instance = s.instance
                    s.hostKey = targetKey
                    s.port = port
                    s.srvMessages &+= rr.ttl > 0 ? 1 : 0
                    if rr.ttl == 0 { s.goodbye = true } else { s.goodbye = false }
                    if s.firstSRVFrame == nil {
                        s.firstSRVFrame = e.frame
                        s.firstSRVSource = e.src
                    }
                }
                touchHost(targetKey, target, p, e) { h in
                    if let instance, !h.services.contains(instance), h.services.count < MDNSHostState.maxServices {
                        h.services.append(instance)
                    }
                }
                if !hostsTouched.contains(targetKey) { hostsTouched.append(targetKey) }
            case .txt:
                guard info.dnssd.kind == .instance || services[nameKey] != nil else { break }
                let rdata = info.rdataKey
                touchService(nameKey, rr.name, info, p, e) { s in
                    guard rr.ttl > 0 else { return }
                    // Text only when the TXT data changed (the common case is the same again).
                    if !s.sawTXT || s.txtKey != rdata {
                        s.txt = Self.txtStrings(p, rr.rdata)
                        s.txtKey = rdata
                    }
                    s.sawTXT = true
                }
            case .ptr where info.dnssd.kind == .serviceType || info.dnssd.kind == .subtype:
                guard case .name(let target) = rr.value else { break }
                let subtype: String? =
                    info.dnssd.kind == .subtype ? info.firstLabel.map { String(decoding: p[$0], as: UTF8.self) } : nil
                let targetKey = info.target?.key ?? target.key(in: p)
                touchService(targetKey, target, nil, p, e) { s in
                    if let subtype, !s.subtypes.contains(subtype), s.subtypes.count < MDNSServiceState.maxSubtypes {
                        s.subtypes.append(subtype)
                    }
                    if rr.ttl == 0, info.dnssd.kind == .serviceType { s.goodbye = true }
                }
            default:
                break
            }
        }
        // A host's message count and sources: once per message of its own that carried its
        // records (a forwarder's copy is the forwarder's message, from the forwarder's address).
        let mac = input.datagram.sourceMAC
        guard !e.forwarded else {
            if forwarders.count < Self.maxForwarders { forwarders.insert(e.src) }
            if mac.count > 0, forwarderMACs.count < Self.maxForwarders { forwarderMACs.insert(mac.bytes) }
            return
        }
        for k in hostsTouched { hosts[k]?.heard(from: e.src, mac: mac) }
    }

    private mutating func touchHost(
        _ key: UInt64, _ name: DNSName, _ p: [UInt8], _ e: Arrival, _ body: (inout MDNSHostState) -> Void
    ) {
        if hosts.count >= Self.maxHosts, hosts[key] == nil {
            noteEvicted(hosts.removeLeastActive(by: \.lastSeen))
        }
        let forgotten = mayHaveForgotten(key)
        hosts.change(
            key,
            default: MDNSHostState(
                name: name.presentation(in: p), firstFrame: e.frame, firstSeen: e.time, historyIncomplete: forgotten)
        ) { Self.touch(&$0, e, body) }
    }

    private mutating func touchService(
        _ key: UInt64, _ name: DNSName, _ info: MDNSInput.RecordInfo?, _ p: [UInt8], _ e: Arrival,
        _ body: (inout MDNSServiceState) -> Void
    ) {
        if services.count >= Self.maxServices, services[key] == nil {
            noteEvicted(services.removeLeastActive(by: \.lastSeen))
        }
        let forgotten = mayHaveForgotten(key)
        services.change(
            key,
            default: MDNSServiceState(
                instance: name.presentation(in: p), serviceType: Self.serviceType(name, p), firstFrame: e.frame,
                firstSeen: e.time, historyIncomplete: forgotten)
        ) {
            Self.touch(&$0, e) { s in
                body(&s)
                s.sightings.note(on: e.segment, from: e.src, frame: e.frame, time: e.captured)
            }
        }
    }

    /// Marks an entry seen at `e` and lets `body` change it, in place.
    private static func touch<T: MDNSSeenEntry>(_ entry: inout T, _ e: Arrival, _ body: (inout T) -> Void) {
        entry.lastFrame = e.frame
        entry.lastSeen = e.time
        body(&entry)
    }

    // MARK: Bounds

    /// Drops, every `sweepInterval` of packet time, what has been silent past its horizon.
    private mutating func sweep(at now: Timestamp) {
        guard now.seconds &- lastSweep.seconds >= Self.sweepInterval else { return }
        lastSweep = now
        let s = now.seconds
        rrsets.removeValues { r in
            s &- r.lastSeen.seconds > max(Self.horizon, 2 &* min(Int64(r.longestTTL), Self.longestTTL))
        }
        hosts.removeValues { s &- $0.lastSeen.seconds > 2 &* Self.longestTTL }
        services.removeValues { s &- $0.lastSeen.seconds > 2 &* Self.longestTTL }
        dropProbers(probes.removeValues { s &- $0.lastSeen.seconds > Self.phaseHorizon })
        questions.removeValues { s &- $0.lastSeen.seconds > Self.horizon }
        senders.removeValues { s &- $0.lastSeen.seconds > 2 &* Self.longestTTL }
    }

    /// Takes the dropped probe rows `gone` out of `probers`.
    private mutating func dropProbers(_ gone: [MDNSProbeKey]) {
        for key in gone {
            guard let n = probers[key.name] else { continue }
            probers[key.name] = n > 1 ? n - 1 : nil
        }
    }

    /// Counts dropped entries and remembers their keys.
    private mutating func noteEvicted<K: Hashable>(_ keys: [K]) {
        for k in keys {
            evicted &+= 1
            remember(k)
        }
    }

    private mutating func remember<K: Hashable>(_ k: K) {
        let key: UInt64
        switch k {
        case let x as UInt64: key = x
        case let x as MDNSRRSetKey: key = x.name
        case let x as MDNSProbeKey: key = x.name
        case let x as MDNSQuestionKey: key = x.name
        default: return
        }
        if forgotten.count < Self.maxForgotten { forgotten.insert(key) } else { forgottenOverflow = true }
    }

    // MARK: Values

    /// RDATA's identity: names by their case-folded key (they may be compressed differently),
    /// other RDATA by its bytes (FNV-1a). Decoded messages carry it (`RecordInfo.rdataKey`).
    public static func rdataKey(_ rr: ResourceRecord, _ p: [UInt8]) -> UInt64 { rdataKey(rr, p, targetKey: nil) }

    /// `rdataKey(_:_:)`, given the key of the name a PTR, CNAME, NS or SRV points to when it
    /// is known already.
    static func rdataKey(_ rr: ResourceRecord, _ p: [UInt8], targetKey: UInt64?) -> UInt64 {
        var h = ASCII.keySeed
        switch rr.value {
        case .name(let n):
            return targetKey ?? n.key(in: p)
        case .srv(let priority, let weight, let port, let target):
            h = targetKey ?? target.key(in: p)
            h ^= UInt64(priority) << 32 | UInt64(weight) << 16 | UInt64(port)
            return h &* 0x0000_0100_0000_01B3
        case .nsec(let next, let bitmap):
            h = next.key(in: p)
            for b in p[bitmap.clamped(to: p.indices)] { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return h
        default:
            for b in p[rr.rdata.clamped(to: p.indices)] { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return h
        }
    }

    /// A TXT record's strings (as text, invalid UTF-8 repaired), at most `maxTXTStrings`.
    static func txtStrings(_ p: [UInt8], _ rdata: Range<Int>) -> [String] {
        let r = rdata.clamped(to: p.indices)
        var out: [String] = []
        var o = r.lowerBound
        while o < r.upperBound, out.count < MDNSServiceState.maxTXTStrings {
            let n = Int(p[o])
            let end = min(o + 1 + n, r.upperBound)
            out.append(String(decoding: p[(o + 1)..<end], as: UTF8.self))
            o = end
        }
        return out
    }

    /// `_http._tcp` of `Name._http._tcp.local.`: the two labels after the instance label.
    static func serviceType(_ n: DNSName, _ p: [UInt8]) -> String {
        var count = 0
        var service = 0..<0
        var proto = 0..<0
        n.forEachLabelRange(in: p) { r in
            if count == 1 { service = r } else if count == 2 { proto = r }
            count &+= 1
        }
        guard count >= 3 else { return "" }
        // One string, made at its length (a dot cannot complete a UTF-8 sequence, so the text
        // is the labels' texts joined).
        return String(utf8Bound: service.count &+ 1 &+ proto.count) { s in
            p.withUnsafeBufferPointer { buf in
                s.put(UnsafeBufferPointer(rebasing: buf[service]))
                s.put(0x2E)
                s.put(UnsafeBufferPointer(rebasing: buf[proto]))
            }
        }
    }
}

/// A frame and its time.
public struct MDNSFrameTime: Sendable, Hashable {
    public var frame: Int
    public var time: Timestamp
}

/// One host name as the capture has shown it.
public struct MDNSHostState: Sendable {
    /// Host name with a trailing dot, as in SRV targets and address records.
    public var name: String
    /// Its addresses, from its A and AAAA records (at most `maxAddresses`).
    public var addresses: [IPAddress] = []
    /// Addresses that sent its address records or SRVs naming it (at most `maxSources`).
    public var sources: [IPAddress] = []
    /// Source MAC addresses of those messages, when the link has them.
    public var macs: [[UInt8]] = []
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// Messages that carried its records.
    public var messages = 0
    /// Instance names whose SRV targets it.
    public var services: [String] = []
    /// Its address records were last seen with TTL 0.
    public var goodbye = false
    /// An earlier entry for it was dropped: what it lacks may just be forgotten.
    public var historyIncomplete: Bool

    public static let maxAddresses = 16
    public static let maxSources = 8
    public static let maxServices = 64

    init(name: String, firstFrame: Int, firstSeen: Timestamp, historyIncomplete: Bool) {
        self.name = name
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastFrame = firstFrame
        lastSeen = firstSeen
        self.historyIncomplete = historyIncomplete
    }

    /// One message carried its records, from `source` (and `mac`, when the link has one).
    mutating func heard(from source: IPAddress, mac: MACBytes) {
        messages &+= 1
        if !sources.contains(source), sources.count < Self.maxSources { sources.append(source) }
        // The bytes are made only for an address not listed yet (compared as integers).
        if mac.count > 0, macs.count < Self.maxSources, !macs.contains(where: { MACBytes($0) == mac }) {
            macs.append(mac.bytes)
        }
    }
}

/// One DNS-SD service instance as the capture has shown it.
public struct MDNSServiceState: Sendable {
    /// Full instance name, trailing dot.
    public var instance: String
    /// `_http._tcp`.
    public var serviceType: String
    /// Subtype labels (`_printer`) of subtype PTRs that named it.
    public var subtypes: [String] = []
    /// SRV target and port, when an SRV was seen.
    public var host: String?
    public var hostKey: UInt64?
    public var port: UInt16?
    /// TXT strings, as last announced.
    public var txt: [String] = []
    /// The RDATA key of `txt`.
    var txtKey: UInt64 = 0
    public var sawTXT = false
    /// Messages with a live SRV (TTL above 0) for it, and the first frame with an SRV.
    public var srvMessages = 0
    public var firstSRVFrame: Int?
    /// The address that sent its first SRV.
    public var firstSRVSource: IPAddress?
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// Its SRV (or browse PTR) was last seen with TTL 0.
    public var goodbye = false
    public var historyIncomplete: Bool

    /// The first message with its records on each segment of the session (none when the
    /// session names no segments): who showed it where, and when.
    public var sightings = SegmentSightings()

    public static let maxSubtypes = 16
    public static let maxTXTStrings = 64

    init(instance: String, serviceType: String, firstFrame: Int, firstSeen: Timestamp, historyIncomplete: Bool) {
        self.instance = instance
        self.serviceType = serviceType
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastFrame = firstFrame
        lastSeen = firstSeen
        self.historyIncomplete = historyIncomplete
    }
}

/// An RRSet's identity: owner name key, type, class (cache-flush bit masked).
public struct MDNSRRSetKey: Sendable, WordHashable {
    public var name: UInt64
    public var type: UInt16
    public var rrclass: UInt16

    /// Type and class in one word.
    public func feedWords<S: WordSink>(into sink: inout S) {
        sink.add(name)
        sink.add(UInt64(type) << 16 | UInt64(rrclass))
    }
}

/// One RRSet as responses have shown it: its members, each by RDATA and the source that
/// sent it.
public struct MDNSRRSetState: Sendable {
    public var members: [MDNSRecordState] = []
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// A unique record type (RFC 6762 §2; see `MDNSMessageView.isUnique`).
    public var unique: Bool
    /// The longest original TTL of its members.
    public var longestTTL: UInt32 = 0
    /// Members were dropped (more than `maxMembers`), or an earlier entry was.
    public var historyIncomplete: Bool

    public static let maxMembers = 32

    init(firstFrame: Int, firstSeen: Timestamp, unique: Bool, historyIncomplete: Bool) {
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastFrame = firstFrame
        lastSeen = firstSeen
        self.unique = unique
        self.historyIncomplete = historyIncomplete
    }

    /// The member with this RDATA from this owner.
    public func member(rdata: UInt64, owner: IPAddress) -> MDNSRecordState? {
        members.first { $0.rdata == rdata && $0.owner == owner }
    }

    mutating func take(
        rdata: UInt64, owner: IPAddress, ttl: UInt32, cacheFlush: Bool, multicast: Bool, frame: Int, time: Timestamp
    ) {
        lastFrame = frame
        lastSeen = time
        if ttl > 0 { longestTTL = max(longestTTL, ttl) }
        var k = members.firstIndex { $0.rdata == rdata && $0.owner == owner }
        if k == nil {
            if members.count >= Self.maxMembers {
                historyIncomplete = true
                return
            }
            members.append(MDNSRecordState(rdata: rdata, owner: owner, firstFrame: frame, firstSeen: time))
            k = members.count - 1
        }
        guard let k else { return }
        members[k].lastFrame = frame
        members[k].lastSeen = time
        members[k].lastTTL = ttl
        members[k].cacheFlush = cacheFlush
        members[k].goodbye = ttl == 0
        if ttl > 0 { members[k].ttl = ttl }
        if multicast { members[k].lastMulticast = MDNSFrameTime(frame: frame, time: time) }
    }
}

/// One record (RDATA) of an RRSet from one source.
public struct MDNSRecordState: Sendable {
    /// RDATA's key (`MDNSSessionModel.rdataKey`).
    public var rdata: UInt64
    /// The source address that sent it.
    public var owner: IPAddress
    /// The original TTL, as last announced with a TTL above 0.
    public var ttl: UInt32 = 0
    /// The TTL it was last sent with.
    public var lastTTL: UInt32 = 0
    public var cacheFlush = false
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// Its last multicast transmission.
    public var lastMulticast: MDNSFrameTime?
    /// Last sent with TTL 0.
    public var goodbye = false

    init(rdata: UInt64, owner: IPAddress, firstFrame: Int, firstSeen: Timestamp) {
        self.rdata = rdata
        self.owner = owner
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastFrame = firstFrame
        lastSeen = firstSeen
    }

    /// Whether a cache that heard it still holds it at `now`.
    public func isLive(at now: Timestamp) -> Bool {
        !goodbye && Timestamp.seconds(from: lastSeen, to: now) <= Double(lastTTL)
    }
}

/// A name by its key (`DNSName.key(in:)`), as tables of names are keyed: hashed as one word.
public typealias MDNSNameKey = WordKey

/// A prober and the name it probes.
public struct MDNSProbeKey: Sendable, WordHashable {
    public var source: IPAddress
    public var name: UInt64

    public func feedWords<S: WordSink>(into sink: inout S) {
        source.feedWords(into: &sink)
        sink.add(name)
    }
}

/// A host's probes for one name (its probing phase).
public struct MDNSProbeState: Sendable {
    /// The probes, oldest first (the last `maxProbes`).
    public var probes: [MDNSFrameTime] = []
    /// Whether each probe asked with the QU bit.
    public var qu: [Bool] = []
    public var count = 0
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp

    public static let maxProbes = 8

    init(firstFrame: Int, firstSeen: Timestamp) {
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastSeen = firstSeen
    }

    mutating func take(frame: Int, time: Timestamp, qu q: Bool) {
        // One probe message names its name in several Authority records: counted once.
        if probes.last?.frame == frame { return }
        if probes.count >= Self.maxProbes {
            probes.removeFirst()
            qu.removeFirst()
        }
        probes.append(MDNSFrameTime(frame: frame, time: time))
        qu.append(q)
        count &+= 1
        lastSeen = time
    }
}

/// A querier and one question (name key and QTYPE).
public struct MDNSQuestionKey: Sendable, WordHashable {
    public var source: IPAddress
    public var name: UInt64
    public var type: UInt16

    public func feedWords<S: WordSink>(into sink: inout S) {
        source.feedWords(into: &sink)
        sink.add(name)
        sink.add(UInt64(type))
    }
}

/// A querier's transmissions of one question. The model keeps tens of thousands of these,
/// so a row holds only what MDNS-512 reads: the latest transmission and the one before it
/// (what the interval between transmissions is judged by), and where the question was first
/// asked.
public struct MDNSQuestionState: Sendable {
    public private(set) var last: MDNSFrameTime
    public private(set) var previous: MDNSFrameTime?
    public let firstFrame: Int
    public var lastSeen: Timestamp { last.time }

    /// The question's first transmission.
    init(frame: Int, time: Timestamp) {
        firstFrame = frame
        last = MDNSFrameTime(frame: frame, time: time)
    }

    /// A later transmission.
    mutating func take(frame: Int, time: Timestamp) {
        previous = last
        last = MDNSFrameTime(frame: frame, time: time)
    }
}

/// One source address.
public struct MDNSSenderState: Sendable {
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    public var messages = 0
    /// Its last query with a QU question or sent by unicast (a unicast response may answer it).
    public var lastUnicastQuery: MDNSFrameTime?
    /// Its last query with TC set (more Known-Answers follow).
    public var lastTruncatedQuery: MDNSFrameTime?
    /// Its last query that was part of a Known-Answer list (TC set, or no question).
    public var lastKnownAnswerPacket: MDNSFrameTime?

    init(firstFrame: Int, firstSeen: Timestamp) {
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        lastFrame = firstFrame
        lastSeen = firstSeen
    }
}
