import DNS
import Findings
import NetLayers
import WireFormat

/// What an mDNS rule that reads the datagram sees: the message and its facts
/// (`MDNSMessageView`), the datagram, and how it is classified (RFC 6762 terms, see
/// shared/rules/mdns.md "Conventions").
/// A class, passed to every rule by reference (see `SSDPInput`).
public final class MDNSInput: RuleInput, Sendable {
    /// The decoded message and its facts: all a message-only rule sees. Datagrams repeating
    /// a payload share it.
    public let decoded: MDNSMessageView
    public let message: DNSMessage
    public let records: [RecordInfo]
    /// The questions' names, in order.
    public let questionNames: [NameInfo]
    /// The first 64 questions as the session rules pair answers with them (name key, QTYPE):
    /// made once with the decoding, on the worker, and shared by every rule that keeps the
    /// query.
    var questionIDs: [MDNSQuestionID] { decoded.queryDigest.questions }
    public let datagram: Datagram
    /// The subnets known to be on the datagram's link (`--subnet`, the capture interface's
    /// addresses); empty when none is known, and the rules that need them fall back to a
    /// heuristic (MDNS-310, MDNS-407).
    public let subnets: LinkSubnets
    /// What message rules see.
    public var view: MDNSMessageView { decoded }
    public var isTruncated: Bool { datagram.isTruncated }
    public var claimedProfiles: ServiceProfiles { decoded.claimedProfiles }
    public var header: DNSHeader { decoded.header }
    public var isResponse: Bool { decoded.isResponse }
    public var isQuery: Bool { decoded.isQuery }
    public var isMulticast: Bool { datagram.dst.isMulticast }
    /// A query from a port other than 5353 (RFC 6762 §6.7).
    public var isLegacyQuery: Bool { isQuery && datagram.srcPort != 5353 }
    /// A response from 5353 to a port other than 5353: the answer to a legacy query.
    public var isLegacyResponse: Bool { isResponse && datagram.dstPort != 5353 && datagram.srcPort == 5353 }
    public var isProbe: Bool { decoded.isProbe }
    /// Malformed-findings are suppressed when the snap length cut the datagram.
    public var truncated: Bool { datagram.isTruncated }

    /// A response that speaks from one link for hosts of another: it was sent from an IPv4
    /// address, gives A records, none of them the address it came from, and every one off
    /// the link: outside the link's subnets where they are known (`subnets`), else outside
    /// the sender's /24 (MDNS-310's heuristic); link-local addresses are on every link. A
    /// host sends its own records from one of its addresses, and an alias it publishes is on
    /// its link; a reflector's or mDNS gateway's copy of another link's host comes from the
    /// forwarder's own address on this link. Such a message is the forwarder's: it names no
    /// device (its findings count for no host), its source is no address of the host, and
    /// it announces nothing for its sender (MDNS-504, 505). Over IPv6, where link-local
    /// addresses say nothing of the link, a response sent from a link-local address is a
    /// copy when it gives link-local AAAA records and none of them is that address: a host
    /// sends from the link-local address it publishes on the link (a forwarder's IPv6 copy
    /// comes from its own).
    public var isRelayed: Bool {
        guard isResponse else { return false }
        guard case .v4(let s) = datagram.src else { return isRelayedOverIPv6 }
        var offLink = false
        for r in records where r.section != .authority && r.record.type == .a {
            guard let a = r.record.value.address, case .v4(let v) = a else { continue }
            if a == datagram.src || a.isLinkLocal { return false }
            let on = subnets.knowsFamily(of: a) ? subnets.isOnLink(a) : v >> 8 == s >> 8
            if on { return false }
            offLink = true
        }
        return offLink
    }

    private var isRelayedOverIPv6: Bool {
        guard datagram.src.isLinkLocal else { return false }
        var others = false
        for r in records where r.section != .authority && r.record.type == .aaaa {
            guard let a = r.record.value.address, a.isLinkLocal else { continue }
            if a == datagram.src { return false }
            others = true
        }
        return others
    }

    /// `decoded` in `datagram`. A datagram repeating the payload of the one before (a
    /// dual-stack responder sends each message over IPv4 and IPv6, back to back) is given
    /// that one's decoding: it depends on the payload bytes alone.
    public init(_ decoded: MDNSMessageView, datagram: Datagram, subnets: LinkSubnets = LinkSubnets()) {
        self.decoded = decoded
        message = decoded.message
        records = decoded.records
        questionNames = decoded.questionNames
        self.datagram = datagram
        self.subnets = subnets
    }

