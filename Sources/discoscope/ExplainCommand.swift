import ArgumentParser
import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

extension DiscoScope {
    /// `discoscope explain TARGET FILE…`: why a device is (in)visible.
    struct ExplainCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Explain what a device did and why clients may not see it.",
            discussion: """
                TARGET is an SSDP UUID (`uuid:` optional), an mDNS host name or DNS-SD instance name \
                (trailing dot optional; an unambiguous prefix of any of these will do) or an IP \
                address; failing those, a service type (`_ipp._tcp`: every instance of it), a part of \
                a TXT friendly name (fn, ty, md, n) or a part of any name, said as it matched. The \
                answer: a verdict (not seen, visible, visible with problems, likely invisible, or \
                client: an address that only asks, with each question it asked and who answered), \
                the reasons in order of impact (each finding with what it does to real \
                clients and the fix, and what is missing: searches it never answered, IPv6-only \
                announcements, a byebye or goodbye with no return, an SRV target without an address \
                record, queries for its own names it never answered), and its timeline with the searches it \
                answered or missed. The files are read twice (to find the target, then its messages): \
                standard input is not accepted.
                Exit status: 0 visible (with or without problems), or a client that got an answer to \
                at least one question; 1 likely invisible, not seen, or a client nothing answered; \
                2 usage or input error (also an ambiguous TARGET).
                """)

        @Argument(
            help: ArgumentHelp(
                "UUID, mDNS host or instance name, IP address, or an unambiguous prefix.", valueName: "target"))
        var target: String

        @Argument(help: ArgumentHelp("Capture files (pcap, pcapng, .gz).", valueName: "file"))
        var files: [String] = []

        @OptionGroup var segments: SegmentOptions

        @Option(name: .long, help: "Output format: text or jsonl.")
        var format: ReportFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Write to PATH instead of standard output.", valueName: "path"))
        var output: String?

        func validate() throws {
            if files.isEmpty { throw ValidationError("Give at least one capture file after the target.") }
            if files.contains("-") {
                throw ValidationError("explain reads its files twice: standard input (-) cannot be used.")
            }
            if target.isEmpty { throw ValidationError("TARGET is empty.") }
        }

        func run() throws {
            try refuseOutputOntoInput(output, inputs: files)
            let names = try segments.names(for: files)
            let first = Survey.run(files, segments: names)
            if first.inputError { throw ExitCode(2) }
            let matched: [InventoryDevice]
            let services: [InventoryService]
            let matchedBy: String?
            switch Explanation.resolve(target, in: first.inventory) {
            case .ambiguous(let ids):
                Frontend.warn(
                    "'\(target)' matches \(ids.count) devices or services: \(ids.prefix(8).joined(separator: ", "))\(ids.count > 8 ? ", …" : ""); give more of it"
                )
                throw ExitCode(2)
            case .matched(let devices, let instances, let how):
                matched = devices
                services = instances
                matchedBy = how
            }
            var ex = Explanation(target: target, devices: matched, services: services)
            ex.matchedBy = matchedBy
            if matched.isEmpty, services.isEmpty, let address = Explanation.address(target) {
                // No device or host has the address: it may be a client that only asks, or
                // have sent messages that name none (every one too broken to read a USN or a
                // host from). Its messages, those to it, and the multicast responses naming
                // what it asked are kept.
                let asked = AskedNames(address)
                let second = Survey.run(files, segments: names) { asked.keeps($0) }
                Self.warnLeftOut(second)
                if second.records.contains(where: { $0.record.src == address }) {
                    if Explanation.onlyAsks(address, second.records) {
                        ex.studyClient(
                            address, second.records, findings: second.findings, inventory: first.inventory,
                            segments: first.summary.segments)
                    } else {
                        ex.studySender(address, second.records, findings: second.findings)
                    }
                }
            } else if !matched.isEmpty || !services.isEmpty {
                let addresses = Set(matched.flatMap(\.addresses))
                let ssdp = matched.contains { $0.proto == .ssdp }
                let mdns = matched.contains { $0.proto == .mdns } || !services.isEmpty
                let second = Survey.run(files, segments: names) { r in
                    addresses.contains(r.src) || addresses.contains(r.dst) || (ssdp && r.kind == "m-search")
                        || (mdns && r.kind == "query")
                }
                Self.warnLeftOut(second)
                ex.study(second.records, findings: second.findings, segments: first.summary.segments)
            } else if let type = Explanation.serviceType(target.lowercased()) {
                // No instance of the type: who asked for it, and whether anyone answered.
                let name = "\(type).local."
                let sub = "._sub.\(name)"
                func asks(_ n: String) -> Bool { n == name || n.hasSuffix(sub) }
                let second = Survey.run(files, segments: names) { r in
                    guard r.proto == .mdns else { return false }
                    let f = r.fields
                    let sections = r.kind == "query" ? ["questions"] : ["answers", "additionals"]
                    return sections.contains { s in
                        Explanation.section(f, s).contains {
                            $0["name"]?.stringValue.map { asks($0.lowercased()) } ?? false
                        }
                    }
                }
                Self.warnLeftOut(second)
                ex.studyAskedType(type, second.records, inventory: first.inventory, segments: first.summary.segments)
                if !ex.questions.isEmpty { ex.matchedBy = "service type \(type): asked for, no instance seen" }
            }
            let text = format == .jsonl ? ex.json().serialized() + "\n" : ex.text()
            guard writeReport(text, to: output) else { throw ExitCode(2) }
            throw ExitCode(ex.succeeded ? 0 : 1)
        }

        /// Says so when the messages read for the target were more than are kept: questions
        /// and answers after the first `Survey.maxRecords` are not shown (an answer left out
        /// would read as none).
        static func warnLeftOut(_ r: Survey.Result) {
            guard r.recordsLeftOut > 0 else { return }
            Frontend.warn(
                "explain read only the first \(Survey.maxRecords) of the \(Survey.maxRecords + r.recordsLeftOut) messages about the target; later questions and answers are left out"
            )
        }
    }
}

