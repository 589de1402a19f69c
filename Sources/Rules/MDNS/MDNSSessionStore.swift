import DNS
import NetLayers
import WireFormat

/// All mDNS session state of one session, kept once:
/// - `model`: the entities the capture has shown (hosts, service instances, RRSets and their
///   records, probe sequences, questions, senders), by identity;
/// - `windows`: the recent events several rules read (the multicast queries of the last
///   second, the latest queriers, when each name was last asked for);
/// - `verdicts`: what each rule still has to decide, in rows keyed by the identity of what it
///   is about.
///
/// Rules read `model` and `windows` and keep their verdict rows in `verdicts`; only
/// `update(with:)` changes the model and the windows, after the rules judged an event. Every
/// table is a `SessionTable` or a `SessionWindow` (or one of the model's, bounded alike), and
/// what any of them evicted is counted in one account (`evicted`, with the rules' rows
/// counted through their reports).
public struct MDNSSessionStore: SessionStore {
    public typealias Event = MDNSEvent

    public private(set) var model = MDNSSessionModel()
    public private(set) var windows = MDNSWindows()
    var verdicts = MDNSVerdicts()
    private var windowEvictions = 0

    public init() {}

    /// Entries the model and the windows dropped because a table was full.
    public var evicted: Int { model.evicted + windowEvictions }

    public mutating func update(with e: MDNSEvent) {
        guard let i = e.input else { return }
        windows.take(e, i, evicted: &windowEvictions)
        model.update(with: e)
    }
}

/// The windows of recent mDNS events that several rules read, kept once.
public struct MDNSWindows {
    /// Multicast queries other than probes, of the last second, oldest first (responses are
    /// paired with them). Rules read `queries(within:of:)`: the window is aged when the store
    /// takes an event, so it may still hold queries more than a second older than the event
    /// being judged.
    public private(set) var queries = SessionWindow<MDNSRecentQuery>(cap: 1024, span: 1, time: \.time)

    /// The queries of the window at most `span` seconds before `now`, oldest first.
    public func queries(within span: Double, of now: Timestamp) -> ArraySlice<MDNSRecentQuery> {
        let all = queries.elements
        var start = all.endIndex
        while start > all.startIndex, MDNSSession.since(all[start - 1].time, now) <= span { start -= 1 }
        return all[start...]
    }

    /// The latest queriers, probes included (a query with Authority records is answered like
    /// any other): a response within a second of another host's query may answer it.
    private(set) var queriers = MDNSLatestQueriers()
    /// When each name (by its key) was last asked for, in the two ways rules read it
    /// (`MDNSNameAsked`).
    private(set) var asked = SessionTable<UInt64, MDNSNameAsked>(cap: 65536, horizon: 3600, activity: \.last)

    mutating func take(_ e: MDNSEvent, _ i: MDNSInput, evicted: inout Int) {
        queries.age(to: e.time)
        if i.isQuery, !i.isProbe, e.dst.isMulticast {
            queries.append(MDNSRecentQuery(e, i), evicted: &evicted)
        }
        if i.isQuery { noteAsked(e, i, evicted: &evicted) }
    }

    private mutating func noteAsked(_ e: MDNSEvent, _ i: MDNSInput, evicted: inout Int) {
        queriers.note(e.src, at: e.time, timeWentBack: e.timeWentBack)
        let plain = !i.isProbe
        for (n, q) in i.questionNames.enumerated() {
            let inOrder = !e.timeWentBack && n < MDNSNameAsked.inOrderQuestions
            guard plain || inOrder else { break }
            let time = e.time
            asked.update(q.key, default: MDNSNameAsked(last: time), at: time, evicted: &evicted) { a in
                a.last = time
                if plain { a.query = time }
                if inOrder { a.inOrder = time }
            }
        }
    }
}

/// When a name was last asked for (a row of `MDNSWindows.asked`), in the two ways rules read
/// it.
struct MDNSNameAsked {
    /// The last query other than a probe with a question for it (MDNS-504: a response within
    /// a second answers it).
    var query: Timestamp?
    /// The last query, probes included (a probe for a name its responder holds is answered at
    /// once, RFC 6762 §8.1), that asked for it among its first `inOrderQuestions` questions
    /// and whose capture clock did not go back (MDNS-505: a record multicast again after it
    /// may have been solicited).
    var inOrder: Timestamp?
    /// The latest of the two.
    var last: Timestamp

    static let inOrderQuestions = 64
}

