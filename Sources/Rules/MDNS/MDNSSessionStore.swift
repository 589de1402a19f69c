import DNS
import Findings
import NetLayers
import WireFormat

/// All mDNS session state of one session, kept once:
/// - `model`: the entities the capture has shown (hosts, service instances, RRSets and their
///   records, probe sequences, questions, senders), by identity;
/// - `windows`: the recent events several rules read (the multicast queries of the last
///   second, when each name was last asked for);
/// - `phases`: what each host is doing with each name it sends (announcing it in a start-up
///   or update sequence, or steady), which the probing and announcing rules and the timing
///   rules read (`MDNSPhases`);
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
    public private(set) var phases = MDNSPhases()
    var verdicts = MDNSVerdicts()
    private var windowEvictions = 0

    public init() {}

    /// Entries the model and the windows dropped because a table was full.
    public var evicted: Int { model.evicted + windowEvictions }

    /// What an event is to the session as it stands, settled once for every rule: a
    /// multicast response's roles (`roles(_:)`, read by the rules and by `update`), and the
    /// queries a response from port 5353 may answer (`askers(_:)`).
    public func resolve(_ e: inout MDNSEvent) {
        e.roles = roles(e)
        e.askers = askers(e)
    }

    /// For each answer name of a response from port 5353 (a record with a TTL above 0), the
    /// multicast queries of the last second (`MDNSAskers.span`) that asked for it: one pass
    /// over the window, read by the rules that pair answers with queries (MDNS-507, 508, 509,
    /// 519) instead of each scanning the window per record.
    public func askers(_ e: MDNSEvent) -> MDNSAskers? {
        guard let i = e.input, !e.atEnd, i.isResponse, e.srcPort == 5353 else { return nil }
        let names = i.decoded.answerNames
        let bits = i.decoded.answerNameBits
        let recent = windows.queries(within: MDNSAskers.span, of: e.time)
        // The queries that may ask for one of the names (by their bits), then, name by name,
        // those that do: grouped by name, each group in window order.
        var candidates: [Int] = []
        candidates.reserveCapacity(recent.count)
        for k in recent.indices where recent[k].asksAny(of: bits) { candidates.append(k) }
        guard !candidates.isEmpty else { return MDNSAskers(names: names, bits: bits, layout: []) }
        var layout: [Int] = []
        layout.reserveCapacity(names.count + 1 + candidates.count)
        layout.append(contentsOf: repeatElement(0, count: names.count + 1))
        for (n, name) in names.enumerated() {
            for k in candidates where recent[k].asks(name: name) { layout.append(k) }
            layout[n + 1] = layout.count - names.count - 1
        }
        return MDNSAskers(names: names, bits: bits, layout: layout)
    }

    /// Whether `e` (not yet taken in) is a copy of records another host multicast on another
    /// segment within `MDNSRecordTrail.window` (a forwarder's): some of its records are such
    /// copies (`MDNSRecordTrail.Role.forwarded`), none is an original, and none copies a
    /// known forwarder (`MDNSSessionModel.forwarders`). Needs the record
    /// trails followed (`followRecordTrails`); false otherwise.
    public func isForwardedCopy(_ e: MDNSEvent) -> Bool {
        guard verdicts.followsRecordTrails, let records = MDNSRecordTrail.followed(e), let i = e.input else {
            return false
        }
        var copied = false
        for r in records {
            switch MDNSRecordTrail.role(of: r, e, segment: i.datagram.segment, in: verdicts.recordTrails) {
            case .original: return false
            // A copy of a known forwarder's copy is the original come late (the interfaces of
            // one capture are written up to a fraction of a second out of time order).
            case .forwarded(let t) where model.forwarders.contains(t.source): return false
            case .forwarded: copied = true
            case .cameBack, .other: continue
            }
        }
        return copied
    }

    /// Follows the record trails across segments (SEG-002 and SEG-003 ask for them too), so
    /// that `isForwardedCopy` can tell a forwarder's copies.
    public mutating func followRecordTrails() { verdicts.followsRecordTrails = true }

    /// Takes in `e` as `resolve` left it.
    public mutating func update(with e: MDNSEvent) {
        guard let i = e.input else { return }
        // The phases read the model and the windows as they were before the message.
        if let roles = e.roles { phases.take(e, i, roles, evicted: &windowEvictions) }
        windows.take(e, i, model: model, evicted: &windowEvictions)
        if verdicts.followsRecordTrails {
            MDNSRecordTrail.note(e, into: &verdicts.recordTrails, evicted: &windowEvictions)
        }
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
        // Times never decrease along the window: the queries within `span` are a suffix.
        let all = queries.elements
        return all[all.partitionPoint { MDNSSession.since($0.time, now) <= span }...]
    }

    /// The queries of the window at most `span` seconds before `now`, from the `latest`-th
    /// newest that `counts` on (all of them when fewer do), oldest first: the queries a rule
    /// compares a response with, its capacity counted among those it reads.
    public func queries(
        within span: Double, of now: Timestamp, latest: Int, counting counts: (MDNSRecentQuery) -> Bool
    ) -> ArraySlice<MDNSRecentQuery> {
        let recent = queries(within: span, of: now)
        var start = recent.endIndex
        var n = 0
        while start > recent.startIndex, n < latest {
            start -= 1
            if counts(recent[start]) { n += 1 }
        }
        return recent[start...]
    }

    /// When each name (by its key) was last asked for, in the two ways rules read it
    /// (`MDNSNameAsked`).
    private(set) var asked = SessionTable<MDNSNameKey, MDNSNameAsked>(cap: 65536, horizon: 3600, activity: \.last)

    /// Plain questions (not probes) by name and type, each with whether a response has
    /// answered it since it was asked (`MDNSOpenQuestion`): what the run summary lists as
    /// unanswered. `asked` and the model's questions hold 65536 rows and no name text; this
    /// table keeps the text, so it is small: past its cap the least recently asked go
    /// (counted), and a row goes an hour after its last ask.
    public private(set) var openQuestions = SessionTable<MDNSAskedKey, MDNSOpenQuestion>(
        cap: 1024, horizon: 3600, activity: \.last)

    /// The addresses unicast mDNS was seen going to (the capture can show a unicast answer to
    /// them), and when last: read by MDNS-403 and MDNS-521.
    public private(set) var unicastReceivers = SessionTable<IPAddress, Timestamp>(
        cap: 4096, horizon: .infinity, activity: \.self)

    mutating func take(_ e: MDNSEvent, _ i: MDNSInput, model: MDNSSessionModel, evicted: inout Int) {
        if !e.dst.isMulticast { unicastReceivers.insert(e.time, for: e.dst, at: e.time, evicted: &evicted) }
        queries.age(to: e.time)
        if i.isQuery, !i.isProbe, e.dst.isMulticast {
            queries.append(MDNSRecentQuery(e, i), evicted: &evicted)
        }
        if i.isQuery { noteAsked(e, i, evicted: &evicted) }
        if i.isQuery, !i.isProbe {
            noteOpen(e, i, model: model, evicted: &evicted)
        } else if i.isResponse, !openQuestions.isEmpty {
            noteAnswered(i)
        }
    }

    /// The open questions nothing answered, less those whose name was probed for (a probe's
    /// questions may come in a packet of their own, without the authority records that make
    /// it a probe: avahi's reflector splits them so; nobody answering a probe is success).
    public var unansweredQuestions: [MDNSOpenQuestion] {
        openQuestions.rows.compactMap { key, q in
            q.answered || asked[MDNSNameKey(key.name)]?.probe != nil ? nil : q
        }
    }

    /// A plain query's first `MDNSNameAsked.inOrderQuestions` questions, asked once more; one
    /// it lists a Known-Answer for is known to the asker, as good as answered, and so is one
    /// whose RRSet an earlier response showed (the model still holds it).
    private mutating func noteOpen(_ e: MDNSEvent, _ i: MDNSInput, model: MDNSSessionModel, evicted: inout Int) {
        // The Known-Answers' names, once per query (most list none).
        var listed: Set<UInt64> = []
        for r in i.records where r.section == .answer { listed.insert(r.nameKey) }
        for (n, (q, name)) in zip(i.message.questions, i.questionNames).enumerated() {
            guard n < MDNSNameAsked.inOrderQuestions else { break }
            let key = MDNSAskedKey(name: name.key, type: q.type.rawValue)
            let known = listed.contains(name.key)
            openQuestions.update(
                key,
                default: MDNSOpenQuestion(
                    name: String(i.decoded.name(q.name).prefix(MDNSOpenQuestion.maxName)), type: q.type,
                    firstFrame: e.frame, first: e.time),
                at: e.time, evicted: &evicted
            ) { row in
                row.take(e.src, at: e.time)
                if known || (row.asks == 1 && model.rrset(name.key, q.type, q.qclass) != nil) {
                    row.answered = true
                }
            }
        }
    }

    /// A response's records with a TTL (answers and additionals, from anyone) answer the
    /// open questions of their name and type, and those of their name for ANY.
    private mutating func noteAnswered(_ i: MDNSInput) {
        for r in i.records where r.section != .authority && r.record.ttl > 0 {
            openQuestions.modify(MDNSAskedKey(name: r.nameKey, type: r.record.type.rawValue)) { $0.answered = true }
            openQuestions.modify(MDNSAskedKey(name: r.nameKey, type: RecordType.any.rawValue)) { $0.answered = true }
        }
    }

    private mutating func noteAsked(_ e: MDNSEvent, _ i: MDNSInput, evicted: inout Int) {
        let plain = !i.isProbe
        for (n, q) in i.questionNames.enumerated() {
            let inOrder = !e.timeWentBack && n < MDNSNameAsked.inOrderQuestions
            guard plain || inOrder else { break }
            let time = e.time
            let source = e.src
            asked.update(MDNSNameKey(q.key), default: MDNSNameAsked(last: time), at: time, evicted: &evicted) { a in
                a.last = time
                if inOrder { a.inOrder = time }
                if plain {
                    a.query = time
                } else {
                    a.probe = time
                    a.prober = source
                }
            }
        }
    }
}

