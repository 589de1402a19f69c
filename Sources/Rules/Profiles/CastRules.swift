import DNS
import Findings
import NetLayers
import WireFormat

// PROF-3xx: Google Cast receivers (`_googlecast._tcp`; shared/rules/profiles.md). No public
// specification defines the TXT record: the contract is what Google's Open Screen receiver
// parser (`DnsSdInstanceEndpointToReceiverInfo`, `ReceiverInfo::IsValid`) accepts and what
// pychromecast's discovery reads.

/// What the Cast rules share: their profile and examples.
enum Cast {
    static let profiles = ServiceProfiles(.cast)
    static let receiverID = "c57f10c75ee90c302bc91438ca69ff3a"
    /// A Cast receiver's TXT as Open Screen accepts it.
    static let completeTXT = [
        "id=\(receiverID)", "ve=05", "md=Chromecast", "ca=5", "fn=Living Room TV", "st=0",
    ]

    /// That TXT with `changes` (`key=value` strings replacing the key's pair, or added) and
    /// without the keys in `without`.
    static func txt(_ changes: [String] = [], without: [String] = []) -> [String] {
        func key(_ s: String) -> Substring { s.prefix { $0 != "=" } }
        let replaced = Set(changes.map(key))
        return completeTXT.filter { !replaced.contains(key($0)) && !without.contains(String(key($0))) } + changes
    }

    /// A response with the SRV (port `port`) and TXT (`strings`) of `<label>._googlecast._tcp.local`.
    static func datagram(_ strings: [String], port: UInt16 = 8009, label: String = "Chromecast-\(receiverID)")
        -> Datagram
    {
        mdns(
            response { b in
                let owner = "\(label)._googlecast._tcp.local"
                b.record(.answer, owner, 33, flush: true, rdata: B.srv(port, "\(receiverID).local"))
                b.record(.answer, owner, 16, flush: true, ttl: 4500, rdata: B.txt(strings))
            })
    }

    /// The value of `key` in `instance`'s TXT: `.absent`, `.empty` (no value or `key=`), or
    /// its range.
    enum Value {
        case absent
        case empty
        case value(Range<Int>)
    }

    static func value(_ key: StaticString, of instance: ProfileInstance, in message: MDNSMessageView) -> Value {
        switch instance.txtValue(key, in: message) {
        case nil: .absent
        case .some(let v?) where !v.isEmpty: .value(v)
        case .some: .empty
        }
    }

    /// The value of the required key `key` (`what`, in reports), or nil after reporting
    /// (under `d`, at `severity`, else its default) that it is absent or empty.
    static func required(
        _ key: StaticString, _ what: String, of instance: ProfileInstance, in message: MDNSMessageView,
        as d: RuleDescriptor, severity: Severity? = nil, into out: inout FindingSink
    ) -> Range<Int>? {
        switch value(key, of: instance, in: message) {
        case .absent:
            out.report(d, severity: severity, "\(AppTXT.name(instance, in: message)) TXT lacks \(key) (\(what))")
        case .empty:
            out.report(d, severity: severity, "\(AppTXT.name(instance, in: message)) TXT gives no value for \(key)")
        case .value(let v):
            return v
        }
        return nil
    }
}

