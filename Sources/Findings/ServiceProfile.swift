import WireFormat

/// A product ecosystem's discovery contract on top of DNS-SD or SSDP (shared/rules/profiles.md):
/// what a Matter node, a HomeKit accessory, a printer or a Cast receiver must advertise for
/// its own controllers to find it. An instance claims a profile by its service type or by a
/// subtype it is listed under, never by its TXT keys alone.
public enum ServiceProfile: String, CaseIterable, Sendable, Hashable, Codable, Comparable {
    case matterCommissionable = "matter-commissionable"
    case matterCommissioner = "matter-commissioner"
    case matterOperational = "matter-operational"
    case homeKit = "homekit"
    case ippEverywhere = "ipp-everywhere"
    case airPrint = "airprint"
    case bonjourPrinting = "bonjour-printing"
    case cast = "cast"
    case airPlay = "airplay"
    case raop = "raop"
    case spotifyConnect = "spotify-connect"
    case upnpMediaServer = "upnp-mediaserver"
    case upnpMediaRenderer = "upnp-mediarenderer"
    case upnpIGD = "upnp-igd"
    case dial = "dial"
    case rokuECP = "roku-ecp"

    public static func < (a: Self, b: Self) -> Bool { a.bit < b.bit }

    /// The profile's bit in a `ServiceProfiles` set: its place among the cases, in
    /// declaration order (`allCases`), which a test checks.
    var bit: UInt32 {
        let place: UInt32 =
            switch self {
            case .matterCommissionable: 0
            case .matterCommissioner: 1
            case .matterOperational: 2
            case .homeKit: 3
            case .ippEverywhere: 4
            case .airPrint: 5
            case .bonjourPrinting: 6
            case .cast: 7
            case .airPlay: 8
            case .raop: 9
            case .spotifyConnect: 10
            case .upnpMediaServer: 11
            case .upnpMediaRenderer: 12
            case .upnpIGD: 13
            case .dial: 14
            case .rokuECP: 15
            }
        return 1 << place
    }

    /// `allCases`, made once (the synthesized property builds a new array on every call).
    static let ordered = allCases

    /// The DNS-SD service types that claim a profile by themselves, as their labels are
    /// written (`_matterc`, `_udp`): the one table both the decoded-message path (bytes,
    /// `ProfileInstances`) and the inventory (text) read.
    public static let serviceTypes: [(service: StaticString, proto: StaticString, profile: ServiceProfile)] = [
        ("_matterc", "_udp", .matterCommissionable), ("_matterd", "_udp", .matterCommissioner),
        ("_matter", "_tcp", .matterOperational), ("_hap", "_tcp", .homeKit), ("_hap", "_udp", .homeKit),
        ("_ipp", "_tcp", .bonjourPrinting), ("_ipps", "_tcp", .bonjourPrinting), ("_printer", "_tcp", .bonjourPrinting),
        ("_pdl-datastream", "_tcp", .bonjourPrinting), ("_googlecast", "_tcp", .cast), ("_airplay", "_tcp", .airPlay),
        ("_raop", "_tcp", .raop), ("_spotify-connect", "_tcp", .spotifyConnect),
    ]

    /// The subtypes an instance claims a profile by being listed under, of the printing
    /// services they apply to: `_print._sub._ipp._tcp` is IPP Everywhere,
    /// `_universal._sub._ipp._tcp` AirPrint (and the same under `_ipps`).
    public static let subtypes: [(sub: StaticString, profile: ServiceProfile)] = [
        ("_print", .ippEverywhere), ("_universal", .airPrint),
    ]
    public static let subtypedServices: [StaticString] = ["_ipp", "_ipps"]

    /// The profile a DNS-SD service type claims by itself, given its service and protocol
    /// labels with their underscores (`_matterc`, `_udp`), in any case.
    public static func claimed(byService service: String, proto: String) -> ServiceProfile? {
        let s = Array(service.utf8)
        let p = Array(proto.utf8)
        return serviceTypes.first {
            ASCII.equalsIgnoringCase(s, s.indices, $0.service) && ASCII.equalsIgnoringCase(p, p.indices, $0.proto)
        }?.profile
    }

    /// Whether instances of service label `service` (`_ipp`) claim profiles by subtype.
    public static func takesSubtypeClaims(service: some StringProtocol) -> Bool {
        let s = Array(service.utf8)
        return subtypedServices.contains { ASCII.equalsIgnoringCase(s, s.indices, $0) }
    }

