import DNS
import Findings
import NetLayers
import WireFormat

// PROF-1xx: the HomeKit Accessory Protocol's Bonjour TXT (`_hap._tcp`, `_hap._udp`;
// shared/rules/profiles.md). HAP R2 Table 6-7 defines the keys; Apple's HomeKitADK,
// HAP-NodeJS and aiohomekit show how they are written and read. PROF-101 … 111 judge
// `_hap._tcp` (PROF-103, 107, 109 and 111 both); PROF-112 judges `_hap._udp` with the same
// checks, under its own ID.

/// What the HAP rules share: which instances are HAP over Thread, and their examples.
enum HAP {
    static let profiles = ServiceProfiles(.homeKit)

    /// HAP over Thread (CoAP): `_hap._udp`, judged by PROF-112.
    static func isThread(_ instance: ProfileInstance, in message: MDNSMessageView) -> Bool {
        AppTXT.isProtocol("_udp", of: instance, in: message)
    }

    /// The value of `key` when present with a non-empty value (absent or empty ones are
    /// PROF-101's).
    static func value(_ key: StaticString, of instance: ProfileInstance, in message: MDNSMessageView) -> Range<Int>? {
        guard let found = instance.txtValue(key, in: message), let v = found, !v.isEmpty else { return nil }
        return v
    }

    /// An unsigned integer written in decimal or, as the specification's examples are, in
    /// `0x` hexadecimal (`sf`, `ff`), with whether it was hexadecimal; nil for anything else.
    static func flags(_ p: [UInt8], _ r: Range<Int>) -> (value: UInt64, hex: Bool)? {
        if AppTXT.hasHexPrefix(p, r) { return AppTXT.prefixedHex(p, r).map { ($0, true) } }
        return AppTXT.decimal(p, r).map { ($0, false) }
    }

    /// Judges the bit field `key` (`sf`, `ff`) of `instance` under `d`: an unsigned integer
    /// (else an error) of the `defined` bits (`definedText`; others are reserved: a warning),
    /// its `0x` form info when `hexIsInfo` (the stacks write and parse a decimal).
    static func judgeFlags(
        _ key: StaticString, defined: UInt64, _ definedText: String, hexIsInfo: Bool, _ instance: ProfileInstance,
        in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = message.message.payload
        guard let v = value(key, of: instance, in: message) else { return }
        let shown = { "\(AppTXT.name(instance, in: message)) \(key)=\(AppTXT.show(p, v))" }
        guard let f = flags(p, v) else {
            out.report(d, severity: .error, "\(shown()) is not an unsigned integer")
            return
        }
        if f.hex, hexIsInfo {
            out.report(d, severity: .info, "\(shown()) is hexadecimal; HAP stacks write and parse a decimal")
        }
        if f.value & ~defined != 0 {
            out.report(d, severity: .warning, "\(shown()) sets reserved bits (defined: \(definedText))")
        }
    }

    // MARK: Examples

    /// A complete `_hap._tcp` TXT, as the catalog's near miss writes it.
    static let completeTXT = ["c#=3", "ff=0", "id=1E:34:5A:7B:9C:0D", "md=Bridge", "pv=1.1", "s#=1", "sf=1", "ci=2"]

    /// That TXT with `changes` (`key=value` strings replacing the key's pair, or added) and
    /// without the keys in `without`.
    static func txt(_ changes: [String] = [], without: [String] = []) -> [String] {
        func key(_ s: String) -> Substring { s.prefix { $0 != "=" } }
        let replaced = Set(changes.map(key))
        return completeTXT.filter { !replaced.contains(key($0)) && !without.contains(String(key($0))) } + changes
    }

    /// A response with the TXT of `Bridge.<service>.local` made of `strings` (TTL 0: a goodbye).
    static func txtResponse(_ strings: [String], service: String = "_hap._tcp", ttl: UInt32 = 4500) -> DNSBuilder {
        response { b in
            b.record(.answer, "Bridge.\(service).local", 16, flush: true, ttl: ttl, rdata: B.txt(strings))
        }
    }

    /// That response as a datagram at `t` seconds.
    static func datagram(_ strings: [String], service: String = "_hap._tcp", ttl: UInt32 = 4500, at t: Double = 0)
        -> Datagram
    {
        mdns(txtResponse(strings, service: service, ttl: ttl), at: t)
    }
}