/// PROF-301: `id` is the receiver's 128-bit UUID in hexadecimal.
struct CastReceiverIDRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-301", "cast-receiver-id", .error, "id is the receiver's 128-bit UUID in hexadecimal",
        profiles: Cast.profiles, spec: "Open Screen DnsSdInstanceEndpointToReceiverInfo; pychromecast discovery",
        "The TXT has id, the receiver's unique ID: a 128-bit integer as 32 hexadecimal digits, hyphens optional.",
        basis: .deFacto,
        interop:
            "pychromecast ignores a receiver whose id is not a UUID; older releases stopped discovering every Cast device on the link (pychromecast#288)",
        example: "id=B46BFC5EA092")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(["id=B46BFC5EA092"]))),
            RuleExample(Cast.datagram(Cast.txt(["id=F45C89B6CD2D"]))),
            RuleExample(Cast.datagram(Cast.txt(["id="]))),
            RuleExample(Cast.datagram(Cast.txt(without: ["id"]))),
        ],
        nonTriggering: [
            RuleExample(Cast.datagram(Cast.txt())),
            RuleExample(Cast.datagram(Cast.txt(["id=c57f10c7-5ee9-0c30-2bc9-1438ca69ff3a"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard let v = Cast.required("id", "the receiver's UUID", of: instance, in: message, as: descriptor, into: &out),
            !AppTXT.isUUIDHex(p, v)
        else { return }
        out.report(
            descriptor,
            "\(AppTXT.name(instance, in: message)) id=\(AppTXT.show(p, v)) is not a 128-bit UUID in hexadecimal")
    }
}

/// PROF-302: `ve` is the Cast protocol version, a decimal 2–99.
struct CastProtocolVersionRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-302", "cast-protocol-version", .error, "ve is a Cast protocol version, a decimal 2–99",
        profiles: Cast.profiles, spec: "Open Screen DnsSdInstanceEndpointToReceiverInfo (kMinVersion, kMaxVersion)",
        "The TXT has ve, the Cast protocol version: one or two decimal digits, 2 to 99 (receivers write 02, 05).",
        basis: .deFacto, example: "ve=1")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(without: ["ve"]))),
            RuleExample(Cast.datagram(Cast.txt(["ve=1"]))),
            RuleExample(Cast.datagram(Cast.txt(["ve=v5"]))),
        ],
        nonTriggering: [
            RuleExample(Cast.datagram(Cast.txt(["ve=05"]))),
            RuleExample(Cast.datagram(Cast.txt(["ve=02"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard
            let v = Cast.required(
                "ve", "the Cast protocol version", of: instance, in: message, as: descriptor, into: &out)
        else { return }
        if v.count <= 2, let n = AppTXT.decimal(p, v), n >= 2 { return }
        out.report(descriptor, "\(AppTXT.name(instance, in: message)) ve=\(AppTXT.show(p, v)) is not a decimal 2–99")
    }
}

/// PROF-303: `ca` is a decimal capability bit field.
struct CastCapabilitiesRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-303", "cast-capabilities", .error, "ca is a decimal capability bit field",
        profiles: Cast.profiles, spec: "Open Screen receiver_info.h (the 'ca' bit field, per the CastV2 spec)",
        "The TXT has ca, a decimal bit field: 0x01 video out, 0x02 video in, 0x04 audio out, 0x08 audio in, 0x10 developer mode. Higher bits are undocumented (0x20 marks a multizone group in some receivers) and only info.",
        basis: .deFacto, example: "ca=0x5", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(without: ["ca"])), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(["ca=0x5"])), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(["ca=abc"])), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(["ca=4101"])), severity: .info),
        ],
        nonTriggering: [
            RuleExample(Cast.datagram(Cast.txt(["ca=5"]))),
            RuleExample(Cast.datagram(Cast.txt(["ca=31"]))),
        ])

    static let documented: UInt64 = 0x1F

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard
            let v = Cast.required(
                "ca", "the capabilities", of: instance, in: message, as: descriptor, severity: .error, into: &out)
        else { return }
        guard let n = AppTXT.decimal(p, v) else {
            out.report(
                descriptor, severity: .error,
                "\(AppTXT.name(instance, in: message)) ca=\(AppTXT.show(p, v)) is not a decimal bit field")
            return
        }
        if n & ~documented != 0 {
            out.report(
                descriptor, severity: .info,
                "\(AppTXT.name(instance, in: message)) ca=\(n) sets undocumented capability bits (documented: 0x01–0x10)"
            )
        }
    }
}

/// PROF-304: `st` is 0 (idle) or 1 (busy).
struct CastReceiverStatusRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-304", "cast-receiver-status", .error, "st is 0 (idle) or 1 (busy)",
        profiles: Cast.profiles, spec: "Open Screen ReceiverStatus",
        "The TXT has st, the receiver status: 0 idle, 1 busy (hosting an activity a sender may join).",
        basis: .deFacto, example: "st=2")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(["st=2"]))),
            RuleExample(Cast.datagram(Cast.txt(without: ["st"]))),
        ],
        nonTriggering: [
            RuleExample(Cast.datagram(Cast.txt(["st=0"]))),
            RuleExample(Cast.datagram(Cast.txt(["st=1"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard let v = Cast.required("st", "the receiver status", of: instance, in: message, as: descriptor, into: &out)
        else { return }
        if p[v].equals("0") || p[v].equals("1") { return }
        out.report(descriptor, "\(AppTXT.name(instance, in: message)) st=\(AppTXT.show(p, v)) is neither 0 nor 1")
    }
}

/// PROF-305: `fn` is a non-empty friendly name; `md` should be present.
struct CastFriendlyNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-305", "cast-friendly-name", .error, "fn is a non-empty friendly name; md is present",
        profiles: Cast.profiles, spec: "Open Screen DnsSdInstanceEndpointToReceiverInfo; pychromecast discovery",
        "The TXT has fn, the receiver's friendly name, not empty. md (the model name) is optional to Open Screen, but pychromecast classifies receivers on port 8009 by it, so its absence is a warning.",
        basis: .deFacto, example: "fn=", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(["fn="])), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(without: ["fn"])), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(without: ["md"])), severity: .warning),
        ],
        nonTriggering: [RuleExample(Cast.datagram(Cast.txt(["fn=Living Room TV", "md=Chromecast"])))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        _ = Cast.required(
            "fn", "the friendly name", of: instance, in: message, as: descriptor, severity: .error, into: &out)
        if case .value = Cast.value("md", of: instance, in: message) { return }
        out.report(
            descriptor, severity: .warning,
            "\(AppTXT.name(instance, in: message)) TXT has no md (model name), which pychromecast classifies receivers by"
        )
    }
}

