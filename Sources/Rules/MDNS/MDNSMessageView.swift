import DNS
import Findings
import NetLayers
import WireFormat

/// What a rule that judges the message alone sees: the message and the facts computed once
/// from its names, and nothing of the datagram that carried it (see `MessageRule`).
public final class MDNSMessageView: Sendable {
    public let message: DNSMessage
    public typealias RecordInfo = MDNSInput.RecordInfo
    public typealias NameInfo = MDNSInput.NameInfo
    public let records: [RecordInfo]
    /// The questions' names, in order.
    public let questionNames: [NameInfo]
    /// What the session rules read of a response's unique records (RFC 6762 §10.2), made
    /// once with the decoding, on the worker (datagrams repeating the payload share it): the
    /// answers with the cache-flush bit and a TTL, the first of each owner name, as indices in
    /// `records` (the names the response claims: MDNS-501, MDNS-503).
    public let claimedAnswers: [Int]
    /// The DNS-SD instances that claim a service profile, with their records (PROF rules),
    /// their TXT pairs and the PTRs naming them (`ProfileInstance`), and every profile they
    /// claim (a rule of other profiles has nothing to judge here).
    public let profileInstances: [ProfileInstance]
    public let profileTXTPairs: [ProfileInstance.TXTPair]
    public let profilePointers: [ProfilePointer]
    public let claimedProfiles: ServiceProfiles
    /// The same for MDNS-517: the cache-flush records outside the authority section with a
    /// TTL, by RRSet in order of appearance, each with the RDATA keys of its first
    /// `maxFlushedMembers` distinct members.
    let flushedRRSets: [(set: MDNSRRSetKey, rdata: [UInt64])]
    static let maxFlushedMembers = 16
    /// What the session rules pair responses with: the message's questions and, for a
    /// query, its Known-Answers (`MDNSRecentQuery` keeps it).
    let queryDigest: MDNSQueryDigest
    /// A response's answer names with a TTL above 0, each once, in order, and their
    /// `MDNSSession.nameBit`s (`MDNSSessionStore.askers` pairs them with recent queries).
    let answerNames: [UInt64]
    let answerNameBits: UInt64
    public var header: DNSHeader { message.header }
    public var isResponse: Bool { message.header.qr }
    public var isQuery: Bool { !message.header.qr }
    public var isProbe: Bool { isQuery && !message.authorities.isEmpty }

    /// `judged`: the service profiles the run's rules judge (`RuleDescriptor.profiles`,
    /// `SessionRule.observedProfiles`); with none, no instance is looked for (nothing reads
    /// them) and the message claims no profile. `sessions`: whether the run's session stage
    /// reads the facts made for it (claimed answers, flushed RRSets, the query digest, the
    /// answer names); without it they are left empty.
    public init(
        message: DNSMessage, judging judged: ServiceProfiles = ServiceProfiles(rawValue: .max), sessions: Bool = true
    ) {
        self.message = message
        let p = message.payload
        // One scratch list of label ranges, reused for every name of the message, and the
        // facts of the names already seen (records mostly name what an earlier record named,
        // through compression pointers).
        var l: [Range<Int>] = []
        l.reserveCapacity(16)
        var seen = MDNSInput.SeenNames()
        var q: [NameInfo] = []
        q.reserveCapacity(message.questions.count)
        for question in message.questions { q.append(MDNSInput.facts(question.name, p, &l, &seen).info) }
        questionNames = q
        var info: [RecordInfo] = []
        info.reserveCapacity(message.answers.count + message.authorities.count + message.additionals.count)
        for rr in message.answers { info.append(MDNSInput.recordInfo(.answer, rr, p, &l, &seen)) }
        for rr in message.authorities { info.append(MDNSInput.recordInfo(.authority, rr, p, &l, &seen)) }
        for rr in message.additionals { info.append(MDNSInput.recordInfo(.additional, rr, p, &l, &seen)) }
        records = info
        let profiles = judged.isEmpty ? ProfileFacts() : ProfileInstances.find(in: message, records: info)
        profileInstances = profiles.instances
        profileTXTPairs = profiles.txtPairs
        profilePointers = profiles.pointers
        claimedProfiles = profiles.claimed
        var claimed: [Int] = []
        var flushed: [(set: MDNSRRSetKey, rdata: [UInt64])] = []
        if sessions, message.header.qr {
            for k in info.indices where info[k].record.cacheFlush && info[k].record.ttl > 0 {
                let r = info[k]
                guard r.section != .authority, Self.isUnique(r) else { continue }
                if r.section == .answer, !claimed.contains(where: { info[$0].nameKey == r.nameKey }) {
                    claimed.append(k)
                }
                let key = MDNSRecordKey(r)
                if let g = flushed.firstIndex(where: { $0.set == key.set }) {
                    if !flushed[g].rdata.contains(key.rdata), flushed[g].rdata.count < Self.maxFlushedMembers {
                        flushed[g].rdata.append(key.rdata)
                    }
                } else {
                    flushed.append((key.set, [key.rdata]))
                }
            }
        }
        claimedAnswers = claimed
        flushedRRSets = flushed
        queryDigest = sessions ? MDNSQueryDigest(message, q, info) : MDNSQueryDigest.empty
        var names: [UInt64] = []
        var bits: UInt64 = 0
        if sessions, message.header.qr {
            for r in info where r.section == .answer && r.record.ttl > 0 && !names.contains(r.nameKey) {
                names.append(r.nameKey)
                bits |= MDNSSession.nameBit(r.nameKey)
            }
        }
        answerNames = names
        answerNameBits = bits
    }

    public func bytes(_ r: Range<Int>) -> ArraySlice<UInt8> { message.payload[r] }

    /// A name's labels as ranges of the payload (allocates; for rules that need them listed).
    public func labelRanges(_ n: DNSName) -> [Range<Int>] {
        var l: [Range<Int>] = []
        n.forEachLabelRange(in: message.payload) { l.append($0) }
        return l
    }

    public func name(_ n: DNSName) -> String { n.presentation(in: message.payload) }

    /// Records that are shared in DNS-SD practice: browse PTRs (service type, subtype,
    /// service enumeration). Reverse-mapping PTRs are unique.
    public func isShared(_ r: RecordInfo) -> Bool {
        r.record.type == .ptr
            && (r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype || r.dnssd.kind == .serviceEnumeration)
    }

    public func isUnique(_ r: RecordInfo) -> Bool { Self.isUnique(r) }

    static func isUnique(_ r: RecordInfo) -> Bool {
        switch r.record.type {
        case .a, .aaaa, .srv, .txt, .hinfo, .nsec: return true
        case .ptr: return r.isReverse
        default: return false
        }
    }

    /// Host records: named by a host name or carrying one in RDATA (A, AAAA, HINFO, SRV,
    /// reverse PTR, and CNAME, whose RDATA is the canonical host name: RFC 6762 §10).
    public func isHostRecord(_ r: RecordInfo) -> Bool {
        switch r.record.type {
        case .a, .aaaa, .hinfo, .srv, .cname: return true
        case .ptr: return r.isReverse
        default: return false
        }
    }
}