/// PROF-101: the required `_hap._tcp` TXT keys.
struct HAPRequiredKeysRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-101", "hap-required-txt-keys", .error, "A HAP TXT has c#, id, md, s#, sf and ci with values",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7",
        "The configuration number (c#), device ID (id), model name (md), state number (s#), status flags (sf) and category (ci) are required, each with a non-empty value. ff may be left out when it is 0 and pv when it is 1.0.",
        interop: "aiohomekit drops a record without id (\"Missing device ID\")",
        example: "_hap._tcp TXT without ci")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(without: ["ci"]))),
            RuleExample(HAP.datagram(HAP.txt(without: ["c#"]))),
            RuleExample(HAP.datagram(HAP.txt(["md="]))),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt())),
            // ff and pv may be left out (0 and 1.0).
            RuleExample(HAP.datagram(HAP.txt(without: ["ff", "pv"]))),
            // A goodbye is judged by no content rule.
            RuleExample(HAP.datagram(["c#=3"], ttl: 0)),
        ])

    static let required: [StaticString] = ["c#", "id", "md", "s#", "sf", "ci"]

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    /// Reports the required keys `instance` lacks, or gives no value, under `d`.
    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        var missing = 0
        var empty = 0
        for (n, key) in required.enumerated() {
            switch instance.txtValue(key, in: message) {
            case nil: missing |= 1 << n
            case .some(let v) where v?.isEmpty ?? true: empty |= 1 << n
            default: break
            }
        }
        func keys(_ bits: Int) -> String {
            required.indices.filter { bits & (1 << $0) != 0 }.map { "\(required[$0])" }.joined(separator: ", ")
        }
        if missing != 0 {
            out.report(d, severity: .error, "\(AppTXT.name(instance, in: message)) TXT lacks \(keys(missing))")
        }
        if empty != 0 {
            out.report(
                d, severity: .error, "\(AppTXT.name(instance, in: message)) TXT gives no value for \(keys(empty))")
        }
    }
}

