import DNS
import Findings
import WireFormat

/// A DNS-SD service instance of one message that claims a service profile, with the records
/// of the message that describe it: the facts every PROF rule reads, found once per decoded
/// payload (`MDNSMessageView.profileInstances`), so a rule neither walks the records nor
/// classifies service names again. A plain value: its TXT pairs and PTRs are the view's
/// (`profileTXTPairs`, `profilePointers`), so rules copy instances for nothing.
public struct ProfileInstance: Sendable {
    /// The profiles it claims in this message: by its service type, and by the subtypes this
    /// message lists it under (`_print._sub._ipp._tcp` → IPP Everywhere).
    public var profiles: ServiceProfiles
    /// Its name's identity (`DNSName.key(in:)`), as the session model keys instances.
    public var nameKey: UInt64
    /// Its name, as it appears in the message.
    public var name: DNSName
    /// Indices in `MDNSMessageView.records`: its SRV and TXT (the first of each, in record
    /// order).
    public var srv: Int?
    public var txt: Int?
    /// Its place in `MDNSMessageView.profileInstances`.
    public var index: Int
    /// Its TXT's `key[=value]` strings, in order: a range of `MDNSMessageView.profileTXTPairs`
    /// (empty without a TXT).
    public var pairs: Range<Int> = 0..<0
    /// For an instance that claims a printing profile: its printing service and label key, when
    /// its name is a printer's (`PrintingName.of`), read once where the instance is found.
    var printing: PrintingName? = nil

    /// One TXT character-string, split at its first `=`.
    public struct TXTPair: Sendable {
        public var key: Range<Int>
        /// nil for a boolean attribute (no `=`); empty for `key=`.
        public var value: Range<Int>?
        /// The key's first 7 bytes lower-cased, and its length (`ProfileInstances.fold`): keys
        /// are compared by it, byte by byte only when longer.
        var fold: UInt64
    }
}

/// A PTR of a message naming a profile instance (browse and subtype PTRs, goodbyes
/// included): the instance's place and the record's index in `MDNSMessageView.records`.
public struct ProfilePointer: Sendable {
    var instance: Int
    public var record: Int
    /// The profile a subtype PTR lists the instance under (`_print._sub._ipp._tcp` → IPP
    /// Everywhere, `ProfileInstances.subtypeClaim`); nil for a browse PTR or another subtype.
    var claim: ServiceProfile? = nil
}

/// What `ProfileInstances.find` makes of a message, kept in its view.
struct ProfileFacts {
    var instances: [ProfileInstance] = []
    var txtPairs: [ProfileInstance.TXTPair] = []
    var pointers: [ProfilePointer] = []
    /// Every profile an instance of the message claims.
    var claimed: ServiceProfiles = []
}

extension ProfileInstance {
    /// The TXT's pairs, in order.
    public func txtPairs(in m: MDNSMessageView) -> ArraySlice<TXTPair> { m.profileTXTPairs[pairs] }

    /// The value of TXT key `key` (compared ASCII case-insensitively, RFC 6763 §6.4; the first
    /// occurrence wins, §6.4): `.some(nil)` for a boolean attribute, nil when absent.
    @inline(__always)
    public func txtValue(_ key: StaticString, in m: MDNSMessageView) -> Range<Int>?? {
        pair(key, in: m).map { m.profileTXTPairs[$0].value }
    }

    /// Whether the instance's TXT has `key` in any case.
    @inline(__always)
    public func hasTXTKey(_ key: StaticString, in m: MDNSMessageView) -> Bool { pair(key, in: m) != nil }

    /// The first pair with key `key` (ignoring case).
    @inline(__always)
    public func txtPair(_ key: StaticString, in m: MDNSMessageView) -> TXTPair? {
        pair(key, in: m).map { m.profileTXTPairs[$0] }
    }

    /// The index in `m.profileTXTPairs` of the first pair with key `key`.
    @inline(__always)
    private func pair(_ key: StaticString, in m: MDNSMessageView) -> Int? {
        let fold = ProfileInstances.fold(key)
        let long = key.utf8CodeUnitCount > ProfileInstances.foldedBytes
        for k in pairs where m.profileTXTPairs[k].fold == fold {
            if !long || ASCII.equalsIgnoringCase(m.message.payload, m.profileTXTPairs[k].key, key) { return k }
        }
        return nil
    }

