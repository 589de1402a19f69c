import Capture
import DNS
import Findings
import NetLayers
import Reporting
import Rules
import SSDP
import WireFormat

/// The pipeline: frames → datagrams → SSDP / mDNS decoding → rules → configuration policy →
/// reporter. One `Analysis` serves a whole run (several files, or a live capture), so the
/// stateful rules see the traffic in order.
public final class Analysis {
    public struct Options: Sendable {
        /// Build message records for the reporter (text and JSON lines show messages).
        public var wantMessages: Bool = true
        public var verbose: Bool = false
        /// Build the JSON fields of message records (JSON lines only; text needs the summary).
        public var messageFields: Bool = true
        /// Rules switched off (by `--disable`, `--enable`, configuration).
        public var disabledRules: Set<RuleID> = []
        public init() {}
    }

    public private(set) var summary = RunSummary()
    /// Frames whose link type is not decoded, reported once per link type.
    private var unsupportedSeen: Set<LinkType> = []
    private var decoder = PacketDecoder()
    private var ssdp = SSDPAnalyzer()
    private var mdns = MDNSAnalyzer()
    private var reporter: any Reporter
    private let options: Options
    /// Turns a raw finding into the reported one (severity override) or nil (suppressed,
    /// below the minimum severity, in the baseline).
    private let policy: (Finding) -> Finding?
    private var frameBuffer: [UInt8] = []
    private var devices: Set<UInt64> = []
    private var services: Set<String> = []
    private static let maxDevices = 65536
    /// Called when an unsupported link type is first seen (the CLI prints a warning).
    public var onWarning: ((String) -> Void)? = nil
    /// Datagrams on port 1900 or 5353 (either side), the figure tshark's
    /// `udp.port==1900 || udp.port==5353` counts.
    public private(set) var wellKnownPortDatagrams = 0
    private var fileIndex = 0

    public init(reporter: any Reporter, options: Options = Options(), policy: @escaping (Finding) -> Finding? = { $0 }) {
        self.reporter = reporter
        self.options = options
        self.policy = policy
    }

    /// Reads one opened source to its end. A read error (damaged file) ends this source;
    /// everything before it has been analysed, and the error is returned for the summary and
    /// the exit status.
    @discardableResult
    public func run(_ handle: PcapHandle, fileIndex: Int, shouldStop: () -> Bool = { false }) -> CaptureError? {
        self.fileIndex = fileIndex
        summary.files.append(handle.input)
        do {
            while !shouldStop() {
                let step = try handle.next { frame, bytes in
                    self.frame(frame, bytes)
                }
                if case .end = step { break }
            }
        } catch {
            summary.inputErrors.append(error.description)
            return error
        }
        return nil
    }

    /// Records an input that could not be opened at all.
    public func inputFailed(_ error: CaptureError) {
        summary.inputErrors.append(error.description)
    }

    func frame(_ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        summary.framesRead += 1
        frameBuffer.removeAll(keepingCapacity: true)
        frameBuffer.append(contentsOf: bytes)
        let outcome = decoder.decode(
            frame: frame.number, time: frame.time, linkType: frame.linkType, frameBytes: frameBuffer,
            originalLength: frame.originalLength, wants: { _, _, _, _ in true })
        switch outcome {
        case .datagram(let d):
            datagram(d)
        case .unsupportedLink(let lt):
            summary.skip("unsupported link type \(lt)")
            if unsupportedSeen.insert(lt).inserted {
                onWarning?("\(summary.files.last ?? ""): unsupported link type \(lt) (\(lt.rawValue)); its frames are skipped")
            }
        case .malformed(let why):
            summary.skip("malformed IP/UDP headers (\(why))")
        case .truncatedHeaders:
            summary.skip("cut by the snap length before the UDP header ended")
        case .uninteresting, .fragmentHeld, .notUDP:
            break
        }
    }