    /// `judged` and `sessions`: the profiles the run's rules judge and whether its session
    /// stage runs (`MDNSMessageView.init(message:judging:sessions:)`).
    public convenience init(
        message: DNSMessage, datagram: Datagram, subnets: LinkSubnets = LinkSubnets(),
        judging judged: ServiceProfiles = ServiceProfiles(rawValue: .max), sessions: Bool = true
    ) {
        self.init(
            MDNSMessageView(message: message, judging: judged, sessions: sessions), datagram: datagram,
            subnets: subnets)
    }

    /// Facts about a name that rules ask of record targets and questions, computed once from
    /// its label ranges (no label slices).
    public struct NameInfo: Sendable {
        public var dnssd: DNSSDName
        public var labelCount: Int { Int(labels) }
        /// The `_service` label when `dnssd` found one.
        public var serviceLabel: Range<Int>? { service?.range }
        /// Under local. or a reverse zone, or the root (MDNS-322).
        public var isLocalName: Bool
        /// The name's identity, `DNSName.key(in:)`: computed here, on the worker that decodes
        /// the message, so that the in-order session stage does not walk names again.
        public var key: UInt64
        /// Narrow storage (see `LabelPlace`): a name has at most 127 labels.
        private let labels: UInt8
        private let service: LabelPlace?

        init(dnssd: DNSSDName, labelCount: Int, serviceLabel: Range<Int>?, isLocalName: Bool, key: UInt64) {
            self.dnssd = dnssd
            labels = UInt8(clamping: labelCount)
            service = serviceLabel.map(LabelPlace.init)
            self.isLocalName = isLocalName
            self.key = key
        }
    }

    /// A label's bytes in the payload, in 5 bytes instead of a `Range<Int>`'s 16: decoded
    /// facts are cached by the thousand (`MDNSJudge`), each record's holding two labels. A
    /// payload is one datagram and a label at most 63 octets, so both fit; larger values
    /// would clamp, never trap.
    struct LabelPlace: Sendable {
        private let start: UInt32
        private let count: UInt8

        init(_ r: Range<Int>) {
            start = UInt32(clamping: r.lowerBound)
            count = UInt8(clamping: r.count)
        }

        var range: Range<Int> { Int(start)..<(Int(start) + Int(count)) }
    }

    /// Per-record facts computed once from the owner name's labels. Only plain values (no
    /// references), so the rules iterate records without reference counting; a rule that
    /// needs the labels themselves walks them with `labelRanges(_:)`.
    public struct RecordInfo: Sendable {
        public var section: DNSSection
        public var record: ResourceRecord
        /// The owner name's identity, `DNSName.key(in:)` (see `NameInfo.key`).
        public var nameKey: UInt64
        /// The RDATA's identity, `MDNSSessionModel.rdataKey(_:_:)`.
        public var rdataKey: UInt64
        public var dnssd: DNSSDName
        public var labelCount: Int { Int(labels) }
        /// First label (the instance label of a service instance), as a payload range.
        public var firstLabel: Range<Int>? { first?.range }
        /// The `_service` label when `dnssd` found one.
        public var serviceLabel: Range<Int>? { service?.range }
        private let labels: UInt8
        private let first: LabelPlace?
        private let service: LabelPlace?
        public var allLabelsUTF8: Bool
        public var hasUnderscoreLabel: Bool
        public var isReverse: Bool
        /// Under local. or a reverse zone (MDNS-322).
        public var isLocalName: Bool
        /// Every label but the last is letters, digits and hyphens (MDNS-320).
        public var hostLabelsLDH: Bool
        /// The name a PTR, CNAME or NS points to, or an SRV's target.
        public var target: NameInfo?

        init(
            section: DNSSection, record: ResourceRecord, nameKey: UInt64, rdataKey: UInt64, owner: NameFacts,
            target: NameInfo?
        ) {
            self.section = section
            self.record = record
            self.nameKey = nameKey
            self.rdataKey = rdataKey
            dnssd = owner.info.dnssd
            labels = UInt8(clamping: owner.info.labelCount)
            first = owner.firstLabel.map(LabelPlace.init)
            service = owner.info.serviceLabel.map(LabelPlace.init)
            allLabelsUTF8 = owner.allLabelsUTF8
            hasUnderscoreLabel = owner.hasUnderscoreLabel
            isReverse = owner.isReverse
            isLocalName = owner.info.isLocalName
            hostLabelsLDH = owner.hostLabelsLDH
            self.target = target
        }
    }
    /// What `RecordInfo` and `NameInfo` say about one name.
    struct NameFacts {
        var info: NameInfo
        var firstLabel: Range<Int>?
        var allLabelsUTF8: Bool
        var hasUnderscoreLabel: Bool
        var isReverse: Bool
        var hostLabelsLDH: Bool
    }