    /// The record indices of the PTRs naming it in `m`, in record order.
    public func pointers(in m: MDNSMessageView) -> [Int] {
        m.profilePointers.compactMap { $0.instance == index ? $0.record : nil }
    }

    /// The TXT record's TTL is 0: a goodbye, judged by no content rule.
    public func txtIsGoodbye(in records: [MDNSInput.RecordInfo]) -> Bool {
        txt.map { records[$0].record.ttl == 0 } ?? false
    }
}

/// Finding a message's profile instances (see `ProfileInstance`).
enum ProfileInstances {
    /// The service types that claim a profile (`ServiceProfile.serviceTypes`).
    private static let services = ServiceProfile.serviceTypes

    /// The profile of a name's service label (`serviceLabel`, with its underscore) followed by
    /// protocol label `proto`.
    static func profile(_ p: [UInt8], service: Range<Int>, proto: Range<Int>) -> ServiceProfile? {
        for s in services where ASCII.equalsIgnoringCase(p, service, s.service) {
            if ASCII.equalsIgnoringCase(p, proto, s.proto) { return s.profile }
        }
        return nil
    }

    /// Whether a service label could claim a profile at all: most names of a busy network
    /// (`_http`, `_device-info`) stop here, before their labels are walked.
    static func mayClaim(_ p: [UInt8], service: Range<Int>) -> Bool {
        services.contains { ASCII.equalsIgnoringCase(p, service, $0.service) }
    }

    /// The profile a name claims by its service type: `labels` are its label ranges and
    /// `serviceIndex` the index of its `_service` label.
    static func profile(_ p: [UInt8], labels: [Range<Int>], serviceIndex: Int) -> ServiceProfile? {
        guard serviceIndex + 1 < labels.count else { return nil }
        return profile(p, service: labels[serviceIndex], proto: labels[serviceIndex + 1])
    }

    /// The instances of `records` (in `message`) that claim a profile, in the order their first
    /// record appears. Empty, without walking any label, when no name has a profile's service.
    static func find(in message: DNSMessage, records: [MDNSInput.RecordInfo]) -> ProfileFacts {
        let p = message.payload
        var facts = ProfileFacts()
        var labels: [Range<Int>] = []
        func index(of key: UInt64, _ name: DNSName, _ profile: ServiceProfile) -> Int {
            facts.claimed.insert(profile)
            if let k = facts.instances.firstIndex(where: { $0.nameKey == key }) {
                facts.instances[k].profiles.insert(profile)
                return k
            }
            let k = facts.instances.count
            facts.instances.append(
                ProfileInstance(profiles: ServiceProfiles(only: profile), nameKey: key, name: name, index: k))
            return k
        }
        for k in records.indices {
            let r = records[k]
            guard let service = r.serviceLabel, mayClaim(p, service: service) else { continue }
            switch (r.dnssd.kind, r.record.type) {
            case (.instance, .srv), (.instance, .txt):
                labels.removeAll(keepingCapacity: true)
                r.record.name.forEachLabelRange(in: p) { labels.append($0) }
                guard let si = r.dnssd.serviceLabelIndex, let profile = profile(p, labels: labels, serviceIndex: si)
                else { continue }
                let i = index(of: r.nameKey, r.record.name, profile)
                if r.record.type == .srv {
                    if facts.instances[i].srv == nil { facts.instances[i].srv = k }
                } else if facts.instances[i].txt == nil {
                    facts.instances[i].txt = k
                    let first = facts.txtPairs.count
                    if first == 0 { facts.txtPairs.reserveCapacity(16) }
                    message.forEachTXTKey(r.record) { string, key in
                        let value = key.upperBound < string.upperBound ? (key.upperBound + 1)..<string.upperBound : nil
                        facts.txtPairs.append(ProfileInstance.TXTPair(key: key, value: value, fold: fold(p, key)))
                        return true
                    }
                    facts.instances[i].pairs = first..<facts.txtPairs.count
                }
            case (.serviceType, .ptr), (.subtype, .ptr):
                guard case .name(let target) = r.record.value, let t = r.target, t.dnssd.kind == .instance else {
                    continue
                }
                labels.removeAll(keepingCapacity: true)
                r.record.name.forEachLabelRange(in: p) { labels.append($0) }
                guard let si = r.dnssd.serviceLabelIndex, let profile = profile(p, labels: labels, serviceIndex: si)
                else { continue }
                let i = index(of: t.key, target, profile)
                var claim: ServiceProfile? = nil
                if r.dnssd.kind == .subtype, let sub = labels.first, let claimed = subtypeClaim(p, sub, labels[si]) {
                    facts.instances[i].profiles.insert(claimed)
                    facts.claimed.insert(claimed)
                    claim = claimed
                }
                facts.pointers.append(ProfilePointer(instance: i, record: k, claim: claim))
            default:
                continue
            }
        }
        for k in facts.instances.indices where facts.instances[k].profiles.intersects(.printing) {
            facts.instances[k].printing = PrintingName.of(facts.instances[k].name, in: p)
        }
        return facts
    }

