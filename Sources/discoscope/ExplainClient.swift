import Findings
import Reporting
import WireFormat

/// The client's view: an address that only asks (mDNS queries, SSDP M-SEARCHes) and
/// advertises nothing. What it asked, how often and when, and who answered on the link, or
/// that nobody did.
extension Explanation {
    /// One question a client asked: an mDNS question (name and type) or an SSDP search target.
    struct Question {
        var proto: RuleProtocol
        /// mDNS: the question's name as first asked; SSDP: the ST.
        var name: String
        /// mDNS: the question's type (`PTR`, `ANY`); SSDP: empty.
        var type: String
        /// Who asked it, when the questions are of several askers (a service type's).
        var asker: String? = nil
        var asked = 0
        var first: Timestamp
        var last: Timestamp
        /// The first frames that asked it (at most `maxFrames`).
        var frames: [Int] = []
        /// Asks that had an answer within the window (`mdnsWindow`, an SSDP search's MX).
        var answered = 0
        /// Unanswered mDNS asks that listed a known answer for it: responders rightly stay
        /// silent (RFC 6762 §7.1).
        var knownAnswers = 0
        var answerers: [Answerer] = []
        /// What the answers named (PTR targets, addresses, USNs), at most `maxFound`.
        var found: [String] = []

        /// `_ipp._tcp.local. PTR` or `ssdp:all`.
        var label: String { type.isEmpty ? name : "\(name) \(type)" }
        /// Never answered and never known: nothing told the client about it.
        var unanswered: Bool { answered == 0 && knownAnswers == 0 }
    }

    /// Who answered a question, and how many of its asks.
    struct Answerer {
        var address: String
        /// The mDNS host or SSDP device the inventory knows at that address.
        var host: String?
        /// The segment the answers came in on, when the run has several.
        var segment: String?
        var answers = 0
    }

    /// Questions kept at most (a flood of made-up names costs a count).
    static let maxQuestions = 64
    static let maxAnswerers = 8
    static let maxFound = 8
    static let maxFrames = 10
    /// How long after an mDNS query a response still answers it (RFC 6762 §6 allows up to
    /// 500 ms for shared records; a second leaves room for a slow reflector).
    static let mdnsWindow: Int64 = 1

    /// Whether `address` only asked: every message it sent is an mDNS query that is not a
    /// probe (no authority records) or an SSDP M-SEARCH, and it sent at least one.
    static func onlyAsks(_ address: String, _ records: [(record: MessageRecord, findings: [Finding])]) -> Bool {
        var any = false
        for (r, _) in records where r.src == address {
            any = true
            switch (r.proto, r.kind) {
            case (.mdns, "query"):
                if !section(r.fields, "authorities").isEmpty { return false }
            case (.ssdp, "m-search"): continue
            default: return false
            }
        }
        return any
    }