/// PROF-102: `c#` is a decimal in 1–65535.
struct HAPConfigNumberRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-102", "hap-config-number-range", .error, "c# is a decimal in 1–65535",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7",
        "The current configuration number ranges over 1–65535 and wraps to 1; 0 or a non-number is an error. A value up to 4294967295 follows the range of earlier HAP releases and is a warning.",
        example: "c#=0", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["c#=0"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["c#=abc"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["c#=70000"])), severity: .warning),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["c#=1"]))),
            RuleExample(HAP.datagram(HAP.txt(["c#=65535"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = message.message.payload
        guard let v = HAP.value("c#", of: instance, in: message) else { return }
        switch AppTXT.decimal(p, v) {
        case let n? where n >= 1 && n <= 65535:
            return
        case let n? where n > 65535 && n <= UInt64(UInt32.max):
            out.report(
                d, severity: .warning,
                "\(AppTXT.name(instance, in: message)) c#=\(n) is above 65535 (the range of earlier HAP releases)")
        case let n?:
            out.report(d, severity: .error, "\(AppTXT.name(instance, in: message)) c#=\(n) is not in 1–65535")
        case nil:
            out.report(
                d, severity: .error,
                "\(AppTXT.name(instance, in: message)) c#=\(AppTXT.show(p, v)) is not a decimal number")
        }
    }
}

/// PROF-103: `c#` only moves forward for one accessory (`id`).
struct HAPConfigNumberPersistsRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-103", "hap-config-number-persists", .error, "c# persists and only moves forward",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7",
        "For one device ID, a later TXT never shows a lower c#, except the wrap from 65535 (or above) to 1: the number persists across reboots and grows when the accessory's database changes or its firmware is updated. A change of md with c# unchanged is info (a model change usually comes with an update). A factory reset changes id, which starts a new accessory.",
        example: "c#=7, then after a goodbye and re-announcement c#=1", scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    HAP.datagram(HAP.txt(["c#=7"]), at: 0), HAP.datagram(HAP.txt(["c#=7"]), ttl: 0, at: 10),
                    HAP.datagram(HAP.txt(["c#=1"]), at: 12),
                ], severity: .error),
            RuleExample(
                [HAP.datagram(HAP.txt(["md=Bridge"]), at: 0), HAP.datagram(HAP.txt(["md=Lamp"]), at: 30)],
                severity: .info),
        ],
        nonTriggering: [
            RuleExample([HAP.datagram(HAP.txt(["c#=65535"]), at: 0), HAP.datagram(HAP.txt(["c#=1"]), at: 30)]),
            RuleExample([HAP.datagram(HAP.txt(["c#=7"]), at: 0), HAP.datagram(HAP.txt(["c#=8"]), at: 30)]),
            // Another accessory (id) starts at 1.
            RuleExample([
                HAP.datagram(HAP.txt(["c#=7"]), at: 0),
                HAP.datagram(HAP.txt(["c#=1", "id=AA:BB:CC:DD:EE:FF"]), at: 30),
            ]),
            // The model changes together with the configuration number.
            RuleExample([
                HAP.datagram(HAP.txt(["md=Bridge"]), at: 0), HAP.datagram(HAP.txt(["md=Lamp", "c#=4"]), at: 30),
            ]),
        ])

    /// The configuration an accessory showed last (a verdict row, `MDNSVerdicts.hapConfigurations`).
    struct Seen {
        var configuration: UInt64
        /// `md`'s key (`AppTXT.key`; 0 without one).
        var model: UInt64
        var frame: Int
        var time: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, i.isResponse, !i.decoded.profileInstances.isEmpty else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in m.profileInstances where instance.profiles.contains(.homeKit) && AppTXT.judged(instance, in: m)
        {
            guard let id = HAP.value("id", of: instance, in: m), let c = HAP.value("c#", of: instance, in: m),
                let n = AppTXT.decimal(p, c), n >= 1, n <= UInt64(UInt32.max)
            else { continue }
            let model = HAP.value("md", of: instance, in: m).map { AppTXT.key(p, $0) } ?? 0
            let seen = Seen(configuration: n, model: model, frame: e.frame, time: e.time)
            let key = WordKey(AppTXT.key(p, id))
            guard let slot = store.verdicts.hapConfigurations.slot(of: key) else {
                store.verdicts.hapConfigurations.add(seen, forAbsent: key, at: e.time, evicted: &out.evictions)
                continue
            }
            let before = store.verdicts.hapConfigurations[slot]
            store.verdicts.hapConfigurations[slot] = seen
            if n < before.configuration && !(n == 1 && before.configuration >= 65535) {
                out.report(
                    descriptor, severity: .error,
                    "\(AppTXT.name(instance, in: m)) (id \(AppTXT.show(p, id))) shows c#=\(n) after c#=\(before.configuration) in frame \(before.frame); it only moves forward (wrapping from 65535 to 1)",
                    related: [before.frame], profile: .homeKit, instance: instance.nameKey)
            } else if n == before.configuration && model != before.model {
                let md = HAP.value("md", of: instance, in: m).map { AppTXT.show(p, $0) } ?? ""
                out.report(
                    descriptor, severity: .info,
                    "\(AppTXT.name(instance, in: m)) (id \(AppTXT.show(p, id))) changed md to \"\(md)\" since frame \(before.frame) without a c# change",
                    related: [before.frame], profile: .homeKit, instance: instance.nameKey)
            }
        }
    }
}

/// PROF-104: `id` is `XX:XX:XX:XX:XX:XX`.
struct HAPDeviceIDRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-104", "hap-device-id-form", .error, "id is six hexadecimal bytes separated by colons",
        profiles: HAP.profiles, spec: "HAP R2 §5.4, Table 6-7",
        "The device ID, also the accessory's pairing identifier, is written XX:XX:XX:XX:XX:XX. Apple's ADK writes upper case; clients lower-case it before use, so lower case is only info.",
        example: "id=1E345A7B9C0D", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["id=1E345A7B9C0D"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["id=1E:34:5A:7B:9C"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["id=1E-34-5A-7B-9C-0D"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["id=1e:34:5a:7b:9c:0d"])), severity: .info),
        ],
        nonTriggering: [RuleExample(HAP.datagram(HAP.txt(["id=1E:34:5A:7B:9C:0D"])))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = message.message.payload
        guard let v = HAP.value("id", of: instance, in: message) else { return }
        if AppTXT.colonDeviceID(p, v) == nil {
            out.report(
                d, severity: .error,
                "\(AppTXT.name(instance, in: message)) id=\(AppTXT.show(p, v)) is not XX:XX:XX:XX:XX:XX")
        } else if AppTXT.hasLowercase(p, v) {
            out.report(
                d, severity: .info,
                "\(AppTXT.name(instance, in: message)) id=\(AppTXT.show(p, v)) is in lower case (Apple's ADK writes upper case)"
            )
        }
    }
}

