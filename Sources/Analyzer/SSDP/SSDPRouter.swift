import Findings
import Rules
import NetLayers
import SSDP
import WireFormat

/// The in-order part of SSDP analysis, on the thread that reads the capture: decides which
/// datagrams are SSDP, settles the UPnP version each is judged by (claimed, or remembered for
/// its root device), keeps recent multicast M-SEARCHes to pair responses with them, and runs
/// the session rules over each message in capture order. Decoding the message and the
/// stateless rules (`SSDPJudge`) run afterwards, on any thread.
///
/// It reads a message through a scan of a few headers (`SSDPKeyHeaders`), kept for payloads
/// seen again; its tables are bounded.
struct SSDPRouter {
    struct Endpoint: Hashable {
        var address: IPAddress
        var port: UInt16
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

    private var searches: [Endpoint: RecentSearch] = [:]
    private var versions: [UInt64: UPnPVersion] = [:]  // keyed by the UUID's 64-bit key
    /// Facts of recent payloads: 8192 slots of up to 640 bytes (5 MB; SSDP messages are
    /// rarely longer, and a longer one is scanned each time).
    private var facts = InlineRepeatTable<Facts>(bits: 13, stride: 640)
    static let maxSearches = 1024
    static let maxVersions = 4096
    /// How long after an M-SEARCH a datagram to its source counts as a candidate response.
    static let slack = 0.5

    private var sessions: SessionEngine<SSDPEvent>

    init(disabled: Set<RuleID> = []) {
        sessions = SessionEngine(RuleRegistry.ssdpSession, disabled: disabled)
    }

    /// SSDP: port 1900 either side, or a datagram to an endpoint that recently multicast an
    /// M-SEARCH when its payload starts like HTTP (`HTTP/`): a response from another port.
    func claims(_ d: Datagram) -> Bool { claims(d, d.payload, d.payload.indices) }

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
    mutating func settle(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> SSDPContext? {
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
        var event = SSDPEvent(
            frame: d.frame, time: d.time, src: d.src, srcPort: d.srcPort, dst: d.dst, dstPort: d.dstPort, kind: m.kind)
        // ST's value in this payload (the facts hold its offsets).
        let st = m.st.map { bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)] }
        switch m.kind {
        case .mSearch where d.dst.isMulticast:
            remember(search: m, d, st: st, version: version)
        case .response:
            event.st = st
            event.search = searches[Endpoint(address: d.dst, port: d.dstPort)]
            if event.search == nil {
                event.searchFromOtherPort = searches.first { $0.key.address == d.dst && $0.value.expires >= d.time }?.value
            }
        default:
            break
        }
        var reports = SessionReports()
        sessions.observe(event, into: &reports)
        return SSDPContext(
            version: version, claimedVersion: claimed, isCandidateResponse: candidate, deviceKey: m.uuidKey ?? 0,
            sessionReports: reports.reports)
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
        searches[Endpoint(address: d.src, port: d.srcPort)] = RecentSearch(
            frame: d.frame, time: d.time, port: d.srcPort, mx: mx, st: Array(st ?? []), expires: expires)
    }

    /// The end of the input: session rules conclude (reports carry the frames they name).
    mutating func finish(into out: inout SessionReports) {
        sessions.finish(into: &out)
    }
}

/// What the in-order stage settled about one SSDP message, for the stateless rules.
struct SSDPContext: Sendable {
    /// The UDA version the message is judged against.
    var version: UPnPVersion
    /// The version the message claims itself (else `version` was inherited or defaulted).
    var claimedVersion: UPnPVersion?
    /// Recognised only because it went to an endpoint that had just multicast an M-SEARCH.
    var isCandidateResponse: Bool
    /// The root device's UUID as a key (0 when USN has none), for the device count.
    var deviceKey: UInt64
    /// What the session rules concluded on this message.
    var sessionReports: [SessionReports.Report]
}

