import DNS
import Findings
import NetLayers
import Rules
import WireFormat

/// The in-order part of mDNS analysis (run by `SessionSettler`): takes each decoded
/// message (as the worker decoded it) in capture order and hands it to the session engine,
/// which runs the session rules over it with the session store as it was before the
/// message, then takes it into the store. One per session (an input file, or the segments
/// of a merged session).
///
/// mDNS is link-local: each segment (link) of a session has its own engine, store and
/// rules, so what one link shows is judged apart from the others (a reflector's copy of a
/// query on another link is not a duplicate question there). What crosses links is the
/// business of segment correlation, not of these rules.
struct MDNSSessionStage {
    private var links: SegmentEngines<MDNSEvent>
    /// In a session of named segments: the whole network's engine, whose store takes every
    /// message of every segment and whose rules (`RuleRegistry.mdnsSegments`) judge what
    /// crosses segments. Its model is the inventory's.
    private var network: SessionEngine<MDNSEvent>?
    private let disabled: Set<RuleID>
    /// Hosts, services and records seen so far on every link (see `MDNSSessionModel`).
    var model: MDNSSessionModel { network?.store.model ?? links.first?.store.model ?? MDNSSessionModel() }
    /// The message `observe` took last was a forwarder's copy of another segment's records
    /// (`MDNSSessionStore.isForwardedCopy`): what the session rules found in it is the
    /// forwarder's, no host's.
    private(set) var lastWasForwarded = false
    /// The latest packet time seen on any link.
    private var latest: Timestamp = .zero
    /// Packets whose timestamp was earlier than one before them on their link.
    private(set) var timeWentBack = 0
    /// Verdict rows the session rules' tables dropped.
    private var ruleEvictions = 0
    /// Table entries dropped because their table was full (the summary's `state_evicted`).
    var stateEvicted: Int { links.evicted + (network?.store.evicted ?? 0) + ruleEvictions }

    init(disabled: Set<RuleID> = []) {
        links = SegmentEngines(RuleRegistry.mdnsSession, disabled: disabled)
        self.disabled = disabled
    }

    /// Whether any mDNS session rule is enabled (otherwise the stage is not run at all).
    static func isEnabled(disabled: Set<RuleID>) -> Bool {
        (RuleRegistry.mdnsSession + RuleRegistry.mdnsSegments).contains { !disabled.contains($0.descriptor.id) }
    }

    /// The session rules' reports on one message. A payload too short for the DNS header is
    /// left to the stateless rules.
    mutating func observe(_ input: MDNSInput, into reports: inout SessionReports) {
        guard input.message.payload.count >= 12 else { return }
        let before = reports.evictions
        let segment = input.datagram.segment
        if segment != 0, links.count == 0 {
            var engine = SessionEngine(RuleRegistry.mdnsSegments, disabled: disabled)
            engine.configureStore { $0.followRecordTrails() }
            network = engine
        }
        // Times in events never decrease: on the packet's link for the link's rules (counted
        // when a packet's would), and over every link for the rules across them.
        let k = links.index(of: segment)
        let (time, wentBack) = links.clock(k, input.datagram.time)
        if wentBack { timeWentBack += 1 }
        let overall = max(latest, input.datagram.time)
        // Whether the network's store, as it was before the message, shows it as a
        // forwarder's copy of another segment's records: the link's model (and the
        // network's, the inventory's) takes it as the forwarder's message.
        var networkEvent = network.map { _ in
            MDNSEvent(input, time: overall, timeWentBack: input.datagram.time < latest)
        }
        let forwarded = networkEvent.map { network?.store.isForwardedCopy($0) ?? false } ?? false
        lastWasForwarded = forwarded
        networkEvent?.forwarded = forwarded
        var event = MDNSEvent(input, time: time, timeWentBack: wentBack)
        event.forwarded = forwarded
        links[k].observe(event, into: &reports)
        if let networkEvent { network?.observe(networkEvent, into: &reports) }
        latest = overall
        ruleEvictions += reports.evictions - before
    }

    /// Live capture's timer: what became certain by `now` (never before the latest packet).
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        let before = out.evictions
        links.conclude(by: max(now, latest), into: &out)
        network?.conclude(by: max(now, latest), into: &out)
        ruleEvictions += out.evictions - before
    }

    /// The questions nothing answered on each link (`MDNSWindows.openQuestions`).
    func unanswered() -> [UnansweredQuestion] {
        var out: [UnansweredQuestion] = []
        for k in 0..<links.count {
            let segment = links.segment(at: k)
            for q in links[k].store.windows.unansweredQuestions {
                out.append(q.unanswered(segment: segment))
            }
        }
        return out
    }

    /// The end of the input: on each link, rules see the final store once (an event with
    /// `atEnd` and no message), then conclude.
    mutating func finish(into out: inout SessionReports) {
        var end = MDNSEvent(
            frame: 0, time: latest, src: .v4(0), srcPort: 0, dst: .v4(0), dstPort: 0, id: 0, isResponse: false)
        end.atEnd = true
        let before = out.evictions
        links.finish(judging: end, into: &out)
        network?.judge(&end, into: &out)
        network?.finish(into: &out)
        ruleEvictions += out.evictions - before
    }
}