/// A question's name key and QTYPE (a row of `MDNSWindows.openQuestions`).
public struct MDNSAskedKey: Sendable, WordHashable {
    public var name: UInt64
    public var type: UInt16

    public func feedWords<S: WordSink>(into sink: inout S) {
        sink.add(name)
        sink.add(UInt64(type))
    }
}

/// A plain question as the link has asked it (`MDNSWindows.openQuestions`): its name's text,
/// how often and by whom it was asked, and whether anything answered it.
public struct MDNSOpenQuestion: Sendable {
    public let name: String
    public let type: RecordType
    public let firstFrame: Int
    public let first: Timestamp
    public private(set) var last: Timestamp
    public private(set) var asks = 0
    /// The first `UnansweredQuestion.maxAskers` askers.
    public private(set) var askers: [IPAddress] = []
    public private(set) var moreAskers = false
    /// A response carried a record answering it (or a query listed one as known).
    public var answered = false
    /// Name text kept at most (presentation form, escapes included).
    static let maxName = 300

    init(name: String, type: RecordType, firstFrame: Int, first: Timestamp) {
        self.name = name
        self.type = type
        self.firstFrame = firstFrame
        self.first = first
        last = first
    }

    mutating func take(_ source: IPAddress, at time: Timestamp) {
        asks &+= 1
        last = time
        if !askers.contains(source) {
            if askers.count < UnansweredQuestion.maxAskers { askers.append(source) } else { moreAskers = true }
        }
    }

