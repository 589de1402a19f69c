import Findings
import NetLayers
import SSDP
import WireFormat

/// All SSDP session state of one session, kept once:
/// - `model`: the devices the capture has shown, by UUID key (see `SSDPSessionModel`);
/// - `searches`: the latest M-SEARCH of each searcher endpoint, which the analyzer pairs
///   responses with (`SSDPEvent.search`; `searchers`, by address, for a response to another
///   port of the searcher), and `versions`, the UPnP version each device
///   claimed last, which a NOTIFY claiming none is judged by;
/// - `verdicts`: what each rule still has to decide, in rows keyed by the identity of what it
///   is about (a device, a searcher endpoint, a USN).
///
/// The analyzer reads `searches`, `versions` and `model` to make each event (`SSDPEvent.search`,
/// `.version`, `.device`); rules read the event, `model` and `latest`, and keep their verdict
/// rows in `verdicts`. Only `update(with:)` changes the rest, after the rules judged an event. Every table is a
/// `SessionTable` or a `SessionWindow` (or one of the model's, bounded alike), and what any of
/// them evicted is counted in one account (`evicted`, with the rules' rows counted through
/// their reports).
public struct SSDPSessionStore: SessionStore {
    public typealias Event = SSDPEvent

    public private(set) var model = SSDPSessionModel()
    /// The latest M-SEARCH of each searcher endpoint. A response is paired with the one of the
    /// endpoint it goes to however old it is (rules judge the delay), so the table is not aged
    /// by time: past the cap the expired searches go, then, when none had expired, all of
    /// them (counted).
    public private(set) var searches = SessionTable<Endpoint, RecentSearch>(
        cap: 1024, horizon: .infinity, activity: \.time)
    /// Of each searcher address, the M-SEARCH (from any of its ports) whose window for
    /// responses closes last: a response to a port of that address that sent no search is
    /// paired with it (SSDP-205: the port it came from) in one lookup. Rows go a second after their window closed.
    public private(set) var searchers = SessionTable<IPAddress, RecentSearch>(
        cap: 1024, horizon: 1, activity: \.expires, expires: true)
    /// The UPnP version each device (UUID key) claimed last in a message other than an
    /// M-SEARCH.
    public private(set) var versions = SessionTable<UInt64, SSDPClaimedVersion>(
        cap: 4096, horizon: .infinity, activity: \.time)
    /// Each searcher endpoint's searches by ST (`SSDPOpenSearch`), and whether a 200 OK for
    /// that ST came back to it: what the run summary lists as unanswered. `searches` keeps
    /// only the latest search of an endpoint; this table counts them, keeping the ST's text,
    /// so it is small: past its cap the least recently searched go (counted), and a row goes
    /// an hour after its last search.
    public private(set) var openSearches = SessionTable<SSDPSearchKey, SSDPOpenSearch>(
        cap: 1024, horizon: 3600, activity: \.last)
    /// The time of the latest event taken in (end-of-input conclusions are drawn at it).
    public private(set) var latest: Timestamp = .zero
    var verdicts = SSDPVerdicts()
    private var tableEvictions = 0

    /// How long after a unicast M-SEARCH a datagram to its endpoint is still taken for its
    /// response (UDA asks for 1 s; later ones are shown and judged late).
    public static let unicastWindow: Int64 = 5
    /// Seconds past a multicast M-SEARCH's MX that a datagram to its endpoint is still taken
    /// for its response.
    public static let slack = 0.5

    public init() {}

    /// Entries the model, `searches`, `searchers` and `versions` dropped because a table was
    /// full.
    public var evicted: Int { model.evicted + tableEvictions }

    public mutating func update(with e: SSDPEvent) {
        latest = e.time
        if e.kind == .response, let search = e.search {
            // A response to the endpoint's latest search answers it when it carries the ST
            // searched for (any, for ssdp:all).
            if SSDPOpenSearch.isAll(search.st) || SSDPOpenSearch.key(e.st ?? []) == SSDPOpenSearch.key(search.st) {
                let key = SSDPSearchKey(
                    searcher: Endpoint(address: e.dst, port: e.dstPort), st: SSDPOpenSearch.key(search.st))
                openSearches.modify(key) { $0.answered = true }
            }
        }
        if e.kind == .mSearch {
            take(search: e)
        } else if let u = e.facts.uuidKey, let c = e.claimedVersion {
            versions.insert(SSDPClaimedVersion(version: c, time: e.time), for: u, at: e.time, evicted: &tableEvictions)
        }
        if let u = e.facts.uuidKey, e.kind == .notify || e.kind == .response {
            verdicts.devices.modify(u) { $0.saw(e) }
        }
        model.update(with: e)
    }

