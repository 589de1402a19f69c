import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// The pipeline: frames → datagrams → SSDP / mDNS decoding → rules → configuration policy →
/// reporter. One `Analysis` serves a whole run (several files, or a live capture); each
/// input file is a session of its own.
///
/// Three parts, each in its own file (docs/ARCHITECTURE.md draws the whole flow):
/// - `Intake` (reading): frames to datagrams, IP reassembly and routing, on the reading
///   thread in capture order;
/// - `BatchScheduler` (scheduling): batches of datagrams decoded, judged and formatted on
///   worker threads, the SSDP and mDNS session rules over each batch in capture order on the
///   pool's ordering thread; results back in capture order, so the output is the same for any
///   number of jobs;
/// - `ResultEmitter` (emitting): results to the reporter, counted into the summary.
/// This class owns them, and concludes each session (end-of-input findings, inventory).
///
/// All three parts and the summary are used by the reading thread only, from methods that
/// never call back into the analysis while they modify them, so they are the one place
/// marked `@exclusivity(unchecked)`: the run-time exclusivity check is a thread-local
/// access-set update per property access, several per frame (its cost: Benchmarks/README.md,
/// "Measurements behind the code").
public final class Analysis {
    public struct Options: Sendable {
        /// Build message records for the reporter (text and JSON lines show messages).
        public var wantMessages: Bool = true
        public var verbose: Bool = false
        /// Build the JSON fields of message records (JSON lines only; text needs the summary).
        public var messageFields: Bool = true
        /// Findings carry their device text (SSDP UUID, mDNS host name) and field: JSON lines,
        /// SARIF, suppressions by device and baselines use them; text output shows neither.
        public var findingDetails: Bool = true
        /// Rules switched off (by `--disable`, `--enable`, configuration).
        public var disabledRules: Set<RuleID> = []
        /// Threads for per-message work, the calling thread included, when the analysis has a
        /// pool to run them (`makePool`; above 1, the pool's ordering thread runs the session
        /// rules besides); 1 (or less), or no pool, does everything on the calling
        /// thread, message by message (live capture: each line appears at once).
        public var jobs: Int = 1
        /// Message records carry the sender's MAC address (text `-e`).
        public var recordMAC: Bool = false
        /// Message records carry the payload (text `-X` / `-A`).
        public var recordPayload: Bool = false
        /// The reporter gets the inventory before the summary (JSON lines records, the text
        /// summary's device list).
        public var reportsInventory: Bool = false
        /// The subnets known to be on each segment, by segment name (`""`: the unnamed
        /// segment of a plain capture or one interface): `--subnet`, or a live interface's
        /// addresses. MDNS-407 and MDNS-310 judge addresses by them where known.
        public var subnets: [String: LinkSubnets] = [:]
        /// Each worker's tables of decodings kept for repeated payloads (SSDP, mDNS, and
        /// mDNS's rendered summaries): `.analysis` for reading captures, `.sensor` for a live
        /// capture that runs for months, whose memory must level off within its first minute.
        public var repeatTables: RepeatTableSizes = .analysis
        public init() {}
    }

    /// The sizes of the decoding tables, as 2^bits slots per worker. A table fills with
    /// the distinct payloads a link shows, up to its size, and then holds that much: on a
    /// busy link with devices rebooting (new BOOTIDs, new payloads) the larger tables take
    /// a quarter of an hour to fill (Benchmarks/README.md, "Sensor soak").
    public struct RepeatTableSizes: Sendable {
        public var ssdpBits: Int
        public var mdnsBits: Int
        public static let analysis = RepeatTableSizes(ssdpBits: 12, mdnsBits: 13)
        public static let sensor = RepeatTableSizes(ssdpBits: 10, mdnsBits: 11)
    }

    @exclusivity(unchecked) public private(set) var summary = RunSummary()
    @exclusivity(unchecked) private var intake: Intake
    @exclusivity(unchecked) private var scheduler: BatchScheduler
    @exclusivity(unchecked) private var emitter: ResultEmitter
    private let options: Options
    /// What the inputs showed (built from the session models at the end of each input).
    public private(set) var inventory = Inventory()

