import DNS
import Findings
import NetLayers
import Rules
import WireFormat

/// The in-order part of mDNS analysis (run by `MDNSSessionSettler`): takes each decoded
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
    /// With several links: every message also taken into one model, for the inventory.
    private var whole: MDNSSessionModel?
    /// Hosts, services and records seen so far on every link (see `MDNSSessionModel`).
    var model: MDNSSessionModel { whole ?? links.first?.store.model ?? MDNSSessionModel() }
    /// The latest packet time seen: event times never go below it.
    private var latest: Timestamp = .zero
    /// Packets whose timestamp was earlier than one before them.
    private(set) var timeWentBack = 0
    /// Verdict rows the session rules' tables dropped.
    private var ruleEvictions = 0
    /// Table entries dropped because their table was full (the summary's `state_evicted`).
    var stateEvicted: Int { links.evicted + ruleEvictions }

    init(disabled: Set<RuleID> = []) {
        links = SegmentEngines(RuleRegistry.mdnsSession, disabled: disabled)
    }

    /// Whether any mDNS session rule is enabled (otherwise the stage is not run at all).
    static func isEnabled(disabled: Set<RuleID>) -> Bool {
        RuleRegistry.mdnsSession.contains { !disabled.contains($0.descriptor.id) }
    }

    /// The session rules' reports on one message. A payload too short for the DNS header is
    /// left to the stateless rules.
    mutating func observe(_ input: MDNSInput, into reports: inout SessionReports) {
        guard input.message.payload.count >= 12 else { return }
        var time = input.datagram.time
        let wentBack = time < latest
        if wentBack {
            timeWentBack += 1
            time = latest
        } else {
            latest = time
        }
        let event = MDNSEvent(input, time: time, timeWentBack: wentBack)
        let before = reports.evictions
        let known = links.count
        let k = links.index(of: input.datagram.segment)
        // A second segment: the model of every segment starts from the first one's.
        if known == 1, links.count == 2, let first = links.first { whole = first.store.model }
        links[k].observe(event, into: &reports)
        whole?.update(with: event)
        ruleEvictions += reports.evictions - before
    }

    /// Live capture's timer: what became certain by `now` (never before the latest packet).
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        let before = out.evictions
        links.conclude(by: max(now, latest), into: &out)
        ruleEvictions += out.evictions - before
    }

    /// The end of the input: on each link, rules see the final store once (an event with
    /// `atEnd` and no message), then conclude.
    mutating func finish(into out: inout SessionReports) {
        var end = MDNSEvent(
            frame: 0, time: latest, src: .v4(0), srcPort: 0, dst: .v4(0), dstPort: 0, id: 0, isResponse: false)
        end.atEnd = true
        let before = out.evictions
        links.finish(judging: end, into: &out)
        ruleEvictions += out.evictions - before
    }
}