    /// The client's questions, paired with the responses the records hold: an mDNS question
    /// is answered by a response (from anyone but the client) within `mdnsWindow` with a
    /// record of its name and type (any type for ANY) and a TTL above 0; an SSDP search by a
    /// 200 OK to the searcher's address and port within MX + 2 s whose ST is the one searched
    /// for (any, for `ssdp:all`).
    mutating func studyClient(
        _ address: String, _ records: [(record: MessageRecord, findings: [Finding])], findings: [Finding],
        inventory: Inventory, segments: [String]
    ) {
        client = true
        let fields = records.map { $0.record.fields }
        var sent = 0
        var index: [String: Int] = [:]
        for (i, (r, _)) in records.enumerated() where r.src == address {
            sent += 1
            add(
                r.time, r.frame,
                "sent \(String(decoding: r.summaryUTF8, as: UTF8.self)) (\(r.src):\(r.sport) → \(r.dst):\(r.dport))")
            takeAsks(at: i, records, fields, inventory: inventory, segments: segments, index: &index, byAsker: false)
        }
        sender = (address, sent)
        reasons += Self.reasons(from: findings.filter { $0.source == address })
        let unanswered = questions.filter(\.unanswered)
        for q in unanswered.prefix(Self.maxUnansweredReasons) {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: q.frames,
                    what: "\(q.label) \(Self.askedText(q)), never answered on this link",
                    effect: Self.unansweredEffect(q), fix: Self.unansweredFix(q)))
        }
        if unanswered.count > Self.maxUnansweredReasons {
            let rest = unanswered.count - Self.maxUnansweredReasons
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what: "\(rest) more question(s) never answered on this link (listed below)",
                    effect: "it lists nothing for them", fix: "as for the questions above"))
        }
        order()
    }

    /// The questions of record `i` (those `wanted`) counted in `questions`, each paired with
    /// its answers: one entry per question, or per asker and question when `byAsker`.
    private mutating func takeAsks(
        at i: Int, _ records: [(record: MessageRecord, findings: [Finding])], _ fields: [[(String, JSONValue)]],
        inventory: Inventory, segments: [String], index: inout [String: Int], byAsker: Bool,
        wanted: (Ask) -> Bool = { _ in true }
    ) {
        let r = records[i].record
        for ask in Self.asks(r, fields[i]) where wanted(ask) {
            let key = "\(byAsker ? r.src : "") \(r.proto == .ssdp ? "s" : "m") \(ask.name.lowercased()) \(ask.type)"
            let k: Int
            if let known = index[key] {
                k = known
            } else {
                guard questions.count < Self.maxQuestions else {
                    questionsLeftOut += 1
                    continue
                }
                k = questions.count
                index[key] = k
                questions.append(
                    Question(
                        proto: r.proto, name: ask.name, type: ask.type, asker: byAsker ? r.src : nil, first: r.time,
                        last: r.time))
            }
            questions[k].asked += 1
            questions[k].last = r.time
            if questions[k].frames.count < Self.maxFrames { questions[k].frames.append(r.frame) }
            let answers = Self.answers(to: ask, at: i, records, fields)
            if answers.isEmpty {
                if ask.known { questions[k].knownAnswers += 1 }
                continue
            }
            questions[k].answered += 1
            var counted: Set<String> = []
            for (j, named) in answers {
                let a = records[j].record
                for n in named where questions[k].found.count < Self.maxFound && !questions[k].found.contains(n) {
                    questions[k].found.append(n)
                }
                let who = Self.host(a.src, a.proto, inventory)
                // `segments` is the run's named ones; index 0 is the unnamed segment.
                let segment = segments.count > 1 ? Segments.name(a.segment, in: [""] + segments) : nil
                if counted.insert(a.src).inserted {
                    if let n = questions[k].answerers.firstIndex(where: { $0.address == a.src }) {
                        questions[k].answerers[n].answers += 1
                    } else if questions[k].answerers.count < Self.maxAnswerers {
                        questions[k].answerers.append(Answerer(address: a.src, host: who, segment: segment, answers: 1))
                    }
                }
                let dt = Timestamp.seconds(from: r.time, to: a.time)
                add(
                    a.time, a.frame,
                    "\(a.src)\(who.map { " (\($0))" } ?? "") answered \(questions[k].label) in frame \(a.frame), \(Self.seconds(dt)) after frame \(r.frame)"
                )
            }
        }
    }

    /// A service type no instance of which was seen: who asked for it (each asker's
    /// questions for `type.local.`, PTR or ANY, and its subtypes), and who answered.
    mutating func studyAskedType(
        _ type: String, _ records: [(record: MessageRecord, findings: [Finding])], inventory: Inventory,
        segments: [String]
    ) {
        let name = "\(type).local."
        let sub = "._sub.\(name)"
        let fields = records.map { $0.record.fields }
        var index: [String: Int] = [:]
        func wanted(_ ask: Ask) -> Bool {
            let n = ask.name.lowercased()
            return n == name || n.hasSuffix(sub)
        }
        for (i, (r, _)) in records.enumerated() where r.proto == .mdns && r.kind == "query" {
            guard Self.asks(r, fields[i]).contains(where: wanted) else { continue }
            add(r.time, r.frame, "\(r.src):\(r.sport) sent \(String(decoding: r.summaryUTF8, as: UTF8.self))")
            takeAsks(
                at: i, records, fields, inventory: inventory, segments: segments, index: &index, byAsker: true,
                wanted: wanted)
        }
        askedType = type
        order()
    }

    /// Unanswered questions given a reason each at most; the rest are counted in one.
    static let maxUnansweredReasons = 8

    /// One question of a query or search: its name and type, and (mDNS) whether the query
    /// listed a known answer for it.
    struct Ask {
        var name: String
        var type: String
        var known: Bool
        /// SSDP: the searcher's port and how long responses are awaited (MX + 2 s).
        var port: UInt16 = 0
        var wait: Int64 = 0
    }

    /// The questions of a query (each name and type once) or the ST of a search.
    static func asks(_ r: MessageRecord, _ fields: [(String, JSONValue)]) -> [Ask] {
        switch (r.proto, r.kind) {
        case (.mdns, "query"):
            let known = section(fields, "answers").compactMap { $0["name"]?.stringValue?.lowercased() }
            var seen: Set<String> = []
            var out: [Ask] = []
            for q in section(fields, "questions") {
                guard let name = q["name"]?.stringValue, let type = q["type"]?.stringValue else { continue }
                guard seen.insert(name.lowercased() + " " + type).inserted else { continue }
                out.append(Ask(name: name, type: type, known: known.contains(name.lowercased())))
            }
            return out
        case (.ssdp, "m-search"):
            guard let st = header(r, "ST"), !st.isEmpty else { return [] }
            // MX is capped at 120 s as UDA 1.0 does; a missing or unreadable one waits 5 s.
            let mx = header(r, "MX").flatMap { UInt64($0) }.map { min($0, 120) } ?? 5
            return [Ask(name: st, type: "", known: false, port: r.sport, wait: Int64(mx) + 2)]
        default:
            return []
        }
    }

    /// The responses after record `i` (same input and segment, within the ask's window) that
    /// answer `ask`, each with what it named.
    static func answers(
        to ask: Ask, at i: Int, _ records: [(record: MessageRecord, findings: [Finding])],
        _ fields: [[(String, JSONValue)]]
    ) -> [(Int, [String])] {
        let r = records[i].record
        let address = r.src
        let wait = r.proto == .ssdp ? ask.wait : mdnsWindow
        let deadline = Timestamp(seconds: r.time.seconds &+ wait, nanoseconds: r.time.nanoseconds)
        var out: [(Int, [String])] = []
        var j = i + 1
        while j < records.count {
            let a = records[j].record
            defer { j += 1 }
            guard a.fileIndex == r.fileIndex else { break }
            if a.time > deadline { break }
            // An answer on another segment (a reflected query answered there) does not reach
            // the client: only those on its own link count.
            guard a.proto == r.proto, a.kind == "response", a.src != address, a.segment == r.segment else { continue }
            if r.proto == .mdns {
                let name = ask.name.lowercased()
                var named: [String] = []
                var answers = false
                for rr in section(fields[j], "answers") + section(fields[j], "additionals") {
                    guard rr["name"]?.stringValue?.lowercased() == name, (rr["ttl"]?.intValue ?? 0) > 0,
                        let t = rr["type"]?.stringValue, t == ask.type || ask.type == "ANY"
                    else { continue }
                    answers = true
                    if let v = rr["rdata"]?["target"]?.stringValue ?? rr["rdata"]?["address"]?.stringValue {
                        named.append(v)
                    }
                }
                if answers { out.append((j, named)) }
            } else {
                guard a.dst == address, a.dport == ask.port else { continue }
                let st = header(a, "ST")?.lowercased()
                guard ask.name.lowercased() == "ssdp:all" || st == ask.name.lowercased() else { continue }
                let usn = header(a, "USN").map { u in
                    u.split(separator: ":", omittingEmptySubsequences: false).prefix(2).joined(separator: ":")
                }
                out.append((j, usn.map { [$0] } ?? []))
            }
        }
        return out
    }

    /// The members of `section` of a message's fields.
    static func section(_ fields: [(String, JSONValue)], _ name: String) -> [JSONValue] {
        fields.first(where: { $0.0 == name })?.1.arrayValue ?? []
    }

    /// The mDNS host (or SSDP device, with its SERVER) the inventory has at `address`.
    static func host(_ address: String, _ proto: RuleProtocol, _ inventory: Inventory) -> String? {
        guard let d = inventory.devices.first(where: { $0.proto == proto && $0.addresses.contains(address) }) else {
            return nil
        }
        return proto == .ssdp ? "uuid:\(d.id)" : d.id
    }

    /// `asked 6 times from 2026-11-25 15:36:01 to 15:36:32` (local time).
    static func askedText(_ q: Question) -> String {
        let from = LocalTime.dateTime(q.first)
        guard q.asked > 1 else { return "asked once at \(from)" }
        var to = LocalTime.dateTime(q.last)
        if let space = from.firstIndex(of: " "), to.hasPrefix(from[...space]) {
            to = String(to[to.index(after: space)...])
        }
        return "asked \(q.asked) times from \(from) to \(to)"
    }

    /// What an unanswered question does to the client, in the words of its protocol.
    static func unansweredEffect(_ q: Question) -> String {
        if q.proto == .ssdp {
            return
                "it finds no device for \(q.name): no device on this link sent a search response to it, so a control point app lists nothing"
        }
        return
            "it lists nothing for \(q.name): no responder on this link answered, so either nothing here offers it, or whatever joins this link to the one where it is (a reflector, an mDNS gateway) does not pass it"
    }

    /// What to check or change for an unanswered question, in the words of its protocol.
    static func unansweredFix(_ q: Question) -> String {
        if q.proto == .ssdp {
            return
                "check that a device answering \(q.name) is on the same link and sends its 200 OK unicast from port 1900 to the searcher's address and port within MX seconds; let that unicast reply through the client's firewall; SSDP does not cross routers unless a UPnP proxy passes it"
        }
        let labels = q.name.lowercased().split(separator: ".")
        if labels.count >= 2, labels[0].hasPrefix("_"), labels[1] == "_tcp" || labels[1] == "_udp" {
            let type = "\(labels[0]).\(labels[1])"
            return
                "check that a device offering \(type) is on this link and answers (avahi-browse -r \(type) or dns-sd -B \(type) on a host there); if it is on another link, let the reflector or gateway pass \(type) both ways (avahi: add \(type).local to reflect-filters, or remove the filter; UniFi, Cisco: allow the service type on both networks)"
        }
        return
            "check that the host or service named \(q.name) is up and on this link: mDNS names are not answered across links unless a reflector or gateway passes them"
    }

    /// `_http._tcp.local. PTR: asked 6 times … : answered 6 of 6 by 10.98.1.1 (iot-printer.local.) with …`
    static func questionText(_ q: Question) -> String {
        var s = "\(q.label): \(q.asker.map { "by \($0), " } ?? "")\(askedText(q)): "
        if q.answered == 0 {
            s +=
                q.knownAnswers > 0
                ? "not answered, and rightly: it listed the answer as known \(q.knownAnswers) time(s)"
                : "never answered on this link"
            return s
        }
        s += "answered \(q.answered) of \(q.asked) by "
        s += q.answerers.map { a in
            var t = a.address
            if let h = a.host { t += " (\(h))" }
            if let seg = a.segment { t += " on \(seg)" }
            return t
        }.joined(separator: ", ")
        if !q.found.isEmpty { s += " with \(q.found.joined(separator: ", "))" }
        return s
    }

    /// The questions as JSON (`questions` of the explanation record).
    func questionsJSON() -> JSONValue {
        .array(
            questions.map { q in
                .object([
                    ("protocol", .string(q.proto.rawValue)), ("name", .string(q.name)),
                    ("qtype", q.type.isEmpty ? .null : .string(q.type)),
                    ("asker", q.asker.map { .string($0) } ?? .null), ("asked", .int(q.asked)),
                    ("first", .rawNumber(q.first.microsecondText)), ("last", .rawNumber(q.last.microsecondText)),
                    ("frames", .array(q.frames.map { .int($0) })), ("answered", .int(q.answered)),
                    ("known_answers", .int(q.knownAnswers)),
                    (
                        "answerers",
                        .array(
                            q.answerers.map { a in
                                .object([
                                    ("address", .string(a.address)), ("host", a.host.map { .string($0) } ?? .null),
                                    ("segment", a.segment.map { .string($0) } ?? .null), ("answers", .int(a.answers)),
                                ])
                            })
                    ),
                    ("found", .array(q.found.map { .string($0) })),
                ])
            })
    }
}