    /// Called when a bound is reached or an unsupported link type is first seen (the CLI
    /// prints a warning).
    public var onWarning: ((String) -> Void)? = nil
    /// Called with an input error (a damaged file, an interface gone) as soon as it is known,
    /// besides the summary (the CLI prints it).
    public var onInputError: ((String) -> Void)? = nil
    /// Datagrams on port 1900 or 5353 (either side), the figure tshark's
    /// `udp.port==1900 || udp.port==5353` counts.
    public var wellKnownPortDatagrams: Int { summary.portDatagrams }
    /// `analyze -w`: called on the reading thread with each frame that carries an SSDP or
    /// mDNS message (`.message`, with the frames of the fragments a reassembled datagram came
    /// from) and each frame held as an IP fragment (`.fragment`), in capture order.
    public var frameTap: ((FrameTap, RawFrame, UnsafeRawBufferPointer) -> Void)? = nil
    public enum FrameTap {
        case message(fragmentFrames: [Int])
        case fragment
    }
    /// `capture -w FILE.pcapng`: called on the reading thread once the output of every
    /// message of the current input up to frame `n` has been emitted (`Int.max`: of every
    /// frame read so far), so their findings have passed the policy, but for those session
    /// rules conclude later (a deadline passed, the end of the input).
    public var onSettled: ((_ n: Int) -> Void)? = nil
    @exclusivity(unchecked) private var fileIndex = 0
    /// A session (input file) was started, and its file.
    @exclusivity(unchecked) private var sessionStarted = false
    @exclusivity(unchecked) private var sessionFileName: String? = nil
    /// The run's segment names (`Segments`; index 0 the unnamed segment), each name once.
    @exclusivity(unchecked) private var segmentNames: [String] = [""]
    @exclusivity(unchecked) private var segmentIndex: [String: UInt16] = [:]
    /// The segments of the current session's message frames, for findings made without a
    /// message (empty unless the session has named segments).
    @exclusivity(unchecked) private var segmentRuns = SegmentRuns()

    /// An analysis that runs on the calling thread only (`options.jobs` is not used: nothing
    /// here starts a thread).
    public convenience init(
        reporter: any Reporter, options: Options = Options(), policy: (@Sendable (Finding) -> Finding?)? = nil
    ) {
        self.init(reporter: reporter, options: options, policy: policy, makePool: nil)
    }

    /// An analysis whose batches `makePool`'s threads process when `options.jobs` is above 1
    /// (the driver's `WorkerPool`).
    package init(
        reporter: any Reporter, options: Options, policy: (@Sendable (Finding) -> Finding?)?,
        makePool: BatchPoolMaker?
    ) {
        self.options = options
        intake = Intake(disabled: options.disabledRules)
        scheduler = BatchScheduler(options: options, reporter: reporter, policy: policy, makePool: makePool)
        emitter = ResultEmitter(reporter: reporter)
    }

    /// Records a limit in the summary and says so once as it happens (live capture shows it
    /// at once).
    private func limitReached(_ l: LimitReached, _ summary: inout RunSummary) {
        guard !summary.reached(l.limit) else { return }
        summary.reached(l)
        onWarning?(l.message)
    }

    /// An input starts: the session of the previous one (if any) concludes first — its
    /// end-of-input findings and everything else of it are written before this one's header
    /// — since what one input showed says nothing about the devices of the next (its times
    /// may even be earlier). `fileIndex` is its place on the command line.
    package func beginInput(_ name: String, fileIndex: Int) {
        if sessionStarted { concludeSessions() }
        sessionStarted = true
        sessionFileName = name
        self.fileIndex = fileIndex
        summary.files.append(name)
        emitter.beginFile(fileIndex, name: name)
    }

    /// The input read so far is complete: skip counts into the summary, the partial batch
    /// handed on.
    package func endInput() {
        intake.flushSkips(into: &summary)
        scheduler.submitBatch()
    }

    /// Reading the input failed (a damaged file): said in the summary; what was read before
    /// has been analysed.
    package func inputError(_ description: String) {
        summary.inputErrors.append(description)
    }

    /// Frames of a link type DiscoScope does not decode, so far.
    package var unsupportedFrames: Int { intake.unsupportedFrames }
    /// The link types of those frames, in the order first seen.
    package var unsupportedLinkTypes: [LinkType] { intake.unsupportedLinkTypes }

    /// The run's index of the segment named `name` (a link of a merged session, an
    /// interface), added to the table when new: the reporters hear of it before any record
    /// of it. Past `Segments.maxNamed` names, frames stay on the unnamed segment, said once.
    package func segment(named name: String) -> UInt16 {
        if let k = segmentIndex[name] { return k }
        guard segmentNames.count <= Segments.maxNamed else {
            limitReached(
                LimitReached(
                    limit: "segments", value: Segments.maxNamed,
                    message:
                        "more than \(Segments.maxNamed) segments in the run: frames of the others are shown without one"
                ), &summary)
            return 0
        }
        let k = UInt16(truncatingIfNeeded: segmentNames.count)
        segmentNames.append(name)
        segmentIndex[name] = k
        summary.segments.append(name)
        scheduler.segmentNames = segmentNames
        emitter.setSegmentNames(segmentNames)
        return k
    }

