import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// The in-order part of SSDP analysis, on the thread that reads the capture: decides which
/// datagrams are SSDP, settles the UPnP version each is judged by (claimed, or remembered for
/// its root device), pairs responses with the M-SEARCHes they answer, and runs the session
/// rules over each message in capture order. The session store (`SSDPSessionStore`, owned by
/// the session engine) keeps what this reads of earlier messages: the latest M-SEARCH of each
/// endpoint, the version each device claimed, the devices. Decoding the message and the
/// stateless rules (`SSDPJudge`) run afterwards, on any thread.
///
/// It reads a message through a scan of a few headers (`SSDPKeyHeaders`), kept for payloads
/// seen again.
struct SSDPRouter {
    /// What the in-order stage reads from a message, without decoding it (`SSDPKeyHeaders`):
    /// a function of its bytes alone, kept for payloads seen again.
    struct Facts {
        var kind: SSDPMessage.Kind
        var claimed: UPnPVersion?
        /// USN's UUID as a 64-bit key (FNV-1a, case-insensitive).
        var uuidKey: UInt64? { session.uuidKey }
        var isUpdate: Bool { session.nts == .update }
        var mx: UInt64?
        /// Where ST's and LOCATION's values are, from the start of the payload.
        var st: Range<Int>?
        var location: Range<Int>?
        var usn: Range<Int>?
        /// SERVER's (USER-AGENT's for an M-SEARCH) and NT's (ST's) values.
        var server: Range<Int>?
        var target: Range<Int>?
        /// What the session rules and model read.
        var session = SSDPFacts()

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            let h = SSDPKeyHeaders(bytes, range)
            kind = h.kind
            claimed = (kind == .mSearch ? h.userAgent : h.server).flatMap { UPnPVersion.find(in: bytes[$0]) }
            func offsets(_ r: Range<Int>) -> Range<Int> {
                (r.lowerBound - range.lowerBound)..<(r.upperBound - range.lowerBound)
            }
            func number(_ r: Range<Int>?) -> UInt64? { r.flatMap { ASCII.parseDecimal(bytes[$0]) } }
            mx = number(h.mx)
            st = h.st.map(offsets)
            location = h.location.map(offsets)
            usn = h.usn.map(offsets)
            server = (kind == .mSearch ? h.userAgent : h.server).map(offsets)
            target = (kind == .notify ? h.nt : h.st).map(offsets)
            var f = SSDPFacts()
            if let usn = h.usn {
                f.usnKey = SSDPFacts.key(bytes[usn], foldingCase: true)
                f.uuidKey = SSDPSyntax.uuid(inUSN: bytes[usn]).map { SSDPFacts.key($0, foldingCase: true) }
            }
            if kind == .notify, let v = h.nts {
                let nts = bytes[v]
                f.nts =
                    nts.equals("ssdp:alive")
                    ? .alive : nts.equals("ssdp:byebye") ? .byebye : nts.equals("ssdp:update") ? .update : .other
            }
            if let t = kind == .notify ? h.nt : h.st {
                let v = bytes[t]
                if v.equals("upnp:rootdevice") {
                    f.target = .rootDevice
                } else if v.equals("ssdp:all") {
                    f.target = .all
                } else if SSDPSyntax.hasPrefix(v, "uuid:", caseInsensitive: true) {
                    f.target = .uuid
                    f.targetUUIDKey = SSDPFacts.key(v.dropFirst(5), foldingCase: true)
                } else if let u = SSDPSyntax.parseURN(v) {
                    f.target = u.kind == .device ? .deviceType : .serviceType
                    f.typeKey = SSDPFacts.key(v[v.startIndex..<u.type.endIndex])
                    f.typeVersion = ASCII.parseDecimal(u.version)
                } else {
                    f.target = .other
                }
            }
            f.locationKey = h.location.map { SSDPFacts.key(bytes[$0]) }
            f.serverKey = h.server.map { SSDPFacts.key(bytes[$0]) }
            f.maxAge = h.cacheControl.flatMap { SSDPSyntax.maxAge(in: bytes[$0]) }
            f.bootID = number(h.bootID)
            f.configID = number(h.configID)
            f.nextBootID = number(h.nextBootID)
            f.searchPort = number(h.searchPort)
            f.mx = mx
            f.hasMX = h.mx != nil
            f.manValid = h.man.map { bytes[$0].equals("\"ssdp:discover\"") } ?? false
            session = f
        }
    }

    /// Facts of recent payloads: slots of up to 640 bytes (SSDP messages are rarely longer,
    /// and a longer one is scanned each time). It starts small and grows as `CacheGrowth`
    /// says, up to 8192 slots (5 MB): a session of a few messages (a short capture, each of
    /// many small files) does not clear megabytes it never uses.
    private var facts = InlineRepeatTable<Facts>(bits: Self.firstFactsBits, stride: Self.factsStride)
    private var factsGrowth = CacheGrowth(firstBits: Self.firstFactsBits, maxBits: 13)
    static let firstFactsBits = 5
    static let factsStride = 640

    /// One session engine per segment (see `SegmentEngines`): a response is paired with the
    /// M-SEARCHes of its own link.
    private var links: SegmentEngines<SSDPEvent>
    /// With several links: every message also taken into one model, for the inventory.
    private var whole: SSDPSessionModel?
    /// The devices seen so far on every link (see `SSDPSessionModel`), updated after the rules
    /// saw a message.
    var model: SSDPSessionModel { whole ?? links.first?.store.model ?? SSDPSessionModel() }
    /// The latest packet time seen on any link.
    private var latest: Timestamp = .zero
    /// Packets whose timestamp was earlier than one before them on their link.
    private(set) var timeWentBack = 0
    /// Verdict rows the session rules' tables dropped.
    private var ruleEvictions = 0
    /// Table entries dropped because their table was full (the summary's `state_evicted`).
    var stateEvicted: Int { links.evicted + ruleEvictions }

    init(disabled: Set<RuleID> = []) {
        links = SegmentEngines(RuleRegistry.ssdpSession, disabled: disabled)
    }

    /// SSDP: port 1900 either side, or any UDP payload that starts like an HTTP response
    /// (`HTTP/1.`) or an SSDP request (`M-SEARCH * `, `NOTIFY * `, any case). So a search
    /// response from another port, sent to the searcher's port or not, in time or late, and a
    /// unicast M-SEARCH to a device's SEARCHPORT.UPNP.ORG are decoded and shown, never dropped
    /// unseen; the rules say what is wrong with them (SSDP-205 wrong port, SSDP-501 late,
    /// SSDP-519 unanswered, SSDP-012 a NOTIFY off port 1900). The start line decides, not the
    /// ports devices advertised: it needs no state, does not depend on having seen the
    /// advertisement (a capture that starts later, another segment), and no other protocol
    /// starts a datagram with these request lines.
    func claims(_ d: Datagram) -> Bool { claims(d, d.payload, d.payload.indices) }

    private func claims(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        if d.srcPort == 1900 || d.dstPort == 1900 { return true }
        let b = range.lowerBound
        return range.count >= 7 && ASCII.equalsIgnoringCase(bytes, b..<(b + 7), "HTTP/1.")
            || range.count >= 11 && ASCII.equalsIgnoringCase(bytes, b..<(b + 11), "M-SEARCH * ")
            || range.count >= 9 && ASCII.equalsIgnoringCase(bytes, b..<(b + 9), "NOTIFY * ")
    }

    /// The in-order part of SSDP analysis for a datagram whose payload is `range` of `bytes` (nil when the
    /// datagram is not SSDP, see `claims`): settles the UPnP version the rules judge it by
    /// (claimed, remembered for the device, or 1.0), and pairs responses with recent M-SEARCHes
    /// (`SSDPSessionStore.searches`).
    /// (One mutating call: a separate non-mutating `claims` copied the analyzer, retaining
    /// each of its tables, when called on the property of a class.)
    mutating func settle(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> SSDPContext? {
        guard claims(d, bytes, range) else { return nil }
        return context(d, bytes, range)
    }

    private mutating func context(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> SSDPContext {
        let (m, payloadKey) = bytes.withUnsafeBytes { all in
            let payload = UnsafeRawBufferPointer(rebasing: all[range])
            let hash = payload.contentHash
            if let known = facts.value(for: payload, hash: hash) { return (known, UInt64(truncatingIfNeeded: hash)) }
            let m = Facts(bytes, range)
            facts.store(m, for: payload, hash: hash)
            if factsGrowth.missed() { facts = InlineRepeatTable(bits: factsGrowth.bits, stride: Self.factsStride) }
            return (m, UInt64(truncatingIfNeeded: hash))
        }
        let candidate = d.srcPort != 1900 && d.dstPort != 1900
        let claimed = m.claimed
        let known = links.count
        let k = links.index(of: d.segment)
        // A second segment: the model of every segment starts from the first one's.
        if known == 1, links.count == 2, let first = links.first { whole = first.store.model }
        var version = claimed ?? .v1_0
        if claimed == nil, m.kind == .notify, let u = m.uuidKey, let known = links[k].store.versions[u]?.version {
            version = known
        }
        if m.isUpdate, version < .v1_1 { version = .v1_1 }
        // Times in events never decrease on a link (counted when a packet's would).
        let (time, wentBack) = links.clock(k, d.time)
        if wentBack { timeWentBack += 1 }
        latest = max(latest, d.time)
        var event = SSDPEvent(
            frame: d.frame, time: time, src: d.src, srcPort: d.srcPort, dst: d.dst, dstPort: d.dstPort, kind: m.kind)
        event.timeWentBack = wentBack
        event.version = version
        event.claimedVersion = claimed
        event.facts = m.session
        event.payloadKey = payloadKey
        // LOCATION's, USN's, SERVER's and NT's (ST's) values in this payload (the facts hold
        // their offsets).
        event.location = m.location.map {
            bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)]
        }
        event.usn = m.usn.map { bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)] }
        event.server = m.server.map {
            bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)]
        }
        event.target = m.target.map {
            bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)]
        }
        event.sourceMAC = d.sourceMAC
        event.segment = d.segment
        event.captured = d.time
        if m.kind == .response {
            // The M-SEARCH it answers: the latest from the endpoint it goes to (the store takes
            // M-SEARCHes in after the rules judged them).
            event.st = m.st.map { bytes[(range.lowerBound + $0.lowerBound)..<(range.lowerBound + $0.upperBound)] }
            event.search = links[k].store.searches[Endpoint(address: d.dst, port: d.dstPort)]
            if event.search == nil {
                event.searchFromOtherPort = links[k].store.search(toAnotherPortOf: d.dst, than: d.dstPort, at: d.time)
            }
        }
        var fromSearchPort = false
        if let u = m.uuidKey {
            event.device = links[k].store.model.device(u)
            event.deviceForgotten = links[k].store.model.mayHaveForgotten(u)
            // A response from the SEARCHPORT.UPNP.ORG it or its device advertised.
            if m.kind == .response, d.srcPort != 1900 {
                let port = m.session.searchPort ?? event.device?.source(d.src)?.searchPort.map(UInt64.init)
                fromSearchPort = port == UInt64(d.srcPort)
            }
        }
        var reports = SessionReports()
        links[k].judge(&event, into: &reports)
        ruleEvictions += reports.evictions
        // The rules' copy of the record goes first, so the model updates it in place.
        event.device = nil
        links[k].update(with: event)
        whole?.update(with: event)
        return SSDPContext(
            version: version, claimedVersion: claimed, isCandidateResponse: candidate, fromSearchPort: fromSearchPort,
            deviceKey: m.uuidKey ?? 0, sessionReports: reports.reports, kind: m.kind)
    }

    /// Live capture's timer: what became certain by `now` (never before the latest packet).
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        let before = out.evictions
        links.conclude(by: max(now, latest), into: &out)
        ruleEvictions += out.evictions - before
    }

    /// The end of the input: session rules conclude (reports carry the frames they name).
    mutating func finish(into out: inout SessionReports) {
        let before = out.evictions
        links.finish(judging: nil, into: &out)
        ruleEvictions += out.evictions - before
    }
}

/// What the in-order stage settled about one SSDP message, for the stateless rules.
struct SSDPContext: Sendable {
    /// The UDA version the message is judged against.
    var version: UPnPVersion
    /// The version the message claims itself (else `version` was inherited or defaulted).
    var claimedVersion: UPnPVersion?
    /// Recognised by its payload alone (it starts like an HTTP response), port 1900 on neither side.
    var isCandidateResponse: Bool
    /// A response sent from the SEARCHPORT.UPNP.ORG its device advertised (in it or before).
    var fromSearchPort = false
    /// The root device's UUID as a key (0 when USN has none), for the device count.
    var deviceKey: UInt64
    /// What the session rules concluded on this message.
    var sessionReports: [SessionReports.Report]
    /// What the message is (from its start line).
    var kind: SSDPMessage.Kind
}
