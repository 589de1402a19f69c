import Findings
import Rules
import WireFormat

/// One session engine (store and rules) per segment of a session, in the order their first
/// messages came (usually one). SSDP and mDNS are link-local: each segment of a merged
/// session is judged as its own link, and what crosses links is not these rules' business.
struct SegmentEngines<Event: SessionEvent> {
    private let registered: [any SessionRule<Event>.Type]
    private let disabled: Set<RuleID>
    private var links: [(segment: UInt16, engine: SessionEngine<Event>, latest: Timestamp)] = []

    init(_ registered: [any SessionRule<Event>.Type], disabled: Set<RuleID>) {
        self.registered = registered
        self.disabled = disabled
    }

    var count: Int { links.count }

    /// The engine of the session's first segment (nil before any message).
    var first: SessionEngine<Event>? { links.first?.engine }

    /// The position of the engine of `segment`, made when it is new.
    mutating func index(of segment: UInt16) -> Int {
        if let k = links.firstIndex(where: { $0.segment == segment }) { return k }
        links.append((segment, SessionEngine(registered, disabled: disabled), .zero))
        return links.count - 1
    }

    /// When the link at `k` judges a packet stamped `time`: times on one link never decrease,
    /// so a packet stamped earlier than one before it on its link is judged at the link's
    /// latest time (`wentBack`), and no interval comes out negative. Each link keeps its own
    /// clock: the interfaces of one capture are stamped apart, and their packets interleave
    /// out of order by a few microseconds.
    mutating func clock(_ k: Int, _ time: Timestamp) -> (time: Timestamp, wentBack: Bool) {
        if time < links[k].latest { return (links[k].latest, true) }
        links[k].latest = time
        return (time, false)
    }

    /// The engine at `k` (from `index(of:)`), changed in place.
    subscript(k: Int) -> SessionEngine<Event> {
        get { links[k].engine }
        _modify { yield &links[k].engine }
    }

    /// Entries every segment's store dropped because a table was full.
    var evicted: Int { links.reduce(0) { $0 + $1.engine.store.evicted } }

    /// Live capture's timer, on every segment.
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        for k in links.indices { links[k].engine.conclude(by: now, into: &out) }
    }

    /// The end of the input on every segment: each judges `end` (when given), then finishes.
    mutating func finish(judging end: Event?, into out: inout SessionReports) {
        for k in links.indices {
            if let end { links[k].engine.judge(end, into: &out) }
            links[k].engine.finish(into: &out)
        }
    }
}