    /// As the run summary lists it, on `segment`.
    public func unanswered(segment: UInt16) -> UnansweredQuestion {
        var t: [UInt8] = []
        type.append(to: &t)
        return UnansweredQuestion(
            proto: .mdns, name: name, type: String(decoding: t, as: UTF8.self), asked: asks,
            askers: askers.map(\.description), moreAskers: moreAskers, firstFrame: firstFrame, first: first,
            last: last, segment: segment)
    }
}

/// When a name was last asked for (a row of `MDNSWindows.asked`), in the two ways rules read
/// it.
struct MDNSNameAsked {
    /// The last query, probes included (a probe for a name its responder holds is answered at
    /// once, RFC 6762 §8.1), that asked for it among its first `inOrderQuestions` questions
    /// and whose capture clock did not go back (MDNS-505: a record multicast again after it
    /// may have been solicited).
    var inOrder: Timestamp?
    /// The last query other than a probe that asked for it (`MDNSSessionStore.roles`: a
    /// response within the answer window after it is an answer, even from the querier: a
    /// host's responder answers its own browser too).
    var query: Timestamp?
    /// The last probe that asked for it among its first `inOrderQuestions` questions, and its
    /// prober (a response from another host within the answer window after it defends the
    /// name; the prober's own announcement follows its probes).
    var probe: Timestamp?
    var prober: IPAddress?
    /// The latest of them.
    var last: Timestamp

    static let inOrderQuestions = 64
}

/// What the session rules read of a message's own questions and Known-Answers, made once
/// with its decoding, on the worker (`MDNSMessageView.queryDigest`; datagrams repeating the
/// payload share it), and kept by reference in each `MDNSRecentQuery`.
final class MDNSQueryDigest: Sendable {
    /// Its first 64 questions, and whether each of its questions asked for a multicast (QM)
    /// answer.
    let questions: [MDNSQuestionID]
    let qm: [Bool]
    /// A query's Known-Answers (the first 256), with the TTLs listed (none for a response).
    let known: [(key: MDNSRecordKey, ttl: UInt32)]
    /// The names of its questions past the first 64 (`questions`), sorted, for
    /// `MDNSRecentQuery.asks(name:)`: empty but for the rare query with more. Sorted, a
    /// crafted query of a thousand questions costs a bisection per name a response is paired
    /// on, not a scan.
    let moreNames: [UInt64]
    /// One bit per question name (chosen by its key): `asks` reads the questions only when
    /// the bit of the key's name is set, so most non-matching queries cost one test.
    let nameBits: UInt64

    /// The digest of a run without a session stage: nothing reads it.
    static let empty = MDNSQueryDigest()

    private init() {
        questions = []
        qm = []
        known = []
        moreNames = []
        nameBits = 0
    }

    init(_ message: DNSMessage, _ names: [MDNSInput.NameInfo], _ records: [MDNSInput.RecordInfo]) {
        questions = zip(message.questions.prefix(64), names).map {
            MDNSQuestionID(name: $0.1.key, type: $0.0.type.rawValue)
        }
        qm = message.questions.map { !$0.unicastResponse }
        known =
            message.header.qr
            ? [] : records.lazy.filter { $0.section == .answer }.prefix(256).map { (MDNSRecordKey($0), $0.record.ttl) }
        moreNames = names.dropFirst(questions.count).map(\.key).sorted()
        nameBits = names.reduce(0) { $0 | MDNSSession.nameBit($1.key) }
    }
}

/// A multicast query (not a probe), as the rules pair responses with it.
public struct MDNSRecentQuery: Sendable {
    public var frame: Int
    public var time: Timestamp
    public var source: IPAddress
    public var sourcePort: UInt16
    /// TC set: more Known-Answers follow.
    public var truncated: Bool
    /// The capture's clock went back at this query (its time is the latest before it).
    public var timeWentBack: Bool
    private let digest: MDNSQueryDigest
    private let withKnownAnswers: Bool
    /// Its questions (the first 64), and whether each asked for a multicast (QM) answer.
    var questions: [MDNSQuestionID] { digest.questions }
    var qm: [Bool] { digest.qm }
    /// Its Known-Answers (the first 256), with the TTLs listed.
    var known: [(key: MDNSRecordKey, ttl: UInt32)] { withKnownAnswers ? digest.known : [] }

    /// The query of `e`; without its Known-Answers when `knownAnswers` is false (for a reader
    /// of its questions only).
    init(_ e: MDNSEvent, _ i: MDNSInput, knownAnswers: Bool = true) {
        frame = e.frame
        time = e.time
        source = e.src
        sourcePort = e.srcPort
        truncated = i.header.tc
        timeWentBack = e.timeWentBack
        digest = i.decoded.queryDigest
        withKnownAnswers = knownAnswers
    }

    /// Whether a question asks for the RRSet (same name, its type or ANY).
    func asks(_ key: MDNSRRSetKey) -> Bool {
        digest.nameBits & MDNSSession.nameBit(key.name) != 0 && digest.questions.contains { $0.isAnswered(by: key) }
    }

    private func hasMoreName(_ name: UInt64) -> Bool {
        let more = digest.moreNames
        let k = more.partitionPoint { $0 >= name }
        return k < more.endIndex && more[k] == name
    }