    /// The profile an instance of service label `service` claims by being listed under
    /// subtype label `sub` (both with their underscores, in any case).
    public static func claimed(bySubtype sub: String, of service: String) -> ServiceProfile? {
        guard takesSubtypeClaims(service: service) else { return nil }
        let b = Array(sub.utf8)
        return subtypes.first { ASCII.equalsIgnoringCase(b, b.indices, $0.sub) }?.profile
    }

    /// The SSDP notification and search targets that claim a profile, written in lower case
    /// and compared case aside: a UPnP device type or DIAL's service type of any version
    /// (`prefix`), Roku's `roku:ecp` whole.
    private static let ssdpTypes: [(type: StaticString, prefix: Bool, profile: ServiceProfile)] = [
        ("urn:schemas-upnp-org:device:mediaserver:", true, .upnpMediaServer),
        ("urn:schemas-upnp-org:device:mediarenderer:", true, .upnpMediaRenderer),
        ("urn:schemas-upnp-org:device:internetgatewaydevice:", true, .upnpIGD),
        ("urn:dial-multiscreen-org:service:dial:", true, .dial),
        ("roku:ecp", false, .rokuECP),
    ]

    /// The profile the SSDP notification or search target at `range` of `bytes` claims: a UPnP
    /// device type (`urn:schemas-upnp-org:device:MediaServer:1`), DIAL's service type, Roku's
    /// `roku:ecp`. Only the profiles `among` are looked for (every one by default): a run
    /// whose rules judge DIAL compares no target with the UPnP device types.
    public static func claimed(
        bySSDPType bytes: [UInt8], _ range: Range<Int>, among: ServiceProfiles = ServiceProfiles(rawValue: .max)
    ) -> ServiceProfile? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        for t in ssdpTypes where among.contains(t.profile) {
            let n = t.type.utf8CodeUnitCount
            guard t.prefix ? range.count >= n : range.count == n else { continue }
            if ASCII.equalsIgnoringCase(bytes, range.lowerBound..<(range.lowerBound + n), t.type) { return t.profile }
        }
        return nil
    }

    /// `claimed(bySSDPType:_:)` of a target as text.
    public static func claimed(bySSDPType type: String) -> ServiceProfile? {
        let b = Array(type.utf8)
        return claimed(bySSDPType: b, b.indices)
    }

    /// The profiles a DNS-SD instance claims by its service type (`_ipp._tcp`) and the
    /// subtype labels it was listed under (`_print`).
    public static func claimed(serviceType: String, subtypes: [String]) -> ServiceProfiles {
        let labels = serviceType.split(separator: ".")
        guard labels.count >= 2 else { return [] }
        let service = String(labels[0])
        var profiles = ServiceProfiles()
        if let p = claimed(byService: service, proto: String(labels[1])) { profiles.insert(p) }
        for s in subtypes {
            if let p = claimed(bySubtype: s, of: service) { profiles.insert(p) }
        }
        return profiles
    }

    /// The profiles an instance of this one's service should claim too, when a product
    /// gates on it: every `_ipp`/`_ipps` printer is judged for IPP Everywhere and AirPrint
    /// (an instance of the service without the subtype fails the gate), every other profile
    /// is claimed by its service type alone.
    public var claimedBySubtype: Bool { Self.subtypes.contains { $0.profile == self } }

    /// What reports call it ("Matter commissionable node").
    public var title: String {
        switch self {
        case .matterCommissionable: "Matter commissionable node"
        case .matterCommissioner: "Matter commissioner"
        case .matterOperational: "Matter operational node"
        case .homeKit: "HomeKit accessory"
        case .ippEverywhere: "IPP Everywhere printer"
        case .airPrint: "AirPrint printer"
        case .bonjourPrinting: "Bonjour printer"
        case .cast: "Google Cast receiver"
        case .airPlay: "AirPlay receiver"
        case .raop: "AirPlay audio (RAOP) receiver"
        case .spotifyConnect: "Spotify Connect device"
        case .upnpMediaServer: "UPnP MediaServer"
        case .upnpMediaRenderer: "UPnP MediaRenderer"
        case .upnpIGD: "UPnP InternetGatewayDevice"
        case .dial: "DIAL server"
        case .rokuECP: "Roku ECP device"
        }
    }
}

