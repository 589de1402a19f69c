import Findings
import NetLayers

/// A packet of an example: a UDP datagram (SSDP, mDNS), or a multicast membership message
/// (IGMP, MLD) for the rules that judge memberships.
public enum ExamplePacket: Sendable {
    case datagram(Datagram)
    case membership(MembershipPacket)
}

/// One executable example of a rule: packets in capture order (one datagram for a stateless
/// rule, a timed sequence for a session rule). A triggering example raises the rule on the
/// last packet or at the end of the input (at `severity` when given); a non-triggering one
/// never raises it, though it may raise other rules.
public struct RuleExample: Sendable {
    public var packets: [ExamplePacket]
    /// The example's datagrams (its packets but the membership messages).
    public var datagrams: [Datagram] {
        packets.compactMap {
            if case .datagram(let d) = $0 { return d }
            return nil
        }
    }
    public var severity: Severity?
    /// Where the example is written, for test failures.
    public var file: String
    public var line: Int
    /// A description rule's example (SSDP-6xx): a fetched LOCATION, judged after `datagrams`.
    public var description: DescriptionInput? = nil
    /// The subnets of the example's link (its unnamed segment), as `--subnet CIDR` states
    /// them; empty: none known.
    public var subnets = LinkSubnets()

    public init(
        _ datagrams: [Datagram], severity: Severity? = nil, subnets: LinkSubnets = LinkSubnets(),
        file: String = #fileID, line: Int = #line
    ) {
        self.init(packets: datagrams.map { .datagram($0) }, severity: severity, file: file, line: line)
        self.subnets = subnets
    }

    public init(
        packets: [ExamplePacket], severity: Severity? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.packets = packets
        self.severity = severity
        self.file = file
        self.line = line
    }

    public init(
        _ datagram: Datagram, severity: Severity? = nil, subnets: LinkSubnets = LinkSubnets(), file: String = #fileID,
        line: Int = #line
    ) {
        self.init([datagram], severity: severity, subnets: subnets, file: file, line: line)
    }

    /// An example of a description rule: what fetching one LOCATION brought back.
    public init(description: DescriptionInput, severity: Severity? = nil, file: String = #fileID, line: Int = #line) {
        self.init([], severity: severity, file: file, line: line)
        self.description = description
    }
}

/// A rule's examples (SwiftLint's triggering and non-triggering examples).
public struct RuleExamples: Sendable {
    public var triggering: [RuleExample]
    public var nonTriggering: [RuleExample]

    public init(triggering: [RuleExample], nonTriggering: [RuleExample]) {
        self.triggering = triggering
        self.nonTriggering = nonTriggering
    }
}