    /// Whether a question may name one of the names whose `MDNSSession.nameBit`s are `bits`
    /// (false: none does).
    func asksAny(of bits: UInt64) -> Bool { digest.nameBits & bits != 0 }

    /// Whether a question names `name` (any type; any of its questions, not only the first 64).
    func asks(name: UInt64) -> Bool {
        digest.nameBits & MDNSSession.nameBit(name) != 0
            && (digest.questions.contains { $0.name == name } || hasMoreName(name))
    }

    /// The TTL the query listed `key` with as a Known-Answer (the last listing when listed
    /// twice), if it did.
    func listed(_ key: MDNSRecordKey) -> UInt32? { known.last { $0.key == key }?.ttl }
}

/// The multicast queries a response from port 5353 may answer, by its answer names, found
/// once per response (`MDNSSessionStore.askers(_:)`).
public struct MDNSAskers: Sendable {
    /// How far back queries are paired with a response: the longest window of the rules that
    /// read this (each narrows it to its own).
    public static let span = 1.0

    /// The response's answer names (records with a TTL above 0), each once, in order.
    private let names: [UInt64]
    /// Their `MDNSSession.nameBit`s: a query whose `asksAny(of: bits)` is false asks for none.
    let bits: UInt64
    /// The indices in `MDNSWindows.queries.elements` of the queries at most `span` seconds
    /// before the response that ask for each name (any type), oldest first, in one array:
    /// `layout[0 ... names.count]` are where each name's group starts among the indices that
    /// follow (`layout[n] ..< layout[n + 1]`, counted from `names.count + 1`); empty when no
    /// query may ask for any.
    private let layout: [Int]

    fileprivate init(names: [UInt64], bits: UInt64, layout: [Int]) {
        self.names = names
        self.bits = bits
        self.layout = layout
    }

    /// The queries that asked for `name` (indices of the window, oldest first); none when it
    /// is not one of the response's answer names.
    public func of(_ name: UInt64) -> ArraySlice<Int> {
        guard !layout.isEmpty, let n = names.firstIndex(of: name) else { return [] }
        let base = names.count + 1
        return layout[(base + layout[n])..<(base + layout[n + 1])]
    }
}

/// What the mDNS session rules still have to decide, kept for them by the store: one set of
/// rows per rule that keeps any, keyed by the identity of what the row is about (a responder,
/// a querier, a probed name, a record). Each table is declared here with its cap and horizon;
/// one whose rows can change no judgement past the horizon `expires` them (`SessionTable`).
struct MDNSVerdicts {
    // MARK: Response timing (ResponseTimingRules.swift)

    /// MDNS-507: shared-answer delays per responder.
    var responseDelays = SessionTable<IPAddress, ResponseDelayRule.Samples>(
        cap: 256, horizon: .infinity, activity: \.last)
    /// MDNS-508: the open Known-Answer list of each querier (a TC query and its continuations).
    var knownAnswerLists = SessionTable<IPAddress, TruncatedQueryDelayRule.List>(
        cap: 256, horizon: 1, activity: \.last.time, expires: true)

    // MARK: Query behaviour (QueryBehaviourRules.swift, MDNSSessionRules.swift)

    /// MDNS-403: the pending legacy query of each querier endpoint (its window is 1 s).
    var legacyQueries = SessionTable<Endpoint, LegacyResponseIDRule.Query>(
        cap: 16384, horizon: 1, activity: \.time, expires: true)
    /// MDNS-403: the legacy queries of the last second, with the responses to them.
    var legacyAnswers = SessionWindow<LegacyResponseIDRule.Exchange>(cap: 256, span: 1, time: \.time)
    /// MDNS-403: responders that answered a legacy query only by multicast, reported at the
    /// end (the first `cap`: the rule adds none past it).
    var legacyMulticastOnly = SessionWindow<LegacyResponseIDRule.MulticastOnly>(
        cap: 256, span: .infinity, time: \.time)
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
    var probeRates = SessionTable<MDNSProbeKey, ProbeRateRule.Probes>(
        cap: 16384, horizon: 10, activity: \.last, expires: true)
    /// MDNS-502: the latest probe for each name (per address family), which a defence answers.
    var probeClaims = SessionTable<ProbeRateRule.ClaimKey, ProbeRateRule.Claim>(
        cap: 16384, horizon: 1, activity: \.probe.time, expires: true)
    /// MDNS-502: each prober's conflicts of the last 10 s, from its first conflict on.
    var probeConflicts = SessionTable<IPAddress, ProbeRateRule.Conflicts>(
        cap: 4096, horizon: 10, activity: \.activity, expires: true)
    /// MDNS-505: each source's unsolicited multicasts of a record.
    var unsolicited = SessionTable<PeriodicAnnouncementRule.Key, PeriodicAnnouncementRule.Series>(
        cap: 65536, horizon: 3600, activity: \.last)
    /// MDNS-506: the last probe for each name (any prober), by its key.
    var probedNames = SessionTable<MDNSNameKey, RecordRateRule.ProbeSeen>(
        cap: 16384, horizon: 2, activity: \.time, expires: true)
    /// MDNS-514: the conflicts noted, by RRSet and the two hosts.
    var conflicts = SessionTable<ConflictRule.Pair, ConflictRule.Noted>(cap: 16384, horizon: 3600, activity: \.time)
    /// MDNS-514: conflicting records another host sent for an RRSet its owner has not acted on
    /// yet (no probe, defence or goodbye since), by RRSet and owner. A row goes at the owner's
    /// next record of the RRSet or probe for its name; one silent for 10 minutes (the owner
    /// renamed or went away) can change no judgement and expires.
    var unactedConflicts = SessionTable<ConflictRule.OwnerKey, ConflictRule.Unacted>(
        cap: 4096, horizon: 600, activity: \.time, expires: true)
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

