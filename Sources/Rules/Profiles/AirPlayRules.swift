import DNS
import Findings
import NetLayers
import WireFormat

// PROF-4xx: AirPlay (`_airplay._tcp`), AirPlay audio (`_raop._tcp`) and Spotify Connect
// (`_spotify-connect._tcp`; shared/rules/profiles.md). Apple publishes no AirPlay
// specification: the contract is de facto, set by what shairport-sync advertises and what
// OwnTone accepts; Spotify's ZeroConf keys are librespot's and cspot's.

/// What the AirPlay, RAOP and Spotify Connect rules share: the features value and examples.
enum AirPlay {
    static let airPlayProfiles = ServiceProfiles(.airPlay)
    static let raopProfiles = ServiceProfiles(.raop)

    /// A features value (`features`, `ft`): one or two comma-separated `0x` words of at most
    /// 8 hexadecimal digits (32 bits), low word first, as one 64-bit value, and how many words
    /// were written. Read in one pass: it is read from every AirPlay and RAOP TXT.
    static func features(_ p: [UInt8], _ r: Range<Int>) -> (value: UInt64, words: Int)? {
        var value: UInt64 = 0
        var k = r.lowerBound
        for words in 1...2 {
            guard AppTXT.hasHexPrefix(p, k..<r.upperBound) else { return nil }
            k += 2
            var word: UInt64 = 0
            var digits = 0
            while k < r.upperBound, p[k] != 0x2C {
                guard digits < 8, let d = AppTXT.hexValue(p[k]) else { return nil }
                word = word &<< 4 | d
                digits &+= 1
                k &+= 1
            }
            guard digits > 0 else { return nil }
            value |= word << (32 * UInt64(words - 1))
            if k == r.upperBound { return (value, words) }
            k += 1
        }
        return nil
    }

    /// A features value as shairport-sync writes it (`0x<low>,0x<high>`).
    static func show(features v: UInt64) -> String {
        "0x" + String(v & 0xFFFF_FFFF, radix: 16, uppercase: true) + ",0x" + String(v >> 32, radix: 16, uppercase: true)
    }

