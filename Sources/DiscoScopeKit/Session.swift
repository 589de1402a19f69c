import Analyzer
import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// A session: datagrams in the order they were sent, judged by every rule, those that need
/// several messages included (a probe sequence, answers to a query, announcements that must
/// be repeated).
///
/// ```swift
/// let session = Session()
/// let found = session.feed(payload: notify, source: device, destination: .ssdpIPv4, time: 0)
/// let atEnd = session.finish()
/// ```
///
/// `feed` returns the findings that became certain with that datagram: those about it, and
/// those whose deadline passed by its time (an announcement not repeated in time). `finish`
/// returns what only the end of the session shows. Everything runs on the calling thread;
/// memory is bounded whatever is fed (tables of session state have caps).
public final class Session {
    private let analysis: Analysis
    private let collector = Collector()
    private var fed = 0
    private var finished = false

    /// A session judged by every rule.
    public convenience init() {
        self.init(disabled: [])
    }

    /// A session judged by every rule but those named (by ID, such as `MDNS-309`, or by
    /// name, such as `address-other-family`).
    public convenience init(disabling rules: [String]) throws(UnknownRuleError) {
        var disabled: Set<RuleID> = []
        for key in rules {
            guard let d = RuleCatalog.find(key) else { throw UnknownRuleError(rule: key) }
            disabled.insert(d.id)
        }
        self.init(disabled: disabled)
    }

    private init(disabled: Set<RuleID>) {
        var options = Analysis.Options()
        options.wantMessages = false
        options.messageFields = false
        options.findingDetails = true
        options.disabledRules = disabled
        options.jobs = 1
        analysis = Analysis(reporter: collector, options: options)
    }

    /// Judges one UDP datagram.
    ///
    /// - Parameters:
    ///   - payload: the UDP payload: an SSDP message (port 1900, or a response from another
    ///     port starting `HTTP/1.`) or an mDNS message (port 5353). Other datagrams are not
    ///     judged.
    ///   - source: who sent it.
    ///   - destination: where it went: a group (`Endpoint.mdnsIPv4`, `Endpoint.ssdpIPv4`, …)
    ///     or a unicast endpoint.
    ///   - time: when it was sent, in seconds on any clock that does not go backwards (since
    ///     the session began, say). Session rules judge intervals: a response 2 ms after the
    ///     query it answers, announcements one second apart.
    ///   - hopLimit: the IP TTL or hop limit it was sent with; by default what a conforming
    ///     sender uses (255 for mDNS, 2 for SSDP multicast, 64 otherwise).
    /// - Returns: the findings that became certain with this datagram. Their `frames` number
    ///   the datagrams in the order they were fed, from 1.
    @discardableResult
    public func feed(
        payload: [UInt8], source: Endpoint, destination: Endpoint, time: Double, hopLimit: UInt8? = nil
    ) -> [Finding] {
        guard !finished else { return [] }
        fed += 1
        let at = Self.timestamp(time)
        let d = Datagram(
            frame: fed, time: at, src: source.ip, dst: destination.ip, srcPort: source.port,
            dstPort: destination.port, hopLimit: hopLimit ?? Self.conformingHopLimit(destination), payload: payload)
        analysis.datagram(d)
        analysis.conclude(by: at)
        return collector.take()
    }

    /// Ends the session: what only its end shows (a record announced once and never again,
    /// a service whose SRV target never had an address). Feeding after this judges nothing.
    @discardableResult
    public func finish() -> [Finding] {
        guard !finished else { return [] }
        finished = true
        _ = analysis.finish()
        return collector.take()
    }

    /// The TTL a conforming sender uses: 255 for mDNS (RFC 6762 §11), 2 for SSDP multicast
    /// over IPv4 (UDA 1.1 §1.2.2), 64 (a common default) otherwise.
    static func conformingHopLimit(_ destination: Endpoint) -> UInt8 {
        if destination.port == 5353 { return 255 }
        if destination.port == 1900, destination.ip.isMulticast { return 2 }
        return 64
    }

    /// Seconds as a capture timestamp; what is not a finite, non-negative number is 0.
    static func timestamp(_ seconds: Double) -> Timestamp {
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return .zero }
        let whole = seconds.rounded(.down)
        let nanoseconds = min(999_999_999, max(0, ((seconds - whole) * 1e9).rounded(.down)))
        return Timestamp(seconds: Int64(whole), nanoseconds: UInt32(nanoseconds))
    }
}

/// A rule named to be disabled is not in the catalog.
public struct UnknownRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name or ID given.
    public let rule: String
    public var description: String { RuleSuggestion.unknownRule(rule) }
}

/// Keeps what the analysis reports, for the caller to take.
private final class Collector: Reporter {
    private var found: [Finding] = []
    var isStreaming: Bool { true }
    func message(_ m: MessageRecord, findings f: [Findings.Finding]) { found += f.map(Finding.init) }
    func finding(_ f: Findings.Finding) { found.append(Finding(f)) }
    func finish(_ s: RunSummary) {}

    func take() -> [Finding] {
        defer { found.removeAll() }
        return found
    }
}