    // MARK: Answers owed (ResponderAnswerRules.swift)

    /// MDNS-520: the responder that last claimed each name as unique (cache-flush records),
    /// by name key. The model keeps RRSets by name and type; this is the index by name alone
    /// a question is checked against.
    var uniqueNames = SessionTable<MDNSNameKey, NegativeAnswerRule.Claim>(cap: 16384, horizon: 3600, activity: \.last)
    /// MDNS-520: questions for a type an owned name lacks, whose second to be answered runs.
    var negativeDue = SessionWindow<NegativeAnswerRule.Due>(cap: 1024, span: 1, time: \.time)
    /// MDNS-520: those left unanswered, per responder, name and type, until reported.
    var negativeMissed = SessionTable<NegativeAnswerRule.MissedKey, NegativeAnswerRule.Missed>(
        cap: 1024, horizon: 3600, activity: \.last)

    /// MDNS-521: QU questions whose second to be answered runs.
    var quDue = SessionWindow<QUAnsweredRule.Due>(cap: 1024, span: 1, time: \.time)
    /// MDNS-521: per responder and question, the QU queries it left unanswered and a QM
    /// exchange it answered.
    var quAnswers = SessionTable<QUAnsweredRule.Key, QUAnsweredRule.Row>(cap: 4096, horizon: 3600, activity: \.last)

    // MARK: Silence (RecordLifecycleRules.swift)

    /// MDNS-522: the PTR naming each DNS-SD instance as last multicast, by instance name key,
    /// until the instance's records run out (its SRV and TXT are the model's, read then) or
    /// a goodbye; past the cap (the model's `maxServices`), the least recently refreshed go.
    var instanceLeases = SessionTable<MDNSNameKey, InstanceExpiredRule.Watch>(
        cap: 16384, horizon: .infinity, activity: \.time)
    /// MDNS-522: the earliest time a row of `instanceLeases` runs out (nil: no row), or earlier.
    var nextInstanceExpiry: Timestamp?

    // MARK: Matter profile (Profiles/MatterSessionRules.swift)

    /// PROF-005: each Matter SRV target (host name key), from its first SRV until it is
    /// judged, once (the row stays to say so until the table needs room).
    var matterHosts = SessionTable<MDNSNameKey, MatterAAAARule.Watch>(cap: 4096, horizon: 3600, activity: \.last)
    /// PROF-005: the earliest window end of a row not judged yet (nil: none), or earlier.
    var matterHostsDue: Timestamp?
    /// PROF-007: each commissionable instance's D and discriminator subtype values, by
    /// instance name key, while their records live.
    var matterDiscriminators = SessionTable<MDNSNameKey, MatterDiscriminatorSubtypesRule.Row>(
        cap: 4096, horizon: 4500, activity: \.last, expires: true)
    /// PROF-009: each commissionable instance's CM and _CM listing, by instance name key, and
    /// the commissioning mode not listed yet whose window runs.
    var matterCMListings = SessionTable<MDNSNameKey, MatterCommissioningSubtypeRule.Row>(
        cap: 4096, horizon: 4500, activity: \.last)
    /// PROF-009: the earliest end of such a window (nil: none), or earlier.
    var matterCMDue: Timestamp?
    /// PROF-011: each commissionable instance's vendor ID and DT and its _V and _T values, by
    /// instance name key, while their records live.
    var matterVendorSubtypes = SessionTable<MDNSNameKey, MatterVendorDeviceTypeSubtypesRule.Row>(
        cap: 4096, horizon: 4500, activity: \.last, expires: true)

    // MARK: HomeKit, Cast, AirPlay profiles (Profiles/HomeKitRules.swift, AirPlayRules.swift)

    /// PROF-103: the configuration number and model each HAP accessory showed last, by the
    /// key of its device ID (`AppTXT.key`); the window is the whole capture.
    var hapConfigurations = SessionTable<WordKey, HAPConfigNumberPersistsRule.Seen>(
        cap: 4096, horizon: .infinity, activity: \.time)
    /// PROF-107: each HAP accessory's not-paired bit and its changes of the last minute.
    var hapPairingFlags = SessionTable<WordKey, HAPPairingFlagRule.Flips>(
        cap: 4096, horizon: HAPPairingFlagRule.window, activity: \.last, expires: true)
    /// PROF-109: the category and configuration number each HAP accessory showed last.
    var hapCategories = SessionTable<WordKey, HAPCategoryChangeRule.Seen>(
        cap: 4096, horizon: .infinity, activity: \.time)
    /// PROF-406: what the RAOP and AirPlay instances on each host (SRV target key) advertise.
    var airPlayHosts = SessionTable<WordKey, AirPlayRAOPConsistencyRule.Host>(
        cap: 1024, horizon: AirPlayRAOPConsistencyRule.horizon, activity: \.last)

    // MARK: Segments (SegmentRules.swift; the whole network's store only)

    /// SEG-001: each question's latest exchange across segments (asked, forwarded, answered).
    var forwardedQuestions = SessionTable<AnswersNotForwardedBackRule.Key, AnswersNotForwardedBackRule.Exchange>(
        cap: 4096, horizon: 60, activity: \.last)
    /// SEG-002, SEG-003: where each record multicast in the last 2 s was first sent, and its
    /// copies on other segments. Kept by the store (`MDNSRecordTrail.note`) once a rule that
    /// reads it has judged an event (`followsRecordTrails`).
    var recordTrails = SessionTable<MDNSRecordKey, MDNSRecordTrail>(cap: 16384, horizon: 2, activity: \.last)
    var followsRecordTrails = false
    /// SEG-002: each name multicast with its NSEC, by name key: its origin and the forwarders
    /// that passed it on (a row stays after its window for the finding it may hold, reported
    /// at the end or on live capture's timer, and for reporting each name once).
    var nsecTrails = SessionTable<UInt64, RecordsRewrittenInTransitRule.NSECTrail>(
        cap: 4096, horizon: 3600, activity: \.last)

