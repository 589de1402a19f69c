import WireFormat

/// A multicast group membership message: IGMP (IPv4, RFC 2236, RFC 3376) or MLD (IPv6,
/// RFC 2710, RFC 3810). Switches that snoop these prune multicast groups from ports where no
/// host reported membership, so a discovery host that never reports 224.0.0.251 or
/// 239.255.255.250 may stop hearing (and being heard) once the snooping timer runs out.
public struct MembershipMessage: Sendable, Equatable {
    public enum Version: String, Sendable {
        case igmpV1 = "IGMPv1"
        case igmpV2 = "IGMPv2"
        case igmpV3 = "IGMPv3"
        case mldV1 = "MLDv1"
        case mldV2 = "MLDv2"
    }

    public enum Kind: String, Sendable {
        /// A querier asks which groups have members: every group (`group` nil) or one.
        case query
        /// A host reports the groups it listens to (or changes to them, in `records`).
        case report
        /// A host leaves a group (IGMPv2 leave, MLDv1 done).
        case leave
    }

    /// One group record of a report (for v1/v2 reports and leaves, the one implied).
    public struct GroupRecord: Sendable, Equatable {
        /// RFC 3376 §4.2.12 / RFC 3810 §5.2.12 record types.
        public enum Mode: UInt8, Sendable {
            case isInclude = 1
            case isExclude = 2
            case toInclude = 3
            case toExclude = 4
            case allowNewSources = 5
            case blockOldSources = 6
        }
        public var mode: Mode
        public var group: IPAddress
        public var sourceCount: Int

        public init(mode: Mode, group: IPAddress, sourceCount: Int) {
            self.mode = mode
            self.group = group
            self.sourceCount = sourceCount
        }

        /// Whether the host still receives (some of) the group's traffic after this record:
        /// exclude mode (any source), include mode with sources, or a BLOCK that trims the
        /// sources of a membership it keeps. TO_IN and IS_IN with no source are a leave.
        public var listens: Bool {
            switch mode {
            case .isExclude, .toExclude: true
            case .isInclude, .toInclude, .allowNewSources: sourceCount > 0
            case .blockOldSources: true
            }
        }
    }

    public var version: Version
    public var kind: Kind
    /// The group a query or leave is about (nil: a general query).
    public var group: IPAddress?
    /// A query's maximum response time, in seconds.
    public var maxResponse: Double
    /// A report's group records (at most `maxRecords`; `recordCount` says how many it had).
    public var records: [GroupRecord]
    public var recordCount: Int

    public static let maxRecords = 64

    public init(
        version: Version, kind: Kind, group: IPAddress? = nil, maxResponse: Double = 0, records: [GroupRecord] = [],
        recordCount: Int? = nil
    ) {
        self.version = version
        self.kind = kind
        self.group = group
        self.maxResponse = maxResponse
        self.records = records
        self.recordCount = recordCount ?? records.count
    }

    /// IGMP message bytes (the IPv4 payload). Nil when the type is not a membership message;
    /// a clear reason when it is one but malformed.
    public static func igmp(_ b: [UInt8]) -> Result<MembershipMessage, MembershipError>? {
        guard let type = b.first else { return nil }
        switch type {
        case 0x11:
            guard b.count >= 8, let g = v4(b, 4) else { return .failure(.short("IGMP query", b.count)) }
            let group: IPAddress? = g == .v4(0) ? nil : g
            if b.count >= 12 {
                return .success(
                    MembershipMessage(
                        version: .igmpV3, kind: .query, group: group, maxResponse: Double(code(b[1])) / 10))
            }
            let version: Version = b[1] == 0 ? .igmpV1 : .igmpV2
            let maxResponse = b[1] == 0 ? 10 : Double(b[1]) / 10
            return .success(MembershipMessage(version: version, kind: .query, group: group, maxResponse: maxResponse))
        case 0x12, 0x16:
            guard b.count >= 8, let g = v4(b, 4) else { return .failure(.short("IGMP report", b.count)) }
            return .success(
                MembershipMessage(
                    version: type == 0x12 ? .igmpV1 : .igmpV2, kind: .report,
                    records: [GroupRecord(mode: .isExclude, group: g, sourceCount: 0)]))
        case 0x17:
            guard b.count >= 8, let g = v4(b, 4) else { return .failure(.short("IGMP leave", b.count)) }
            return .success(
                MembershipMessage(
                    version: .igmpV2, kind: .leave, group: g,
                    records: [GroupRecord(mode: .toInclude, group: g, sourceCount: 0)]))
        case 0x22:
            guard b.count >= 8 else { return .failure(.short("IGMPv3 report", b.count)) }
            return records(b, count: Int(b[6]) << 8 | Int(b[7]), at: 8, addressLength: 4, version: .igmpV3)
        default:
            return nil
        }
    }

