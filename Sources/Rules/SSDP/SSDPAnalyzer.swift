import Findings
import NetLayers
import SSDP
import WireFormat

/// Decides which datagrams are SSDP and keeps the bounded state the stateful rules need:
/// the UPnP version each root device claimed (for byebye), and recent multicast M-SEARCHes
/// (to pair responses: SSDP-501, SSDP-504, SSDP-205, and to recognise responses from ports
/// other than 1900). This is the in-order part of SSDP analysis; decoding the message and
/// the stateless rules (`SSDPChecker`) run afterwards, on any thread.
public struct SSDPAnalyzer {
    struct Endpoint: Hashable {
        var address: IPAddress
        var port: UInt16
    }

    struct Search {
        var frame: Int
        var time: Timestamp
        /// MX after the cap for the control point's version (nil when absent or invalid).
        var mx: UInt64?
        var st: [UInt8]
        var expires: Timestamp
    }

    /// What the in-order stage reads from a message, without decoding it (`SSDPKeyHeaders`):
    /// a function of its bytes alone, kept for payloads seen again.
    struct Facts {
        var kind: SSDPMessage.Kind
        var claimed: UPnPVersion?
        /// USN's UUID as a 64-bit key (FNV-1a, case-insensitive).
        var uuidKey: UInt64?
        var isUpdate: Bool
        var mx: UInt64?
        /// Where ST's value is, from the start of the payload.
        var st: Range<Int>?

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            let h = SSDPKeyHeaders(bytes, range)
            kind = h.kind
            claimed = (kind == .mSearch ? h.userAgent : h.server).flatMap { UPnPVersion.find(in: bytes[$0]) }
            uuidKey = h.usn.flatMap { SSDPSyntax.uuid(inUSN: bytes[$0]) }.map { u in
                var h = ASCII.keySeed
                ASCII.addToKey(u, &h)
                return h
            }
            isUpdate = kind == .notify && h.nts.map { bytes[$0].equals("ssdp:update") } == true
            mx = h.mx.flatMap { ASCII.parseDecimal(bytes[$0]) }
            st = h.st.map { ($0.lowerBound - range.lowerBound)..<($0.upperBound - range.lowerBound) }
        }
    }

    private var searches: [Endpoint: Search] = [:]
    private var versions: [UInt64: UPnPVersion] = [:]  // keyed by the UUID's 64-bit key
    /// Facts of recent payloads: 8192 slots of up to 640 bytes (5 MB; SSDP messages are
    /// rarely longer, and a longer one is scanned each time). Held about half of the anchors
    /// workload's repeats, where scanning took ten times as long as a lookup.
    private var facts = InlineRepeatTable<Facts>(bits: 13, stride: 640)
    static let maxSearches = 1024
    static let maxVersions = 4096
    /// How long after an M-SEARCH a datagram to its source counts as a candidate response.
    static let slack = 0.5

    private var checker = SSDPChecker()
    public init() {}

    /// SSDP: port 1900 either side, or a datagram to an endpoint that recently multicast an
    /// M-SEARCH when its payload starts like HTTP (`HTTP/`): a response from another port.
    public func claims(_ d: Datagram) -> Bool { claims(d, d.payload, d.payload.indices) }

    private func claims(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        if d.srcPort == 1900 || d.dstPort == 1900 { return true }
        guard awaitsResponse(d) else { return false }
        return range.count >= 5 && ASCII.equalsIgnoringCase(bytes, range.lowerBound..<(range.lowerBound + 5), "HTTP/")
    }

    /// Whether `d` goes to an endpoint that multicast an M-SEARCH recently enough for `d` to
    /// be its response (when its payload starts like one).
    func awaitsResponse(_ d: borrowing Datagram) -> Bool {
        guard !searches.isEmpty, let s = searches[Endpoint(address: d.dst, port: d.dstPort)] else { return false }
        return d.time <= s.expires
    }

    /// The in-order part of SSDP analysis for a datagram whose payload is `range` of `bytes` (nil when the
    /// datagram is not SSDP, see `claims`): settles the UPnP version the rules judge it by
    /// (claimed, remembered for the device, or 1.0), and pairs responses with recent M-SEARCHes.
    /// (One mutating call: a separate non-mutating `claims` copied the analyzer, retaining
    /// each of its tables, when called on the property of a class.)
    public mutating func settle(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> SSDPContext? {
        guard claims(d, bytes, range) else { return nil }
        return context(d, bytes, range)
    }

    private mutating func context(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> SSDPContext {
        let m = bytes.withUnsafeBytes { all in
            let payload = UnsafeRawBufferPointer(rebasing: all[range])
            let hash = payload.contentHash
            if let known = facts.value(for: payload, hash: hash) { return known }
            let m = Facts(bytes, range)
            facts.store(m, for: payload, hash: hash)
            return m
        }
        let candidate = d.srcPort != 1900 && d.dstPort != 1900
        let claimed = m.claimed
        if let u = m.uuidKey, let c = claimed, m.kind != .mSearch {
            if versions.count >= Self.maxVersions { versions.removeAll(keepingCapacity: true) }
            versions[u] = c
        }
        var version = claimed ?? .v1_0
        if claimed == nil, m.kind == .notify, let u = m.uuidKey, let known = versions[u] { version = known }
        if m.isUpdate, version < .v1_1 { version = .v1_1 }
        var pairing: [PendingReport] = []
        // ST's value in this payload (the facts hold its offsets).
        let st = m.st.map { bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)] }
        switch m.kind {
        case .mSearch where d.dst.isMulticast:
            remember(search: m, d, st: st, version: version)
        case .response:
            pair(response: m, d, st: st, into: &pairing)
        default:
            break
        }
        return SSDPContext(
            version: version, claimedVersion: claimed, isCandidateResponse: candidate, deviceKey: m.uuidKey ?? 0,
            pairing: pairing)
    }

    /// Decodes and judges one datagram in order (`settle`, then the rules).
    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> SSDPMessage {
        let c = context(d, d.payload, d.payload.indices)
        return checker.judge(d, c, into: &sink).message
    }

    private mutating func remember(search m: Facts, _ d: borrowing Datagram, st: ArraySlice<UInt8>?, version: UPnPVersion) {
        let cap: UInt64 = version >= .v1_1 ? 5 : 120
        let mx = m.mx.map { min($0, cap) }
        let window = Double(mx ?? 5) + Self.slack + 0.5
        let expires = Timestamp(
            seconds: d.time.seconds + Int64(window.rounded(.up)), nanoseconds: d.time.nanoseconds)
        if searches.count >= Self.maxSearches {
            // Drop the expired ones, or everything if none has expired (bounded memory).
            searches = searches.filter { $0.value.expires > d.time }
            if searches.count >= Self.maxSearches { searches.removeAll(keepingCapacity: true) }
        }
        searches[Endpoint(address: d.src, port: d.srcPort)] = Search(
            frame: d.frame, time: d.time, mx: mx, st: Array(st ?? []), expires: expires)
    }

    private func pair(response m: Facts, _ d: borrowing Datagram, st: ArraySlice<UInt8>?, into out: inout [PendingReport]) {
        let key = Endpoint(address: d.dst, port: d.dstPort)
        guard let s = searches[key] else {
            // SSDP-205: sent to the searcher's address but not to the port it searched from.
            if let other = searches.first(where: { $0.key.address == d.dst && $0.value.expires >= d.time }) {
                out.append(PendingReport(
                    SSDPCatalog.responseUnicast, severity: .error,
                    "response sent to port \(d.dstPort), but the M-SEARCH (frame \(other.value.frame)) came from port \(other.key.port)",
                    related: [other.value.frame]))
            }
            return
        }
        let delay = Timestamp.seconds(from: s.time, to: d.time)
        if let mx = s.mx, delay > Double(mx) + Self.slack, delay < 130 {
            out.append(PendingReport(
                SSDPCatalog.mxWindow,
                "response \(String(format1: delay)) s after the M-SEARCH of frame \(s.frame), whose MX allows \(mx) s",
                related: [s.frame]))
        }
        guard delay >= 0, delay < 130, let st else { return }
        let asked = s.st[...]
        if asked.equals("ssdp:all") || asked.isEmpty { return }
        if SSDPSyntax.hasPrefix(asked, "urn:"), let a = SSDPSyntax.parseURN(asked), let r = SSDPSyntax.parseURN(st) {
            if a.kind == r.kind, a.domain.elementsEqual(r.domain), a.type.elementsEqual(r.type) {
                if !a.version.elementsEqual(r.version) {
                    out.append(PendingReport(
                        SSDPCatalog.stEcho,
                        "search for version \(SSDPText.show(a.version)) (frame \(s.frame)) answered with version \(SSDPText.show(r.version)); the response must carry the requested version",
                        related: [s.frame]))
                }
                return
            }
        }
        if !st.elementsEqual(asked) {
            out.append(PendingReport(
                SSDPCatalog.stEcho,
                "response ST \(SSDPText.show(st)) does not match the search for \(SSDPText.show(asked)) (frame \(s.frame))",
                related: [s.frame]))
        }
    }

    public mutating func finish(into sink: inout FindingSink) {}
}

