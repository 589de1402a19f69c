import DNS
import Findings
import WireFormat

/// A DNS-SD service instance of one message that claims a service profile, with the records
/// of the message that describe it: the facts every PROF rule reads, found once per decoded
/// payload (`MDNSMessageView.profileInstances`), so a rule neither walks the records nor
/// classifies service names again.
public struct ProfileInstance: Sendable {
    /// The profiles it claims in this message: by its service type, and by the subtypes this
    /// message lists it under (`_print._sub._ipp._tcp` → IPP Everywhere).
    public var profiles: ServiceProfiles
    /// Its name's identity (`DNSName.key(in:)`), as the session model keys instances.
    public var nameKey: UInt64
    /// Its name, as it appears in the message.
    public var name: DNSName
    /// Indices in `MDNSMessageView.records`: its SRV and TXT (the first of each, in record
    /// order), and the PTRs pointing at it (browse and subtype PTRs, goodbyes included).
    public var srv: Int?
    public var txt: Int?
    public var pointers: [Int] = []
    /// The TXT's `key[=value]` strings as payload ranges, in order (empty without a TXT).
    public var txtPairs: [TXTPair] = []

    /// One TXT character-string, split at its first `=`.
    public struct TXTPair: Sendable {
        public var key: Range<Int>
        /// nil for a boolean attribute (no `=`); empty for `key=`.
        public var value: Range<Int>?
    }
}

extension ProfileInstance {
    /// The value of TXT key `key` (compared ASCII case-insensitively, RFC 6763 §6.4; the first
    /// occurrence wins, §6.4): `.some(nil)` for a boolean attribute, nil when absent.
    public func txtValue(_ key: StaticString, in payload: [UInt8]) -> Range<Int>?? {
        for pair in txtPairs where ASCII.equalsIgnoringCase(payload, pair.key, key) { return .some(pair.value) }
        return nil
    }

    /// Whether the instance's TXT has `key` in any case.
    public func hasTXTKey(_ key: StaticString, in payload: [UInt8]) -> Bool { txtValue(key, in: payload) != nil }

    /// The TXT key as written when it matches `key` ignoring case: reports say `d` where `D`
    /// is defined.
    public func txtKeyAsWritten(_ key: StaticString, in payload: [UInt8]) -> Range<Int>? {
        txtPairs.first { ASCII.equalsIgnoringCase(payload, $0.key, key) }?.key
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
    static func find(in message: DNSMessage, records: [MDNSInput.RecordInfo]) -> [ProfileInstance] {
        let p = message.payload
        var found: [ProfileInstance] = []
        var labels: [Range<Int>] = []
        func index(of key: UInt64, _ name: DNSName, _ profile: ServiceProfile) -> Int {
            if let k = found.firstIndex(where: { $0.nameKey == key }) {
                found[k].profiles.insert(profile)
                return k
            }
            found.append(ProfileInstance(profiles: ServiceProfiles(profile), nameKey: key, name: name))
            return found.count - 1
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
                    if found[i].srv == nil { found[i].srv = k }
                } else if found[i].txt == nil {
                    found[i].txt = k
                    message.forEachTXTKey(r.record) { string, key in
                        let value = key.upperBound < string.upperBound ? (key.upperBound + 1)..<string.upperBound : nil
                        found[i].txtPairs.append(ProfileInstance.TXTPair(key: key, value: value))
                        return true
                    }
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
                found[i].pointers.append(k)
                if r.dnssd.kind == .subtype, let sub = labels.first, let claimed = subtypeClaim(p, sub, labels[si]) {
                    found[i].profiles.insert(claimed)
                }
            default:
                continue
            }
        }
        return found
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
        guard !message.profileInstances.isEmpty else { return }
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