    // MARK: Printing profiles (Profiles/PrintingSessionRules.swift)

    /// PROF-202: each `_ipp`/`_ipps` instance's `_print._sub` claim and latest TXT, by
    /// instance name key, joined while both are within their TTLs (PTR 4500 s, usually).
    var everywhereClaims = SessionTable<MDNSNameKey, PrintClaimJoin>(cap: 4096, horizon: 4500, activity: \.last)
    /// PROF-212: the same for the `_universal._sub` (AirPrint) claim.
    var airPrintClaims = SessionTable<MDNSNameKey, PrintClaimJoin>(cap: 4096, horizon: 4500, activity: \.last)
    /// PROF-201: each instance name's `_ipp` claim and TLS key and its `_ipps` instance, by
    /// instance-label key (`PrintingName.label`), judged at the end (window: the PTR's TTL).
    var ippsSiblings = SessionTable<WordKey, IPPSSiblingRule.Row>(cap: 4096, horizon: 4500, activity: \.last)
    /// PROF-206: the UUID, ty and adminurl each instance of a name last showed, by
    /// instance-label key (window: the capture).
    var printIdentities = SessionTable<WordKey, PrintIdentityRule.Row>(
        cap: 4096, horizon: .infinity, activity: \.last)
    /// PROF-211: port-0 `_printer._tcp` placeholders and whether their name has an `_ipp` or
    /// `_ipps` instance, by instance-label key, judged at the end.
    var lpdPlaceholders = SessionTable<WordKey, LPDPlaceholderRule.Row>(cap: 4096, horizon: 4500, activity: \.last)
}

// MARK: Phases

/// What each host is doing with each name it multicasts (by source address and name key):
/// announcing it, in a start-up sequence (after probing it, at the host's first packets, or
/// back after its goodbye) or an update sequence (changed data, RFC 6762 §8.4), or steady.
/// Kept once, from every multicast response from port 5353, and read by the rules that take
/// a response as an announcement (MDNS-503, 504, 505) or exempt announcing records from the
/// timing of answers (MDNS-507, 508) through `MDNSSessionStore.roles(_:)` and
/// `isAnnouncing(_:by:at:)`.
///
/// Only unsolicited responses (`MDNSResponseRoles.solicited` false) announce: a response to
/// a query of the last second for one of its names is an answer, whatever it carries.
public struct MDNSPhases {
    /// One row per host and name it multicast records of.
    public private(set) var rows = SessionTable<MDNSProbeKey, MDNSNamePhase>(
        cap: 16384, horizon: 3600, activity: \.last)

    /// A sequence starts with an announcement at most this long after the host's last probe
    /// for the name (probing ends 250 ms before announcing, RFC 6762 §8.1).
    public static let afterProbes = 5.0
    /// Announcements of a sequence are counted when at least this far apart (RFC 6762 §8.3
    /// asks for one second; repeats closer than this are bursts of one announcement).
    public static let spacing = 0.5
    /// A sequence has at most this many announcements (RFC 6762 §8.3): what follows is steady.
    public static let maxAnnouncements = 8

    mutating func take(_ e: MDNSEvent, _ i: MDNSInput, _ roles: MDNSResponseRoles, evicted: inout Int) {
        let now = MDNSFrameTime(frame: e.frame, time: e.time)
        for n in roles.names {
            let key = MDNSProbeKey(source: e.src, name: n.key)
            if let slot = rows.slot(of: key) {
                Self.advance(&rows[slot], n, e, i, roles, now)
                continue
            }
            // A row is made by what it must remember (a sequence, a goodbye); answers and
            // steady repeats only change a row that exists.
            switch n.role {
            case .starts, .goodbye:
                var row = MDNSNamePhase(last: e.time)
                Self.advance(&row, n, e, i, roles, now)
                rows.add(row, forAbsent: key, at: e.time, evicted: &evicted)
            case .answer, .continues, .steady:
                continue
            }
        }
    }

    /// What response `e` (`i`) does to the row of its name `n`.
    private static func advance(
        _ row: inout MDNSNamePhase, _ n: MDNSResponseRoles.Name, _ e: MDNSEvent, _ i: MDNSInput,
        _ roles: MDNSResponseRoles, _ now: MDNSFrameTime
    ) {
        row.last = e.time
        if n.live { row.goodbye = false }
        switch n.role {
        case .goodbye:
            row.goodbye = true
            row.sequence?.goodbye = true
        case .answer:
            // The responder may fold an announcement due now into its answer: what the
            // sequence counted is not the whole story.
            if let s = row.sequence, s.isOpen(at: e.time) { row.sequence?.uncertain = true }
        case .starts(let start):
            let name = i.answerRecords.first { $0.nameKey == n.key }.map { i.name($0.record.name) } ?? ""
            row.sequence = MDNSAnnouncementSequence(start: start, name: name, first: now)
            // A first announcement that also answers a query: the sequence may go on as
            // answers.
            row.sequence?.uncertain = roles.solicited
        case .continues, .steady:
            row.sequence?.take(now)
        }
    }
}

/// What a host is doing with one name (a row of `MDNSPhases`).
public struct MDNSNamePhase: Sendable {
    /// Its latest announcement sequence (nil until one was seen to start).
    public var sequence: MDNSAnnouncementSequence?
    /// Its records were last multicast with TTL 0 only: announcing them again starts afresh.
    public var goodbye = false
    /// Its latest multicast response.
    public var last: Timestamp
}