/// A set of profiles, one bit each (an instance claims a few; a rule applies to a few).
public struct ServiceProfiles: OptionSet, Sendable, Hashable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ profiles: ServiceProfile...) { self.init(profiles) }
    public init(_ profiles: some Sequence<ServiceProfile>) {
        rawValue = profiles.reduce(0) { $0 | $1.bit }
    }

    public static let matter = ServiceProfiles(.matterCommissionable, .matterCommissioner, .matterOperational)
    public static let printing = ServiceProfiles(.ippEverywhere, .airPrint, .bonjourPrinting)

    public func contains(_ p: ServiceProfile) -> Bool { rawValue & p.bit != 0 }
    /// Whether the two sets share a profile.
    public func intersects(_ other: ServiceProfiles) -> Bool { rawValue & other.rawValue != 0 }
    /// The set of one profile.
    public init(only p: ServiceProfile) { rawValue = p.bit }
    public mutating func insert(_ p: ServiceProfile) { rawValue |= p.bit }
    /// The members, in declaration order.
    public var members: [ServiceProfile] { ServiceProfile.ordered.filter { contains($0) } }
    /// The first member in declaration order (no array made).
    public var first: ServiceProfile? {
        rawValue == 0 ? nil : ServiceProfile.ordered[rawValue.trailingZeroBitCount]
    }
}

/// How firmly a rule's requirement is established (shared/rules/profiles.md "Conventions").
public enum RuleBasis: String, Sendable, Hashable, Codable {
    /// Stated by the specification (or quoted from it verbatim).
    case specified
    /// Set by the reference implementations: no public specification exists.
    case deFacto = "de-facto"
    /// Its wording, section or force could not be confirmed: it ships as a warning.
    case notConfirmed = "not-confirmed"
}

/// One PROF finding as the inventory's profile verdicts count it: the instance (by name key)
/// or SSDP device it is about, its profile, rule and severity.
public struct ProfileFinding: Sendable {
    public var instance: UInt64
    public var device: String?
    public var profile: ServiceProfile
    public var rule: RuleID
    public var severity: Severity

    public init(instance: UInt64, device: String?, profile: ServiceProfile, rule: RuleID, severity: Severity) {
        self.instance = instance
        self.device = device
        self.profile = profile
        self.rule = rule
        self.severity = severity
    }
}

/// How the run's instances of one profile fared: the summary's `profiles` line, and what
/// `--profile` gates on.
public struct ProfileResult: Sendable, Hashable {
    public var profile: ServiceProfile
    /// Asked for with `--profile`: the run fails unless `passed`.
    public var gated: Bool
    /// The instances (DNS-SD instance names, SSDP device IDs) that claim it, with the rules
    /// each failed (at or above the run's `--fail-on`; none: it meets the profile).
    public var members: [Member] = []
    /// Instances of the profile's service that should claim it and do not (a printer not
    /// listed under `_print._sub._ipp._tcp` for IPP Everywhere).
    public var missing: [String] = []

    public struct Member: Sendable, Hashable {
        public var name: String
        public var failed: [RuleID]
        public init(name: String, failed: [RuleID]) {
            self.name = name
            self.failed = failed
        }
    }

    public init(profile: ServiceProfile, gated: Bool) {
        self.profile = profile
        self.gated = gated
    }

    /// How many failing instances the text names.
    public static let namesShown = 3

    /// Some instance claims it, every one meets it, and none that should claim it does not.
    public var passed: Bool { !members.isEmpty && missing.isEmpty && members.allSatisfy { $0.failed.isEmpty } }

    /// `ipp-everywhere ✘ 1 of 2 instance(s) fail: Office._ipp._tcp.local. (PROF-202)`.
    public var text: String {
        let failing = members.filter { !$0.failed.isEmpty }
        if members.isEmpty && missing.isEmpty { return profile.rawValue + " ✘ no instance claims it" }
        if passed { return profile.rawValue + " ✔ \(members.count) instance(s)" }
        var parts = failing.map { "\($0.name) (\($0.failed.map(\.rawValue).joined(separator: " ")))" }
        parts += missing.map { "\($0) (does not claim it)" }
        let all = members.count + missing.count
        // The first few by name; JSON lines and `discoscope inventory` list every one.
        let shown = parts.prefix(Self.namesShown).joined(separator: ", ")
        let more = parts.count > Self.namesShown ? ", … \(parts.count - Self.namesShown) more" : ""
        return profile.rawValue + " ✘ \(failing.count + missing.count) of \(all) instance(s) fail: " + shown + more
    }
}