/// PROF-105: `s#` is 1 over IP.
struct HAPStateNumberRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-105", "hap-state-number", .error, "s# is 1 for HAP over IP",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7",
        "The current state number of an IP accessory is 1. Newer ADK releases (R17) report a global state number instead, so another decimal in 1–65535 is info; 0, a larger number or a non-number is an error. (`_hap._udp` is PROF-112's.)",
        example: "s#=0", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["s#=0"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["s#=x"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["s#=17"])), severity: .info),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["s#=1"]))),
            // Over Thread, s# is the global state number.
            RuleExample(HAP.datagram(HAP.txt(["s#=23"]), service: "_hap._udp")),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        let p = message.message.payload
        guard let v = HAP.value("s#", of: instance, in: message) else { return }
        switch AppTXT.decimal(p, v) {
        case 1?:
            return
        case let n? where n >= 2 && n <= 65535:
            out.report(
                descriptor, severity: .info,
                "\(AppTXT.name(instance, in: message)) s#=\(n): a global state number (R17 ADK); HAP R2 asks for 1 over IP"
            )
        default:
            out.report(
                descriptor, severity: .error,
                "\(AppTXT.name(instance, in: message)) s#=\(AppTXT.show(p, v)) is not 1 (nor a state number in 1–65535)"
            )
        }
    }
}

/// PROF-106: `sf` is an unsigned integer of the three defined status bits.
struct HAPStatusFlagsRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-106", "hap-status-flags", .error, "sf is an unsigned integer of defined status bits",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7, Table 6-8",
        "Status flags: 0x01 not paired, 0x02 not configured for Wi-Fi, 0x04 problem detected; other bits are reserved (warning). Apple's ADK and HAP-NodeJS write a decimal and aiohomekit parses one, so the 0x form of the specification's example is info; anything else is an error.",
        example: "sf=yes", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["sf=8"])), severity: .warning),
            RuleExample(HAP.datagram(HAP.txt(["sf=-1"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["sf=yes"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["sf=0x1"])), severity: .info),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["sf=0"]))),
            RuleExample(HAP.datagram(HAP.txt(["sf=1"]))),
            RuleExample(HAP.datagram(HAP.txt(["sf=3"]))),
        ])

    static let defined: UInt64 = 0x07

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        HAP.judgeFlags(
            "sf", defined: defined, "0x01, 0x02, 0x04", hexIsInfo: true, instance, in: message, as: d, into: &out)
    }
}

