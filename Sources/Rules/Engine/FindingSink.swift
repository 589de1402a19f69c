import Findings
import NetLayers
import WireFormat

/// Where rules report. It knows the datagram being judged (frame, time, source), so a rule
/// only says what is wrong; it builds a `Finding` only when a rule reports, so clean traffic
/// allocates nothing here.
public struct FindingSink {
    public private(set) var findings: [Finding] = []
    public let frame: Int
    public let time: Timestamp
    public let source: IPAddress
    public let fileIndex: Int
    /// Device identity for suppressions (SSDP UUID, mDNS host name), set by the protocol
    /// analyzer once known.
    public private(set) var device: String?
    /// The device's identity for counting distinct devices (FNV-1a of its lowercased name
    /// bytes; 0 when unknown). Cheap to compute for every message, unlike the text.
    public var deviceKey: UInt64 = 0
    /// Whether findings carry their device text and field. Each is a string built per message
    /// or finding; the analysis turns them off when nothing downstream reads them.
    public var buildsDetails = true
    /// The source as text, built once per datagram on the first report (or given by the
    /// caller, who may have it cached).
    public var sourceText: String? = nil
    /// The service profile of the instance being judged (set around a PROF rule's check), put
    /// into the findings reported meanwhile.
    public var profile: ServiceProfile? = nil
    /// The instance being judged (`Finding.profileInstance`), with `profile`.
    public var profileInstance: UInt64 = 0

    public init(frame: Int, time: Timestamp, source: IPAddress, fileIndex: Int = 0) {
        self.frame = frame
        self.time = time
        self.source = source
        self.fileIndex = fileIndex
    }

    /// Borrows the datagram (an initialiser would otherwise retain its arrays).
    public init(datagram d: borrowing Datagram, fileIndex: Int = 0) {
        self.init(frame: d.frame, time: d.time, source: d.src, fileIndex: fileIndex)
    }

    /// The findings reported so far, taken out of the sink (which keeps its device key).
    public mutating func takeFindings() -> [Finding] {
        var taken: [Finding] = []
        swap(&taken, &findings)
        return taken
    }

    /// Sets the device text of this datagram's findings; `text` runs only when there are
    /// findings that carry it (it builds a string, and may find none: nil leaves them as
    /// they are). Without details, only the findings the summary quotes with their device
    /// (those that hide it) and the profile findings the inventory's verdicts go by device
    /// (an SSDP device's) carry it. A finding about a DNS-SD instance (`profileInstance`)
    /// names no device: it is the instance's, whoever sent it (a forwarder's copy over IPv6
    /// need not show that it is one), and counts for the host that sent it by its address.
    public mutating func attachDevice(_ text: () -> String?) {
        guard !findings.isEmpty else { return }
        func carries(_ f: Finding) -> Bool {
            f.profileInstance == 0 && (buildsDetails || f.hides || f.profile != nil)
        }
        guard findings.contains(where: carries), let d = text() else { return }
        device = d
        for k in findings.indices where carries(findings[k]) { findings[k].device = d }
    }

    /// Reports one violation of `descriptor` on the current datagram. `severity` defaults to
    /// the descriptor's; `related` are other frames that explain it (first frame is always
    /// the current one); `interop` replaces the rule's interop note when that note is about
    /// another kind of finding of the rule.
    public mutating func report(
        _ descriptor: RuleDescriptor, severity: Severity? = nil, _ message: String,
        field: @autoclosure () -> String? = nil, related: [Int] = [], interop: String? = nil
    ) {
        let src = sourceString()
        append(
            Finding(
                descriptor: descriptor, severity: severity, frame: frame, related: related, time: time,
                message: message, source: src, device: device, field: buildsDetails ? field() : nil,
                fileIndex: fileIndex, interop: interop
            )
        )
    }

    /// Keeps `f`, with the profile and instance being judged (`profile`, `profileInstance`).
    private mutating func append(_ f: consuming Finding) {
        if let p = profile {
            f.profile = p
            f.profileInstance = profileInstance
        }
        findings.append(f)
    }

    /// Reports on the current datagram what a message-only rule found in an earlier datagram
    /// with the same payload (same rule, severity, text and field).
    public mutating func repeatFinding(_ f: borrowing Finding) {
        findings.append(
            f.repeated(frame: frame, time: time, source: sourceString(), device: device, fileIndex: fileIndex))
    }

    /// The source as text, built on the first report of the datagram.
    private mutating func sourceString() -> String {
        if let t = sourceText { return t }
        let t = source.description
        sourceText = t
        return t
    }

    /// Reports a finding about an earlier frame (stateful rules that conclude later).
    public mutating func report(
        _ descriptor: RuleDescriptor, severity: Severity? = nil, _ message: String, frames: [Int],
        time: Timestamp, source: IPAddress, device: String? = nil
    ) {
        append(
            Finding(
                descriptor: descriptor, severity: severity, frames: frames, time: time, message: message,
                source: source.description, device: device, fileIndex: fileIndex
            ))
    }
}