/// A host's announcements of one name, from the one that started them.
public struct MDNSAnnouncementSequence: Sendable {
    public enum Start: Sendable, Equatable {
        /// The first announcement after the host probed the name.
        case probed
        /// The host's first packet in a capture that began before it (no probe seen).
        case hostStart
        /// Changed data of a unique RRSet the host sent before (RFC 6762 §8.4: announced
        /// afresh, as in §8.3).
        case update
        /// The name back after its goodbye (re-registered; its records often ride along with
        /// other names' announcements).
        case returned
        /// Carried by a response that starts or continues another name's sequence (a
        /// service's PTR announced with its probed SRV and TXT): announced with it.
        case alongside
    }
    public var start: Start
    /// The name as its first announcement wrote it.
    public var name: String
    public var first: MDNSFrameTime
    /// The latest counted announcement.
    public var last: MDNSFrameTime
    /// Announcements counted: unsolicited responses at least `MDNSPhases.spacing` apart
    /// (past `MDNSPhases.maxAnnouncements` too, while they keep the sequence's pace).
    public var count = 1
    /// The first nine counted.
    public private(set) var counted: [MDNSFrameTime]
    public var frames: [Int] { counted.map(\.frame) }
    /// The host answered a query for the name while the sequence was open: an announcement
    /// may have gone out as that answer.
    public var uncertain = false
    /// The host sent the name's goodbye after the sequence started.
    public var goodbye = false

    init(start: Start, name: String, first: MDNSFrameTime) {
        self.start = start
        self.name = name
        self.first = first
        last = first
        counted = [first]
    }

    /// How long after its latest announcement the next may still come: four times the latest
    /// interval (intervals at least double, §8.3), at least four seconds.
    public var reach: Double {
        guard counted.count >= 2 else { return 4 }
        return max(4, 4 * MDNSSession.since(counted[counted.count - 2].time, counted[counted.count - 1].time))
    }

    /// Whether the sequence's pace allows another announcement at `now`.
    public func paced(at now: Timestamp) -> Bool { !goodbye && MDNSSession.since(last.time, now) <= reach }

    /// Whether the host is still announcing at `now`: fewer than eight announcements, and the
    /// next one may come.
    public func isOpen(at now: Timestamp) -> Bool { count < MDNSPhases.maxAnnouncements && paced(at: now) }

    /// Counts an unsolicited response at `now` when the sequence's pace allows it.
    mutating func take(_ now: MDNSFrameTime) {
        guard paced(at: now.time), MDNSSession.since(last.time, now.time) >= MDNSPhases.spacing else { return }
        count &+= 1
        last = now
        if counted.count < 9 { counted.append(now) }
    }
}

/// How a multicast response from port 5353 stands to the announcing of its names, read from
/// the store as it was before it (`MDNSSessionStore.roles(_:)`).
public struct MDNSResponseRoles: Sendable {
    /// A query of the last second asked for one of its answer names (any type; any querier,
    /// or a probe from another host): the response is an answer, and no record of it an
    /// announcement.
    public var solicited: Bool
    /// Each name of its answer section once, in order, with what the response is for it.
    public var names: [Name]

    public struct Name: Sendable {
        public var key: UInt64
        public var role: MDNSAnnouncementRole
        /// A record of the name with a TTL above 0 (else the name's records are goodbyes).
        public var live: Bool
        /// The responder was announcing the name before this response
        /// (`MDNSSessionStore.isAnnouncing`).
        public var announcing = false
    }

    /// It starts or continues an announcement sequence of one of its names: it is an
    /// announcement (its other records are announced with them). A solicited response is one
    /// only as the first after its host probed a name (`MDNSAnnouncementRole.starts(.probed)`).
    public var announcing: Bool {
        names.contains {
            switch $0.role {
            case .starts, .continues: true
            default: false
            }
        }
    }

    /// The role for `name`, when the response carries it.
    public func role(of name: UInt64) -> MDNSAnnouncementRole? { names.first { $0.key == name }?.role }
}

/// What a multicast response is for one of its names.
public enum MDNSAnnouncementRole: Sendable, Equatable {
    /// It answers a query (`MDNSResponseRoles.solicited`), and is not the first response
    /// with the name after its host probed it.
    case answer
    /// Only goodbyes (TTL 0) for the name.
    case goodbye
    /// The first announcement of a sequence.
    case starts(MDNSAnnouncementSequence.Start)
    /// An unsolicited repeat while the name's sequence is open.
    case continues
    /// An unsolicited response with the name when no sequence is open: what MDNS-505 judges.
    case steady
}

extension MDNSSessionStore {
    /// The answer window: a response this long after a query for its name may answer it
    /// (RFC 6762 §6 delays answers up to 120 ms, 500 ms when aggregating, and §7.2 waits
    /// 400–500 ms after a Known-Answer list).
    public static let answerWindow = 1.0