    /// ICMPv6 message bytes (the upper-layer payload). Nil when the type is not MLD; a clear
    /// reason when it is MLD but malformed.
    public static func mld(_ b: [UInt8]) -> Result<MembershipMessage, MembershipError>? {
        guard let type = b.first else { return nil }
        switch type {
        case 130:
            guard b.count >= 24, let g = v6(b, 8) else { return .failure(.short("MLD query", b.count)) }
            let group: IPAddress? = g == .v6(0, 0) ? nil : g
            let delay = Int(b[4]) << 8 | Int(b[5])
            if b.count >= 28 {
                return .success(
                    MembershipMessage(
                        version: .mldV2, kind: .query, group: group, maxResponse: Double(mldCode(delay)) / 1000))
            }
            return .success(
                MembershipMessage(version: .mldV1, kind: .query, group: group, maxResponse: Double(delay) / 1000))
        case 131, 132:
            guard b.count >= 24, let g = v6(b, 8) else {
                return .failure(.short(type == 131 ? "MLD report" : "MLD done", b.count))
            }
            let mode: GroupRecord.Mode = type == 131 ? .isExclude : .toInclude
            return .success(
                MembershipMessage(
                    version: .mldV1, kind: type == 131 ? .report : .leave, group: type == 132 ? g : nil,
                    records: [GroupRecord(mode: mode, group: g, sourceCount: 0)]))
        case 143:
            guard b.count >= 8 else { return .failure(.short("MLDv2 report", b.count)) }
            return records(b, count: Int(b[6]) << 8 | Int(b[7]), at: 8, addressLength: 16, version: .mldV2)
        default:
            return nil
        }
    }

    /// The group records of a version 3 (IGMP) or version 2 (MLD) report, from `at`.
    private static func records(
        _ b: [UInt8], count: Int, at start: Int, addressLength: Int, version: Version
    ) -> Result<MembershipMessage, MembershipError> {
        var out: [GroupRecord] = []
        var o = start
        for k in 0..<count {
            guard o + 4 + addressLength <= b.count else { return .failure(.recordsRunPast(record: k + 1, of: count)) }
            let type = b[o]
            let aux = Int(b[o + 1]) * 4
            let sources = Int(b[o + 2]) << 8 | Int(b[o + 3])
            let group = addressLength == 4 ? v4(b, o + 4) : v6(b, o + 4)
            guard let mode = GroupRecord.Mode(rawValue: type) else {
                return .failure(.recordType(type, record: k + 1))
            }
            let length = 4 + addressLength + sources * addressLength + aux
            guard let group, o + length <= b.count else { return .failure(.recordsRunPast(record: k + 1, of: count)) }
            if out.count < maxRecords { out.append(GroupRecord(mode: mode, group: group, sourceCount: sources)) }
            o += length
        }
        return .success(MembershipMessage(version: version, kind: .report, records: out, recordCount: count))
    }

    /// An IGMPv3 max response code in tenths of a second (RFC 3376 §4.1.1).
    static func code(_ c: UInt8) -> Int {
        guard c >= 128 else { return Int(c) }
        return (Int(c & 0x0F) | 0x10) << (Int(c >> 4 & 0x07) + 3)
    }

    /// An MLDv2 maximum response code in milliseconds (RFC 3810 §5.1.3).
    static func mldCode(_ c: Int) -> Int {
        guard c >= 32768 else { return c }
        return (c & 0x0FFF | 0x1000) << ((c >> 12 & 0x07) + 3)
    }

    private static func v4(_ b: [UInt8], _ o: Int) -> IPAddress? {
        guard o >= 0, o + 4 <= b.count else { return nil }
        return .v4(UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3]))
    }

    private static func v6(_ b: [UInt8], _ o: Int) -> IPAddress? {
        guard o >= 0, o + 16 <= b.count else { return nil }
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for k in 0..<8 { hi = hi << 8 | UInt64(b[o + k]) }
        for k in 8..<16 { lo = lo << 8 | UInt64(b[o + k]) }
        return .v6(hi, lo)
    }
}

/// Why a membership message could not be read.
public enum MembershipError: Error, Sendable, Equatable, CustomStringConvertible {
    case short(String, Int)
    case recordsRunPast(record: Int, of: Int)
    case recordType(UInt8, record: Int)

    public var description: String {
        switch self {
        case .short(let what, let n): "\(what) of \(n) bytes is too short"
        case .recordsRunPast(let k, let n): "group record \(k) of \(n) runs past the message"
        case .recordType(let t, let k): "group record \(k) has unknown type \(t)"
        }
    }
}
