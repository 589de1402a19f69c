import Findings
import NetLayers

/// One executable example of a rule: datagrams in capture order (one for a stateless rule,
/// a timed sequence for a session rule). A triggering example raises the rule on the last
/// datagram or at the end of the input (at `severity` when given); a non-triggering one
/// never raises it, though it may raise other rules.
public struct RuleExample: Sendable {
    public var datagrams: [Datagram]
    public var severity: Severity?
    /// Where the example is written, for test failures.
    public var file: String
    public var line: Int
    /// A description rule's example (SSDP-6xx): a fetched LOCATION, judged after `datagrams`.
    public var description: DescriptionInput? = nil

    public init(_ datagrams: [Datagram], severity: Severity? = nil, file: String = #fileID, line: Int = #line) {
        self.datagrams = datagrams
        self.severity = severity
        self.file = file
        self.line = line
    }

    public init(_ datagram: Datagram, severity: Severity? = nil, file: String = #fileID, line: Int = #line) {
        self.init([datagram], severity: severity, file: file, line: line)
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
