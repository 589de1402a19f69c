import Findings
import Rules
import WireFormat

/// One session engine (store and rules) per segment of a session, in the order their first
/// messages came (usually one). SSDP and mDNS are link-local: each segment of a merged
/// session is judged as its own link, and what crosses links is not these rules' business.
///
/// The segments, engines and clocks are kept in arrays of their own, by position: an array
/// of tuples holding the engines copied an engine (every table of its store retained) to
/// read an element.
struct SegmentEngines<Event: SessionEvent> {
    private let registered: [any SessionRule<Event>.Type]
    private let disabled: Set<RuleID>
    private var segments: [UInt16] = []
    private var engines: [SessionEngine<Event>] = []
    /// Each link's latest packet time.
    private var latest: [Timestamp] = []

    init(_ registered: [any SessionRule<Event>.Type], disabled: Set<RuleID>) {
        self.registered = registered
        self.disabled = disabled
    }

    var count: Int { engines.count }

    /// The segment of the engine at `k`.
    func segment(at k: Int) -> UInt16 { segments[k] }

    /// The engine of the session's first segment (nil before any message).
    var first: SessionEngine<Event>? { engines.first }

    /// The position of the engine of `segment`, made when it is new.
    mutating func index(of segment: UInt16) -> Int {
        if let k = segments.firstIndex(of: segment) { return k }
        segments.append(segment)
        engines.append(SessionEngine(registered, disabled: disabled))
        latest.append(.zero)
        return engines.count - 1
    }

    /// When the link at `k` judges a packet stamped `time`: times on one link never decrease,
    /// so a packet stamped earlier than one before it on its link is judged at the link's
    /// latest time (`wentBack`), and no interval comes out negative. Each link keeps its own
    /// clock: the interfaces of one capture are stamped apart, and their packets interleave
    /// out of order by a few microseconds.
    mutating func clock(_ k: Int, _ time: Timestamp) -> (time: Timestamp, wentBack: Bool) {
        if time < latest[k] { return (latest[k], true) }
        latest[k] = time
        return (time, false)
    }

    /// The engine at `k` (from `index(of:)`), read or changed in place.
    subscript(k: Int) -> SessionEngine<Event> {
        _read { yield engines[k] }
        _modify { yield &engines[k] }
    }

    /// Entries every segment's store dropped because a table was full.
    var evicted: Int { engines.reduce(0) { $0 + $1.store.evicted } }

    /// Live capture's timer, on every segment.
    mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        for k in engines.indices { engines[k].conclude(by: now, into: &out) }
    }

    /// The end of the input on every segment: each judges `end` (when given), then finishes.
    mutating func finish(judging end: Event?, into out: inout SessionReports) {
        for k in engines.indices {
            if var end { engines[k].judge(&end, into: &out) }
            engines[k].finish(into: &out)
        }
    }
}