    /// What a multicast response from port 5353 is for each name of its answer section; nil
    /// for any other message.
    public func roles(_ e: MDNSEvent) -> MDNSResponseRoles? {
        guard let i = e.input, !e.atEnd, i.isResponse, e.dst.isMulticast, e.srcPort == 5353 else { return nil }
        var names: [MDNSResponseRoles.Name] = []
        names.reserveCapacity(i.records.count)
        var solicited = false
        for r in i.answerRecords where r.record.type != .opt {
            let k = r.nameKey
            let live = r.record.ttl > 0
            if let n = names.firstIndex(where: { $0.key == k }) {
                names[n].live = names[n].live || live
                continue
            }
            names.append(MDNSResponseRoles.Name(key: k, role: .steady, live: live))
            if !solicited, let a = windows.asked[MDNSNameKey(k)] { solicited = asks(a, k, from: e.src, at: e.time) }
        }
        let hostStart =
            model.senders[e.src] == nil
            && model.start.map { MDNSSession.since($0, e.time) > Self.answerWindow } ?? false
        for n in names.indices {
            let k = names[n].key
            // The host's probes and phase of the name, found once for all that reads them.
            let key = MDNSProbeKey(source: e.src, name: k)
            let probe = model.probes[key]?.probes.last
            let row = phases.rows[key]
            names[n].announcing = Self.isAnnouncing(probe, row, at: e.time)
            names[n].role =
                !names[n].live
                ? .goodbye
                : Self.probedStart(probe, row, at: e.time)
                    ? .starts(.probed)
                    : solicited ? .answer : role(of: k, row, i, from: e.src, at: e.time, hostStart: hostStart)
        }
        // A forwarder's copy of another host's records (`MDNSInput.isRelayed`) announces
        // nothing for its sender: taken as an answer, it starts no sequence and leaves one open
        // unjudged (the forwarder passes on what the host sent, when the host sent it).
        if i.isRelayed {
            for n in names.indices where names[n].live { names[n].role = .answer }
            return MDNSResponseRoles(solicited: true, names: names)
        }
        // What an announcement carries beside the names it announces is announced with them.
        var roles = MDNSResponseRoles(solicited: solicited, names: names)
        if roles.announcing {
            for n in roles.names.indices where roles.names[n].role == .steady {
                roles.names[n].role = .starts(.alongside)
            }
        }
        return roles
    }

    /// Whether a response from `source` at `now` may answer what was asked for `name`: a
    /// query in the answer window before it, or a probe from another address when `source`
    /// is not probing the name itself (a host probing a name does not defend it: the probes
    /// of a dual-stack host's other address precede its own announcement).
    private func asks(_ a: MDNSNameAsked, _ name: UInt64, from source: IPAddress, at now: Timestamp) -> Bool {
        if let t = a.query, MDNSSession.since(t, now) <= Self.answerWindow { return true }
        guard let t = a.probe, a.prober != source, MDNSSession.since(t, now) <= Self.answerWindow else { return false }
        guard let own = model.probes[MDNSProbeKey(source: source, name: name)]?.probes.last else { return true }
        return MDNSSession.since(own.time, now) > MDNSPhases.afterProbes
    }

    /// What an unsolicited response from `source` is for `name`.
    private func role(
        of name: UInt64, _ row: MDNSNamePhase?, _ i: MDNSInput, from source: IPAddress, at now: Timestamp,
        hostStart: Bool
    ) -> MDNSAnnouncementRole {
        let sequence = row?.sequence
        if row?.goodbye == true { return .starts(.returned) }
        if changedData(of: name, i, from: source) { return .starts(.update) }
        if let sequence, sequence.isOpen(at: now) { return .continues }
        if hostStart, sequence == nil { return .starts(.hostStart) }
        return .steady
    }

    /// Whether a response from `source` with `name` is its first since it probed the name
    /// (within `MDNSPhases.afterProbes`): the first announcement, also when a query for the
    /// name came meanwhile (it answers that too).
    private static func probedStart(_ probe: MDNSFrameTime?, _ row: MDNSNamePhase?, at now: Timestamp) -> Bool {
        guard let probe, MDNSSession.since(probe.time, now) <= MDNSPhases.afterProbes else { return false }
        return row?.sequence.map { $0.first.frame < probe.frame } ?? true
    }

    /// Whether the response carries a record of `name`'s unique RRSets with RDATA `source` did
    /// not send before, while it did send others of that RRSet: changed data (RFC 6762 §8.4).
    private func changedData(of name: UInt64, _ i: MDNSInput, from source: IPAddress) -> Bool {
        for r in i.answerRecords where r.nameKey == name && r.record.ttl > 0 && i.isUnique(r) {
            let key = MDNSRecordKey(r)
            guard let set = model.rrsets[key.set], !set.historyIncomplete,
                set.members.contains(where: { $0.owner == source })
            else { continue }
            if set.member(rdata: key.rdata, owner: source) == nil { return true }
        }
        return false
    }

    /// Whether `source` may be announcing `name` at `now`: it probed the name in the last
    /// `MDNSPhases.afterProbes` seconds, or an announcement sequence of it is open. Positive
    /// evidence only: a record never seen before is not taken as announcing.
    public func isAnnouncing(_ name: UInt64, by source: IPAddress, at now: Timestamp) -> Bool {
        let key = MDNSProbeKey(source: source, name: name)
        return Self.isAnnouncing(model.probes[key]?.probes.last, phases.rows[key], at: now)
    }

    /// `isAnnouncing` for a name of event `e`: as its roles say when the store resolved them
    /// (a multicast response), else looked up.
    public func isAnnouncing(_ name: UInt64, in e: MDNSEvent) -> Bool {
        if let n = e.roles?.names.first(where: { $0.key == name }) { return n.announcing }
        return isAnnouncing(name, by: e.src, at: e.time)
    }

    /// Whether a host whose last probe of a name is `probe` and whose phase of it is `row` is
    /// announcing it at `now`.
    private static func isAnnouncing(_ probe: MDNSFrameTime?, _ row: MDNSNamePhase?, at now: Timestamp) -> Bool {
        if let probe, MDNSSession.since(probe.time, now) <= MDNSPhases.afterProbes { return true }
        return row?.sequence?.isOpen(at: now) ?? false
    }
}
