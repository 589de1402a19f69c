import WireFormat

/// Findings counted by severity (an inventory entry's `findings`).
public struct SeverityCounts: Sendable, Hashable {
    public var error = 0
    public var warning = 0
    public var info = 0
    public init() {}
    public init(error: Int, warning: Int, info: Int) {
        self.error = error
        self.warning = warning
        self.info = info
    }
    public mutating func add(_ s: Severity, times n: Int = 1) {
        switch s {
        case .error: error &+= n
        case .warning: warning &+= n
        case .info: info &+= n
        }
    }
    public mutating func add(_ o: SeverityCounts) {
        error &+= o.error
        warning &+= o.warning
        info &+= o.info
    }
    public var total: Int { error &+ warning &+ info }
    /// `2 errors, 1 warning` (or `no findings`).
    public var text: String {
        var parts: [String] = []
        func part(_ n: Int, _ one: String, _ many: String) { if n > 0 { parts.append("\(n) \(n == 1 ? one : many)") } }
        part(error, "error", "errors")
        part(warning, "warning", "warnings")
        part(info, "info", "info")
        return parts.isEmpty ? "no findings" : parts.joined(separator: ", ")
    }
}

/// One SSDP root device or mDNS host as a capture showed it (the CONTRACT's `device`
/// record). Plain values built from the session model at the end of an input: it holds no
/// packet, and reporters print it without a decoder.
public struct InventoryDevice: Sendable, Hashable {
    public var proto: RuleProtocol
    /// SSDP: the root device's UUID, lower case, without `uuid:`; mDNS: the host name with
    /// its trailing dot.
    public var id: String
    /// The input it came from (as given on the command line), when known.
    public var file: String?
    /// The segments (links) it was seen on, in the run's order; empty when its session had
    /// one unnamed segment.
    public var segments: [String] = []
    public var addresses: [String] = []
    /// The discovery groups (224.0.0.251, ff02::fb, 239.255.255.250, ff02::c) its addresses
    /// reported membership of (IGMP, MLD) and did not leave; empty when none was seen.
    public var memberships: [String] = []
    public var macs: [String] = []
    public var firstSeen: Timestamp = .zero
    public var lastSeen: Timestamp = .zero
    public var messages = 0
    public var findings = SeverityCounts()
    // SSDP
    public var server: String?
    public var upnpVersion: String?
    public var types: [String] = []
    public var locations: [String] = []
    public var bootIDs: [UInt64] = []
    public var maxAge: [UInt64] = []
    public var byebye = false
    public var embedded: [String] = []
    /// The service profiles its advertised types claim (SSDP), with the rules it failed.
    public var profiles: [InventoryProfile] = []
    /// SSDP, in a session of several segments: each segment it reached after the first one
    /// that showed it, with the source of its first message there (a multicast router keeps
    /// the device's own address; a proxy sends from its own) and how long after.
    public var forwarded: [InventoryForwarding] = []
    /// Some of what it advertised did not fit the model's bounds (lists are incomplete).
    public var incomplete = false
    // mDNS
    public var services: [String] = []
    public var goodbye = false

    public init(proto: RuleProtocol, id: String) {
        self.proto = proto
        self.id = id
    }
}

/// One DNS-SD service instance (the CONTRACT's `service` record).
public struct InventoryService: Sendable, Hashable {
    /// Full instance name with its trailing dot.
    public var instance: String
    public var file: String?
    /// The segments (links) its records were seen on, as for `InventoryDevice.segments`.
    public var segments: [String] = []
    /// `_http._tcp`, and its subtypes.
    public var serviceType: String = ""
    public var subtypes: [String] = []
    /// SRV target and port (nil until an SRV record was seen).
    public var host: String?
    public var port: Int?
    public var txt: [String] = []
    /// Addresses of the SRV target.
    public var addresses: [String] = []
    public var firstSeen: Timestamp = .zero
    public var lastSeen: Timestamp = .zero
    public var goodbye = false
    public var findings = SeverityCounts()
    /// In a session of several segments: each segment it reached after the first one that
    /// showed it, with the source that showed it there (a reflector or gateway, or the host
    /// itself on another interface) and how long after.
    public var forwarded: [InventoryForwarding] = []
    /// The service profiles it claims (by its service type and subtypes) or was judged by,
    /// with the rules it failed.
    public var profiles: [InventoryProfile] = []

    public init(instance: String) { self.instance = instance }
}

/// A profile an inventory entry claims, and whether it meets it: the PROF rules that reported
/// about it (none: it meets the profile as far as the capture shows).
public struct InventoryProfile: Sendable, Hashable {
    public var profile: ServiceProfile
    /// Each rule that reported, with the highest severity it reported, by rule ID.
    public var failed: [Failure] = []

    public struct Failure: Sendable, Hashable {
        public var rule: RuleID
        public var severity: Severity
    }

    public init(_ profile: ServiceProfile) { self.profile = profile }

    /// No finding of at least `threshold` (nil: of any severity).
    public func meets(atLeast threshold: Severity? = .warning) -> Bool {
        guard let t = threshold else { return failed.isEmpty }
        return !failed.contains { $0.severity >= t }
    }

    /// `ipp-everywhere ✘ PROF-202` or `matter-commissionable ✔` (errors and warnings fail).
    public var verdictText: String {
        let failing = failed.filter { $0.severity >= .warning }
        return failing.isEmpty
            ? profile.rawValue + " ✔" : profile.rawValue + " ✘ " + failing.map(\.rule.rawValue).joined(separator: " ")
    }

    /// Takes in one finding about it.
    public mutating func add(_ rule: RuleID, _ severity: Severity) {
        if let k = failed.firstIndex(where: { $0.rule == rule }) {
            failed[k].severity = max(failed[k].severity, severity)
        } else {
            failed.append(Failure(rule: rule, severity: severity))
            failed.sort { $0.rule < $1.rule }
        }
    }
}

/// A service instance or SSDP device shown on `segment` by `source`, `after` seconds after it
/// was first shown on segment `from`.
public struct InventoryForwarding: Sendable, Hashable {
    public var segment: String
    public var from: String
    public var source: String
    public var after: Double

    public init(segment: String, from: String, source: String, after: Double) {
        self.segment = segment
        self.from = from
        self.source = source
        self.after = after
    }
}

/// What one or more inputs showed: devices and service instances, bounded.
public struct Inventory: Sendable {
    public var devices: [InventoryDevice] = []
    public var services: [InventoryService] = []
    /// Entries left out because the inventory reached `maxEntries`.
    public var leftOut = 0
    /// Which protocols the inventory covers (the mDNS half needs the mDNS session model).
    public var protocols: [RuleProtocol] = []

    /// Devices plus services kept at most (a flood of made-up names costs a count, not memory).
    public static let maxEntries = 65536

    public init() {}

    public var isFull: Bool { devices.count + services.count >= Self.maxEntries }

    public mutating func add(_ d: InventoryDevice) {
        guard !isFull else {
            leftOut &+= 1
            return
        }
        devices.append(d)
    }

    public mutating func add(_ s: InventoryService) {
        guard !isFull else {
            leftOut &+= 1
            return
        }
        services.append(s)
    }
}