/// A finding decided in order (pairing a response with its M-SEARCH), reported when the
/// message's other findings are.
public struct PendingReport: Sendable {
    public var descriptor: RuleDescriptor
    public var severity: Severity?
    public var message: String
    public var related: [Int]
    public init(_ descriptor: RuleDescriptor, severity: Severity? = nil, _ message: String, related: [Int]) {
        self.descriptor = descriptor
        self.severity = severity
        self.message = message
        self.related = related
    }
}

/// What the in-order stage settled about one SSDP message, for the stateless rules.
public struct SSDPContext: Sendable {
    /// The UDA version the message is judged against.
    public var version: UPnPVersion
    /// The version the message claims itself (else `version` was inherited or defaulted).
    public var claimedVersion: UPnPVersion?
    /// Recognised only because it went to an endpoint that had just multicast an M-SEARCH.
    public var isCandidateResponse: Bool
    /// The root device's UUID as a key (0 when USN has none), for the device count.
    public var deviceKey: UInt64
    /// Findings from pairing a response with its M-SEARCH.
    public var pairing: [PendingReport]
}

/// Decodes SSDP messages and runs the stateless SSDP rules (one per worker thread: it
/// caches the enabled rule list).
public struct SSDPChecker: Sendable {
    /// The enabled rules, unretained: `SSDPRules.all` keeps them alive for the whole run, and
    /// calling through a retained reference cost an atomic retain/release pair per rule per
    /// message, on objects shared by every worker thread. (An array of the check closures
    /// themselves is no better: arrays store functions at the generic abstraction, so each
    /// element is a heap-allocated reabstraction thunk, retained per call.)
    private var rules = SSDPRules.all.map(Unmanaged.passUnretained)
    private var filteredFor: Set<RuleID> = []
    public init() {}