    /// Analyses one UDP datagram (also the entry point for tests).
    public func datagram(_ d: Datagram) {
        let wellKnown = d.srcPort == 1900 || d.dstPort == 1900 || d.srcPort == 5353 || d.dstPort == 5353
        if wellKnown {
            wellKnownPortDatagrams += 1
            summary.portDatagrams += 1
        }
        var sink = FindingSink(datagram: d, fileIndex: fileIndex, disabled: options.disabledRules)
        var record: MessageRecord? = nil
        if ssdp.claims(d) {
            let m = ssdp.analyze(d, into: &sink)
            summary.ssdpMessages += 1
            if options.wantMessages { record = SSDPRender.record(m, d, srcText: addressText(d.src), dstText: addressText(d.dst), verbose: options.verbose, fields: options.messageFields) }
        } else if mdns.claims(d) {
            let m = mdns.analyze(d, into: &sink)
            summary.mdnsMessages += 1
            if m.header.qr { noteServices(m) }
            if options.wantMessages { record = MDNSRender.record(m, d, srcText: addressText(d.src), dstText: addressText(d.dst), verbose: options.verbose, fields: options.messageFields) }
        } else {
            return
        }
        summary.datagrams += 1
        if d.isTruncated { summary.truncatedDatagrams += 1 }
        if d.wasFragmented { summary.reassembledDatagrams += 1 }
        if sink.deviceKey != 0, devices.count < Self.maxDevices { devices.insert(sink.deviceKey) }
        let findings = accept(sink.findings)
        if var r = record {
            r.fileIndex = fileIndex
            r.truncated = d.isTruncated
            r.fragmentFrames = d.fragmentFrames
            reporter.message(r, findings: findings)
        } else {
            for f in findings { reporter.finding(f) }
        }
    }

    /// Address text, cached: the same few thousand devices and groups repeat on every line
    /// (bounded: cleared when full).
    private var addressCache: [IPAddress: String] = [:]
    private func addressText(_ a: IPAddress) -> String {
        if let t = addressCache[a] { return t }
        if addressCache.count >= 4096 { addressCache.removeAll(keepingCapacity: true) }
        let t = a.description
        addressCache[a] = t
        return t
    }

    /// DNS-SD service types announced (browse PTR owners), for the summary's short count.
    private func noteServices(_ m: DNSMessage) {
        for rr in m.answers where rr.type == .ptr && services.count < Self.maxDevices && rr.name.labelCount(in: m.payload) == 3 {
            let labels = rr.name.labels(in: m.payload)
            if DNSSDName(labels: labels).kind == .serviceType {
                services.insert(rr.name.presentation(in: m.payload).lowercased())
            }
        }
    }

    private func accept(_ raw: [Finding]) -> [Finding] {
        guard !raw.isEmpty else { return raw }
        var out: [Finding] = []
        for f in raw {
            if let kept = policy(f) {
                out.append(kept)
                summary.count(kept)
            } else {
                summary.suppressed += 1
            }
        }
        return out
    }

    /// Ends the run: stateful rules conclude, the reporter writes its summary or document.
    public func finish(extra: (inout RunSummary) -> Void = { _ in }) -> RunSummary {
        var sink = FindingSink(
            frame: 0, time: .zero, source: .v4(0), fileIndex: fileIndex, disabled: options.disabledRules)
        ssdp.finish(into: &sink)
        mdns.finish(into: &sink)
        for f in accept(sink.findings) { reporter.finding(f) }
        if decoder.reassembler.inFlight > 0 {
            summary.skip("IP fragments never completed", count: decoder.reassembler.inFlight)
        }
        if decoder.reassembler.abandoned > 0 {
            summary.skip("IP datagrams given up in reassembly", count: decoder.reassembler.abandoned)
        }
        if decoder.reassembler.overlapConflicts > 0 {
            summary.skip(
                "IP fragments overlapping with different contents (first copy kept, as Wireshark does)",
                count: decoder.reassembler.overlapConflicts)
        }
        summary.devices = devices.count
        summary.services = services.count
        extra(&summary)
        reporter.finish(summary)
        return summary
    }

    /// Number of findings reported at or above `threshold`.
    public func count(atLeast threshold: Severity) -> Int {
        summary.findings(atLeast: threshold)
    }
}
