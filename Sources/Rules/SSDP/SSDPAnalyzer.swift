import Findings
import NetLayers
import SSDP
import WireFormat

/// Decides which datagrams are SSDP, decodes them, runs the SSDP rules and keeps the bounded
/// state the stateful rules need: the UPnP version each root device claimed (for byebye),
/// and recent multicast M-SEARCHes (to pair responses: SSDP-501, SSDP-504, SSDP-205, and to
/// recognise responses from ports other than 1900).
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

    private var searches: [Endpoint: Search] = [:]
    private var versions: [UInt64: UPnPVersion] = [:]  // keyed by the UUID's 64-bit key
    static let maxSearches = 1024
    static let maxVersions = 4096
    /// How long after an M-SEARCH a datagram to its source counts as a candidate response.
    static let slack = 0.5

    private var checker = SSDPChecker()
    public init() {}

    /// SSDP: port 1900 either side, or a datagram to an endpoint that recently multicast an
    /// M-SEARCH when its payload starts like HTTP (`HTTP/`): a response from another port.
    public func claims(_ d: Datagram) -> Bool {
        if d.srcPort == 1900 || d.dstPort == 1900 { return true }
        guard awaitsResponse(d) else { return false }
        return d.payload.count >= 5 && ASCII.equalsIgnoringCase(d.payload.prefix(5), "HTTP/".utf8)
    }

    /// Whether `d` goes to an endpoint that multicast an M-SEARCH recently enough for `d` to
    /// be its response (when its payload starts like one): what `claims` asks of a datagram
    /// on other ports before it looks at the payload.
    public func awaitsResponse(_ d: borrowing Datagram) -> Bool {
        guard !searches.isEmpty, let s = searches[Endpoint(address: d.dst, port: d.dstPort)] else { return false }
        return d.time <= s.expires
    }

    /// The in-order part of SSDP analysis: decodes the message, settles the UPnP version the
    /// rules judge it by (claimed, remembered for the device, or 1.0), and pairs responses
    /// with recent M-SEARCHes. The stateless rules then run on the result, on any thread
    /// (`SSDPChecker`).
    public mutating func prepare(_ d: Datagram) -> SSDPPrepared {
        let m = SSDPMessage(parsing: d.payload)
        let candidate = d.srcPort != 1900 && d.dstPort != 1900
        let claimed = m.claimedUPnPVersion
        // The UUID as a 64-bit key (FNV-1a, case-insensitive): no bytes copied per message.
        let uuid: UInt64? = m.usnUUID.map { u in
            var h = ASCII.keySeed
            ASCII.addToKey(u, &h)
            return h
        }
        if let u = uuid, let c = claimed, m.kind != .mSearch {
            if versions.count >= Self.maxVersions { versions.removeAll(keepingCapacity: true) }
            versions[u] = c
        }
        var version = claimed ?? .v1_0
        if claimed == nil, m.kind == .notify, let u = uuid, let known = versions[u] { version = known }
        if m.notificationSubtype == .update, version < .v1_1 { version = .v1_1 }
        let input = SSDPInput(message: m, datagram: d, version: version, claimedVersion: claimed, isCandidateResponse: candidate)
        var pairing: [PendingReport] = []
        switch m.kind {
        case .mSearch where d.dst.isMulticast:
            remember(search: m, d, version: version)
        case .response:
            pair(response: m, d, into: &pairing)
        default:
            break
        }
        return SSDPPrepared(input: input, deviceKey: uuid ?? 0, pairing: pairing)
    }

    /// Decodes and judges one datagram in order (`prepare` then the rules).
    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> SSDPMessage {
        let p = prepare(d)
        checker.check(p, into: &sink)
        return p.input.message
    }

    private mutating func remember(search m: SSDPMessage, _ d: Datagram, version: UPnPVersion) {
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
            frame: d.frame, time: d.time, mx: mx, st: Array(m.value(.st) ?? []), expires: expires)
    }

    private func pair(response m: SSDPMessage, _ d: Datagram, into out: inout [PendingReport]) {
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
        guard delay >= 0, delay < 130, let st = m.value(.st) else { return }
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

/// An SSDP message ready for the stateless rules.
public struct SSDPPrepared: Sendable {
    public var input: SSDPInput
    /// The root device's UUID as a key (0 when USN has none), for the device count.
    public var deviceKey: UInt64
    public var pairing: [PendingReport]
}

/// Runs the stateless SSDP rules (one per worker thread; it only caches the enabled list).
public struct SSDPChecker: Sendable {
    /// The enabled rules, unretained: `SSDPRules.all` keeps them alive for the whole run, and
    /// calling through a retained reference cost an atomic retain/release pair per rule per
    /// message, on objects shared by every worker thread. (An array of the check closures
    /// themselves is no better: arrays store functions at the generic abstraction, so each
    /// element is a heap-allocated reabstraction thunk, retained per call.)
    private var rules = SSDPRules.all.map(Unmanaged.passUnretained)
    private var filteredFor: Set<RuleID> = []
    public init() {}

    public mutating func check(_ p: SSDPPrepared, into sink: inout FindingSink) {
        if p.deviceKey != 0 { sink.deviceKey = p.deviceKey }
        if sink.disabled != filteredFor {
            filteredFor = sink.disabled
            rules = SSDPRules.all.filter { !sink.disabled.contains($0.descriptor.id) }.map(Unmanaged.passUnretained)
        }
        let input = p.input
        for rule in rules {
            rule._withUnsafeGuaranteedRef { $0.check(input, &sink) }
        }
        for r in p.pairing {
            sink.report(r.descriptor, severity: r.severity, r.message, related: r.related)
        }
        if let u = p.input.message.usnUUID { sink.attachDevice { "uuid:" + String(decoding: u, as: UTF8.self) } }
    }
}

extension String {
    /// One decimal place, without Foundation.
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