    /// A 48-bit device ID as 12 upper-case hexadecimal digits.
    static func show(deviceID v: UInt64) -> String {
        let digits = String(v & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }

    /// The 12 hexadecimal digits before the `@` of a RAOP instance label, as a 48-bit value.
    static func raopPrefix(_ p: [UInt8], _ label: Range<Int>) -> UInt64? {
        guard let at = label.first(where: { p[$0] == 0x40 }), at - label.lowerBound == 12 else { return nil }
        return AppTXT.hex(p, label.lowerBound..<at, maxDigits: 12)
    }

    // MARK: Examples

    static let raopTXT = [
        "cn=0,1", "da=true", "et=0,4", "ft=0x445D0A00,0x1C340", "md=0,1,2", "sf=0x4", "tp=UDP", "txtvers=1",
        "vn=65537", "vs=366.0",
    ]
    static let airPlayTXT = [
        "acl=0", "deviceid=74:1B:B2:D1:1A:B7", "features=0x445D0A00,0x1C340", "flags=0x4", "model=AppleTV5,3",
        "protovers=1.1", "srcvers=366.0", "pi=2e388006-13ba-4041-9a67-25dd4a43d536",
        "pk=" + String(repeating: "5d", count: 32),
    ]
    static let spotifyTXT = ["VERSION=1.0", "CPath=/"]

    /// `base` with `changes` (`key=value` strings replacing the key's pair, or added) and
    /// without the keys in `without`.
    static func txt(_ base: [String], _ changes: [String] = [], without: [String] = []) -> [String] {
        func key(_ s: String) -> Substring { s.prefix { $0 != "=" } }
        let replaced = Set(changes.map(key))
        return base.filter { !replaced.contains(key($0)) && !without.contains(String(key($0))) } + changes
    }

    /// An instance's SRV (on `target`) and TXT, added to `b`.
    static func instance(_ b: inout DNSBuilder, _ owner: String, port: UInt16, target: String, txt: [String]) {
        b.record(.answer, owner, 33, flush: true, rdata: B.srv(port, target))
        b.record(.answer, owner, 16, flush: true, ttl: 4500, rdata: B.txt(txt))
    }

    static func raop(_ txt: [String], label: String = "741BB2D11AB7@Kitchen") -> Datagram {
        mdns(response { instance(&$0, "\(label)._raop._tcp.local", port: 7000, target: "kitchen.local", txt: txt) })
    }

    static func airPlay(_ txt: [String]) -> Datagram {
        mdns(response { instance(&$0, "Kitchen._airplay._tcp.local", port: 7000, target: "kitchen.local", txt: txt) })
    }

    static func spotify(_ txt: [String]) -> Datagram {
        mdns(
            response {
                instance(&$0, "Kitchen._spotify-connect._tcp.local", port: 4070, target: "kitchen.local", txt: txt)
            })
    }

    /// One receiver's RAOP and AirPlay instances in one response, on hosts `raopHost` and
    /// `airPlayHost`.
    static func receiver(
        raop: [String] = raopTXT, airPlay: [String] = airPlayTXT, raopLabel: String = "741BB2D11AB7@Kitchen",
        raopHost: String = "kitchen.local", airPlayHost: String = "kitchen.local", at t: Double = 0
    ) -> Datagram {
        mdns(
            response { b in
                instance(&b, "\(raopLabel)._raop._tcp.local", port: 7000, target: raopHost, txt: raop)
                instance(&b, "Kitchen._airplay._tcp.local", port: 7000, target: airPlayHost, txt: airPlay)
            }, at: t)
    }
}

/// PROF-401: the RAOP instance label is `<device ID>@<name>`.
struct RAOPInstanceNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-401", "raop-instance-name", .error, "The RAOP instance label is <12 hex digits>@<name>",
        profiles: AirPlay.raopProfiles, spec: "shairport-sync mdns_register; OwnTone raop_device_cb",
        "A _raop._tcp instance label is the device ID (6 bytes as 12 hexadecimal digits; shairport-sync writes upper case), an @ and the display name. Clients parse the prefix as a hexadecimal number and drop the service when that fails or the @ is missing.",
        basis: .notConfirmed, interop: "OwnTone drops the service (\"Could not extract AirPlay device ID\")",
        example: "Kitchen._raop._tcp.local.")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.raop(AirPlay.raopTXT, label: "Kitchen")),
            RuleExample(AirPlay.raop(AirPlay.raopTXT, label: "74:1B:B2:D1:1A:B7@Kitchen")),
            RuleExample(AirPlay.raop(AirPlay.raopTXT, label: "741BB2D11AB7@")),
        ],
        nonTriggering: [RuleExample(AirPlay.raop(AirPlay.raopTXT, label: "741BB2D11AB7@Kitchen"))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard message.isResponse, let label = AppTXT.instanceLabel(instance, in: message) else { return }
        let p = message.message.payload
        guard let at = label.first(where: { p[$0] == 0x40 }) else {
            out.report(
                descriptor, "\(AppTXT.name(instance, in: message)): the instance label has no <device ID>@ prefix")
            return
        }
        if AirPlay.raopPrefix(p, label) == nil {
            out.report(
                descriptor,
                "\(AppTXT.name(instance, in: message)): \(AppTXT.show(p, label.lowerBound..<at)) before the @ is not 12 hexadecimal digits"
            )
        }
        if at + 1 == label.upperBound {
            out.report(descriptor, "\(AppTXT.name(instance, in: message)): the instance label has no name after the @")
        }
    }
}

