import WireFormat

/// One rule violation observed in the traffic.
///
/// A finding refers to its rule by ID and to the rule's texts that every report prints
/// beside it (name, spec reference, interop note: `RuleTexts`, one per rule), so reporters
/// need no catalog.
public struct Finding: Sendable, Hashable {
    public var rule: RuleID
    /// The rule's texts (the descriptor's, or with the interop note this finding has).
    public let texts: RuleTexts
    /// The rule's readable name.
    public var name: String { texts.name }
    public var severity: Severity
    /// 1-based frame numbers as Wireshark counts them; the first is where the violation shows,
    /// the others are related packets (the M-SEARCH a late response answers, …).
    public var frames: [Int] { firstFrame.map { [$0] + relatedFrames } ?? relatedFrames }
    /// `frames` kept as its first element and the rest (most findings have one frame, and
    /// then no array is allocated).
    public private(set) var firstFrame: Int?
    public private(set) var relatedFrames: [Int]
    public var time: Timestamp
    /// One sentence about this instance.
    public var message: String
    /// The rule's spec reference.
    public var spec: String { texts.spec }
    /// Which well-known stacks mishandle such a message: the rule's interop note, or one about
    /// this kind of finding when the rule's note is about another.
    public var interop: String? { texts.interop }
    /// Who sent the offending message, as text (`10.0.0.5` or `fe80::1`), for suppressions.
    public var source: String
    /// A device identity when the message carries one (SSDP UUID, mDNS host name), for
    /// suppressions by device.
    public var device: String?
    /// Where inside the message (`header MX`, `answers[2].ttl`), when it helps.
    public var field: String?
    /// Index of the input file this finding came from (for SARIF locations and JUnit suites).
    public var fileIndex: Int
    /// Known only at the end of the input (a re-announcement that never came): `frames` are
    /// the frames it is about, the first showing it.
    public var atEnd = false
    /// The run's index of the segment (link) its first frame was captured on (`Segments`);
    /// 0 when the run names no segment for it.
    public var segment: UInt16 = 0
    /// Known from `--baseline`: reports that keep accepted findings (SARIF, JUnit) list it as
    /// suppressed; it counts as suppressed, never towards the exit status.
    public var baselined = false
    /// It hides the device from some clients (`Impact.hides`, judged by its rule: a
    /// visibility rule, or an error of a rule whose interop note says stacks lose such
    /// messages): the run's summary quotes the first such finding of each rule.
    public private(set) var hides = false
    /// The service profile of the instance it is about (a PROF rule's finding), else nil.
    public var profile: ServiceProfile? = nil
    /// The instance it is about, by its name's key (`DNSName.key(in:)`, as the session model
    /// and the inventory key instances), for a PROF finding about a DNS-SD instance; else 0.
    public var profileInstance: UInt64 = 0

    /// An mDNS finding about a host or its instances: an MDNS rule's, or a profile rule's
    /// about a DNS-SD instance. One that names no host counts for the host whose address
    /// sent its message.
    public var isMDNS: Bool { profileInstance != 0 || rule.rawValue.hasPrefix("MDNS-") }

    /// A finding on `frame` (and `related` frames that explain it).
    public init(
        descriptor: RuleDescriptor, severity: Severity? = nil, frame: Int, related: [Int] = [], time: Timestamp,
        message: String, source: String, device: String? = nil, field: String? = nil, fileIndex: Int = 0,
        interop: String? = nil
    ) {
        self.init(
            descriptor: descriptor, severity: severity, firstFrame: frame, related: related, time: time,
            message: message,
            source: source, device: device, field: field, fileIndex: fileIndex, interop: interop)
    }

    /// A finding on `frames` (the first is where it shows; none: the end of the capture).
    public init(
        descriptor: RuleDescriptor, severity: Severity? = nil, frames: [Int], time: Timestamp,
        message: String, source: String, device: String? = nil, field: String? = nil, fileIndex: Int = 0
    ) {
        self.init(
            descriptor: descriptor, severity: severity, firstFrame: frames.first, related: Array(frames.dropFirst()),
            time: time, message: message, source: source, device: device, field: field, fileIndex: fileIndex,
            interop: nil)
    }

    private init(
        descriptor: RuleDescriptor, severity: Severity?, firstFrame: Int?, related: [Int], time: Timestamp,
        message: String, source: String, device: String?, field: String?, fileIndex: Int, interop: String?
    ) {
        self.rule = descriptor.id
        self.texts = interop.map { descriptor.texts.with(interop: $0) } ?? descriptor.texts
        self.severity = severity ?? descriptor.severity
        self.firstFrame = firstFrame
        self.relatedFrames = related
        self.time = time
        self.message = message
        self.source = source
        self.device = device
        self.field = field
        self.fileIndex = fileIndex
        self.hides = descriptor.hides || (self.severity == .error && descriptor.interopLosesMessage)
    }

    /// The same violation (rule, severity, message, field, related frames) reported on
    /// another datagram that carries the same payload.
    public func repeated(frame: Int, time: Timestamp, source: String, device: String?, fileIndex: Int) -> Finding {
        var f = self
        f.firstFrame = frame
        f.time = time
        f.source = source
        f.device = device
        f.fileIndex = fileIndex
        return f
    }
}