/// A multicast query (not a probe), as the rules pair responses with it.
public struct MDNSRecentQuery: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var source: IPAddress
    public var sourcePort: UInt16
    /// Its questions, and whether each asked for a multicast (QM) answer.
    var questions: [MDNSQuestionID]
    var qm: [Bool]
    /// TC set: more Known-Answers follow.
    public var truncated: Bool
    /// The capture's clock went back at this query (its time is the latest before it).
    public var timeWentBack: Bool
    /// Its Known-Answers (the first 256), with the TTLs listed.
    var known: [(key: MDNSRecordKey, ttl: UInt32)]
    /// The names of its questions past the first 64 (`questions`), for `asks(name:)`: empty
    /// but for the rare query with more.
    private var moreNames: [UInt64]
    /// One bit per question name (chosen by its key): `asks` reads the questions only when
    /// the bit of the key's name is set, so most non-matching queries cost one test.
    private var nameBits: UInt64

    init(_ e: MDNSEvent, _ i: MDNSInput) {
        frame = e.frame
        time = e.time
        source = e.src
        sourcePort = e.srcPort
        questions = i.questionIDs
        qm = i.message.questions.map { !$0.unicastResponse }
        truncated = i.header.tc
        timeWentBack = e.timeWentBack
        known = i.answerRecords.prefix(256).map { (MDNSRecordKey($0), $0.record.ttl) }
        moreNames = i.questionNames.dropFirst(i.questionIDs.count).map(\.key)
        nameBits = i.questionNames.reduce(0) { $0 | MDNSSession.nameBit($1.key) }
    }

    /// Whether a question asks for the RRSet (same name, its type or ANY).
    func asks(_ key: MDNSRRSetKey) -> Bool {
        nameBits & MDNSSession.nameBit(key.name) != 0 && questions.contains { $0.isAnswered(by: key) }
    }

    /// Whether a question names `name` (any type; any of its questions, not only the first 64).
    func asks(name: UInt64) -> Bool {
        nameBits & MDNSSession.nameBit(name) != 0
            && (questions.contains { $0.name == name } || moreNames.contains(name))
    }

    /// The TTL the query listed `key` with as a Known-Answer (the last listing when listed
    /// twice), if it did.
    func listed(_ key: MDNSRecordKey) -> UInt32? { known.last { $0.key == key }?.ttl }
}

/// What the mDNS session rules still have to decide, kept for them by the store: one set of
/// rows per rule that keeps any, keyed by the identity of what the row is about (a responder,
/// a querier, a probed name, a record). Each table is declared here with its cap and horizon.
struct MDNSVerdicts {
    // MARK: Response timing (ResponseTimingRules.swift)

    /// MDNS-507: shared-answer delays per responder.
    var responseDelays = SessionTable<IPAddress, ResponseDelayRule.Samples>(
        cap: 256, horizon: .infinity, activity: \.last)
    /// MDNS-508: the open Known-Answer list of each querier (a TC query and its continuations).
    var knownAnswerLists = SessionTable<IPAddress, TruncatedQueryDelayRule.List>(
        cap: 256, horizon: 1, activity: \.last.time)

    // MARK: Query behaviour (QueryBehaviourRules.swift, MDNSSessionRules.swift)

    /// MDNS-403: the pending legacy query of each querier endpoint (its window is 1 s).
    var legacyQueries = SessionTable<Endpoint, LegacyResponseIDRule.Query>(
        cap: 16384, horizon: 1, activity: \.time)
    /// MDNS-403: the legacy queries of the last second, with the responses to them.
    var legacyAnswers = SessionWindow<LegacyResponseIDRule.Exchange>(cap: 256, span: 1, time: \.time)
    /// MDNS-403: responders that answered a legacy query only by multicast, reported at the
    /// end (the first `cap`: the rule adds none past it).
    var legacyMulticastOnly = SessionWindow<LegacyResponseIDRule.MulticastOnly>(
        cap: 256, span: .infinity, time: \.time)
    /// MDNS-403: the addresses unicast mDNS was seen going to (the capture can show a unicast
    /// answer to them), and when last.
    var unicastReceivers = SessionTable<IPAddress, Timestamp>(cap: 4096, horizon: .infinity, activity: \.self)
    /// MDNS-509: the responders due to answer with a record a query listed with less than half
    /// its TTL, in query order, while the query's second lasts.
    var knownAnswersDue = SessionWindow<KnownAnswerSuppressionRule.Due>(cap: 256, span: 1, time: \.time)
    /// MDNS-509: the obligations whose second ended with the responder having answered
    /// without the record, reported at the end (the first `cap`: the rule adds none past it).
    var knownAnswersMissed = SessionWindow<KnownAnswerSuppressionRule.Due>(cap: 256, span: .infinity, time: \.time)
    /// MDNS-511: the TC query of each source waiting for its continuation (window 0.5 s).
    var truncatedQueries = SessionTable<IPAddress, MDNSFrameTime>(cap: 16384, horizon: 1, activity: \.time)