    /// Takes an M-SEARCH in as the latest of its endpoint: a multicast one awaits responses
    /// for MX (capped for the control point's version) and the slack, a unicast one for
    /// `unicastWindow`.
    private mutating func take(search e: SSDPEvent) {
        let multicast = e.dst.isMulticast
        let cap: UInt64 = e.version >= .v1_1 ? 5 : 120
        let mx = e.facts.mx.map { min($0, cap) }
        let window = multicast ? Int64((Double(mx ?? 5) + Self.slack + 0.5).rounded(.up)) : Self.unicastWindow
        let expires = Timestamp(seconds: e.time.seconds &+ window, nanoseconds: e.time.nanoseconds)
        if searches.count >= searches.cap {
            searches.keep { $0.expires > e.time }
            if searches.count >= searches.cap {
                tableEvictions += searches.count
                searches.removeAll()
            }
        }
        var s = RecentSearch(
            frame: e.frame, time: e.time, port: e.srcPort, mx: mx, st: Array(e.target ?? []), expires: expires)
        if !s.st.isEmpty {
            let key = SSDPSearchKey(searcher: Endpoint(address: e.src, port: e.srcPort), st: SSDPOpenSearch.key(s.st))
            openSearches.update(
                key, default: SSDPOpenSearch(st: s.st, firstFrame: e.frame, first: e.time), at: e.time,
                evicted: &tableEvictions
            ) { $0.take(at: e.time) }
        }
        s.hasMX = e.facts.hasMX
        s.manValid = e.facts.manValid
        if !multicast { s.unicastTo = e.dst }
        searches.insert(s, for: Endpoint(address: e.src, port: e.srcPort), at: e.time, evicted: &tableEvictions)
        // A newer search from the same port replaces the address's row, as it does its
        // endpoint's; one from another port does when its window closes no earlier.
        if searchers[e.src].map({ $0.port == s.port || $0.expires <= s.expires }) ?? true {
            searchers.insert(s, for: e.src, at: e.time, evicted: &tableEvictions)
        }
    }

    /// For a response to `address`:`port` that no M-SEARCH of that endpoint awaits: the search
    /// from another port of the address whose window is still open at `time`, if any.
    public func search(toAnotherPortOf address: IPAddress, than port: UInt16, at time: Timestamp) -> RecentSearch? {
        guard let s = searchers[address], s.port != port, s.expires >= time else { return nil }
        return s
    }
}

/// A searcher endpoint and an ST (its key: `SSDPOpenSearch.key`).
public struct SSDPSearchKey: Sendable, WordHashable {
    public var searcher: Endpoint
    public var st: UInt64

    public func feedWords<S: WordSink>(into sink: inout S) {
        searcher.feedWords(into: &sink)
        sink.add(st)
    }
}

/// An endpoint's searches for one ST (`SSDPSessionStore.openSearches`): the ST's text, how
/// often and when, and whether a response answered one.
public struct SSDPOpenSearch: Sendable {
    public let st: String
    public let firstFrame: Int
    public let first: Timestamp
    public private(set) var last: Timestamp
    public private(set) var searches = 0
    public var answered = false
    /// ST text kept at most.
    static let maxST = 300

    init(st: [UInt8], firstFrame: Int, first: Timestamp) {
        self.st = String(decoding: st.prefix(Self.maxST), as: UTF8.self)
        self.firstFrame = firstFrame
        self.first = first
        last = first
    }

    mutating func take(at time: Timestamp) {
        searches &+= 1
        last = time
    }