/// The names an address asked for in its mDNS queries so far, to keep the responses that
/// may answer them (from anyone, to anyone) beside its own messages and those sent to it.
/// Records come in capture order, so a query is seen before its answers.
final class AskedNames {
    let address: String
    private(set) var names: Set<String> = []
    /// Names kept at most (a flood of made-up questions keeps the first ones).
    static let maxNames = 256

    init(_ address: String) { self.address = address }

    func keeps(_ r: MessageRecord) -> Bool {
        if r.src == address {
            if r.proto == .mdns, r.kind == "query" {
                for q in Explanation.section(r.fields, "questions") where names.count < Self.maxNames {
                    if let n = q["name"]?.stringValue { names.insert(n.lowercased()) }
                }
            }
            return true
        }
        if r.dst == address { return true }
        guard r.proto == .mdns, r.kind == "response", !names.isEmpty else { return false }
        let f = r.fields
        return (Explanation.section(f, "answers") + Explanation.section(f, "additionals")).contains { rr in
            rr["name"]?.stringValue.map { names.contains($0.lowercased()) } ?? false
        }
    }
}

/// The explanation of one target: what matched, the verdict, the reasons and the timeline.
struct Explanation {
    enum Verdict: String {
        case notSeen = "not seen"
        case visible
        case visibleWithProblems = "visible with problems"
        case likelyInvisible = "likely invisible"
        /// An address that only asked (mDNS queries, SSDP M-SEARCHes) and advertised nothing.
        case client
    }
    struct Reason {
        /// 0: hides the device from some clients; 1: likely trouble; 2: minor.
        var impact: Int
        var severity: Severity?
        var rule: String?
        var frames: [Int]
        var what: String
        var effect: String
        var fix: String
    }
    struct Event {
        var time: Timestamp
        var frame: Int
        var summary: String
    }

    let target: String
    let devices: [InventoryDevice]
    /// DNS-SD instances it resolved to: the one named, or those of the mDNS hosts named.
    let services: [InventoryService]
    var reasons: [Reason] = []
    var timeline: [Event] = []
    /// Timeline entries beyond what is kept.
    var timelineLeftOut = 0
    var searchesAnswered = 0
    var searchesMissed = 0
    /// An address that sent messages, none of which names a device or host (the target
    /// matched nothing else), and how many it sent.
    var sender: (address: String, messages: Int)? = nil
    /// The sender only asked: `questions` is what it asked and who answered.
    var client = false
    var questions: [Question] = []
    /// Questions beyond `maxQuestions`, not kept.
    var questionsLeftOut = 0
    /// How the target was found, when not by an address, an id or a name given in full or
    /// by its start (`service type _ipp._tcp`, `TXT ty=Testbed Laser 9000`).
    var matchedBy: String? = nil
    /// A service type (`_ipp._tcp`) no instance of which was seen: `questions` are the
    /// queries for it, by asker.
    var askedType: String? = nil
    static let maxTimeline = 500

    init(target: String, devices: [InventoryDevice], services: [InventoryService] = []) {
        self.target = target
        self.devices = devices
        self.services = services
    }

    enum Resolution {
        /// The devices and services it named, and how, when not by an address, an id, or a
        /// name or label given in full or by its start.
        case matched([InventoryDevice], [InventoryService], by: String? = nil)
        case ambiguous([String])
    }