/// PROF-107: the not-paired bit of `sf` does not flip back and forth.
struct HAPPairingFlagRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-107", "hap-pairing-flag-stable", .info, "sf's not-paired bit does not flip back and forth",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-8",
        "Bit 0x01 of sf goes from 1 to 0 once, when pairing completes. Two changes of it within a minute for one device ID point at an accessory that toggles discoverability during pair-setup.",
        interop: "iOS 13 stops pair-setup when sf changes during pairing (HAP-Java#94)",
        example: "sf=1, sf=0, sf=1 for one id within 20 s", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                HAP.datagram(HAP.txt(["sf=1"]), at: 0), HAP.datagram(HAP.txt(["sf=0"]), at: 10),
                HAP.datagram(HAP.txt(["sf=1"]), at: 20),
            ])
        ],
        nonTriggering: [
            RuleExample([HAP.datagram(HAP.txt(["sf=1"]), at: 0), HAP.datagram(HAP.txt(["sf=0"]), at: 10)]),
            // Changes more than a minute apart.
            RuleExample([
                HAP.datagram(HAP.txt(["sf=1"]), at: 0), HAP.datagram(HAP.txt(["sf=0"]), at: 10),
                HAP.datagram(HAP.txt(["sf=1"]), at: 100),
            ]),
            // Other bits change; the pairing bit stays.
            RuleExample([
                HAP.datagram(HAP.txt(["sf=1"]), at: 0), HAP.datagram(HAP.txt(["sf=5"]), at: 10),
                HAP.datagram(HAP.txt(["sf=1"]), at: 20),
            ]),
        ])

    static let window = 60.0

    /// An accessory's pairing bit as last seen and its recent changes (a verdict row,
    /// `MDNSVerdicts.hapPairingFlags`).
    struct Flips {
        var notPaired: Bool
        /// The changes of the last `window` seconds, oldest first (at most two).
        var changes: [MDNSFrameTime] = []
        var last: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, i.isResponse, !i.decoded.profileInstances.isEmpty else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in m.profileInstances where instance.profiles.contains(.homeKit) && AppTXT.judged(instance, in: m)
        {
            guard let id = HAP.value("id", of: instance, in: m), let sf = HAP.value("sf", of: instance, in: m),
                let flags = HAP.flags(p, sf)
            else { continue }
            let notPaired = flags.value & 1 != 0
            let now = MDNSFrameTime(frame: e.frame, time: e.time)
            let first = store.verdicts.hapPairingFlags.update(
                WordKey(AppTXT.key(p, id)), default: Flips(notPaired: notPaired, last: e.time), at: e.time,
                evicted: &out.evictions
            ) { row -> MDNSFrameTime? in
                defer {
                    row.notPaired = notPaired
                    row.last = e.time
                }
                guard row.notPaired != notPaired else { return nil }
                row.changes.removeAll { MDNSSession.since($0.time, e.time) > window }
                row.changes.append(now)
                guard row.changes.count >= 2, let first = row.changes.first else { return nil }
                row.changes = []
                return first
            }
            if let first {
                out.report(
                    descriptor,
                    "\(AppTXT.name(instance, in: m)) (id \(AppTXT.show(p, id))) changed sf's not-paired bit again \(String(format1: MDNSSession.since(first.time, e.time))) s after frame \(first.frame)",
                    related: [first.frame], profile: .homeKit, instance: instance.nameKey)
            }
        }
    }
}

/// PROF-108: `ff` is an unsigned integer of the two defined feature bits.
struct HAPFeatureFlagsRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-108", "hap-feature-flags", .error, "ff is an unsigned integer of defined feature bits",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7, Table 5-4",
        "Pairing feature flags: 0x01 Apple authentication coprocessor, 0x02 software authentication; other bits are reserved (warning). A decimal or the 0x form of the specification's example; anything else is an error.",
        example: "ff=on", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["ff=4"])), severity: .warning),
            RuleExample(HAP.datagram(HAP.txt(["ff=on"])), severity: .error),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["ff=0"]))),
            RuleExample(HAP.datagram(HAP.txt(["ff=2"]))),
            RuleExample(HAP.datagram(HAP.txt(["ff=0x3"]))),
        ])

    static let defined: UInt64 = 0x03

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        HAP.judgeFlags("ff", defined: defined, "0x01, 0x02", hexIsInfo: false, instance, in: message, as: d, into: &out)
    }
}

/// PROF-109: `ci` is a category of Table 13-1; the change half is `HAPCategoryChangeRule`.
struct HAPCategoryRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-109", "hap-category", .error, "ci is an accessory category in 1–65535 and does not change",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7, Table 13-1; HAP §7.4.2.1.2",
        "The category identifier is a decimal in 1–65535 taking a value of Table 13-1. Open implementations know 1–36 (1 Other, 2 Bridge, 5 Lightbulb … 36 TV Streaming Stick), so another value is info (a newer category); 0, a larger number or a non-number is an error. Judged across packets too: ci changing for one device ID while c# stays is info (it changes only with a firmware update, which increments c#).",
        example: "ci=0", scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["ci=0"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["ci=bridge"])), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["ci=40"])), severity: .info),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["ci=2"]))),
            RuleExample(HAP.datagram(HAP.txt(["ci=5"]))),
        ])

    /// The last category of Table 13-1 open implementations list (HAP-NodeJS `Categories`).
    static let lastKnown: UInt64 = 36

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        judge(instance, in: message, as: descriptor, into: &out)
    }

    static func judge(
        _ instance: ProfileInstance, in message: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = message.message.payload
        guard let v = HAP.value("ci", of: instance, in: message) else { return }
        switch AppTXT.decimal(p, v) {
        case let n? where n >= 1 && n <= lastKnown:
            return
        case let n? where n > lastKnown && n <= 65535:
            out.report(
                d, severity: .info,
                "\(AppTXT.name(instance, in: message)) ci=\(n) is beyond the categories known to open implementations (1–36)"
            )
        default:
            out.report(
                d, severity: .error,
                "\(AppTXT.name(instance, in: message)) ci=\(AppTXT.show(p, v)) is not a category number in 1–65535")
        }
    }
}

