import WireFormat

/// One rule violation observed in the traffic.
public struct Finding: Sendable, Hashable {
    public var rule: RuleID
    /// The rule's descriptor, held without reference counting: descriptors are never freed
    /// (see `RuleDescriptor.init`), and with a counted reference every copy of a finding was
    /// an atomic update of an object that all worker threads share.
    @usableFromInline let descriptorRef: Unmanaged<RuleDescriptor>
    public var descriptor: RuleDescriptor { descriptorRef.takeUnretainedValue() }
    /// Runs `body` with the descriptor, not retained for the call.
    @inlinable
    public func withDescriptor<R>(_ body: (RuleDescriptor) throws -> R) rethrows -> R {
        try descriptorRef._withUnsafeGuaranteedRef(body)
    }
    /// The descriptor as an unretained reference (for tallies kept by other threads).
    public var unmanagedDescriptor: Unmanaged<RuleDescriptor> { descriptorRef }
    /// The rule's readable name.
    public var name: String { descriptor.name }
    public var severity: Severity
    /// 1-based frame numbers as Wireshark counts them; the first is where the violation shows,
    /// the others are related packets (the M-SEARCH a late response answers, …).
    public var frames: [Int] { firstFrame.map { [$0] + relatedFrames } ?? relatedFrames }
    /// `frames` kept as its first element and the rest (most findings have one frame, and
    /// then no array is allocated).
    public let firstFrame: Int?
    public let relatedFrames: [Int]
    public var time: Timestamp
    /// One sentence about this instance.
    public var message: String
    public var spec: String { descriptor.spec }
    public var interop: String? { descriptor.interop }
    /// Who sent the offending message, as text (`10.0.0.5` or `fe80::1`), for suppressions.
    public var source: String
    /// A device identity when the message carries one (SSDP UUID, mDNS host name), for
    /// suppressions by device.
    public var device: String?
    /// Where inside the message (`header MX`, `answers[2].ttl`), when it helps.
    public var field: String?
    /// Index of the input file this finding came from (for SARIF locations and JUnit suites).
    public var fileIndex: Int

    /// A finding on `frame` (and `related` frames that explain it).
    public init(
        descriptor: RuleDescriptor, severity: Severity? = nil, frame: Int, related: [Int] = [], time: Timestamp,
        message: String, source: String, device: String? = nil, field: String? = nil, fileIndex: Int = 0
    ) {
        self.init(
            descriptor: descriptor, severity: severity, firstFrame: frame, related: related, time: time, message: message,
            source: source, device: device, field: field, fileIndex: fileIndex)
    }

    /// A finding on `frames` (the first is where it shows; none: the end of the capture).
    public init(
        descriptor: RuleDescriptor, severity: Severity? = nil, frames: [Int], time: Timestamp,
        message: String, source: String, device: String? = nil, field: String? = nil, fileIndex: Int = 0
    ) {
        self.init(
            descriptor: descriptor, severity: severity, firstFrame: frames.first, related: Array(frames.dropFirst()),
            time: time, message: message, source: source, device: device, field: field, fileIndex: fileIndex)
    }

    private init(
        descriptor: RuleDescriptor, severity: Severity?, firstFrame: Int?, related: [Int], time: Timestamp,
        message: String, source: String, device: String?, field: String?, fileIndex: Int
    ) {
        self.rule = descriptor.id
        self.descriptorRef = Unmanaged.passUnretained(descriptor)
        self.severity = severity ?? descriptor.severity
        self.firstFrame = firstFrame
        self.relatedFrames = related
        self.time = time
        self.message = message
        self.source = source
        self.device = device
        self.field = field
        self.fileIndex = fileIndex
    }
}

extension Finding {
    public static func == (a: Finding, b: Finding) -> Bool {
        a.rule == b.rule && a.descriptor == b.descriptor && a.severity == b.severity && a.firstFrame == b.firstFrame
            && a.relatedFrames == b.relatedFrames && a.time == b.time && a.message == b.message && a.source == b.source
            && a.device == b.device && a.field == b.field && a.fileIndex == b.fileIndex
    }

    public func hash(into h: inout Hasher) {
        h.combine(rule)
        h.combine(severity)
        h.combine(firstFrame)
        h.combine(relatedFrames)
        h.combine(time)
        h.combine(message)
        h.combine(source)
        h.combine(device)
        h.combine(field)
        h.combine(fileIndex)
    }
}
