import Capture
import DNS
import Findings
import NetLayers
import Reporting
import Rules
import SSDP
import WireFormat

/// The pipeline: frames → datagrams → SSDP / mDNS decoding → rules → configuration policy →
/// reporter. One `Analysis` serves a whole run (several files, or a live capture).
///
/// Everything that depends on earlier packets runs in capture order on the calling thread:
/// reading, IP reassembly, and SSDP's version, M-SEARCH bookkeeping and session rules (from
/// a scan of a few headers). The per-message work (SSDP and mDNS decoding, the stateless
/// rules, configuration policy, formatting) runs in batches on `Options.jobs - 1` worker
/// threads and on the calling thread, which takes a batch itself when two are waiting for
/// the workers or too many are in flight. The mDNS session rules run over each batch's
/// decoded messages in capture order on the pool's ordering thread (`MDNSSessionSettler`),
/// a thread more than `jobs`. The results are written in capture order, so the output is
/// the same for any number of jobs. SSDP and mDNS payloads travel in the batch's one
/// buffer, and the worker makes (or finds) the array it decodes: what a worker keeps is its
/// own allocation, freed on its own thread.
///
/// The state touched per frame is marked `@exclusivity(unchecked)`: only the reading thread
/// uses it, from methods that never call back into the analysis while they modify it, and
/// the run-time exclusivity check is a thread-local access-set update per property access, a
/// dozen per frame (its cost: Benchmarks/README.md, "Measurements behind the code").
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
        /// Threads for per-message work, the calling thread included (above 1, the pool's
        /// ordering thread runs the mDNS session rules besides); 1 (or less) does everything on
        /// the calling thread, message by message (live capture: each line appears at once).
        public var jobs: Int = 1
        /// Message records carry the sender's MAC address (text `-e`).
        public var recordMAC: Bool = false
        /// Message records carry the payload (text `-X` / `-A`).
        public var recordPayload: Bool = false
        /// The reporter gets the inventory before the summary (JSON lines records, the text
        /// summary's device list).
        public var reportsInventory: Bool = false
        public init() {}
    }

    @exclusivity(unchecked) public private(set) var summary = RunSummary()
    /// Frames whose link type is not decoded, reported once per link type.
    @exclusivity(unchecked) private var unsupportedSeen: Set<LinkType> = []
    @exclusivity(unchecked) private var unsupportedFrames = 0
    @exclusivity(unchecked) private var decoder = PacketDecoder()
    @exclusivity(unchecked) private var ssdp: SSDPRouter
    /// The mDNS session rules, run over each batch in capture order (by the pool's ordering
    /// thread, or by this one with one job).
    private let settler: MDNSSessionSettler
    private let policy: (@Sendable (Finding) -> Finding?)?
    @exclusivity(unchecked) private var reporter: any Reporter
    private let options: Options
    @exclusivity(unchecked) private var devices: Set<UInt64> = []
    @exclusivity(unchecked) private var services: Set<UInt64> = []
    /// Distinct devices and service types counted (their keys only: 64 bits each); the
    /// bound keeps memory flat under a flood of made-up names.
    static let maxDevices = 65536
    @exclusivity(unchecked) private var devicesFull = false
    /// What the inputs showed (built from the session models at the end of each input).
    public private(set) var inventory = Inventory()
    /// Findings of the current input by device key, for the inventory; bounded like the
    /// session model (keys beyond the bound are not counted).
    @exclusivity(unchecked) private var deviceFindings: [UInt64: SeverityCounts] = [:]
    static let maxDeviceFindings = 16384
    /// Stateful mDNS findings by host key, with their messages (for the services' counts):
    /// bounded by `maxDeviceFindings` hosts and this many findings each.
    @exclusivity(unchecked) private var hostFindingTexts: [UInt64: [(message: String, severity: Severity)]] = [:]
    static let maxFindingTextsPerHost = 256
    @exclusivity(unchecked) private var servicesFull = false
    static let deviceLimit = LimitReached(
        limit: "devices", value: maxDevices,
        message:
            "more than \(maxDevices) distinct devices or hosts: only the first \(maxDevices) are counted, so the figure is a lower bound (a fixed bound that keeps memory flat under floods of made-up names)"
    )
    static let serviceLimit = LimitReached(
        limit: "services", value: maxDevices,
        message:
            "more than \(maxDevices) distinct DNS-SD service types: only the first \(maxDevices) are counted, so the figure is a lower bound (a fixed bound that keeps memory flat under floods of made-up names)"
    )

    /// Records a limit in the summary and says so once as it happens (live capture shows it
    /// at once).
    private func limitReached(_ l: LimitReached) {
        guard !summary.reached(l.limit) else { return }
        summary.reached(l)
        onWarning?(l.message)
    }
    /// Called when an unsupported link type is first seen (the CLI prints a warning).
    public var onWarning: ((String) -> Void)? = nil
    /// Datagrams on port 1900 or 5353 (either side), the figure tshark's
    /// `udp.port==1900 || udp.port==5353` counts.
    public var wellKnownPortDatagrams: Int { summary.portDatagrams }
    @exclusivity(unchecked) private var fileIndex = 0
    /// `analyze -w`: called on the reading thread with each frame that carries an SSDP or
    /// mDNS message (`.message`, with the frames of the fragments a reassembled datagram came
    /// from) and each frame held as an IP fragment (`.fragment`), in capture order.
    public var frameTap: ((FrameTap, RawFrame, UnsafeRawBufferPointer) -> Void)? = nil
    public enum FrameTap {
        case message(fragmentFrames: [Int])
        case fragment
    }
    /// A session (input file) was started; the index of its file.
    @exclusivity(unchecked) private var sessionStarted = false
    @exclusivity(unchecked) private var sessionFileIndex = 0
    @exclusivity(unchecked) private var sessionFileName: String? = nil

    /// Per-message work: used inline with one job, copied to each pool thread otherwise.
    @exclusivity(unchecked) private var inline: MessageWorker
    @exclusivity(unchecked) private var pool: WorkerPool<MessageWorker>? = nil
    /// Whether `pool` is set. Tested per datagram instead of `pool` itself: binding the pool
    /// retains it, an atomic update of a line the worker threads write (the pool's lock and
    /// queue).
    private let pooled: Bool
    @exclusivity(unchecked) private var batch = Batch()
    /// Batches back from the workers, emptied, for the next ones (see `Batch`).
    @exclusivity(unchecked) private var spare: [Batch] = []
    /// Datagrams per batch: fewer hand-offs, each freeing more at once (the size was chosen
    /// by measurement: Benchmarks/README.md).
    static let batchSize = 1024
    /// Batches in flight per worker thread before the reader waits for output (with the
    /// batch, this bounds the datagrams held: 2048 per worker thread).
    static let batchesPerWorker = 2

    public init(
        reporter: any Reporter, options: Options = Options(), policy: (@Sendable (Finding) -> Finding?)? = nil
    ) {
        self.reporter = reporter
        self.options = options
        ssdp = SSDPRouter(disabled: options.disabledRules)
        self.policy = policy
        settler = MDNSSessionSettler(options: options, renderer: reporter.makeRenderer(), policy: policy)
        inline = MessageWorker(options: options, policy: policy, renderer: reporter.makeRenderer())
        if options.jobs > 1 {
            // The reading thread is one of the `jobs`: it processes a batch itself when the
            // pool's threads are behind.
            let workers = (1..<options.jobs).map { _ in
                MessageWorker(options: options, policy: policy, renderer: reporter.makeRenderer())
            }
            let p = WorkerPool(workers: workers) { [settler] in settler.settle(&$0) }
            if p.isRunning { pool = p }
        }
        pooled = pool != nil
        // Inline (one job), a batch holds one datagram at a time.
        if pooled { batch.items.reserveCapacity(Self.batchSize) }
        decoder.copiesPayloads = false
    }

    /// Reads one opened source to its end. A read error (damaged file) ends this source;
    /// everything before it has been analysed, and the error is returned for the summary and
    /// the exit status.
    @discardableResult
    public func run(_ handle: PcapHandle, fileIndex: Int, shouldStop: () -> Bool = { false }) -> CaptureError? {
        // Each input file is a session of its own: what one showed says nothing about the
        // devices of the next (its times may even be earlier). Its end-of-input findings and
        // everything else of it are written before the next one's header.
        if sessionStarted { concludeSessions() }
        sessionStarted = true
        sessionFileIndex = fileIndex
        sessionFileName = handle.input
        self.fileIndex = fileIndex
        summary.files.append(handle.input)
        reporter.beginFile(fileIndex, name: handle.input)
        defer {
            flushSkips()
            submitBatch()
        }
        let framesBefore = summary.framesRead
        let unsupportedBefore = unsupportedFrames
        // Live capture: once a second, the session rules conclude what became certain.
        var nextConclusion = handle.isLive ? PcapHandle.clockNow().seconds + 1 : Int64.max
        do {
            while !shouldStop() {
                let step = try handle.next(whenIdle: caughtUp) { frame, bytes in
                    self.frame(frame, bytes)
                }
                if case .end = step { break }
                if nextConclusion != Int64.max {
                    let now = PcapHandle.clockNow()
                    if now.seconds >= nextConclusion {
                        nextConclusion = now.seconds + 1
                        conclude(by: now)
                    }
                }
            }
        } catch {
            summary.inputErrors.append(error.description)
            return error
        }
        // A source none of whose frames could be decoded was not analysed at all: that is an
        // input error, not a clean result.
        let frames = summary.framesRead - framesBefore
        if frames > 0 && unsupportedFrames - unsupportedBefore == frames {
            let error = CaptureError(
                input: handle.input,
                reason:
                    "nothing could be analysed: all \(frames) frame(s) have link type \(handle.linkType) (\(handle.linkType.rawValue)), which DiscoScope does not decode"
            )
            summary.inputErrors.append(error.description)
            return error
        }
        return nil
    }

    /// Records an input that could not be opened at all.
    public func inputFailed(_ error: CaptureError) {
        summary.inputErrors.append(error.description)
    }

    /// Why a frame was skipped; a run of frames skipped for the same reason is counted here
    /// and added to the summary once (a file of millions of empty or undecodable records costs
    /// a comparison each, not a formatted reason and a search of the summary's list).
    private enum SkipReason: Equatable {
        case empty
        case unsupported(LinkType)
        case malformed(String)
        case cutHeaders

        var text: String {
            switch self {
            case .empty: "empty records (no captured bytes)"
            case .unsupported(let lt): "unsupported link type \(lt)"
            case .malformed(let why): "malformed IP/UDP headers (\(why))"
            case .cutHeaders: "cut by the snap length before the UDP header ended"
            }
        }
    }
    @exclusivity(unchecked) private var pendingSkip: SkipReason? = nil
    @exclusivity(unchecked) private var pendingSkips = 0

    private func skip(_ reason: SkipReason) {
        if pendingSkip == reason {
            pendingSkips += 1
            return
        }
        flushSkips()
        pendingSkip = reason
        pendingSkips = 1
    }

    /// Adds the run of skipped frames counted so far to the summary (first-seen order kept).
    private func flushSkips() {
        if let r = pendingSkip { summary.skip(r.text, count: pendingSkips) }
        pendingSkip = nil
        pendingSkips = 0
    }

    func frame(_ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        summary.framesRead += 1
        guard bytes.count > 0 else {
            skip(.empty)
            return
        }
        // Decoded where the capture library read it (copied into an array first, each frame
        // cost a copy and the array's bookkeeping).
        let outcome = decoder.decode(
            frame: frame.number, time: frame.time, linkType: frame.linkType,
            bytes: bytes.assumingMemoryBound(to: UInt8.self).span, originalLength: frame.originalLength,
            wants: { _, _, _, _ in true })
        switch outcome {
        case .datagram(var d):
            guard let r = d.framePayload else {
                if let tap = frameTap {
                    guard let kind = route(d, d.payload, d.payload.indices) else { return }
                    tap(.message(fragmentFrames: d.fragmentFrames), frame, bytes)
                    add(d, kind)
                    return
                }
                datagram(d)
                return
            }
            // Left in the frame by the decoder: the payload goes to the batch's buffer, from
            // which the worker that decodes it makes its own copy, and is taken out again
            // when it is neither SSDP nor mDNS.
            let start = batch.bytes.count
            batch.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[r]))
            let inBatch = start..<batch.bytes.count
            guard let kind = route(d, batch.bytes, inBatch) else {
                batch.bytes.removeSubrange(inBatch)
                return
            }
            // From here `framePayload` locates the payload in the batch's buffer.
            d.framePayload = inBatch
            frameTap?(.message(fragmentFrames: []), frame, bytes)
            add(d, kind)
        case .unsupportedLink(let lt):
            unsupportedFrames += 1
            skip(.unsupported(lt))
            if unsupportedSeen.insert(lt).inserted {
                onWarning?(
                    "\(summary.files.last ?? ""): unsupported link type \(lt) (\(lt.rawValue)); its frames are skipped")
            }
        case .malformed(let why):
            skip(.malformed(why))
        case .truncatedHeaders:
            skip(.cutHeaders)
        case .fragmentHeld:
            frameTap?(.fragment, frame, bytes)
        case .uninteresting, .notUDP:
            break
        }
    }

    /// Analyses one UDP datagram whose payload is `d.payload` (a reassembled one; also the
    /// entry point for tests).
    public func datagram(_ d: Datagram) {
        guard let kind = route(d, d.payload, d.payload.indices) else { return }
        add(d, kind)
    }

    private enum Route {
        case ssdp(SSDPContext)
        case mdns
    }

    /// Which analysis takes a datagram whose payload is `payload` of `bytes` (none: neither
    /// SSDP nor mDNS), with the in-order part of SSDP's done, and the datagram counted.
    private func route(_ d: borrowing Datagram, _ bytes: [UInt8], _ payload: Range<Int>) -> Route? {
        countPorts(d)
        if let c = ssdp.settle(d, bytes, payload) {
            summary.ssdpMessages += 1
            return .ssdp(c)
        }
        if MDNSRouter.claims(d) {
            summary.mdnsMessages += 1
            return .mdns
        }
        return nil
    }

    private func countPorts(_ d: borrowing Datagram) {
        if d.srcPort == 1900 || d.dstPort == 1900 || d.srcPort == 5353 || d.dstPort == 5353 {
            summary.portDatagrams += 1
        }
    }

    private func add(_ d: Datagram, _ kind: Route) {
        summary.datagrams += 1
        if d.isTruncated { summary.truncatedDatagrams += 1 }
        if d.wasFragmented { summary.reassembledDatagrams += 1 }
        let message: WorkItem.Message
        switch kind {
        case .ssdp(let c): message = .ssdp(d, c)
        case .mdns: message = .mdns(d)
        }
        batch.items.append(WorkItem(message: message, fileIndex: fileIndex))
        guard pooled else {
            processHere()
            return
        }
        guard batch.items.count >= Self.batchSize else { return }
        submitBatch()
        guard let pool else { return }
        // Once per batch (not per datagram: each look takes the pool's lock, which the workers
        // contend for): write what is ready. When the workers are too far behind (bounded
        // memory), work on a batch still queued for them, and wait only when none is.
        let limit = options.jobs * Self.batchesPerWorker
        while true {
            if let r = pool.next(wait: false) {
                emit(r)
                continue
            }
            guard pool.inFlight > limit else { break }
            if pool.runQueued(with: &inline) { continue }
            guard let r = pool.next(wait: true) else { break }
            emit(r)
        }
    }

    private func submitBatch() {
        guard let pool, !batch.items.isEmpty else { return }
        // The reading thread works on a batch itself only when two were waiting before this
        // one: with one, the pool's thread ran out of work while the reading thread was busy
        // with its batch. It takes the oldest queued batch, not the one just filled: every
        // worker formats its batches in capture order (`WorkerPool`), which the text
        // renderer's interop notes rely on. When the batches in flight reach the limit, it
        // works on the queued ones too (see `add`).
        let busy = pool.queued > 1
        pool.submit(takeBatch())
        if busy { _ = pool.runQueued(with: &inline) }
    }

    /// The batch filled so far, replaced by a spare one.
    private func takeBatch() -> Batch {
        var next = spare.popLast() ?? Batch()
        if pooled && next.items.capacity == 0 { next.items.reserveCapacity(Self.batchSize) }
        swap(&next, &batch)
        return next
    }

    /// Takes one batch's results in capture order: counts, device and service sets, output.
    /// The batch itself (`r.spent`) is emptied here, on the thread that allocated it, and
    /// kept for reuse with the written chunk's buffer.
    private func emit(_ result: consuming BatchOutput) {
        var r = result
        defer { recycle(&r) }
        for t in r.tally.inOrder { summary.count(rule: t.rule, name: t.name, t.severity, times: t.count) }
        summary.suppressed += r.suppressed
        for (key, counts) in r.deviceFindings
        where deviceFindings.count < Self.maxDeviceFindings || deviceFindings[key] != nil {
            deviceFindings[key, default: SeverityCounts()].add(counts)
        }
        for t in r.hostFindingTexts
        where hostFindingTexts.count < Self.maxDeviceFindings || hostFindingTexts[t.key] != nil {
            if hostFindingTexts[t.key, default: []].count < Self.maxFindingTextsPerHost {
                hostFindingTexts[t.key, default: []].append((t.message, t.severity))
            }
        }
        for k in r.deviceKeys where devices.count < Self.maxDevices || devices.contains(k) { devices.insert(k) }
        for s in r.services where services.count < Self.maxDevices || services.contains(s) { services.insert(s) }
        if devices.count >= Self.maxDevices && !devicesFull && r.deviceKeys.contains(where: { !devices.contains($0) }) {
            devicesFull = true
            limitReached(Self.deviceLimit)
        }
        if services.count >= Self.maxDevices && !servicesFull && r.services.contains(where: { !services.contains($0) })
        {
            servicesFull = true
            limitReached(Self.serviceLimit)
        }
        if !r.chunk.bytes.isEmpty { reporter.emit(r.chunk) }
        for (record, findings) in r.messages {
            if let record {
                reporter.message(record, findings: findings)
            } else {
                for f in findings { reporter.finding(f) }
            }
        }
    }

    private func recycle(_ r: inout BatchOutput) {
        guard spare.count < Self.batchesPerWorker * max(1, options.jobs) + 1 else { return }
        var b = Batch()
        swap(&b, &r.spent)
        b.removeAll()
        swap(&b.output, &r.chunk.bytes)
        b.output.removeAll(keepingCapacity: true)
        spare.append(b)
    }

    /// Live capture with no packet waiting in the kernel: what was read is analysed and
    /// written now, so the output keeps up with the packets. With nothing in flight, the
    /// partial batch is processed here like one job's (no hand-off to the pool's threads for
    /// a few packets); otherwise it joins the batches in flight and all are waited for.
    /// Under load the kernel always has packets waiting, so whole batches go to the pool.
    private func caughtUp() {
        guard let pool, !batch.items.isEmpty || pool.inFlight > 0 else { return }
        if pool.inFlight == 0 {
            // Every earlier batch has been through the in-order step and written: this one
            // comes next in capture order on every worker and on the session stage.
            processHere()
        } else {
            drain()
        }
    }

    /// Processes the batch filled so far on this thread, session rules included, and writes
    /// it: only when no batch is in flight (one job, or a pool with nothing pending).
    private func processHere() {
        var r = inline.process(takeBatch())
        settler.settle(&r)
        emit(r)
    }

    /// Waits for every batch in flight and writes its results.
    private func drain() {
        submitBatch()
        guard let pool else { return }
        while let r = pool.next(wait: true) { emit(r) }
    }

    /// Ends the run: stateful rules conclude, the reporter writes its summary or document.
    public func finish(extra: (inout RunSummary) -> Void = { _ in }) -> RunSummary {
        concludeSessions()
        pool?.shutdown()
        if decoder.reassembler.inFlight > 0 {
            summary.skip("IP fragments never completed", count: decoder.reassembler.inFlight)
        }
        // Datagrams given up in reassembly, by cause: the timeout, the two bounds on what is
        // held, and fragments that contradict each other.
        let r = decoder.reassembler
        if r.timedOut > 0 {
            summary.skip(
                "IP datagrams incomplete after \(r.timeoutSeconds) s of capture time (reassembly timeout, as Linux)",
                count: r.timedOut)
        }
        if r.droppedAtDatagramLimit > 0 {
            summary.skip(
                "IP datagrams dropped from reassembly at its limit of \(r.maxDatagrams) in progress",
                count: r.droppedAtDatagramLimit)
            limitReached(
                LimitReached(
                    limit: "reassembly_datagrams", value: r.maxDatagrams,
                    message:
                        "more than \(r.maxDatagrams) IP datagrams were being reassembled at once: the oldest incomplete ones were dropped (\(r.droppedAtDatagramLimit)); a fixed bound, as the kernel's, against fragment floods"
                ))
        }
        if r.droppedAtByteLimit > 0 {
            summary.skip(
                "IP datagrams dropped from reassembly at its limit of \(r.maxBytes / (1 << 20)) MiB held",
                count: r.droppedAtByteLimit)
            limitReached(
                LimitReached(
                    limit: "reassembly_bytes", value: r.maxBytes,
                    message:
                        "more than \(r.maxBytes / (1 << 20)) MiB of IP fragments were held for reassembly: the oldest incomplete datagrams were dropped (\(r.droppedAtByteLimit)); a fixed bound, as the kernel's, against fragment floods"
                ))
        }
        let inconsistent = r.abandoned - r.timedOut - r.droppedAtDatagramLimit - r.droppedAtByteLimit
        if inconsistent > 0 {
            summary.skip(
                "IP datagrams given up in reassembly (fragments that contradict each other)", count: inconsistent)
        }
        if decoder.reassembler.overlapConflicts > 0 {
            summary.skip(
                "IP fragments overlapping with different contents (first copy kept, as Wireshark does)",
                count: decoder.reassembler.overlapConflicts)
        }
        summary.devices = devices.count
        summary.services = services.count
        if inventory.leftOut > 0 {
            limitReached(
                LimitReached(
                    limit: "inventory", value: Inventory.maxEntries,
                    message:
                        "more than \(Inventory.maxEntries) devices and services for the inventory: \(inventory.leftOut) were left out of it (a fixed bound that keeps memory flat under floods of made-up names)"
                ))
        }
        if options.reportsInventory { reporter.inventory(inventory) }
        extra(&summary)
        reporter.finish(summary)
        return summary
    }

    /// The end of one session (an input file, or the whole run): session rules conclude on
    /// what the input did not show, and their findings follow the last message, sorted by
    /// the frame that shows each (rules keep their state in hash tables). SSDP and mDNS
    /// state start afresh for the next input.
    private func concludeSessions() {
        drain()
        var reports = SessionReports()
        var mdns = settler.takeStage()
        ssdp.finish(into: &reports)
        mdns.finish(into: &reports)
        summary.stateEvicted += ssdp.stateEvicted + mdns.stateEvicted
        summary.timeWentBack += ssdp.timeWentBack + mdns.timeWentBack
        let ssdpModel = ssdp.model
        let mdnsModel = mdns.model
        ssdp = SSDPRouter(disabled: options.disabledRules)
        // The inventory of this input, once its end-of-input findings are counted too.
        defer {
            InventoryBuilder.addSSDP(ssdpModel, findings: deviceFindings, file: sessionFileName, to: &inventory)
            InventoryBuilder.addMDNS(
                mdnsModel, findings: deviceFindings, texts: hostFindingTexts, file: sessionFileName, to: &inventory)
            deviceFindings.removeAll()
            hostFindingTexts.removeAll()
        }
        guard !reports.isEmpty else { return }
        emit(concluded(reports, atEnd: true, mdnsModel: mdnsModel))
    }

    /// Live capture's timer: the session rules report what became certain by `now` (a
    /// deadline passed with no packet that could still change it), written at once, after
    /// everything read so far. Offline, such findings come at the end of the input.
    public func conclude(by now: Timestamp) {
        drain()
        var reports = SessionReports()
        ssdp.conclude(by: now, into: &reports)
        settler.conclude(by: now, into: &reports)
        guard !reports.isEmpty else { return }
        emit(concluded(reports, atEnd: false, mdnsModel: settler.stage.model))
    }

    /// Findings of session rules that concluded without a message to show them under, sorted
    /// by the frame that shows each (rules keep their state in hash tables).
    private func concluded(_ reports: SessionReports, atEnd: Bool, mdnsModel: MDNSSessionModel) -> BatchOutput {
        var sink = FindingSink(frame: 0, time: .zero, source: .v4(0), fileIndex: sessionFileIndex)
        for r in reports.reports {
            // The device text is kept even when reports do not show it: the inventory counts
            // these findings by device (text output prints no device).
            sink.report(
                r.descriptor, severity: r.severity, r.message, frames: r.related, time: r.time, source: r.source,
                device: r.device)
        }
        var findings = sink.findings
        for k in findings.indices { findings[k].atEnd = atEnd }
        findings.sort {
            let a = $0.firstFrame ?? 0
            let b = $1.firstFrame ?? 0
            if a != b { return a < b }
            if $0.rule != $1.rule { return $0.rule < $1.rule }
            return $0.message < $1.message
        }
        var hostKeys: [String: UInt64] = [:]
        for (key, h) in mdnsModel.hosts { hostKeys[h.name.lowercased()] = key }
        return inline.conclude(findings, mdnsHosts: hostKeys)
    }

    /// Findings made outside the packets (`probe`'s description checks), reported now, after
    /// everything read so far, through the same policy, counts and reporter as the rules'.
    public func report(external findings: [Finding]) {
        guard !findings.isEmpty else { return }
        drain()
        emit(inline.conclude(findings))
    }

    /// Number of findings reported at or above `threshold`.
    public func count(atLeast threshold: Severity) -> Int {
        summary.findings(atLeast: threshold)
    }
}