    /// Takes one frame of the current input (its bytes are valid for the call only).
    package func frame(_ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        switch intake.frame(frame, bytes, into: &scheduler.batch, summary: &summary, warn: { onWarning?($0) }) {
        case .taken(let t):
            frameTap?(.message(fragmentFrames: t.fragmentFrames), frame, bytes)
            add(t.datagram, t.route)
        case .fragmentHeld:
            frameTap?(.fragment, frame, bytes)
        case .none:
            break
        }
    }

    /// Analyses one UDP datagram whose payload is `d.payload` (a reassembled one; also the
    /// entry point for tests).
    public func datagram(_ d: Datagram) {
        guard let route = intake.route(d, d.payload, d.payload.indices, &summary) else { return }
        add(d, route)
    }

    /// Takes one multicast membership message (IGMP, MLD) of the current input, in capture
    /// order with the datagrams (the entry point for tests; frames go through `frame`).
    public func membership(_ p: MembershipPacket) {
        intake.membership(p)
    }

    private func add(_ d: Datagram, _ route: Intake.Route) {
        if d.segment != 0 || !segmentRuns.isEmpty { segmentRuns.note(frame: d.frame, segment: d.segment) }
        summary.datagrams += 1
        if d.isTruncated { summary.truncatedDatagrams += 1 }
        if d.wasFragmented { summary.reassembledDatagrams += 1 }
        let message: WorkItem.Message
        switch route {
        case .ssdp: message = .ssdp(d)
        case .mdns: message = .mdns(d)
        }
        scheduler.add(WorkItem(message: message, fileIndex: fileIndex), emit: emit)
    }

    /// Hands one batch's results, in capture order, to the emitter.
    private func emit(_ r: borrowing BatchOutput) {
        emitter.emit(r, summary: &summary, limit: limitReached)
        if liveTally != nil { liveTally?.take(r) }
        // A batch's items are in capture order; a conclusion's output has none.
        if let onSettled, let last = r.spent.items.last {
            switch last.message {
            case .ssdp(let d), .mdns(let d): onSettled(d.frame)
            }
        }
    }

    /// Live metrics: messages by kind and findings by rule and severity, once
    /// `keepLiveTally` started it (nil before).
    @exclusivity(unchecked) public private(set) var liveTally: LiveTally? = nil
    public func keepLiveTally() { if liveTally == nil { liveTally = LiveTally() } }
    /// Called on the reading thread after each of live capture's conclusions (`conclude(by:)`,
    /// once a second), when everything read so far has been emitted: the place to read
    /// `liveView` and `summary`.
    public var onConcluded: ((Timestamp) -> Void)? = nil

    /// The current input's devices, hosts and service instances as they stand, as its
    /// inventory at its end would list them (`LiveView`). Drains the batches in flight first.
    public func liveView() -> LiveView {
        scheduler.drain(emit: emit)
        var v = LiveView.build(
            ssdp: scheduler.settler.ssdp.model, mdns: scheduler.settler.mdns.model, findings: emitter.deviceFindings,
            texts: emitter.hostFindingTexts, segments: emitter.segmentsSeen, byAddress: emitter.addressFindings,
            names: segmentNames, file: sessionFileName)
        v.stateEvicted =
            summary.stateEvicted + scheduler.settler.ssdp.stateEvicted + scheduler.settler.mdns.stateEvicted
            + intake.multicastEvicted
        return v
    }

    /// Live capture with no packet waiting in the kernel (see `BatchScheduler.caughtUp`):
    /// everything read so far is emitted.
    package func caughtUp() {
        scheduler.caughtUp(emit: emit)
        onSettled?(Int.max)
    }

    /// Ends the run: stateful rules conclude, the reporter writes its summary or document.
    public func finish(extra: (inout RunSummary) -> Void = { _ in }) -> RunSummary {
        concludeSessions()
        scheduler.shutdown()
        intake.concludeReassembly(into: &summary, limit: limitReached)
        summary.devices = emitter.deviceCount
        summary.services = emitter.serviceCount
        if inventory.leftOut > 0 {
            limitReached(
                LimitReached(
                    limit: "inventory", value: Inventory.maxEntries,
                    message:
                        "more than \(Inventory.maxEntries) devices and services for the inventory: \(inventory.leftOut) were left out of it (a fixed bound that keeps memory flat under floods of made-up names)"
                ), &summary)
        }
        if options.reportsInventory { emitter.inventory(inventory) }
        extra(&summary)
        emitter.finish(summary)
        return summary
    }

