import DNS
import Findings
import NetLayers
import Reporting
import Rules
import SSDP
import WireFormat

/// One datagram handed from the in-order stage to the per-message stage.
struct WorkItem: Sendable {
    enum Message: Sendable {
        /// Decoded, with its version context and pairing findings settled in order.
        case ssdp(SSDPPrepared)
        /// Decoded by the worker (mDNS rules need nothing from earlier packets).
        case mdns(Datagram)
    }
    var message: Message
    var fileIndex: Int

    var datagram: Datagram {
        switch message {
        case .ssdp(let p): p.input.datagram
        case .mdns(let d): d
        }
    }
}

/// What a batch of messages produced, taken back in capture order.
struct BatchOutput: Sendable {
    /// Formatted output (streaming formats).
    var chunk = RenderedChunk()
    /// Records and findings for reporters that format in order (SARIF, JUnit); a nil record
    /// means the findings are shown without a message.
    var messages: [(MessageRecord?, [Finding])] = []
    /// Reported findings, for the summary's counts.
    var counted: [(RuleDescriptor, Severity)] = []
    var suppressed = 0
    var deviceKeys: [UInt64] = []
    /// DNS-SD service types announced (lowercased).
    var services: [String] = []
}

/// The per-message stage: mDNS decoding, the stateless rules, configuration policy and
/// formatting. Each worker thread owns one (the rule lists and caches are its own).
struct MessageWorker: BatchWorker {
    let options: Analysis.Options
    /// Turns a raw finding into the reported one (severity override) or nil (suppressed,
    /// below the minimum severity, in the baseline).
    /// nil: every finding is kept as it is (no configuration).
    let policy: (@Sendable (Finding) -> Finding?)?
    var renderer: (any MessageRenderer)?
    /// Whether `renderer` is set. Tested instead of `renderer != nil`, which copies the
    /// existential (and retains what the renderer holds, shared by all workers) per message.
    private let renders: Bool
    private var ssdpChecker = SSDPChecker()
    private var mdns = MDNSAnalyzer()
    /// Address text, cached: the same few thousand devices and groups repeat on every line
    /// (bounded: cleared when full).
    private var addressCache: [IPAddress: String] = [:]

    init(options: Analysis.Options, policy: (@Sendable (Finding) -> Finding?)?, renderer: (any MessageRenderer)?) {
        self.options = options
        self.policy = policy
        self.renderer = renderer
        self.renders = renderer != nil
    }

    mutating func process(_ items: [WorkItem]) -> BatchOutput {
        var out = BatchOutput()
        if renders { out.chunk.bytes.reserveCapacity(items.count * 320) }
        for item in items { process(item, into: &out) }
        return out
    }

    private mutating func process(_ item: WorkItem, into out: inout BatchOutput) {
        let d = item.datagram
        let srcText = addressText(d.src)
        var sink = FindingSink(datagram: d, fileIndex: item.fileIndex, disabled: options.disabledRules)
        sink.sourceText = srcText
        var record: MessageRecord? = nil
        switch item.message {
        case .ssdp(let p):
            ssdpChecker.check(p, into: &sink)
            if options.wantMessages {
                record = SSDPRender.record(
                    p.input.message, d, srcText: srcText, dstText: addressText(d.dst),
                    verbose: options.verbose, fields: options.messageFields)
            }
        case .mdns:
            let input = mdns.judge(d, into: &sink)
            let m = input.message
            if m.header.qr { Self.noteServices(input, into: &out.services) }
            if options.wantMessages {
                record = MDNSRender.record(
                    m, d, srcText: srcText, dstText: addressText(d.dst),
                    verbose: options.verbose, fields: options.messageFields)
            }
        }
        if sink.deviceKey != 0 { out.deviceKeys.append(sink.deviceKey) }
        let findings = Self.accept(sink.findings, policy: policy, into: &out)
        if var r = record {
            r.fileIndex = item.fileIndex
            r.truncated = d.isTruncated
            r.fragmentFrames = d.fragmentFrames
            if renders {
                renderer?.render(r, findings: findings, into: &out.chunk)
            } else {
                out.messages.append((r, findings))
            }
        } else if !findings.isEmpty {
            show(findings, into: &out)
        }
    }

    /// Findings of the end of the run (stateful rules that conclude late), formatted the same way.
    mutating func conclude(_ raw: [Finding]) -> BatchOutput {
        var out = BatchOutput()
        let findings = Self.accept(raw, policy: policy, into: &out)
        show(findings, into: &out)
        return out
    }

    private mutating func show(_ findings: [Finding], into out: inout BatchOutput) {
        if renders {
            for f in findings { renderer?.render(finding: f, into: &out.chunk) }
        } else {
            out.messages.append((nil, findings))
        }
    }

    private static func accept(_ raw: [Finding], policy: (@Sendable (Finding) -> Finding?)?, into out: inout BatchOutput) -> [Finding] {
        guard !raw.isEmpty else { return raw }
        guard let policy else {
            for f in raw { out.counted.append((f.descriptor, f.severity)) }
            return raw
        }
        var kept: [Finding] = []
        kept.reserveCapacity(raw.count)
        for f in raw {
            if let k = policy(f) {
                kept.append(k)
                out.counted.append((k.descriptor, k.severity))
            } else {
                out.suppressed += 1
            }
        }
        return kept
    }

    private mutating func addressText(_ a: IPAddress) -> String {
        if let t = addressCache[a] { return t }
        if addressCache.count >= 4096 { addressCache.removeAll(keepingCapacity: true) }
        let t = a.description
        addressCache[a] = t
        return t
    }

    /// DNS-SD service types announced (browse PTR owners), for the summary's short count.
    private static func noteServices(_ input: MDNSInput, into services: inout [String]) {
        for r in input.records where r.section == .answer && r.record.type == .ptr && r.labelCount == 3 && r.dnssd.kind == .serviceType {
            services.append(r.record.name.presentation(in: input.message.payload).lowercased())
        }
    }
}
