import Findings

/// How serious a finding is.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// A recommendation: the message works, but a "SHOULD" of the specification is not met.
    case info
    /// Likely to cause trouble with some stacks or under some conditions.
    case warning
    /// A violation of a "MUST": well-known stacks drop or misread such messages.
    case error

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    public var description: String { rawValue }

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    init(_ s: Findings.Severity) {
        switch s {
        case .info: self = .info
        case .warning: self = .warning
        case .error: self = .error
        }
    }
}

/// One rule violation: which rule, how serious, what is wrong with this message, where the
/// specification says so, and which datagrams show it.
///
/// Rule IDs (`SSDP-005`, `MDNS-309`) are stable: a test may match on them. Messages are
/// sentences for people and may be worded differently in later versions.
public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// The rule's ID, such as `SSDP-005` or `MDNS-001`.
    public let ruleID: String
    /// The rule's readable name, such as `crlf-line-endings`.
    public let ruleName: String
    /// The rule's severity, or a lower one the rule chose for this instance.
    public let severity: Severity
    /// One sentence about this instance.
    public let message: String
    /// Where the specification says so, such as `UDA 2.0 §1.1; RFC 7230 §3`.
    public let specReference: String
    /// Which well-known stacks mishandle such a message, when known.
    public let interop: String?
    /// The datagrams it is about, numbered in the order they were fed to the session (the
    /// first is 1); the first shows the violation, the others are related (the query a late
    /// answer belongs to, …). Empty for a conclusion about the whole session.
    public let frames: [Int]
    /// The sender of the datagram that shows it, as text (`192.0.2.1`, `fe80::1`).
    public let source: String
    /// The device the message speaks for, when it names one (an SSDP UUID, an mDNS host
    /// name).
    public let device: String?
    /// Known only once the session ended (`Session.finish()`): something that never came.
    public let atEnd: Bool

    /// The datagram that shows it.
    public var frame: Int? { frames.first }
    /// The other datagrams it names.
    public var related: [Int] { Array(frames.dropFirst()) }

    /// `warning MDNS-309 address-other-family: … [RFC 6762 §6.2]`.
    public var description: String { "\(severity) \(ruleID) \(ruleName): \(message) [\(specReference)]" }

    init(_ f: Findings.Finding) {
        ruleID = f.rule.rawValue
        ruleName = f.name
        severity = Severity(f.severity)
        message = f.message
        specReference = f.spec
        interop = f.interop
        frames = f.frames
        source = f.source
        device = f.device
        atEnd = f.atEnd
    }
}