    /// The end of one session (an input file, or the whole run): session rules conclude on
    /// what the input did not show, and their findings follow the last message, sorted by
    /// the frame that shows each (rules keep their state in hash tables). SSDP and mDNS
    /// state start afresh for the next input.
    private func concludeSessions() {
        scheduler.drain(emit: emit)
        let models = finishSessions()
        // The inventory of this input, once its end-of-input findings are counted too.
        let found = emitter.takeInputFindings()
        let memberships = intake.takeMemberships()
        summary.stateEvicted += memberships.untracked
        let firstOfSession = inventory.devices.count
        InventoryBuilder.addSSDP(
            models.ssdp, findings: found.devices, segments: found.segments, names: segmentNames,
            profiles: found.profiles, file: sessionFileName, to: &inventory)
        InventoryBuilder.addMDNS(
            models.mdns, findings: found.devices, texts: found.hostTexts, segments: found.segments,
            byAddress: found.addresses, names: segmentNames, profiles: found.profiles, file: sessionFileName,
            to: &inventory)
        let joined = memberships.byAddressText()
        if !joined.isEmpty {
            for k in firstOfSession..<inventory.devices.count {
                inventory.devices[k].memberships = MembershipTracker.memberships(
                    of: inventory.devices[k].addresses, in: joined)
            }
        }
        segmentRuns.removeAll()
    }

    /// Ends the input's session stages, their end-of-input findings emitted, and returns the
    /// two models, which is all the inventory reads: the rules' verdicts, the windows and the
    /// stages' caches are gone before the inventory is built.
    private func finishSessions() -> (ssdp: SSDPSessionModel, mdns: MDNSSessionModel) {
        var reports = SessionReports()
        var (ssdp, mdns) = scheduler.settler.takeStages()
        var multicast = intake.takeMulticast()
        ssdp.finish(into: &reports)
        mdns.finish(into: &reports)
        multicast.finish(into: &reports)
        summary.stateEvicted += ssdp.stateEvicted + mdns.stateEvicted + multicast.stateEvicted
        summary.timeWentBack += ssdp.timeWentBack + mdns.timeWentBack
        summary.add(unanswered: ssdp.unanswered() + mdns.unanswered())
        if !reports.isEmpty {
            emit(concluded(reports, atEnd: true, mdnsModel: mdns.model))
        }
        return (ssdp.model, mdns.model)
    }

    /// Live capture's timer: the session rules report what became certain by `now` (a
    /// deadline passed with no packet that could still change it), written at once, after
    /// everything read so far. Offline, such findings come at the end of the input.
    public func conclude(by now: Timestamp) {
        scheduler.drain(emit: emit)
        var reports = SessionReports()
        scheduler.settler.concludeSSDP(by: now, into: &reports)
        intake.conclude(by: now, into: &reports)
        scheduler.settler.concludeMDNS(by: now, into: &reports)
        if !reports.isEmpty { emit(concluded(reports, atEnd: false, mdnsModel: scheduler.settler.mdns.model)) }
        onConcluded?(now)
    }

    /// Findings of session rules that concluded without a message to show them under, sorted
    /// by the frame that shows each (rules keep their state in hash tables).
    private func concluded(_ reports: SessionReports, atEnd: Bool, mdnsModel: MDNSSessionModel) -> BatchOutput {
        var sink = FindingSink(frame: 0, time: .zero, source: .v4(0), fileIndex: fileIndex)
        for r in reports.reports {
            // The device text is kept even when reports do not show it: the inventory counts
            // these findings by device (text output prints no device).
            sink.profile = r.profile
            sink.profileInstance = r.instance
            sink.report(
                r.descriptor, severity: r.severity, r.message, frames: r.related, time: r.time, source: r.source,
                device: r.device)
        }
        var findings = sink.findings
        for k in findings.indices {
            findings[k].atEnd = atEnd
            // The segment of the frame it names first (the rules know nothing of segments).
            if !segmentRuns.isEmpty { findings[k].segment = segmentRuns.segment(of: findings[k].firstFrame ?? 0) }
        }
        findings.sort {
            let a = $0.firstFrame ?? 0
            let b = $1.firstFrame ?? 0
            if a != b { return a < b }
            if $0.rule != $1.rule { return $0.rule < $1.rule }
            return $0.message < $1.message
        }
        var hostKeys: [String: UInt64] = [:]
        for (key, h) in mdnsModel.hosts { hostKeys[h.name.lowercased()] = key }
        return scheduler.conclude(findings, mdnsHosts: hostKeys)
    }

    /// Findings made outside the packets (`probe`'s description checks), reported now, after
    /// everything read so far, through the same policy, counts and reporter as the rules'.
    public func report(external findings: [Finding]) {
        guard !findings.isEmpty else { return }
        scheduler.drain(emit: emit)
        emit(scheduler.conclude(findings, mdnsHosts: [:]))
    }

    /// Number of findings reported at or above `threshold`.
    public func count(atLeast threshold: Severity) -> Int {
        summary.findings(atLeast: threshold)
    }
}