    /// What `target` names: devices and hosts by an address they sent from or advertised;
    /// an SSDP UUID (with or without `uuid:`, any case; an embedded device's UUID names its
    /// root); an mDNS host name or DNS-SD instance name (any case, trailing dot optional); or
    /// a prefix of exactly one of these. Then, when nothing starts with it: a service type
    /// (`_ipp._tcp`, `.local.` optional: every instance of it), a part of a TXT friendly name
    /// (`fn=`, `ty=`, `md=`, `n=` values), a part of any of those names; several devices or
    /// hosts matching one of these is ambiguous. A host brings its services; an instance
    /// brings its host (its SRV target). The same device in several files is one match per
    /// file.
    static func resolve(_ target: String, in inventory: Inventory) -> Resolution {
        var t = target.lowercased()
        if t.hasPrefix("uuid:") { t = String(t.dropFirst(5)) }
        let dotted = t.hasSuffix(".") ? t : t + "."
        func servicesOf(_ ds: [InventoryDevice]) -> [InventoryService] {
            inventory.services.filter { s in
                ds.contains { $0.proto == .mdns && $0.file == s.file && $0.id.lowercased() == s.host?.lowercased() }
            }
        }
        func hostsOf(_ ss: [InventoryService]) -> [InventoryDevice] {
            inventory.devices.filter { d in
                d.proto == .mdns && ss.contains { $0.file == d.file && $0.host?.lowercased() == d.id.lowercased() }
            }
        }
        let byAddress = inventory.devices.filter { $0.addresses.contains { $0.lowercased() == t } }
        if !byAddress.isEmpty { return .matched(byAddress, servicesOf(byAddress)) }
        let exact = inventory.devices.filter {
            $0.proto == .ssdp ? ($0.id == t || $0.embedded.contains(t)) : $0.id.lowercased() == dotted
        }
        if !exact.isEmpty { return .matched(exact, servicesOf(exact)) }
        let exactService = inventory.services.filter { $0.instance.lowercased() == dotted }
        if !exactService.isEmpty { return .matched(hostsOf(exactService), exactService) }
        // An instance's own label, as people name it ("H2 Web Console"): exact before prefix,
        // so "H2 Web Console #2" does not make it ambiguous.
        let byLabel = inventory.services.filter { Self.instanceLabel($0.instance).lowercased() == t }
        if !byLabel.isEmpty { return .matched(hostsOf(byLabel), byLabel) }
        let prefixed = inventory.devices.filter {
            $0.id.lowercased().hasPrefix(t) || $0.embedded.contains { $0.hasPrefix(t) }
        }
        let prefixedServices = inventory.services.filter { $0.instance.lowercased().hasPrefix(t) }
        let ids = Set(prefixed.map { $0.id.lowercased() } + prefixedServices.map { $0.instance.lowercased() })
        if ids.count > 1 {
            return .ambiguous(Array(Set(prefixed.map(\.id) + prefixedServices.map(\.instance))).sorted())
        }
        if !prefixedServices.isEmpty { return .matched(hostsOf(prefixedServices), prefixedServices) }
        if !prefixed.isEmpty { return .matched(prefixed, servicesOf(prefixed)) }
        // Nothing by its start: every instance of a service type, then a TXT friendly name,
        // then a part of a name; each says how it matched.
        if let type = serviceType(t) {
            let ofType = inventory.services.filter { $0.serviceType.lowercased() == type }
            if !ofType.isEmpty { return .matched(hostsOf(ofType), ofType, by: "service type \(type)") }
        }
        // One device or host (or a service without one) is one match, whatever number of its
        // services matched.
        func owner(_ s: InventoryService) -> String { s.host?.lowercased() ?? s.instance.lowercased() }
        let byTXT = inventory.services.compactMap { s in friendlyName(s, containing: t).map { (s, $0) } }
        if !byTXT.isEmpty {
            guard Set(byTXT.map { owner($0.0) }).count == 1, let how = byTXT.first?.1 else {
                return .ambiguous(Array(Set(byTXT.map { "\($0.0.instance) (TXT \($0.1))" })).sorted())
            }
            let ss = byTXT.map(\.0)
            return .matched(hostsOf(ss), ss, by: "TXT \(how)")
        }
        let inDevices = inventory.devices.filter {
            $0.id.lowercased().contains(t) || $0.embedded.contains { $0.contains(t) }
        }
        let inServices = inventory.services.filter { $0.instance.lowercased().contains(t) }
        let owners = Set(inDevices.map { $0.id.lowercased() } + inServices.map(owner))
        if owners.count > 1 {
            return .ambiguous(Array(Set(inDevices.map(\.id) + inServices.map(\.instance))).sorted())
        }
        if let name = inServices.first?.instance ?? inDevices.first?.id {
            let how = "substring of \(name)"
            if !inServices.isEmpty {
                let hosts = hostsOf(inServices)
                return .matched(hosts.isEmpty ? inDevices : hosts, inServices, by: how)
            }
            return .matched(inDevices, servicesOf(inDevices), by: how)
        }
        return .matched([], [])
    }

    /// `_ipp._tcp` of `_ipp._tcp`, `_ipp._tcp.`, `_ipp._tcp.local` or `_ipp._tcp.local.`
    /// (lower case): two labels, the first starting with `_`, the second `_tcp` or `_udp`.
    static func serviceType(_ t: String) -> String? {
        var labels = t.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "" { labels.removeLast() }
        if labels.count == 3, labels[2] == "local" { labels.removeLast() }
        guard labels.count == 2, labels[0].count > 1, labels[0].hasPrefix("_"),
            labels[1] == "_tcp" || labels[1] == "_udp"
        else { return nil }
        return "\(labels[0]).\(labels[1])"
    }

    /// TXT keys that carry a name people give a device: fn (friendly name, Google Cast), ty
    /// (printer make and model, IPP/LPR), md (model, HomeKit, Cast), n (name).
    static let friendlyKeys: Set<String> = ["fn", "ty", "md", "n"]
    /// Friendly-name values compared at most this long (a TXT string is at most 255 bytes;
    /// a name people type is far shorter).
    static let maxFriendlyName = 128

    /// The first friendly-name TXT string of `s` (`ty=Testbed Laser 9000`) whose value holds
    /// `t` (lower case), if any.
    static func friendlyName(_ s: InventoryService, containing t: String) -> String? {
        for entry in s.txt {
            guard let eq = entry.firstIndex(of: "=") else { continue }
            let key = entry[..<eq].lowercased()
            guard friendlyKeys.contains(key) else { continue }
            let value = String(entry[entry.index(after: eq)...].prefix(maxFriendlyName))
            if value.lowercased().contains(t) { return "\(key)=\(value)" }
        }
        return nil
    }

