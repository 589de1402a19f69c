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

    /// The profile's bit in a `ServiceProfiles` set.
    var bit: UInt32 {
        UInt32(1) << UInt32(Self.allCases.firstIndex(of: self) ?? 0)
    }

    /// The profile a DNS-SD service type claims by itself (`_matterc._udp` …), given its
    /// service label without the underscore and its protocol label (`tcp`/`udp`), both lower
    /// case. Subtype claims (`_print`, `_universal`) are `claimed(bySubtype:of:)`.
    public static func claimed(byService service: String, proto: String) -> ServiceProfile? {
        switch (service, proto) {
        case ("matterc", "udp"): .matterCommissionable
        case ("matterd", "udp"): .matterCommissioner
        case ("matter", "tcp"): .matterOperational
        case ("hap", "tcp"), ("hap", "udp"): .homeKit
        case ("ipp", "tcp"), ("ipps", "tcp"), ("printer", "tcp"), ("pdl-datastream", "tcp"): .bonjourPrinting
        case ("googlecast", "tcp"): .cast
        case ("airplay", "tcp"): .airPlay
        case ("raop", "tcp"): .raop
        case ("spotify-connect", "tcp"): .spotifyConnect
        default: nil
        }
    }

    /// The profile an instance claims by being listed under subtype `sub` (without the
    /// underscore, lower case) of `service`: `_print._sub._ipp._tcp` is IPP Everywhere,
    /// `_universal._sub._ipp._tcp` AirPrint (and the same under `_ipps`).
    public static func claimed(bySubtype sub: String, of service: String) -> ServiceProfile? {
        guard service == "ipp" || service == "ipps" else { return nil }
        switch sub {
        case "print": return .ippEverywhere
        case "universal": return .airPrint
        default: return nil
        }
    }

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
    public mutating func insert(_ p: ServiceProfile) { rawValue |= p.bit }
    /// The members, in declaration order.
    public var members: [ServiceProfile] { ServiceProfile.allCases.filter { contains($0) } }
}

/// How firmly a rule's requirement is established (shared/rules/profiles.md "Conventions").
public enum RuleBasis: String, Sendable, Hashable, Codable {
    /// Stated by the specification (or quoted from it verbatim).
    case specified
    /// Set by the reference implementations: no public specification exists.
    case deFacto = "de-facto"
    /// Its wording, section or force could not be confirmed: it ships as a warning.
    case unverified
}