    /// How many bytes of a TXT key its fold holds (longer keys are compared byte by byte
    /// when their folds match).
    static let foldedBytes = 7

    /// A TXT key's first `foldedBytes` bytes lower-cased, and its length in the top byte: equal
    /// for two keys equal ignoring case, and for no two shorter keys that differ.
    static func fold(_ p: [UInt8], _ key: Range<Int>) -> UInt64 {
        var f = UInt64(min(key.count, 255)) &<< 56
        var shift: UInt64 = 0
        for k in key.prefix(foldedBytes) {
            f |= UInt64(ASCII.lower(p[k])) &<< shift
            shift &+= 8
        }
        return f
    }

    /// One of 64 bits for a fold (Fibonacci hashing of it): a rule that looks for several
    /// keys in one pass over the pairs keeps the bits of their folds, and passes over a pair
    /// whose bit is not among them.
    static func bit(ofFold fold: UInt64) -> UInt64 { 1 &<< ((fold &* 0x9E37_79B9_7F4A_7C15) &>> 58) }

    /// The fold of a key a rule names. Inlined into each lookup, where the literal's bytes
    /// and length are known, so that the optimizer folds it to a constant.
    @inline(__always)
    static func fold(_ key: StaticString) -> UInt64 {
        let n = key.utf8CodeUnitCount
        let t = key.utf8Start
        var f = UInt64(min(n, 255)) &<< 56
        for k in 0..<min(n, foldedBytes) { f |= UInt64(ASCII.lower(t[k])) &<< (8 &* UInt64(k)) }
        return f
    }

    /// The profile a subtype label `sub` of service label `service` claims (`ServiceProfile
    /// .claimed(bySubtype:of:)`).
    static func subtypeClaim(_ p: [UInt8], _ sub: Range<Int>, _ service: Range<Int>) -> ServiceProfile? {
        guard ServiceProfile.subtypedServices.contains(where: { ASCII.equalsIgnoringCase(p, service, $0) }) else {
            return nil
        }
        return ServiceProfile.subtypes.first { ASCII.equalsIgnoringCase(p, sub, $0.sub) }?.profile
    }
}

/// A service-profile rule judged from one message: it sees each instance of the message that
/// claims one of its profiles (`RuleDescriptor.profiles`), never the others, and its findings
/// name that profile. Like every message rule, its findings are kept with the payload.
public protocol InstanceRule: MessageRule where Message == MDNSMessageView {
    /// Judges `instance`, which claims `profile` (one of the rule's), in `message`.
    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink)
}

extension InstanceRule {
    public static func check(_ message: MDNSMessageView, into out: inout FindingSink) {
        // The engine calls it only for messages that claim one of its profiles.
        let applies = descriptor.profiles
        for instance in message.profileInstances {
            guard let profile = ServiceProfiles(rawValue: instance.profiles.rawValue & applies.rawValue).first else {
                continue
            }
            out.profile = profile
            out.profileInstance = instance.nameKey
            check(instance, as: profile, in: message, into: &out)
        }
        out.profile = nil
        out.profileInstance = 0
    }
}