    /// Decodes `d`'s payload and runs the rules over it in the settled context. (A table of
    /// decodings kept for repeated payloads, as for mDNS, measured slower here, also with the
    /// message-only rules' findings replayed from it: SSDP decodings are cheaper to redo than
    /// to keep in cache.)
    ///
    /// The datagram and the message move into the input (each copy retains their arrays).
    public mutating func judge(_ d: consuming Datagram, _ c: borrowing SSDPContext, into sink: inout FindingSink) -> SSDPInput {
        let input = SSDPInput(
            message: SSDPMessage(parsing: d.payload), datagram: d, version: c.version, claimedVersion: c.claimedVersion,
            isCandidateResponse: c.isCandidateResponse)
        if c.deviceKey != 0 { sink.deviceKey = c.deviceKey }
        if sink.disabled != filteredFor {
            filteredFor = sink.disabled
            rules = SSDPRules.all.filter { !sink.disabled.contains($0.descriptor.id) }.map(Unmanaged.passUnretained)
        }
        for rule in rules {
            rule._withUnsafeGuaranteedRef { $0.check(input, &sink) }
        }
        for r in c.pairing {
            sink.report(r.descriptor, severity: r.severity, r.message, related: r.related)
        }
        // USN's UUID is looked up only when there are findings to carry it.
        sink.attachDevice { input.message.usnUUID.map { "uuid:" + String(decoding: $0, as: UTF8.self) } }
        return input
    }
}

extension String {
    /// One decimal place, without Foundation.
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