/// PROF-402: the RAOP TXT has a `tp` with UDP, and the keys in the forms shairport-sync writes.
struct RAOPTXTRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-402", "raop-txt", .error, "The RAOP TXT has tp with UDP; its other keys in their written forms",
        profiles: AirPlay.raopProfiles, spec: "OwnTone raop_device_cb; shairport-sync build_bonjour_strings",
        "tp (transports) is present, not empty, and lists UDP (AirTunes v2); pw, when present, has a value (true or false). Those are errors: OwnTone discards the receiver. The other keys, when present, in the forms shairport-sync writes them are warnings: sf and ft hexadecimal (0x…; ft one or two words), md a list of 0, 1, 2, et and cn lists of decimals, vn a decimal, txtvers=1.",
        basis: .deFacto, interop: "OwnTone discards a receiver without UDP in tp (\"does not support AirTunes v2\")",
        example: "tp=TCP", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["tp=TCP"])), severity: .error),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["tp="])), severity: .error),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, without: ["tp"])), severity: .error),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["pw="])), severity: .error),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["sf=4"])), severity: .warning),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["md=0,3"])), severity: .warning),
        ],
        nonTriggering: [
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["tp=UDP"]))),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["tp=TCP,UDP", "ft=0x5A7FFFF7"]))),
            RuleExample(AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["pw=false"]))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        let name = { AppTXT.name(instance, in: message) }
        switch instance.txtValue("tp", in: message) {
        case nil:
            out.report(descriptor, severity: .error, "\(name()) TXT lacks tp (the transports)")
        case .some(let v?) where !v.isEmpty:
            var udp = false
            ASCII.forEachPiece(of: p[v], separatedBy: 0x2C) { item in
                udp = ASCII.equalsIgnoringCase(item, "UDP".utf8)
                return !udp
            }
            if !udp {
                out.report(
                    descriptor, severity: .error,
                    "\(name()) tp=\(AppTXT.show(p, v)) does not list UDP (AirTunes v2)")
            }
        case .some:
            out.report(descriptor, severity: .error, "\(name()) tp has no value")
        }
        if let found = instance.txtValue("pw", in: message), found?.isEmpty ?? true {
            out.report(descriptor, severity: .error, "\(name()) pw has no value (true or false)")
        }
        func judge(_ key: StaticString, _ form: String, _ valid: (Range<Int>) -> Bool) {
            guard let found = instance.txtValue(key, in: message) else { return }
            if let v = found, valid(v) { return }
            out.report(
                descriptor, severity: .warning,
                "\(name()) \(key)=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not \(form)")
        }
        judge("sf", "hexadecimal (0x…)") { AppTXT.prefixedHex(p, $0) != nil }
        judge("ft", "one or two hexadecimal words (0x…,0x…)") { AirPlay.features(p, $0) != nil }
        judge("md", "a list of 0, 1, 2") { v in
            AppTXT.isList(p, v) { $0.count == 1 && p[$0.lowerBound] >= 0x30 && p[$0.lowerBound] <= 0x32 }
        }
        judge("et", "a list of decimals") { v in AppTXT.isList(p, v) { AppTXT.decimal(p, $0) != nil } }
        judge("cn", "a list of decimals") { v in AppTXT.isList(p, v) { AppTXT.decimal(p, $0) != nil } }
        judge("vn", "a decimal") { AppTXT.decimal(p, $0) != nil }
        judge("txtvers", "1") { p[$0].equals("1") }
    }
}

/// PROF-403: the AirPlay TXT has `deviceid` as `AA:BB:CC:DD:EE:FF`.
struct AirPlayDeviceIDRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-403", "airplay-device-id", .error, "The AirPlay TXT has deviceid as AA:BB:CC:DD:EE:FF",
        profiles: AirPlay.airPlayProfiles, spec: "OwnTone airplay_device_cb; shairport-sync build_bonjour_strings",
        "deviceid is present: six hexadecimal bytes separated by colons.", basis: .deFacto,
        interop: "OwnTone drops a receiver without a device ID it can parse", example: "deviceid=xyz")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, without: ["deviceid"]))),
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["deviceid=xyz"]))),
        ],
        nonTriggering: [RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["deviceid=74:1B:B2:D1:1A:B7"])))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard let found = instance.txtValue("deviceid", in: message) else {
            out.report(descriptor, "\(AppTXT.name(instance, in: message)) TXT lacks deviceid")
            return
        }
        if let v = found, AppTXT.colonDeviceID(p, v) != nil { return }
        out.report(
            descriptor,
            "\(AppTXT.name(instance, in: message)) deviceid=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not AA:BB:CC:DD:EE:FF"
        )
    }
}