/// PROF-109, its change half: `ci` changes only with a firmware update (and so with `c#`).
struct HAPCategoryChangeRule: SessionRule {
    static var descriptor: RuleDescriptor { HAPCategoryRule.descriptor }
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [HAP.datagram(HAP.txt(["ci=5"]), at: 0), HAP.datagram(HAP.txt(["ci=8"]), at: 30)], severity: .info)
        ],
        nonTriggering: [
            RuleExample([HAP.datagram(HAP.txt(["ci=5"]), at: 0), HAP.datagram(HAP.txt(["ci=5"]), at: 30)]),
            // A firmware update: c# moves with it.
            RuleExample([
                HAP.datagram(HAP.txt(["ci=5"]), at: 0), HAP.datagram(HAP.txt(["ci=8", "c#=4"]), at: 30),
            ]),
        ])

    /// The category and configuration an accessory showed last (a verdict row,
    /// `MDNSVerdicts.hapCategories`).
    struct Seen {
        var category: UInt64
        var configuration: UInt64
        var frame: Int
        var time: Timestamp
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, i.isResponse, !i.decoded.profileInstances.isEmpty else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in m.profileInstances where instance.profiles.contains(.homeKit) && AppTXT.judged(instance, in: m)
        {
            guard let id = HAP.value("id", of: instance, in: m), let ci = HAP.value("ci", of: instance, in: m),
                let category = AppTXT.decimal(p, ci), let c = HAP.value("c#", of: instance, in: m),
                let configuration = AppTXT.decimal(p, c)
            else { continue }
            let seen = Seen(category: category, configuration: configuration, frame: e.frame, time: e.time)
            let key = WordKey(AppTXT.key(p, id))
            guard let slot = store.verdicts.hapCategories.slot(of: key) else {
                store.verdicts.hapCategories.add(seen, forAbsent: key, at: e.time, evicted: &out.evictions)
                continue
            }
            let before = store.verdicts.hapCategories[slot]
            store.verdicts.hapCategories[slot] = seen
            if category != before.category && configuration == before.configuration {
                out.report(
                    descriptor, severity: .info,
                    "\(AppTXT.name(instance, in: m)) (id \(AppTXT.show(p, id))) changed ci from \(before.category) (frame \(before.frame)) to \(category) with c# unchanged",
                    related: [before.frame], profile: .homeKit, instance: instance.nameKey)
            }
        }
    }
}