    // MARK: Probing, announcing, record lifecycle (ProbingRules.swift, ProbeAnnounceRules.swift,
    // RecordLifecycleRules.swift)

    /// MDNS-501: the probing sequences judged already, by prober and name.
    var probingJudged = SessionTable<MDNSProbeKey, ProbingRule.Judged>(
        cap: 16384, horizon: .infinity, activity: \.time)
    /// MDNS-501: the RDATA each host's probes proposed for a name.
    var probeProposals = SessionTable<MDNSProbeKey, ProbingRule.Proposed>(cap: 16384, horizon: 600, activity: \.last)
    /// MDNS-501: each host's queries with a shared browse PTR in Authority naming an instance
    /// the query does not probe, by host and instance name.
    var sharedProbes = SessionTable<MDNSProbeKey, ProbingRule.SharedProbes>(
        cap: 16384, horizon: 600, activity: \.last)
    /// MDNS-502: each prober's probes for a name of the last 10 s.
    var probeRates = SessionTable<MDNSProbeKey, ProbeRateRule.Probes>(cap: 16384, horizon: 10, activity: \.last)
    /// MDNS-502: the latest probe for each name (per address family), which a defence answers.
    var probeClaims = SessionTable<ProbeRateRule.ClaimKey, ProbeRateRule.Claim>(
        cap: 16384, horizon: 1, activity: \.probe.time)
    /// MDNS-502: each prober's conflicts of the last 10 s, from its first conflict on.
    var probeConflicts = SessionTable<IPAddress, ProbeRateRule.Conflicts>(
        cap: 4096, horizon: 10, activity: \.activity)
    /// MDNS-504: each prober's announcements of a name after its probing phase.
    var announcements = SessionTable<MDNSProbeKey, AnnouncingRule.Phase>(
        cap: 16384, horizon: 3600, activity: \.last.time)
    /// MDNS-505: each source's unsolicited multicasts of a record.
    var unsolicited = SessionTable<PeriodicAnnouncementRule.Key, PeriodicAnnouncementRule.Series>(
        cap: 65536, horizon: 3600, activity: \.last)
    /// MDNS-506: the last probe for each name (any prober), by its key.
    var probedNames = SessionTable<UInt64, Timestamp>(cap: 16384, horizon: 2, activity: \.self)
    /// MDNS-514: the conflicts noted, by RRSet and the two hosts.
    var conflicts = SessionTable<ConflictRule.Pair, ConflictRule.Noted>(cap: 16384, horizon: 3600, activity: \.time)
    /// MDNS-515: the sources whose start the capture shows (first packet a probe, more than
    /// 1 s in), and when they started.
    var startedHosts = SessionTable<IPAddress, Timestamp>(cap: 16384, horizon: .infinity, activity: \.self)
    /// MDNS-516: each source's RDATA changes of an RRSet in the last minute.
    var rdataChanges = SessionTable<UpdateRateRule.Key, UpdateRateRule.Changes>(
        cap: 16384, horizon: 60, activity: \.activity)
    /// MDNS-517: what each source last sent of a unique RRSet, and what a message left out.
    var rrsetClaims = SessionTable<WholeRRSetRule.Key, WholeRRSetRule.Claim>(
        cap: 65536, horizon: 3600, activity: \.time)
    /// MDNS-517: the Known-Answers of the last second's queries that `MDNSWindows.queries`
    /// does not hold (probes, and queries sent by unicast), clock in order.
    var otherKnownAnswers = SessionWindow<WholeRRSetRule.Listed>(cap: 1024, span: 1, time: \.time)

    // MARK: Segments (SegmentRules.swift; the whole network's store only)

    /// SEG-001: each question's latest exchange across segments (asked, forwarded, answered).
    var forwardedQuestions = SessionTable<AnswersNotForwardedBackRule.Key, AnswersNotForwardedBackRule.Exchange>(
        cap: 4096, horizon: 60, activity: \.last)
}