/// PROF-404: `features` is two hexadecimal words, low first.
struct AirPlayFeaturesRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-404", "airplay-features", .error, "features is two hexadecimal 32-bit words (0x<low>,0x<high>)",
        profiles: AirPlay.airPlayProfiles, spec: "OwnTone airplay_device_cb, features_parse; shairport-sync",
        "The AirPlay features are two comma-separated 0x words, low word first. A single word (older receivers) is info, since OwnTone rejects it; an empty or unparsable value is an error. Bit 9 (audio) clear is no violation: audio senders just skip the receiver.",
        basis: .deFacto,
        interop: "OwnTone drops a receiver whose features lack the comma (\"Missing/unexpected 'features'\")",
        example: "features=zz,yy", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["features="])), severity: .error),
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["features=zz,yy"])), severity: .error),
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["features=0x445D0A00"])), severity: .info),
        ],
        nonTriggering: [
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["features=0x445D0A00,0x1C340"])))
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        guard let found = instance.txtValue("features", in: message) else { return }
        guard let v = found, let f = AirPlay.features(p, v) else {
            out.report(
                descriptor, severity: .error,
                "\(AppTXT.name(instance, in: message)) features=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not 0x<low>,0x<high>"
            )
            return
        }
        if f.words == 1 {
            out.report(
                descriptor, severity: .info,
                "\(AppTXT.name(instance, in: message)) features=\(AppTXT.show(p, v)) is a single word without the high half"
            )
        }
    }
}

/// PROF-405: the other AirPlay 2 keys in the forms receivers write them.
struct AirPlayTXTKeysRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-405", "airplay-txt-keys", .warning, "The other AirPlay keys are in the forms receivers write",
        profiles: AirPlay.airPlayProfiles, spec: "shairport-sync build_bonjour_strings; OwnTone TXT examples",
        "When present: flags hexadecimal (0x…), model not empty, srcvers dotted decimal (366.0, 525.38.42), protovers=1.1, pk hexadecimal, pi, psi and gid not empty, acl a decimal.",
        basis: .notConfirmed, example: "flags=68")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["flags=68"]))),
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["srcvers=v1"]))),
            RuleExample(AirPlay.airPlay(AirPlay.txt(AirPlay.airPlayTXT, ["model="]))),
        ],
        nonTriggering: [
            RuleExample(
                AirPlay.airPlay(
                    AirPlay.txt(AirPlay.airPlayTXT, ["flags=0x244", "model=AppleTV5,3", "srcvers=525.38.42"])))
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        func judge(_ key: StaticString, _ form: String, _ valid: (Range<Int>) -> Bool) {
            guard let found = instance.txtValue(key, in: message) else { return }
            if let v = found, !v.isEmpty, valid(v) { return }
            out.report(
                descriptor,
                "\(AppTXT.name(instance, in: message)) \(key)=\(found.flatMap { $0 }.map { AppTXT.show(p, $0) } ?? "") is not \(form)"
            )
        }
        judge("flags", "hexadecimal (0x…)") { AppTXT.prefixedHex(p, $0) != nil }
        judge("model", "a model name") { _ in true }
        judge("srcvers", "a dotted decimal version") { AppTXT.isDotted(p, $0, dots: 0...3) }
        judge("protovers", "1.1") { p[$0].equals("1.1") }
        judge("pk", "a hexadecimal public key") { AppTXT.isHexDigits(p, $0) }
        judge("pi", "an identifier") { _ in true }
        judge("psi", "an identifier") { _ in true }
        judge("gid", "an identifier") { _ in true }
        judge("acl", "a decimal") { AppTXT.decimal(p, $0) != nil }
    }
}