/// PROF-306: the SRV port is not 0; 8009 for a receiver.
struct CastPortRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-306", "cast-port", .error, "The Cast SRV port is not 0 (8009 for a receiver)",
        profiles: Cast.profiles, spec: "Open Screen DnsSdInstanceEndpointToReceiverInfo; pychromecast discovery",
        "Port 0 is invalid. Cast receivers listen on 8009; a group leader advertises a Cast group on another port, and clients take any other port for a group (info).",
        basis: .deFacto, example: "SRV port 0", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(Cast.datagram(Cast.txt(), port: 0), severity: .error),
            RuleExample(Cast.datagram(Cast.txt(), port: 32187), severity: .info),
        ],
        nonTriggering: [RuleExample(Cast.datagram(Cast.txt(), port: 8009))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard let port = AppTXT.port(instance, in: message), port != 8009 else { return }
        if port == 0 {
            out.report(descriptor, severity: .error, "\(AppTXT.name(instance, in: message)) SRV port is 0")
        } else {
            out.report(
                descriptor, severity: .info,
                "\(AppTXT.name(instance, in: message)) SRV port is \(port), not 8009: clients take it for a Cast group")
        }
    }
}

/// PROF-307: the instance label is `<model>-<id>`, as Google's receivers name it.
struct CastInstanceNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-307", "cast-instance-name", .info, "The instance label is <model>-<id without hyphens>",
        profiles: Cast.profiles, spec: "Open Screen CalculateInstanceId",
        "Google's receivers name their instance after the model (spaces as hyphens, at most 20 bytes), a hyphen and the TXT id without hyphens. Not in the CastV2 specification and not relied on by clients: a label that does not end in the id is only info.",
        basis: .notConfirmed, example: "Chromecast-0f1e2d3c4b5a69788796a5b4c3d2e1f0 with another id")
    static let examples = RuleExamples(
        triggering: [RuleExample(Cast.datagram(Cast.txt(), label: "Chromecast-0f1e2d3c4b5a69788796a5b4c3d2e1f0"))],
        nonTriggering: [
            RuleExample(Cast.datagram(Cast.txt())),
            // The id with hyphens still names the label.
            RuleExample(Cast.datagram(Cast.txt(["id=c57f10c7-5ee9-0c30-2bc9-1438ca69ff3a"]))),
        ])

    static let idDigits = 32
    static let maxModel = 20

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message), let label = AppTXT.instanceLabel(instance, in: message) else {
            return
        }
        let p = message.message.payload
        guard case .value(let id) = Cast.value("id", of: instance, in: message), AppTXT.isUUIDHex(p, id) else { return }
        let suffix = (label.upperBound - min(label.count, idDigits))..<label.upperBound
        let model = label.lowerBound..<max(label.lowerBound, suffix.lowerBound - 1)
        if label.count > idDigits + 1, p[suffix.lowerBound - 1] == 0x2D, AppTXT.sameHexDigits(p, suffix, id) {
            if model.count <= maxModel { return }
            out.report(
                descriptor,
                "\(AppTXT.name(instance, in: message)): the model part of the instance label is \(model.count) bytes (Google's receivers keep at most 20)"
            )
        } else {
            out.report(
                descriptor,
                "\(AppTXT.name(instance, in: message)): the instance label does not end in -<id> (id=\(AppTXT.show(p, id)))"
            )
        }
    }
}
