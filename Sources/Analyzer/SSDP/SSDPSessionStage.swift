import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// The in-order part of SSDP analysis (run by `SessionSettler`, in capture order): settles the
/// UPnP version each message is judged by (claimed, remembered for its root device, or 1.0)
/// and whether a response came from its device's SEARCHPORT, pairs responses with the
/// M-SEARCHes they answer, and runs the session rules over each message. The session store
/// (`SSDPSessionStore`, owned by the session engine) keeps what this reads of earlier
/// messages: the latest M-SEARCH of each endpoint, the version each device claimed, the
/// devices. The worker that decoded a message built its event (`SSDPRouter.start`).
struct SSDPSessionStage {
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

    /// What the session settles for one message, from what its bytes settled
    /// (`SSDPRouter.start`): the context its stateless rules judge it in, and the session
    /// rules' reports on it.
    mutating func observe(
        _ d: borrowing Datagram, _ m: borrowing SSDPRouter.Facts, payloadKey: UInt64
    ) -> (context: SSDPContext, reports: [SessionReports.Report]) {
        let bytes = d.payload
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
        // their offsets from its start).
        event.location = m.location.map { bytes[$0] }
        event.usn = m.usn.map { bytes[$0] }
        event.server = m.server.map { bytes[$0] }
        event.target = m.target.map { bytes[$0] }
        event.sourceMAC = d.sourceMAC
        event.segment = d.segment
        event.captured = d.time
        if m.kind == .response {
            // The M-SEARCH it answers: the latest from the endpoint it goes to (the store takes
            // M-SEARCHes in after the rules judged them).
            event.st = m.st.map { bytes[$0] }
            event.search = links[k].store.searches[Endpoint(address: d.dst, port: d.dstPort)]
            if event.search == nil {
                event.searchFromOtherPort = links[k].store.search(toAnotherPortOf: d.dst, than: d.dstPort, at: d.time)
            }
        } else if m.kind == .notify, !d.dst.isMulticast {
            // A unicast NOTIFY may be a search answer sent as a NOTIFY (ssdpy): the M-SEARCH
            // last sent from the endpoint it goes to, if any.
            event.search = links[k].store.searches[Endpoint(address: d.dst, port: d.dstPort)]
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
        let context = SSDPContext(
            version: version, claimedVersion: claimed, isCandidateResponse: d.srcPort != 1900 && d.dstPort != 1900,
            fromSearchPort: fromSearchPort, deviceKey: m.uuidKey ?? 0)
        return (context, reports.reports)
    }

    /// Live capture's timer: what became certain by `now` (never before the latest packet).
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        let before = out.evictions
        links.conclude(by: max(now, latest), into: &out)
        ruleEvictions += out.evictions - before
    }

    /// The searches nothing answered on each link (`SSDPSessionStore.openSearches`).
    func unanswered() -> [UnansweredQuestion] {
        var out: [UnansweredQuestion] = []
        for k in 0..<links.count {
            let segment = links.segment(at: k)
            for (key, s) in links[k].store.openSearches.rows where !s.answered {
                out.append(s.unanswered(by: key.searcher, segment: segment))
            }
        }
        return out
    }

    /// The end of the input: session rules conclude (reports carry the frames they name).
    mutating func finish(into out: inout SessionReports) {
        let before = out.evictions
        links.finish(judging: nil, into: &out)
        ruleEvictions += out.evictions - before
    }
}

/// What the stateless rules judge one SSDP message in: settled by its own bytes
/// (`SSDPRouter.start`) or by the session (`SSDPSessionStage.observe`).
struct SSDPContext: Sendable, Equatable {
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
}