/// PROF-406: one receiver's RAOP and AirPlay instances agree on features and device ID.
struct AirPlayRAOPConsistencyRule: SessionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-406", "airplay-raop-consistent", .info, "RAOP and AirPlay of one host advertise one features value",
        profiles: ServiceProfiles(.airPlay, .raop), spec: "shairport-sync build_bonjour_strings",
        "A host (SRV target) that advertises both _raop._tcp and _airplay._tcp uses one features value in both (ft and features), and normally the same device ID in the RAOP label's prefix and deviceid. Judged on instances whose SRV and TXT come in one response; the values are compared as numbers.",
        basis: .notConfirmed, example: "ft=0x445D0A00,0x1C340 and features=0x5A7FDFD5,0x3C155FDE on one host",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                AirPlay.receiver(
                    airPlay: AirPlay.txt(AirPlay.airPlayTXT, ["features=0x5A7FDFD5,0x3C155FDE"]))),
            RuleExample([
                AirPlay.receiver(raopLabel: "AABBCCDDEEFF@Kitchen", at: 0)
            ]),
            // The two instances in messages of their own.
            RuleExample([
                AirPlay.raop(AirPlay.txt(AirPlay.raopTXT, ["ft=0x5A7FDFD5,0x3C155FDE"])),
                AirPlay.airPlay(AirPlay.airPlayTXT),
            ]),
        ],
        nonTriggering: [
            RuleExample(AirPlay.receiver()),
            // Written differently, the same value.
            RuleExample(AirPlay.receiver(raop: AirPlay.txt(AirPlay.raopTXT, ["ft=0x445d0a00,0x0001C340"]))),
            // Two hosts.
            RuleExample(
                AirPlay.receiver(
                    airPlay: AirPlay.txt(AirPlay.airPlayTXT, ["features=0x5A7FDFD5,0x3C155FDE"]),
                    airPlayHost: "den.local")),
        ])

    static let horizon = 4500.0

    /// What a host's RAOP and AirPlay instances advertise (a verdict row,
    /// `MDNSVerdicts.airPlayHosts`), with the frames that showed it.
    struct Host {
        var raopFeatures: UInt64? = nil
        var airPlayFeatures: UInt64? = nil
        var raopID: UInt64? = nil
        var deviceID: UInt64? = nil
        var raopFrame = 0
        var airPlayFrame = 0
        /// The disagreement of the current values was reported.
        var featuresReported = false
        var idReported = false
        var last: Timestamp
    }

    /// What one instance told, and what its host's row then shows.
    struct Disagreement {
        var raop: UInt64
        var airPlay: UInt64
        var other: Int
    }

    static func judge(_ e: MDNSEvent, in store: inout MDNSSessionStore, into out: inout SessionReports) {
        guard let i = e.input, !e.atEnd, i.isResponse, !i.decoded.profileInstances.isEmpty else { return }
        let m = i.decoded
        let p = m.message.payload
        for instance in m.profileInstances
        where instance.profiles.contains(.raop) || instance.profiles.contains(.airPlay) {
            guard AppTXT.judged(instance, in: m), let host = AppTXT.target(instance, in: m) else { continue }
            let isRAOP = instance.profiles.contains(.raop)
            let features: UInt64?
            let id: UInt64?
            if isRAOP {
                features = instance.txtValue("ft", in: m).flatMap { $0 }.flatMap { AirPlay.features(p, $0)?.value }
                id = AppTXT.instanceLabel(instance, in: m).flatMap { AirPlay.raopPrefix(p, $0) }
            } else {
                features = instance.txtValue("features", in: m).flatMap { $0 }.flatMap {
                    AirPlay.features(p, $0)?.value
                }
                id = instance.txtValue("deviceid", in: m).flatMap { $0 }.flatMap { AppTXT.colonDeviceID(p, $0) }
            }
            guard features != nil || id != nil else { continue }
            let (f, d) = store.verdicts.airPlayHosts.update(
                WordKey(host), default: Host(last: e.time), at: e.time, evicted: &out.evictions
            ) { row -> (Disagreement?, Disagreement?) in
                row.last = e.time
                if isRAOP {
                    row.raopFrame = e.frame
                    if let features, row.raopFeatures != features {
                        row.raopFeatures = features
                        row.featuresReported = false
                    }
                    if let id, row.raopID != id {
                        row.raopID = id
                        row.idReported = false
                    }
                } else {
                    row.airPlayFrame = e.frame
                    if let features, row.airPlayFeatures != features {
                        row.airPlayFeatures = features
                        row.featuresReported = false
                    }
                    if let id, row.deviceID != id {
                        row.deviceID = id
                        row.idReported = false
                    }
                }
                let other = isRAOP ? row.airPlayFrame : row.raopFrame
                var f: Disagreement? = nil
                var d: Disagreement? = nil
                if !row.featuresReported, let a = row.raopFeatures, let b = row.airPlayFeatures, a != b {
                    row.featuresReported = true
                    f = Disagreement(raop: a, airPlay: b, other: other)
                }
                if !row.idReported, let a = row.raopID, let b = row.deviceID, a != b {
                    row.idReported = true
                    d = Disagreement(raop: a, airPlay: b, other: other)
                }
                return (f, d)
            }
            if let f {
                out.report(
                    descriptor,
                    "\(AppTXT.name(instance, in: m)): the host's RAOP ft=\(AirPlay.show(features: f.raop)) and AirPlay features=\(AirPlay.show(features: f.airPlay)) differ (frame \(f.other))",
                    related: [f.other], profile: isRAOP ? .raop : .airPlay, instance: instance.nameKey)
            }
            if let d {
                out.report(
                    descriptor,
                    "\(AppTXT.name(instance, in: m)): the host's RAOP device ID \(AirPlay.show(deviceID: d.raop)) and AirPlay deviceid \(AirPlay.show(deviceID: d.airPlay)) differ (frame \(d.other))",
                    related: [d.other], profile: isRAOP ? .raop : .airPlay, instance: instance.nameKey)
            }
        }
    }
}