    /// The facts of the last few names of a message, keyed by where their first label starts:
    /// walking a name from a given label always yields the same labels (the walk's state there
    /// is that position alone, however it was reached), so names with the same first label
    /// are the same name.
    struct SeenNames {
        var starts = InlineArray<8, Int>(repeating: -1)
        var facts = InlineArray<8, NameFacts?>(repeating: nil)
        /// The slot the next name takes (the oldest is replaced).
        var next = 0

        func lookup(_ start: Int) -> NameFacts? {
            for k in starts.indices where starts[k] == start { return facts[k] }
            return nil
        }

        mutating func insert(_ start: Int, _ f: NameFacts) {
            starts[next] = start
            facts[next] = f
            next = (next + 1) % starts.count
        }
    }

    static func facts(_ n: DNSName, _ p: [UInt8], _ l: inout [Range<Int>], _ seen: inout SeenNames) -> NameFacts {
        let start = n.firstLabelRange(in: p)?.lowerBound ?? -1
        if start >= 0, let f = seen.lookup(start) { return f }
        l.removeAll(keepingCapacity: true)
        n.forEachLabelRange(in: p) { l.append($0) }
        let d = DNSSDName.classify(payload: p, labels: l)
        // As `DNSName.key(in:)`: each label case-folded, then a dot.
        var key = ASCII.keySeed
        p.withUnsafeBufferPointer { buf in
            for r in l {
                ASCII.addToKey(buf[r], &key)
                key ^= 0x2E
            }
        }
        var utf8 = true
        var underscore = false
        var ldh = true
        for k in l.indices {
            let r = l[k]
            if utf8 && !ASCII.isValidUTF8(p, r) { utf8 = false }
            if !r.isEmpty && p[r.lowerBound] == 0x5F { underscore = true }
            if ldh && k < l.count - 1 && !isLDH(p, r) { ldh = false }
        }
        let f = NameFacts(
            info: NameInfo(
                dnssd: d, labelCount: l.count, serviceLabel: d.serviceLabelIndex.flatMap { $0 < l.count ? l[$0] : nil },
                isLocalName: l.isEmpty || isLocal(p, l), key: key),
            firstLabel: l.first, allLabelsUTF8: utf8, hasUnderscoreLabel: underscore, isReverse: isReverse(p, l),
            hostLabelsLDH: ldh)
        if start >= 0 { seen.insert(start, f) }
        return f
    }

    static func recordInfo(
        _ s: DNSSection, _ rr: ResourceRecord, _ p: [UInt8], _ l: inout [Range<Int>], _ seen: inout SeenNames
    ) -> RecordInfo {
        var target: NameInfo? = nil
        switch rr.value {
        case .name(let t), .srv(_, _, _, let t): target = facts(t, p, &l, &seen).info
        default: break
        }
        let owner = facts(rr.name, p, &l, &seen)
        return RecordInfo(
            section: s, record: rr, nameKey: owner.info.key,
            rdataKey: MDNSSessionModel.rdataKey(rr, p, targetKey: target?.key), owner: owner, target: target)
    }

    static func isLDH(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        guard !r.isEmpty else { return false }
        for i in r where !(ASCII.isAlpha(p[i]) || ASCII.isDigit(p[i]) || p[i] == 0x2D) { return false }
        return true
    }

    /// RFC 6762 §4 names only 254.169.in-addr.arpa. and 8.e.f…b.e.f.ip6.arpa., but avahi
    /// and mDNSResponder publish reverse mappings for every address they announce (ULA and
    /// global ones too), so any in-addr.arpa / ip6.arpa name counts as local here.
    static func isLocal(_ p: [UInt8], _ l: [Range<Int>]) -> Bool {
        guard let last = l.last else { return true }
        if ASCII.equalsIgnoringCase(p, last, "local") { return true }
        return isReverse(p, l)
    }

    static func isReverse(_ p: [UInt8], _ l: [Range<Int>]) -> Bool {
        guard l.count >= 2 else { return false }
        return ASCII.equalsIgnoringCase(p, l[l.count - 1], "arpa")
            && (ASCII.equalsIgnoringCase(p, l[l.count - 2], "in-addr")
                || ASCII.equalsIgnoringCase(p, l[l.count - 2], "ip6"))
    }

    public func bytes(_ r: Range<Int>) -> ArraySlice<UInt8> { decoded.bytes(r) }
    public func labelRanges(_ n: DNSName) -> [Range<Int>] { decoded.labelRanges(n) }
    public func name(_ n: DNSName) -> String { decoded.name(n) }
    public func isShared(_ r: RecordInfo) -> Bool { decoded.isShared(r) }
    public func isUnique(_ r: RecordInfo) -> Bool { decoded.isUnique(r) }
    public func isHostRecord(_ r: RecordInfo) -> Bool { decoded.isHostRecord(r) }
}