    /// The ST's identity: its bytes, ASCII letters in lower case (ST values compare so),
    /// FNV-1a.
    static func key<C: Collection<UInt8>>(_ st: C) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in st { h = (h ^ UInt64(b >= 0x41 && b <= 0x5A ? b | 0x20 : b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    static let all = key(Array("ssdp:all".utf8))
    static func isAll(_ st: [UInt8]) -> Bool { key(st) == all }

    /// As the run summary lists it, searched by `searcher` on `segment`.
    public func unanswered(by searcher: Endpoint, segment: UInt16) -> UnansweredQuestion {
        let a = searcher.address.description
        return UnansweredQuestion(
            proto: .ssdp, name: st, type: "", asked: searches,
            askers: [a.contains(":") ? "[\(a)]:\(searcher.port)" : "\(a):\(searcher.port)"],
            moreAskers: false, firstFrame: firstFrame, first: first, last: last, segment: segment)
    }
}

/// The UPnP version a device claimed last, and when.
public struct SSDPClaimedVersion: Sendable {
    public var version: UPnPVersion
    public var time: Timestamp
}

/// What the SSDP session rules still have to decide, kept for them by the store: rows keyed by
/// the identity of what each is about (a device, a searcher endpoint, a USN), each table
/// declared here with its cap and horizon.
struct SSDPVerdicts {
    // MARK: Devices (AnnouncementRules.swift)

    /// One row per device (UUID key) a rule keeps anything about: those that report once per
    /// device (SSDP-507, 511, 512, 516, 517's moves to another address), its first alive and what its alives named (SSDP-514),
    /// where it answers unicast searches (SSDP-519). Rows stay to the end of the input
    /// (SSDP-514 and 519 conclude there); past the cap, the least recently seen go.
    var devices = SessionTable<UInt64, SSDPDeviceVerdicts>(cap: 4096, horizon: .infinity, activity: \.lastSeen)
    /// SSDP-508: initial alive sets watched for their repetition, by device and source; a
    /// set leaves when its window closes.
    var initialSets = SessionTable<AliveStormRule.Key, AliveStormRule.InitialSet>(
        cap: 4096, horizon: AliveStormRule.repeatWindow, activity: \.time)
    /// SSDP-508: the start of the oldest set in `initialSets` (nil: none), or earlier.
    var oldestInitialSet: Timestamp?
    /// SSDP-508: sets whose window closed without a repetition, until they are reported.
    var sentOnce = SessionWindow<AliveStormRule.SentOnce>(cap: 4096, span: .infinity, time: \.closed)
    /// SSDP-513: byebyes for USNs not seen advertised, by USN key, until the end of the input.
    var unknownByebyes = SessionTable<UInt64, ByebyeUnknownUSNRule.Pending>(
        cap: 4096, horizon: .infinity, activity: \.time)
    /// SSDP-519: unicast M-SEARCHes and who answered them, until the end of the input.
    var unicastSearches = SessionWindow<UnicastSearchAnsweredRule.Probe>(cap: 1024, span: .infinity, time: \.time)
    /// SSDP-521: the devices reported silent, with their latest message then (a device that
    /// sends anything since is judged again). Rows stay to the end of the input; past the
    /// cap (the model's `maxDevices`), the earliest reported go.
    var silentDevices = SessionTable<UInt64, AdvertisementExpiredRule.Silence>(
        cap: 4096, horizon: .infinity, activity: \.lastSeen)

    // MARK: Searches (SessionRules.swift)

    /// SSDP-501: each device's answers (by searcher, responder address and LOCATION) to the
    /// multicast ssdp:all search it answers, until the search's window ends.
    var allAnswers = SessionTable<ResponseWithinMXRule.AnswerKey, ResponseWithinMXRule.Answers>(
        cap: 4096, horizon: .infinity, activity: \.searchTime)
    /// SSDP-501: the end of the earliest window in `allAnswers` (nil: none open), or earlier.
    var earliestAllClose: Double?
    /// SSDP-501: how soon each device (responder address and LOCATION) answered the multicast
    /// searches with MX 1 or more it answered, until the end of the input.
    var answerDelays = SessionTable<ResponseWithinMXRule.DeviceKey, ResponseWithinMXRule.Delays>(
        cap: 4096, horizon: 3600, activity: \.last)
    /// SSDP-501: answers sent as one burst, until reported.
    var bursts = SessionWindow<ResponseWithinMXRule.Answers>(cap: 1024, span: .infinity, time: \.searchTime)

    /// SSDP-505: the open multicast searches for ssdp:all or upnp:rootdevice of each searcher
    /// endpoint, and the root devices that used each up. A row whose windows all ended holds
    /// nothing open.
    var rootSearches = SessionTable<Endpoint, SearchResponseSetRule.OpenSearches>(
        cap: 1024, horizon: 0, activity: \.deadline)
    /// SSDP-505: each device's answers to an ssdp:all search, by searcher and responder, until
    /// the search's window ends.
    var setAnswers = SessionTable<SearchResponseSetRule.SetKey, SearchResponseSetRule.SetAnswer>(
        cap: 4096, horizon: .infinity, activity: \.searchTime)
    /// SSDP-505: the end of the earliest window in `setAnswers` (nil: none open), or earlier.
    var earliestSetExpiry: Double?
    /// SSDP-505: answers whose window ended with announced USNs left out, until reported.
    var incompleteSets = SessionWindow<SearchResponseSetRule.Incomplete>(cap: 4096, span: .infinity, time: \.closed)

    /// Whether `rule` reports on device `key` now: only the first time (each of these rules
    /// reports once per device).
    mutating func firstReport(
        _ rule: SSDPDeviceVerdicts.Reported, on key: UInt64, at e: SSDPEvent, _ out: inout SessionReports
    ) -> Bool {
        if let first = devices[key]?.markReported(rule) { return first }
        var row = SSDPDeviceVerdicts(e)
        row.reported = rule
        devices.insert(row, for: key, at: e.time, evicted: &out.evictions)
        return true
    }

    /// `firstReport` for a conclusion drawn without an event: the row it makes is dated by the
    /// frame and time the report names.
    mutating func firstReport(
        _ rule: SSDPDeviceVerdicts.Reported, on key: UInt64, frame: Int, time: Timestamp,
        _ out: inout SessionReports
    ) -> Bool {
        if let first = devices[key]?.markReported(rule) { return first }
        var row = SSDPDeviceVerdicts(frame: frame, time: time)
        row.reported = rule
        devices.insert(row, for: key, at: time, evicted: &out.evictions)
        return true
    }

    /// Changes the row of device `key` in place, making it (at `e`) when it has none.
    mutating func changeDevice(
        _ key: UInt64, at e: SSDPEvent, _ out: inout SessionReports, _ change: (inout SSDPDeviceVerdicts) -> Void
    ) {
        // Changed in place (`modify`): the subscript moves a row out and back, and a
        // device's row is large.
        guard devices.modify(key, change) == nil else { return }
        var row = SSDPDeviceVerdicts(e)
        change(&row)
        devices.insert(row, for: key, at: e.time, evicted: &out.evictions)
    }
}

/// What the device rules still have to decide about one device (`SSDPVerdicts.devices`).
struct SSDPDeviceVerdicts {
    /// Its latest NOTIFY or response (kept by the store).
    var lastSeen: Timestamp
    var lastFrame: Int
    /// The UUID as spelled in the USN of the first alive a rule kept anything of (at most 80
    /// bytes), for end-of-input reports.
    var uuid: [UInt8] = []
    /// The rules that reported on it.
    var reported: Reported = []
    /// SSDP-514: its first alive and what its alives named.
    var announcements: AdvertisementSetCompleteRule.Announcements?
    /// SSDP-519: where it answers unicast searches.
    var searchTarget: UnicastSearchAnsweredRule.SearchTarget?
    /// SSDP-520: what advertised it before any multicast alive.
    var multicastAlive: MulticastAliveRule.Watch?

    /// The rules that report once per device.
    struct Reported: OptionSet {
        let rawValue: UInt8
        static let refreshInterval = Reported(rawValue: 1)  // SSDP-507
        static let configID = Reported(rawValue: 2)  // SSDP-511
        static let uuidUnique = Reported(rawValue: 4)  // SSDP-512
        static let multiHomed = Reported(rawValue: 8)  // SSDP-516
        static let movedAddress = Reported(rawValue: 16)  // SSDP-517, to another address
        static let responseBurst = Reported(rawValue: 32)  // SSDP-501, ssdp:all in one burst
    }

    init(_ e: SSDPEvent) {
        lastSeen = e.time
        lastFrame = e.frame
    }

    init(frame: Int, time: Timestamp) {
        lastSeen = time
        lastFrame = frame
    }

    mutating func saw(_ e: SSDPEvent) {
        lastSeen = e.time
        lastFrame = e.frame
    }

    /// Whether `rule` had not reported on it (it has now).
    mutating func markReported(_ rule: Reported) -> Bool {
        guard !reported.contains(rule) else { return false }
        reported.formUnion(rule)
        return true
    }

    /// Keeps the UUID of `e`'s USN unless one is kept already.
    mutating func keepUUID(of e: SSDPEvent) {
        guard uuid.isEmpty, let usn = e.usn, let u = SSDPSyntax.uuid(inUSN: usn) else { return }
        uuid = Array(u.prefix(80))
    }
}