/// PROF-407: the Spotify Connect TXT has `VERSION` and a `CPath` starting with `/`.
struct SpotifyConnectTXTRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-407", "spotify-connect-txt", .error, "The Spotify Connect TXT has VERSION and CPath starting with /",
        profiles: ServiceProfiles(.spotifyConnect), spec: "librespot discovery TXT_RECORD; cspot; Spotify ZeroConf API",
        "VERSION (the ZeroConf API version, 1.0) is present with a value, and CPath is the HTTP path of the ZeroConf API, starting with /. Stack (SP) is optional.",
        basis: .deFacto, example: "CPath=spotifyzc")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(AirPlay.spotify(AirPlay.txt(AirPlay.spotifyTXT, without: ["CPath"]))),
            RuleExample(AirPlay.spotify(AirPlay.txt(AirPlay.spotifyTXT, ["CPath=spotifyzc"]))),
            RuleExample(AirPlay.spotify(AirPlay.txt(AirPlay.spotifyTXT, without: ["VERSION"]))),
        ],
        nonTriggering: [
            RuleExample(AirPlay.spotify(["CPath=/", "VERSION=1.0"])),
            RuleExample(AirPlay.spotify(["CPath=/spotifyzc", "VERSION=1.0", "Stack=SP"])),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in message: MDNSMessageView,
        into out: inout FindingSink
    ) {
        guard AppTXT.judged(instance, in: message) else { return }
        let p = message.message.payload
        switch instance.txtValue("VERSION", in: message) {
        case nil: out.report(descriptor, "\(AppTXT.name(instance, in: message)) TXT lacks VERSION")
        case .some(let v?) where !v.isEmpty: break
        case .some: out.report(descriptor, "\(AppTXT.name(instance, in: message)) VERSION has no value")
        }
        switch instance.txtValue("CPath", in: message) {
        case nil:
            out.report(descriptor, "\(AppTXT.name(instance, in: message)) TXT lacks CPath (the ZeroConf API's path)")
        case .some(let v?) where !v.isEmpty && p[v.lowerBound] == 0x2F:
            break
        case .some(let v):
            out.report(
                descriptor,
                "\(AppTXT.name(instance, in: message)) CPath=\(v.map { AppTXT.show(p, $0) } ?? "") does not start with /"
            )
        }
    }
}