    /// The instance label of a DNS-SD instance name in presentation form: up to the first dot
    /// that is not escaped (`\.` is a dot inside the label).
    static func instanceLabel(_ instance: String) -> String {
        var out = ""
        var escaped = false
        for c in instance {
            if escaped {
                out.append(c)
                escaped = false
            } else if c == "\\" {
                out.append(c)
                escaped = true
            } else if c == "." {
                break
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// The target as an IP address in the form message records use, if it is one.
    static func address(_ target: String) -> String? {
        IPAddress(text: Array(target.utf8)).map(\.description)
    }

    /// Exit status 0: visible (with or without problems), or a client that got an answer to
    /// at least one question (or knew it already).
    var succeeded: Bool {
        switch verdict {
        case .visible, .visibleWithProblems: return true
        case .client: return questions.contains { !$0.unanswered }
        case .notSeen, .likelyInvisible: return false
        }
    }

    var verdict: Verdict {
        if devices.isEmpty && services.isEmpty && sender == nil { return .notSeen }
        if client { return .client }
        if reasons.contains(where: { $0.impact == 0 }) { return .likelyInvisible }
        if !reasons.isEmpty { return .visibleWithProblems }
        return .visible
    }

    /// Reads the target's messages, the searches and queries around it, and the findings
    /// about it; then orders the reasons by impact and the timeline by frame.
    mutating func study(
        _ records: [(record: MessageRecord, findings: [Finding])], findings: [Finding], segments: [String] = []
    ) {
        if devices.contains(where: { $0.proto == .ssdp }) { studySSDP(records, findings: findings) }
        if devices.contains(where: { $0.proto == .mdns }) || !services.isEmpty {
            studyMDNS(records, findings: findings)
        }
        if segments.count > 1 { studySegments(segments, findings: findings) }
        order()
    }

    /// A session of several segments: each service instance seen on some segments only, with
    /// who forwarded it where it did arrive and what SEG-001 says of the forwarder.
    private mutating func studySegments(_ all: [String], findings: [Finding]) {
        for s in services where !s.segments.isEmpty {
            let missing = all.filter { !s.segments.contains($0) }
            guard !missing.isEmpty else { continue }
            let via = s.forwarded.map { "to \($0.segment) by \($0.source)" }.joined(separator: ", ")
            let notBack = findings.filter { f in
                f.rule.rawValue == "SEG-001" && f.message.contains(" \(s.serviceType).local. ")
            }
            var what =
                "\(s.instance) was seen on \(s.segments.joined(separator: ", ")) only, never on \(missing.joined(separator: ", "))"
            if !via.isEmpty { what += " (forwarded \(via))" }
            if let f = notBack.first, let by = f.message.firstRange(of: "forwarded to another segment by ") {
                let forwarder = f.message[by.upperBound...].prefix { $0 != " " }
                what += "; \(forwarder) forwards the queries for \(s.serviceType) but not their answers (SEG-001)"
            }
            reasons.append(
                Reason(
                    impact: 0, severity: notBack.first?.severity, rule: notBack.isEmpty ? nil : "SEG-001",
                    frames: notBack.first?.frames ?? [], what: what,
                    effect:
                        "clients on \(missing.joined(separator: ", ")) never list it: mDNS does not cross links by itself, and whatever joins them (a reflector, an mDNS gateway) does not pass this service",
                    fix:
                        "let the reflector or gateway pass \(s.serviceType) both ways (avahi: add \(s.serviceType).local to reflect-filters, or remove the filter; UniFi, Cisco: allow the service type on both networks)"
                ))
        }
    }

    /// Reasons most serious first; the timeline by frame.
    mutating func order() {
        reasons.sort { a, b in
            if a.impact != b.impact { return a.impact < b.impact }
            return (a.severity ?? .info) > (b.severity ?? .info)
        }
        timeline.sort { $0.frame < $1.frame }
    }

    /// An address whose messages name no device or host: what it sent and received, what is
    /// wrong with it (its findings), and that no client can list anything from it.
    mutating func studySender(
        _ address: String, _ records: [(record: MessageRecord, findings: [Finding])], findings: [Finding]
    ) {
        var sent: [Int] = []
        for (r, _) in records {
            let summary = String(decoding: r.summaryUTF8, as: UTF8.self)
            if r.src == address {
                sent.append(r.frame)
                add(r.time, r.frame, "sent \(summary) (\(r.src):\(r.sport) → \(r.dst):\(r.dport))")
            } else if r.dst == address {
                add(r.time, r.frame, "received \(summary) from \(r.src):\(r.sport)")
            }
        }
        sender = (address, sent.count)
        reasons += Self.reasons(from: findings.filter { $0.source == address })
        // The fix speaks of the protocols it sent.
        let sentSSDP = records.contains { $0.record.src == address && $0.record.proto == .ssdp }
        let sentMDNS = records.contains { $0.record.src == address && $0.record.proto == .mdns }
        var what: [String] = []
        var fixes: [String] = []
        if sentSSDP || !sentMDNS {
            what.append("no SSDP message with a readable USN")
            fixes.append(
                "headers on lines of their own, each ending in the two bytes CR LF (not the characters \\r\\n), with USN, LOCATION, ST or NT, and CACHE-CONTROL"
            )
        }
        if sentMDNS {
            what.append("no mDNS record of a host")
            fixes.append(
                "mDNS responses whose records decode, with an A or AAAA record for its host name and PTR, SRV and TXT records for its services"
            )
        }
        reasons.append(
            Reason(
                impact: 0, severity: nil, rule: nil, frames: Array(sent.prefix(10)),
                what:
                    "none of its \(sent.count) message(s) names a device or host a client could list: \(what.joined(separator: ", "))",
                effect:
                    "clients read each message as it comes and keep what names a device; these name none, so it is in no list (a search it answers stays unanswered for the searcher)",
                fix: "make its messages readable as the findings above say: \(fixes.joined(separator: "; "))"
            ))
        order()
    }

    private mutating func studySSDP(_ records: [(record: MessageRecord, findings: [Finding])], findings: [Finding]) {
        let devices = self.devices.filter { $0.proto == .ssdp }
        let addresses = Set(devices.flatMap(\.addresses))
        var uuids = Set(devices.map { "uuid:" + $0.id })
        for d in devices { for e in d.embedded { uuids.insert("uuid:" + e) } }
        var targets = Set(devices.flatMap(\.types))
        targets.insert("ssdp:all")
        targets.insert("upnp:rootdevice")
        for u in uuids { targets.insert(u) }
        let first = devices.map(\.firstSeen).min() ?? .zero
        // Searches count from its first message until it left (its byebye) or the end.
        let last =
            devices.allSatisfy(\.byebye)
            ? (devices.map(\.lastSeen).max() ?? .zero) : Timestamp(seconds: Int64.max, nanoseconds: 0)
        // Its messages: from its addresses, naming one of its UUIDs in USN (several devices
        // may share an address).
        func ours(_ r: MessageRecord) -> Bool {
            guard addresses.contains(r.src) else { return false }
            guard let usn = Self.header(r, "USN") else { return true }
            let u = usn.lowercased()
            let uuid = u.split(separator: ":", omittingEmptySubsequences: false).prefix(2).joined(separator: ":")
            return uuids.contains(uuid)
        }
        // An answer names it in USN: a response too broken to show one answers nobody.
        let responses = records.filter {
            ours($0.record) && $0.record.kind == "response" && Self.header($0.record, "USN") != nil
        }
        var missedFrames: [Int] = []
        for (r, _) in records where r.proto == .ssdp {
            if ours(r) {
                add(
                    r.time, r.frame,
                    "sent \(String(decoding: r.summaryUTF8, as: UTF8.self)) (\(r.src):\(r.sport) → \(r.dst):\(r.dport))"
                )
                continue
            }
            guard !addresses.contains(r.src) else { continue }
            guard r.kind == "m-search", let st = Self.header(r, "ST") else {
                if addresses.contains(r.dst) {
                    add(
                        r.time, r.frame,
                        "received \(String(decoding: r.summaryUTF8, as: UTF8.self)) from \(r.src):\(r.sport)")
                }
                continue
            }
            let aimed = r.dst.hasPrefix("239.") || r.dst.lowercased().hasPrefix("ff0") || addresses.contains(r.dst)
            guard aimed, targets.contains(st.lowercased()) || targets.contains(st), r.time >= first, r.time <= last
            else { continue }
            let mx = Self.header(r, "MX").flatMap { UInt64($0) }.map { min($0, 120) } ?? 5
            let deadline = Timestamp(seconds: r.time.seconds &+ Int64(mx) &+ 2, nanoseconds: r.time.nanoseconds)
            let answers = responses.filter {
                $0.record.time >= r.time && $0.record.time <= deadline && $0.record.dst == r.src
            }
            let who = "\(r.src):\(r.sport) searched for \(st) (MX \(Self.header(r, "MX") ?? "none"))"
            if let a = answers.first(where: { $0.record.dport == r.sport }) {
                searchesAnswered += 1
                let dt = Timestamp.seconds(from: r.time, to: a.record.time)
                add(r.time, r.frame, "\(who): answered in frame \(a.record.frame), \(Self.seconds(dt)) later")
            } else if let a = answers.first {
                searchesMissed += 1
                missedFrames.append(r.frame)
                add(
                    r.time, r.frame,
                    "\(who): answered in frame \(a.record.frame) to port \(a.record.dport), not to the searcher's port \(r.sport): the searcher never gets it"
                )
            } else {
                searchesMissed += 1
                missedFrames.append(r.frame)
                add(r.time, r.frame, "\(who): not answered")
            }
        }
        let about = findings.filter { f in
            addresses.contains(f.source) || f.device.map { uuids.contains($0.lowercased()) } ?? false
        }
        reasons += Self.reasons(from: about)
        if searchesMissed > 0 {
            let all = searchesAnswered == 0
            reasons.append(
                Reason(
                    impact: all ? 0 : 1, severity: nil, rule: nil, frames: Array(missedFrames.prefix(10)),
                    what:
                        "it left \(searchesMissed) of \(searchesMissed + searchesAnswered) search(es) for its own types unanswered (or answered to the wrong port)",
                    effect:
                        "a control point that searches (a phone app opening, VLC, Windows network discovery) does not find it until its next NOTIFY, and apps that only search never list it",
                    fix:
                        "answer every M-SEARCH for ssdp:all, upnp:rootdevice, its UUID or one of its types within MX seconds, unicast from port 1900 to the searcher's address and port"
                ))
        }
        let v4 = addresses.contains { !$0.contains(":") }
        if !addresses.isEmpty && !v4 {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what: "it announced itself only over IPv6 (no IPv4 address sent from)",
                    effect:
                        "IPv4-only control points (most TVs, gssdp-discover in IPv4 mode, many phone apps) never see it",
                    fix: "send its NOTIFYs and search responses on IPv4 (239.255.255.250) as well"))
        }
        if devices.contains(where: \.byebye) {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what: "its last NOTIFY was ssdp:byebye and it did not announce again before the capture ended",
                    effect: "control points removed it from their lists when it said byebye",
                    fix: "send ssdp:byebye only when leaving the network, and ssdp:alive again as soon as it is back"))
        }
    }

    /// mDNS: the host's responses, the queries for its names (answered within a second, or
    /// not), the findings about it, and what is missing: an SRV target with no address
    /// record, a goodbye with no return, announcements only over IPv6.
    private mutating func studyMDNS(_ records: [(record: MessageRecord, findings: [Finding])], findings: [Finding]) {
        let hosts = devices.filter { $0.proto == .mdns }
        let addresses = Set(hosts.flatMap(\.addresses))
        let names = Set(hosts.map { $0.id.lowercased() })
        // The names a browser asks for to find it: host names, instance names, service types.
        var asked = names
        for s in services {
            asked.insert(s.instance.lowercased())
            if let t = Self.serviceTypeName(s) { asked.insert(t) }
        }
        let instances = Set(services.map { $0.instance.lowercased() })
        let first = (hosts.map(\.firstSeen) + services.map(\.firstSeen)).min() ?? .zero
        let responses = records.filter {
            $0.record.proto == .mdns && $0.record.kind == "response" && addresses.contains($0.record.src)
        }
        var missedFrames: [Int] = []
        for (r, _) in records where r.proto == .mdns {
            let summary = String(decoding: r.summaryUTF8, as: UTF8.self)
            if addresses.contains(r.src) {
                add(r.time, r.frame, "sent \(summary) (\(r.src) → \(r.dst))")
                continue
            }
            guard r.kind == "query", r.time >= first else { continue }
            let questions = Self.names(r, "questions").filter { asked.contains($0) }
            guard let q = questions.first else { continue }
            let who = "\(r.src):\(r.sport) asked for \(q)"
            // Its answer listed as known: staying silent is right (RFC 6762 §7.1).
            let known = Self.names(r, "answers") + Self.targets(r, "answers")
            if !instances.isEmpty, instances.allSatisfy({ known.contains($0) }) {
                add(r.time, r.frame, "\(who), listing its answer as known: no reply needed")
                continue
            }
            let deadline = Timestamp(seconds: r.time.seconds &+ 1, nanoseconds: r.time.nanoseconds)
            let answer = responses.first { a in
                a.record.time >= r.time && a.record.time <= deadline
                    && (Self.names(a.record, "answers") + Self.targets(a.record, "answers")).contains {
                        asked.contains($0)
                    }
            }
            if let a = answer {
                searchesAnswered += 1
                let dt = Timestamp.seconds(from: r.time, to: a.record.time)
                add(r.time, r.frame, "\(who): answered in frame \(a.record.frame), \(Self.seconds(dt)) later")
            } else {
                searchesMissed += 1
                missedFrames.append(r.frame)
                add(r.time, r.frame, "\(who): not answered")
            }
        }
        // Its findings as the inventory counts them: those that name it. One that names no
        // host counts for its sender only when that is one of its addresses (its queries and
        // probes), never for a forwarder's copy of its records.
        let about = findings.filter { f in
            guard f.isMDNS else { return false }
            if let d = f.device { return names.contains(d.lowercased()) }
            return addresses.contains(f.source)
        }
        reasons += Self.reasons(from: about)
        for s in services {
            guard let target = s.host, target != ".", s.addresses.isEmpty, !s.goodbye else { continue }
            let what = "SRV target \(target) of \(s.instance) never had an A or AAAA record in the capture"
            let effect =
                "browsers list the instance (macOS Finder, avahi-browse, Android NSD), but resolving it finds no address: no client can connect to it"
            let fix =
                "announce the A and AAAA records of \(target) with the SRV (as additional records, RFC 6763 §12.2) and answer queries for them"
            let completeness = RuleRegistry.serviceCompleteness.id.rawValue
            if let k = reasons.firstIndex(where: { $0.rule == completeness && $0.what.contains(target) }) {
                reasons[k].impact = 0
                reasons[k].effect = effect
                reasons[k].fix = fix
            } else {
                reasons.append(
                    Reason(impact: 0, severity: nil, rule: nil, frames: [], what: what, effect: effect, fix: fix))
            }
        }
        for s in services where s.goodbye {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what:
                        "it said goodbye for \(s.instance) (its records with TTL 0) and did not announce it again before the capture ended",
                    effect:
                        "caches drop a record one second after its goodbye (RFC 6762 §10.1): browsers remove the service from their lists",
                    fix: "send goodbyes only when the service is withdrawn, and announce it again as soon as it is back"
                ))
        }
        for h in hosts where h.goodbye && !services.contains(where: \.goodbye) {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what: "its address records were last sent with TTL 0 (a goodbye for \(h.id))",
                    effect: "caches drop its addresses: clients cannot reach it by name",
                    fix: "send goodbyes only when leaving the network, and announce again as soon as it is back"))
        }
        if !addresses.isEmpty && !addresses.contains(where: { !$0.contains(":") }) {
            reasons.append(
                Reason(
                    impact: 0, severity: nil, rule: nil, frames: [],
                    what: "it announced itself only over IPv6 (no IPv4 address sent from or advertised)",
                    effect:
                        "IPv4-only browsers (many TVs and printers, Android NSD on IPv4-only networks, avahi with use-ipv6=no) never see it",
                    fix: "announce on IPv4 (224.0.0.251) as well, with an A record"))
        }
        if searchesMissed > 0 {
            let all = searchesAnswered == 0
            reasons.append(
                Reason(
                    impact: all ? 0 : 1, severity: nil, rule: nil, frames: Array(missedFrames.prefix(10)),
                    what:
                        "it left \(searchesMissed) of \(searchesMissed + searchesAnswered) query(ies) for its own names unanswered",
                    effect:
                        "a browser that starts after its announcements (a phone app opening, avahi-browse, dns-sd -B) asks and gets no answer: it does not list the service until the next announcement",
                    fix:
                        "answer queries for its service type, instance and host names within 20–120 ms (RFC 6762 §6), unless the query lists the answer as known"
                ))
        }
    }

    /// `_ipp._tcp.local.` of instance `Office._ipp._tcp.local.` (lower case).
    static func serviceTypeName(_ s: InventoryService) -> String? {
        guard !s.serviceType.isEmpty else { return nil }
        let i = s.instance.lowercased()
        guard let r = i.firstRange(of: "." + s.serviceType.lowercased() + ".") else { return nil }
        return String(i[i.index(after: r.lowerBound)...])
    }

    /// The owner names (lower case) of an mDNS record's questions or records in `section`.
    static func names(_ r: MessageRecord, _ section: String) -> [String] {
        guard let xs = r.fields.first(where: { $0.0 == section })?.1.arrayValue else { return [] }
        return xs.compactMap { $0["name"]?.stringValue?.lowercased() }
    }

    /// The PTR targets (lower case) of the records in `section`.
    static func targets(_ r: MessageRecord, _ section: String) -> [String] {
        guard let xs = r.fields.first(where: { $0.0 == section })?.1.arrayValue else { return [] }
        return xs.compactMap { $0["rdata"]?["target"]?.stringValue?.lowercased() }
    }

    mutating func add(_ t: Timestamp, _ frame: Int, _ s: String) {
        guard timeline.count < Self.maxTimeline else {
            timelineLeftOut += 1
            return
        }
        timeline.append(Event(time: t, frame: frame, summary: s))
    }

    /// One reason per rule, with its frames; a visibility rule's finding, or an error that the
    /// interop notes say some stacks drop or ignore, hides the device from them.
    static func reasons(from findings: [Finding]) -> [Reason] {
        var order: [RuleID] = []
        var by: [RuleID: [Finding]] = [:]
        for f in findings {
            if by[f.rule] == nil { order.append(f.rule) }
            by[f.rule, default: []].append(f)
        }
        return order.compactMap { id in
            guard let fs = by[id], let first = fs.first else { return nil }
            let severity = fs.map(\.severity).max() ?? first.severity
            // The rule's words about its most severe finding (a rule reports some lower).
            let f = fs.first { $0.severity == severity } ?? first
            let mixed = fs.contains { $0.severity != severity }
            let rule = RuleCatalog.find(id.rawValue)
            let interop = f.interop ?? rule?.interop
            // The ranking the run summary's opening lines use too.
            let ranked = Impact.of(severity: severity, interop: interop, hides: rule?.hides ?? false)
            let impact = ranked.rawValue
            let effect: String
            if let interop, let p = f.profile {
                // A profile's controllers: "Google Cast receiver: pychromecast finds no device …".
                effect = p.title + ": " + interop
            } else if let interop {
                effect = interop + (ranked == .hides ? ": those clients do not list the device" : "")
            } else {
                effect =
                    severity == .error
                    ? "strict clients may reject the message; lenient ones accept it"
                    : "most clients accept it; timing, caching or display may be off"
            }
            let title = rule?.title ?? f.name
            let many =
                fs.count > 1 ? " (\(fs.count) times; \(mixed ? "the first \(severity.rawValue)" : "first") shown)" : ""
            return Reason(
                impact: impact, severity: severity, rule: id.rawValue,
                frames: Array(Set(fs.flatMap(\.frames)).sorted().prefix(10)),
                what: "\(f.rule) \(f.name): \(f.message)\(many)", effect: effect,
                fix: "make the firmware follow \(f.spec): \(title)")
        }
    }

    static func header(_ r: MessageRecord, _ name: String) -> String? {
        guard let h = r.fields.first(where: { $0.0 == "headers" })?.1.arrayValue else { return nil }
        for pair in h {
            guard let p = pair.arrayValue, p.count == 2, let n = p[0].stringValue, n.uppercased() == name else {
                continue
            }
            return p[1].stringValue?.trimmingSpaces
        }
        return nil
    }

    static func seconds(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return ms < 1000 ? "\(ms) ms" : "\(ms / 1000).\(String(ms % 1000 / 100)) s"
    }

    func text() -> String {
        let e = TerminalText.escaped
        var out = ""
        guard !devices.isEmpty || !services.isEmpty || sender != nil else {
            if let type = askedType {
                // A service type nobody offered, though clients asked for it.
                out += "No instance of \(e(type)) was seen in the capture: verdict not seen.\n\n"
                out += "Clients asked for it (\(questions.count + questionsLeftOut) question(s)):\n"
                for q in questions { out += "  \(e(Self.questionText(q)))\n" }
                if questionsLeftOut > 0 { out += "  … \(questionsLeftOut) more\n" }
                out += """

                    Usual causes:
                      - nothing offering \(e(type)) is on this link: mDNS does not cross links, and whatever joins this link to the one where it is (a reflector, an mDNS gateway) does not pass it (avahi: reflect-filters; UniFi, Cisco: the services allowed);
                      - the capture ran on another interface than the one the device is on (discoscope capture -D lists them);
                      - multicast snooping (IGMP/MLD) on the switch or access point kept the group traffic from this port;
                      - the device was off, asleep, or on another VLAN or Wi-Fi network while capturing.

                    """
                return out
            }
            out += "'\(e(target))' matches nothing in the capture: verdict not seen.\n\n"
            out +=
                "No SSDP device with that UUID, no mDNS host or DNS-SD instance with that name sent a message, and no such address sent SSDP or mDNS.\n"
            out += """

                Usual causes:
                  - the capture filter left its packets out (capture without a filter, or with 'udp port 1900 or udp port 5353');
                  - the capture ran on another interface than the one the device is on (discoscope capture -D lists them);
                  - vantage point: a switch port sees multicast but not the unicast replies between other hosts; capture on the device's or the client's host, or a mirror port;
                  - multicast snooping (IGMP/MLD) on the switch or access point kept the group traffic from this port;
                  - the device was off, asleep, or on another VLAN or Wi-Fi network while capturing.

                """
            return out
        }
        if let s = sender, client {
            let kinds = Set(questions.map { $0.proto == .ssdp ? "SSDP M-SEARCHes" : "mDNS queries" }).sorted()
            out +=
                "\(e(s.address)) (a client: \(s.messages) message(s) sent, all \(kinds.joined(separator: " or ")); it advertised nothing)\n"
        } else if let s = sender {
            out += "\(e(s.address)) (a sender of \(s.messages) message(s), none of which names a device or host)\n"
        }
        // Each device or host once (a service type names several; one device in several
        // inputs is listed once, and counted below).
        var listed: Set<String> = []
        for d in devices where listed.insert(d.id.lowercased()).inserted {
            out +=
                "\(e(d.id)) (\(d.proto == .ssdp ? "SSDP device" : "mDNS host") at \(e(d.addresses.joined(separator: ", "))))"
            if let s = d.server { out += ", SERVER \(e(s))" }
            out += "\n"
        }
        for s in services {
            out +=
                "service \(e(s.instance)) (\(e(s.serviceType))"
                + (s.host.map { ", SRV \(e($0)) port \(s.port.map(String.init) ?? "?")" } ?? ", no SRV record seen")
                + ")\n"
        }
        if devices.count > 1, listed.count == 1 { out += "Seen in \(devices.count) inputs.\n" }
        if let m = matchedBy { out += "Matched by \(e(m))\n" }
        out += "\nVerdict: \(verdict.rawValue)"
        switch verdict {
        case .visible: out += ": nothing in the capture keeps clients from seeing it.\n"
        case .visibleWithProblems: out += ": clients see it, but some of what it sends is wrong.\n"
        case .likelyInvisible: out += ": some or all clients will not list it.\n"
        case .client:
            let answered = questions.filter { !$0.unanswered }.count
            out +=
                ": it only asks; \(answered) of \(questions.count + questionsLeftOut) question(s) answered on this link.\n"
        case .notSeen: out += "\n"
        }
        if !reasons.isEmpty {
            out += "\nWhy, most serious first:\n"
            for (k, r) in reasons.enumerated() {
                out += "  \(k + 1). \(e(r.what))"
                if !r.frames.isEmpty {
                    out +=
                        " [frame\(r.frames.count > 1 ? "s" : "") \(r.frames.map(String.init).joined(separator: ", "))]"
                }
                out += "\n     Effect: \(e(r.effect)).\n     Fix: \(e(r.fix)).\n"
            }
        }
        if !questions.isEmpty {
            out += "\nWhat it asked (\(questions.count + questionsLeftOut) question(s)):\n"
            for q in questions { out += "  \(e(Self.questionText(q)))\n" }
            if questionsLeftOut > 0 { out += "  … \(questionsLeftOut) more\n" }
        }
        if let d = devices.first {
            out +=
                "\nWhat it did (\(d.messages) message(s), \(searchesAnswered) \(d.proto == .ssdp ? "search(es)" : "query(ies)") answered, \(searchesMissed) missed):\n"
        } else {
            out += "\nWhat it did (\(sender?.messages ?? 0) message(s) sent):\n"
        }
        for ev in timeline {
            out += "  \(LocalTime.dateTime(ev.time)) frame \(ev.frame): \(e(ev.summary))\n"
        }
        if timelineLeftOut > 0 { out += "  … \(timelineLeftOut) more\n" }
        return out
    }

    func json() -> JSONValue {
        .object([
            ("type", .string("explanation")), ("target", .string(target)),
            (
                "matched",
                .array((Array(Set(devices.map(\.id))).sorted() + services.map(\.instance)).map { .string($0) })
            ),
            ("matched_by", matchedBy.map { .string($0) } ?? .null),
            ("sender", sender.map { .string($0.address) } ?? .null),
            ("verdict", .string(verdict.rawValue)),
            ("questions", questionsJSON()),
            (
                "reasons",
                .array(
                    reasons.map { r in
                        .object([
                            ("rule", r.rule.map { .string($0) } ?? .null),
                            ("severity", r.severity.map { .string($0.rawValue) } ?? .null),
                            ("frames", .array(r.frames.map { .int($0) })), ("what", .string(r.what)),
                            ("effect", .string(r.effect)), ("fix", .string(r.fix)),
                        ])
                    })
            ),
            (
                "timeline",
                .array(
                    timeline.map { .array([.rawNumber($0.time.microsecondText), .int($0.frame), .string($0.summary)]) })
            ),
        ])
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