/// PROF-110: `pv` is `<major>.<minor>`.
struct HAPProtocolVersionRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-110", "hap-protocol-version", .error, "pv is <major>.<minor>",
        profiles: HAP.profiles, spec: "HAP R2 Table 6-7",
        "The protocol version is two decimals joined by a dot (absent means 1.0; IP accessories advertise 1.1). 1.1.0 is the Protocol Information service's version string, not the TXT key's. (`_hap._udp` carries the Thread protocol version and is not judged here.)",
        example: "pv=1.1.0")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["pv=1"]))),
            RuleExample(HAP.datagram(HAP.txt(["pv=v1.1"]))),
            RuleExample(HAP.datagram(HAP.txt(["pv=1.1.0"]))),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["pv=1.1"]))),
            RuleExample(HAP.datagram(HAP.txt(without: ["pv"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), !HAP.isThread(instance, in: message) else { return }
        let p = message.message.payload
        guard let found = instance.txtValue("pv", in: message) else { return }
        if let v = found, AppTXT.isDotted(p, v, dots: 1...1) { return }
        out.report(
            descriptor,
            "\(AppTXT.name(instance, in: message)) pv=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not <major>.<minor>"
        )
    }
}

/// PROF-111: `sh` is the Base64 of four bytes.
struct HAPSetupHashRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-111", "hap-setup-hash-form", .warning, "sh is the Base64 of 4 bytes (8 characters ending in ==)",
        profiles: HAP.profiles, spec: "HomeKitADK HAPIPServiceDiscoverySetHAPService; HAP-NodeJS computeSetupHash",
        "The optional setup hash is the Base64 encoding of the first 4 bytes of SHA-512(setup ID ‖ device ID): exactly 8 characters, the last two `==`. Only its form can be checked; its value needs the setup ID.",
        example: "sh=Zy1a3Q")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(["sh=abc"]))),
            RuleExample(HAP.datagram(HAP.txt(["sh=Zy1a3Q"]))),
            RuleExample(HAP.datagram(HAP.txt(["sh=Zy1a3QZy1a3Q"]))),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["sh=Zy1a3Q=="]))),
            RuleExample(HAP.datagram(HAP.txt())),
        ])

    static func isBase64(_ b: UInt8) -> Bool { ASCII.isAlpha(b) || ASCII.isDigit(b) || b == 0x2B || b == 0x2F }

    /// Whether `r` is the canonical Base64 of 4 bytes: 5 free characters, a sixth whose low
    /// 4 bits are zero (A, Q, g, w), and `==`.
    static func isFourBytes(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        guard r.count == 8, p[r.lowerBound + 6] == 0x3D, p[r.lowerBound + 7] == 0x3D else { return false }
        let last = p[r.lowerBound + 5]
        return (r.lowerBound..<(r.lowerBound + 5)).allSatisfy { isBase64(p[$0]) }
            && (last == 0x41 || last == 0x51 || last == 0x67 || last == 0x77)
    }

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard let found = instance.txtValue("sh", in: message) else { return }
        if let v = found, isFourBytes(p, v) { return }
        out.report(
            descriptor,
            "\(AppTXT.name(instance, in: message)) sh=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not the Base64 of 4 bytes"
        )
    }
}

/// PROF-112: `_hap._udp` (HAP over Thread) follows the `_hap._tcp` keys and forms.
struct HAPThreadTXTRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-112", "hap-thread-txt", .error, "_hap._udp uses the keys and forms of _hap._tcp",
        profiles: HAP.profiles, spec: "HomeKitADK (Thread service discovery); HAP R2 Table 6-7",
        "HAP over Thread advertises the same keys as HAP over IP, judged as PROF-101, 102, 104, 106, 108 and 109 are (at their severities), except that s# is the accessory's global state number (a decimal in 1–65535, not fixed at 1) and pv is the Thread protocol version.",
        example: "_hap._udp TXT without id", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(HAP.datagram(HAP.txt(without: ["id"]), service: "_hap._udp"), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["s#=0"]), service: "_hap._udp"), severity: .error),
            RuleExample(HAP.datagram(HAP.txt(["ci=40"]), service: "_hap._udp"), severity: .info),
        ],
        nonTriggering: [
            RuleExample(HAP.datagram(HAP.txt(["s#=23"]), service: "_hap._udp")),
            // `_hap._tcp` is judged by the other rules.
            RuleExample(HAP.datagram(HAP.txt(without: ["id"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), HAP.isThread(instance, in: message) else { return }
        HAPRequiredKeysRule.judge(instance, in: message, as: descriptor, into: &out)
        HAPConfigNumberRule.judge(instance, in: message, as: descriptor, into: &out)
        HAPDeviceIDRule.judge(instance, in: message, as: descriptor, into: &out)
        HAPStatusFlagsRule.judge(instance, in: message, as: descriptor, into: &out)
        HAPFeatureFlagsRule.judge(instance, in: message, as: descriptor, into: &out)
        HAPCategoryRule.judge(instance, in: message, as: descriptor, into: &out)
        let p = message.message.payload
        guard let v = HAP.value("s#", of: instance, in: message) else { return }
        if let n = AppTXT.decimal(p, v), n >= 1, n <= 65535 { return }
        out.report(
            descriptor, severity: .error,
            "\(AppTXT.name(instance, in: message)) s#=\(AppTXT.show(p, v)) is not a global state number in 1–65535")
    }
}
