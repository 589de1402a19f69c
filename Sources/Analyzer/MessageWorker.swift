import DNS
import Findings
import NetLayers
import Reporting
import Rules
import SSDP
import WireFormat

/// One datagram handed from the in-order stage to the per-message stage.
struct WorkItem: Sendable {
    enum Message: Sendable {
        /// Decoded and judged by the worker; the session rules see its event afterwards, in
        /// capture order (`BatchOutput.ssdpSession`). When the datagram's `framePayload` is
        /// set, the payload is that part of the batch's bytes (`payload` is empty).
        case ssdp(Datagram)
        /// Decoded by the worker, payload as for SSDP; the session rules see the decoded
        /// message afterwards, in capture order (`BatchOutput.mdnsSession`).
        case mdns(Datagram)
    }
    var message: Message
    var fileIndex: Int
}

/// Datagrams handed to a worker together, with the SSDP and mDNS payloads that the reading
/// thread copied into one buffer rather than into an array each: the worker turns them into
/// arrays (or finds an identical payload it decoded before), so the payloads it keeps are
/// its own allocations, freed on its own thread.
///
/// Batches are recycled: the reading thread fills one that came back with its results, and
/// that one carries the buffer of an output chunk already written, for the worker to format
/// into. A fresh buffer each time (400 to 500 kB) came from pages the allocator had just
/// returned to the system: a page fault per 4 kB touched.
package struct Batch: Sendable {
    var items: [WorkItem] = []
    var bytes: [UInt8] = []
    /// An empty buffer with capacity, for the output chunk.
    var output: [UInt8] = []
    /// The run's segment names when the batch was handed on (`Segments`): they name every
    /// segment its datagrams were captured on (the table only grows).
    var segmentNames: [String] = []

    /// Empties the batch, keeping its buffers' capacity (they are not shared any more once
    /// the worker has handed the batch back).
    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }
}

/// What a batch of messages produced, taken back in capture order.
package struct BatchOutput: Sendable {
    /// Formatted output (streaming formats).
    var chunk = RenderedChunk()
    /// Records and findings for reporters that format in order (SARIF, JUnit); a nil record
    /// means the findings are shown without a message.
    var messages: [(MessageRecord?, [Finding])] = []
    /// Reported findings, for the summary's counts: how many of each rule at each severity
    /// (a few entries per batch, where a list of findings made the reading thread update
    /// its tallies once per finding).
    var tally = FindingTally()
    /// The position in the batch of the message being processed (see `FindingTally`).
    var position = 0
    var suppressed = 0
    var deviceKeys: [UInt64] = []
    /// Reported findings of messages that name a device, by the device's key (the
    /// inventory's finding counts).
    var deviceFindings: [(key: UInt64, counts: SeverityCounts)] = []
    /// mDNS findings that name no host (a probe, a query, a session rule's finding on a
    /// message that speaks for no host), by their source address: the inventory counts them
    /// for the one host whose addresses include it (`InventoryBuilder.addMDNS`).
    /// A message's findings from one source are one entry (`count(bySource:_:)`).
    var addressFindings: [(source: String, counts: SeverityCounts)] = []
    /// Counts a finding of `severity` by its source address (`addressFindings`): into the last
    /// entry when it has the same source, as a message's findings do.
    mutating func count(bySource source: String, _ severity: Severity) {
        if let last = addressFindings.indices.last, addressFindings[last].source == source {
            addressFindings[last].counts.add(severity)
        } else {
            var c = SeverityCounts()
            c.add(severity)
            addressFindings.append((source, c))
        }
    }

    /// Stateful and end-of-input mDNS findings by their host's key, with their message: the
    /// inventory counts a service's findings from those that name its instance.
    var hostFindingTexts: [(key: UInt64, message: String, severity: Severity)] = []
    /// DNS-SD service types announced, as keys of their case-folded names.
    var services: [UInt64] = []
    /// Devices, hosts and service instances seen on a named segment, by the key the session
    /// models give them (the inventory's `segments`): only for datagrams of named segments.
    var sightings: [(key: UInt64, segment: UInt16)] = []
    /// The batch's mDNS messages as decoded, in capture order, with where their output ends:
    /// the in-order stage runs the session rules over them and places what they find under
    /// each message (`SessionSettler.settle`).
    var mdnsSession: [MDNSSessionItem] = []
    /// The batch's SSDP messages as their bytes settle them, in capture order, with where
    /// their output ends: the in-order stage runs the session rules over them and places
    /// what they find under each message, with the stateless rules' findings of a message
    /// whose context the session decides (`SessionSettler.settle`).
    var ssdpSession: [SSDPSessionItem] = []
    /// The batch, handed back with its results so that the reading thread reuses (or frees)
    /// what it allocated. Freed by a worker instead, each of those objects went back to the
    /// reading thread's allocator arena under its lock, against the reading thread's own
    /// allocations.
    var spent = Batch()
    /// The batch's messages by the kind their decoder gave them (live metrics).
    var kinds = MessageKindCounts()
}

/// Where a message's output stands in its batch's output, for what the in-order stage puts
/// under it: its position in the batch, where its output ends in the chunk (`chunkEnd`) and
/// in the list of messages (`messagesEnd`), and whether the entry before `messagesEnd` is the
/// message's own (`hasEntry`: findings go into it).
struct OutputPlace: Sendable {
    var position: Int
    var chunkEnd: Int
    var messagesEnd: Int
    var hasEntry: Bool

    /// The place right after the message being processed in `out`, which had `entriesBefore`
    /// entries before it.
    init(after out: borrowing BatchOutput, entriesBefore: Int) {
        position = out.position
        chunkEnd = out.chunk.bytes.count
        messagesEnd = out.messages.count
        hasEntry = out.messages.count > entriesBefore
    }
}

/// One decoded mDNS message of a batch, for the in-order stage: the decoding the worker made
/// (by reference), and where its output stands (`place`).
struct MDNSSessionItem: Sendable {
    var input: MDNSInput
    var fileIndex: Int
    var place: OutputPlace
}

/// One SSDP message of a batch, for the in-order stage: the datagram, what its bytes settle
/// (`SSDPRouter.start`), and where its output stands (`place`) and its device counts end
/// (`deviceFindingsEnd`). A message whose context the session decides was shown without
/// findings, and judged in each context it may have (`alternatives`, with what the stateless
/// rules found in each): the in-order stage places the findings of the one it settles.
struct SSDPSessionItem: Sendable {
    var datagram: Datagram
    var facts: SSDPRouter.Facts
    var payloadKey: UInt64
    var alternatives: [(context: SSDPContext, findings: [Finding])]
    /// The UUID of its USN, as the message was decoded (its findings' device).
    var usnUUID: ArraySlice<UInt8>?
    var fileIndex: Int
    var place: OutputPlace
    var deviceFindingsEnd: Int
}

/// Counts of reported findings by rule and severity.
///
/// Each entry remembers where the first finding that had it stands: the position in its
/// batch of its message, and its place among that message's findings. The in-order stage
/// adds session findings (and the findings of messages it judges itself) after the batch's
/// others, and the summary takes entries in order of that place (`inOrder`), as if they had
/// been counted finding by finding in capture order (the same order for any number of jobs).
struct FindingTally: Sendable {
    struct Entry: Sendable {
        var rule: RuleID
        var name: String
        var severity: Severity
        var count: Int
        /// Where its first finding stands: its message's position, its place among them.
        var first: Int
        var firstIndex: Int
        /// Its first finding, as the summary quotes it, when it hides a device.
        var example: HidingExample? = nil
    }
    private(set) var entries: [Entry] = []
    /// The PROF findings about DNS-SD instances, for the inventory's profile verdicts.
    private(set) var profileFindings: [ProfileFinding] = []

    /// Counts `f`, the finding at `index` among the findings of the message at `position`.
    mutating func add(_ f: borrowing Finding, at position: Int, index: Int) {
        if let p = f.profile {
            profileFindings.append(
                ProfileFinding(
                    instance: f.profileInstance, device: f.device, profile: p, rule: f.rule, severity: f.severity))
        }
        add(
            Entry(
                rule: f.rule, name: f.name, severity: f.severity, count: 1, first: position, firstIndex: index,
                example: f.hides ? HidingExample(f) : nil))
    }

    private mutating func add(_ e: Entry) {
        for k in entries.indices where entries[k].severity == e.severity && entries[k].rule == e.rule {
            entries[k].count += e.count
            if (e.first, e.firstIndex) < (entries[k].first, entries[k].firstIndex) {
                entries[k].first = e.first
                entries[k].firstIndex = e.firstIndex
                if e.example != nil { entries[k].example = e.example }
            }
            return
        }
        entries.append(e)
    }

    /// The entries by the place of their first finding.
    var inOrder: [Entry] {
        // With one job a tally holds one message's findings: mostly none or one, in order.
        guard entries.count > 1 else { return entries }
        return entries.sorted { ($0.first, $0.firstIndex) < ($1.first, $1.firstIndex) }
    }
}

/// The per-message stage: mDNS decoding, the stateless rules, configuration policy and
/// formatting. Each worker thread owns one (the rule lists and caches are its own).
package struct MessageWorker: BatchWorker {
    let options: Analysis.Options
    /// Turns a raw finding into the reported one (severity override) or nil (suppressed,
    /// below the minimum severity, in the baseline).
    /// nil: every finding is kept as it is (no configuration).
    let policy: (@Sendable (Finding) -> Finding?)?
    var renderer: (any MessageRenderer)?
    /// Whether `renderer` is set. Tested instead of `renderer != nil`, which copies the
    /// existential (and retains what the renderer holds, shared by all workers) per message.
    private let renders: Bool
    private var ssdpJudge: SSDPJudge
    private var mdns: MDNSJudge
    /// Whether the in-order stage runs mDNS session rules (it needs the decoded messages).
    private let tracksSessions: Bool
    /// Address text, cached: the same few thousand devices and groups repeat on every line.
    private var addressCache = AddressTextCache()
    /// A message summary's bytes: lent to its record, taken back once the line is formatted.
    private var summaryBytes: [UInt8] = []
    /// mDNS summaries, in a table indexed like `MDNSJudge`'s decodings (by its slot, within
    /// this table's size): a datagram that repeats a payload reuses the content built for its
    /// decoding (`owner`) when the datagram facts it depends on (`context`) are the same too.
    private var rendered: GrowingSlots<RenderedMDNS>
    /// How many of the run's segment names the renderer was given (the table only grows).
    private var segmentNamesGiven = 0
    /// The subnets known on each segment, for the mDNS rules.
    private var subnets: SegmentSubnets
    private struct RenderedMDNS {
        var owner: MDNSMessageView
        var context: MDNSRender.Context
        var content: MDNSRender.Content
        /// The summary's bytes, lent to each record that shows it.
        var summary: [UInt8]
    }
    private enum SummaryBuffer { case ssdp, mdns }

    init(options: Analysis.Options, policy: (@Sendable (Finding) -> Finding?)?, renderer: (any MessageRenderer)?) {
        self.options = options
        self.policy = policy
        self.renderer = renderer
        self.renders = renderer != nil
        ssdpJudge = SSDPJudge(
            disabled: options.disabledRules, slotBits: options.repeatTables.ssdpBits,
            fields: options.wantMessages && options.messageFields)
        mdns = MDNSJudge(disabled: options.disabledRules, slotBits: options.repeatTables.mdnsBits)
        rendered = GrowingSlots(maxBits: options.repeatTables.mdnsBits)
        tracksSessions = mdns.sessions
        subnets = SegmentSubnets(options.subnets)
    }

    /// Gives the renderer the run's segment names when it lacks some of them.
    mutating func useSegmentNames(_ names: [String]) {
        guard names.count != segmentNamesGiven else { return }
        segmentNamesGiven = names.count
        renderer?.setSegmentNames(names)
    }

    package mutating func process(_ job: consuming Batch) -> BatchOutput {
        var batch = job
        if renders { useSegmentNames(batch.segmentNames) }
        subnets.use(batch.segmentNames)
        var out = BatchOutput()
        swap(&out.chunk.bytes, &batch.output)
        let items = batch.items
        // A line with its findings is about 400 bytes on busy traffic: reserved once.
        if renders { out.chunk.bytes.reserveCapacity(items.count * 512) }
        // The session stage's lists sized once: grown from empty, the SSDP one (items of a few
        // hundred bytes) was copied whole at each doubling.
        var ssdpItems = 0
        for k in items.indices {
            if case .ssdp = items[k].message { ssdpItems += 1 }
        }
        out.ssdpSession.reserveCapacity(ssdpItems)
        out.mdnsSession.reserveCapacity(items.count - ssdpItems)
        // By index, and the message's cases taken apart in place: copying an item (or its
        // datagram, or the record built below) retains every array and string it holds.
        for k in items.indices {
            out.position = k
            switch items[k].message {
            case .ssdp(var d):
                if let range = d.framePayload {
                    d.payload = batch.bytes.withUnsafeBytes {
                        ssdpJudge.payload(UnsafeRawBufferPointer(rebasing: $0[range]))
                    }
                    d.framePayload = nil
                }
                ssdp(d, fileIndex: items[k].fileIndex, into: &out)
            case .mdns(var d):
                if let range = d.framePayload {
                    d.payload = batch.bytes.withUnsafeBytes {
                        mdns.payload(UnsafeRawBufferPointer(rebasing: $0[range]))
                    }
                    d.framePayload = nil
                }
                mdns(d, fileIndex: items[k].fileIndex, into: &out)
            }
        }
        out.spent = batch
        return out
    }

    /// An SSDP message: judged and formatted here, its findings under it, when its bytes
    /// settle its context; else shown alone and judged in each context it may have, for the
    /// in-order stage to place the findings of the one it settles. Either way handed to the
    /// session stage.
    private mutating func ssdp(_ d: consuming Datagram, fileIndex: Int, into out: inout BatchOutput) {
        // Decoded once: for the session stage's facts and for each context it is judged in.
        let decoded = ssdpJudge.decode(d)
        let captured = decoded.message
        out.kinds.add(ssdpKind: captured.kind)
        let start = SSDPRouter.start(d, decoded.facts, payloadKey: decoded.payloadKey)
        let entriesBefore = out.messages.count
        let usnUUID: ArraySlice<UInt8>?
        var alternatives: [(context: SSDPContext, findings: [Finding])] = []
        if let c = start.context {
            usnUUID = ssdp(copy d, decoded, c, fileIndex: fileIndex, holdingFindings: false, into: &out).usnUUID
        } else {
            let first = ssdp(
                copy d, decoded, start.alternatives[0], fileIndex: fileIndex, holdingFindings: true, into: &out)
            usnUUID = first.usnUUID
            alternatives.append((start.alternatives[0], first.held))
            for c in start.alternatives.dropFirst() {
                alternatives.append((c, ssdpFindings(copy d, c, fileIndex: fileIndex)))
            }
        }
        out.ssdpSession.append(
            SSDPSessionItem(
                datagram: d, facts: start.facts, payloadKey: start.payloadKey, alternatives: alternatives,
                usnUUID: usnUUID, fileIndex: fileIndex, place: OutputPlace(after: out, entriesBefore: entriesBefore),
                deviceFindingsEnd: out.deviceFindings.count))
    }

    /// What the stateless rules find in an SSDP message in context `c` (and the device they
    /// name), before the configuration's policy.
    mutating func ssdpFindings(_ d: consuming Datagram, _ c: borrowing SSDPContext, fileIndex: Int) -> [Finding] {
        var sink = FindingSink(datagram: d, fileIndex: fileIndex)
        sink.sourceText = addressText(d.src)
        sink.buildsDetails = options.findingDetails
        let decoded = ssdpJudge.decode(d)
        _ = ssdpJudge.judge(d, decoded, c, into: &sink)
        return sink.findings
    }

    /// Judges and formats an SSDP message in context `c`, its findings shown under it; or,
    /// `holdingFindings`, shows it alone and returns its findings (`held`, before the
    /// configuration's policy). Returns the UUID of its USN too.
    private mutating func ssdp(
        _ d: consuming Datagram, _ decoded: borrowing SSDPJudge.Decoded, _ c: borrowing SSDPContext, fileIndex: Int,
        holdingFindings: Bool, into out: inout BatchOutput
    ) -> (usnUUID: ArraySlice<UInt8>?, held: [Finding]) {
        let srcText = addressText(d.src)
        var sink = FindingSink(datagram: d, fileIndex: fileIndex)
        sink.sourceText = srcText
        sink.buildsDetails = options.findingDetails
        let input = ssdpJudge.judge(d, decoded, c, into: &sink)
        let held = holdingFindings ? sink.takeFindings() : []
        if options.wantMessages {
            let record = SSDPRender.record(
                input, srcText: srcText, dstText: addressText(input.datagram.dst),
                verbose: options.verbose, fields: decoded.fieldsJSON, scratch: &summaryBytes)
            finish(record, sink: sink, input.datagram, fileIndex: fileIndex, summary: .ssdp, into: &out)
        } else {
            finish(sink: sink, segment: input.datagram.segment, into: &out)
        }
        if input.datagram.segment != 0 && sink.deviceKey != 0 {
            out.sightings.append((sink.deviceKey, input.datagram.segment))
        }
        return (input.message.usnUUID, held)
    }

    private mutating func mdns(_ d: Datagram, fileIndex: Int, into out: inout BatchOutput) {
        let srcText = addressText(d.src)
        var sink = FindingSink(datagram: d, fileIndex: fileIndex)
        sink.sourceText = srcText
        sink.buildsDetails = options.findingDetails
        let input = mdns.judge(d, subnets: subnets[d.segment], into: &sink)
        out.kinds.add(mdnsResponse: input.isResponse)
        // A forwarder's copy names no device, but shows the host it copies (counted among
        // the hosts seen, as the inventory lists it).
        if sink.deviceKey == 0, input.isRelayed, let h = MDNSJudge.named(input) {
            out.deviceKeys.append(h.key(in: input.message.payload))
        }
        let entries = out.messages.count
        if input.message.header.qr { Self.noteServices(input, into: &out.services) }
        if d.segment != 0 && input.isResponse { Self.noteSightings(input, on: d.segment, into: &out.sightings) }
        if options.wantMessages {
            let context = MDNSRender.Context(d)
            let slot = mdns.lastSlot
            let owner = input.decoded
            let shown: RenderedMDNS
            if let r = rendered[slot], r.owner === owner, r.context == context {
                shown = r
            } else {
                // The slot's old summary buffer, reused when no record holds it any more.
                var b = rendered[slot]?.summary ?? []
                rendered[slot] = nil
                rendered.missed()
                // `input` outlives the call, so its message is passed by reference: otherwise
                // the message is copied (each of its arrays retained) in case `input` dies first.
                let content = withExtendedLifetime(input) {
                    MDNSRender.content(
                        input.message, context, verbose: options.verbose, fields: options.messageFields, into: &b)
                }
                shown = RenderedMDNS(owner: owner, context: context, content: content, summary: b)
                rendered[slot] = shown
            }
            var record = MDNSRender.record(
                shown.content, d, srcText: srcText, dstText: addressText(d.dst), summary: shown.summary)
            record.relayed = input.isRelayed
            finish(record, sink: sink, d, fileIndex: fileIndex, summary: .mdns, into: &out)
        } else {
            finish(sink: sink, segment: d.segment, into: &out)
        }
        if tracksSessions {
            out.mdnsSession.append(
                MDNSSessionItem(
                    input: input, fileIndex: fileIndex, place: OutputPlace(after: out, entriesBefore: entries)))
        }
    }

    /// A message's record with its findings: formatted, or kept for the reporter.
    private mutating func finish(
        _ record: consuming MessageRecord, sink: borrowing FindingSink, _ d: borrowing Datagram, fileIndex: Int,
        summary: SummaryBuffer, into out: inout BatchOutput
    ) {
        if sink.deviceKey != 0 { out.deviceKeys.append(sink.deviceKey) }
        var findings = Self.accept(sink.findings, policy: policy, into: &out)
        Self.count(findings, device: sink.deviceKey, into: &out)
        if d.segment != 0 { Self.place(&findings, on: d.segment) }
        record.fileIndex = fileIndex
        record.segment = d.segment
        record.truncated = d.isTruncated
        record.fragmentFrames = d.fragmentFrames
        if options.recordMAC {
            record.srcMAC = d.srcMAC
            record.dstMAC = d.destinationMAC.bytes
        }
        if options.recordPayload { record.payload = d.payload }
        if renders {
            renderer?.render(record, findings: findings, into: &out.chunk)
            // SSDP's summary buffer back, for the next message (mDNS summaries stay in their table).
            if summary == .ssdp { swap(&summaryBytes, &record.summaryUTF8) }
        } else {
            out.messages.append((record, findings))
        }
    }

    /// Findings of a message shown without it (`-q`, SARIF, JUnit).
    private mutating func finish(sink: borrowing FindingSink, segment: UInt16, into out: inout BatchOutput) {
        if sink.deviceKey != 0 { out.deviceKeys.append(sink.deviceKey) }
        var findings = Self.accept(sink.findings, policy: policy, into: &out)
        Self.count(findings, device: sink.deviceKey, into: &out)
        if segment != 0 { Self.place(&findings, on: segment) }
        if !findings.isEmpty { show(findings, into: &out) }
    }

    /// Findings of a datagram captured on `segment` carry it (the rules that make them know
    /// nothing of segments).
    static func place(_ findings: inout [Finding], on segment: UInt16) {
        for k in findings.indices { findings[k].segment = segment }
    }

    /// Findings of the end of the run (stateful rules that conclude late), formatted the same way.
    /// `mdnsHosts`: the keys of the input's mDNS hosts by their lower-cased names (an
    /// end-of-input mDNS finding names its host as text).
    mutating func conclude(_ raw: [Finding], mdnsHosts: [String: UInt64] = [:]) -> BatchOutput {
        var out = BatchOutput()
        out.position = Int.max
        let findings = Self.accept(raw, policy: policy, into: &out)
        for f in findings where !f.baselined {
            var c = SeverityCounts()
            c.add(f.severity)
            if let key = Self.deviceKey(f.device) {
                out.deviceFindings.append((key, c))
            } else if let d = f.device, let key = mdnsHosts[d.lowercased()] {
                out.deviceFindings.append((key, c))
                if f.profileInstance == 0 { out.hostFindingTexts.append((key, f.message, f.severity)) }
            } else if f.device == nil, f.isMDNS {
                out.count(bySource: f.source, f.severity)
            }
        }
        if renders, findings.contains(where: \.atEnd) {
            renderer?.render(endOfInput: findings, into: &out.chunk)
        } else {
            show(findings, into: &out)
        }
        return out
    }

    private mutating func show(_ findings: [Finding], into out: inout BatchOutput) {
        if renders {
            for f in findings { renderer?.render(finding: f, into: &out.chunk) }
        } else {
            out.messages.append((nil, findings))
        }
    }

    /// The findings of the message at `out.position` that the policy keeps, counted. The
    /// `k`th of them is counted at place `firstIndex + k` among the message's findings.
    static func accept(
        _ raw: [Finding], policy: (@Sendable (Finding) -> Finding?)?, firstIndex: Int = 0, into out: inout BatchOutput
    ) -> [Finding] {
        guard !raw.isEmpty else { return raw }
        guard let policy else {
            // Through the buffer: iterating copies each finding (retaining its strings).
            raw.withUnsafeBufferPointer { fs in
                for k in fs.indices { out.tally.add(fs[k], at: out.position, index: firstIndex + k) }
            }
            return raw
        }
        var kept: [Finding] = []
        kept.reserveCapacity(raw.count)
        for (n, f) in raw.enumerated() {
            guard let k = policy(f) else {
                out.suppressed += 1
                continue
            }
            // A finding the baseline accepts goes on to the reports that list it as
            // suppressed (SARIF, JUnit), counted as suppressed, not as a finding.
            if k.baselined {
                out.suppressed += 1
            } else {
                out.tally.add(k, at: out.position, index: firstIndex + n)
            }
            kept.append(k)
        }
        return kept
    }

    /// Counts `findings` of one message: for the device (host) `device` it speaks for (0:
    /// none), and by their source address (`addressFindings`) the mDNS ones that name no
    /// host: all of them when it speaks for none, and those about a DNS-SD instance
    /// (`FindingSink.attachDevice`) always.
    static func count(_ findings: [Finding], device: UInt64, into out: inout BatchOutput) {
        guard !findings.isEmpty else { return }
        var c = SeverityCounts()
        for k in findings.indices where !findings[k].baselined {
            if findings[k].profileInstance != 0 || (device == 0 && findings[k].isMDNS) {
                out.count(bySource: findings[k].source, findings[k].severity)
            } else if device != 0 {
                c.add(findings[k].severity)
            }
        }
        if device != 0 { out.deviceFindings.append((device, c)) }
    }

    /// The device key of an end-of-input finding's device text (SSDP `uuid:…`, as the
    /// in-order stage keys the UUID of USN).
    static func deviceKey(_ device: String?) -> UInt64? {
        guard let d = device, d.utf8.count > 5, d.lowercased().hasPrefix("uuid:") else { return nil }
        return SSDPFacts.key(d.utf8.dropFirst(5), foldingCase: true)
    }

    private mutating func addressText(_ a: IPAddress) -> String { addressCache.text(a) }

    /// The hosts and service instances a response on a named segment shows, keyed as the
    /// mDNS session model keys them: address record owners and SRV targets (hosts); SRV and
    /// instance TXT owners and the instances browse PTRs name (services). Authority records
    /// (a probe's proposals) are not taken, as the model does not take them.
    private static func noteSightings(
        _ input: MDNSInput, on segment: UInt16, into sightings: inout [(key: UInt64, segment: UInt16)]
    ) {
        let p = input.message.payload
        for info in input.records where info.section != .authority {
            let rr = info.record
            switch rr.type {
            case .a, .aaaa:
                sightings.append((info.nameKey, segment))
            case .srv:
                sightings.append((info.nameKey, segment))
                if case .srv(_, _, _, let target) = rr.value {
                    sightings.append((info.target?.key ?? target.key(in: p), segment))
                }
            case .txt where info.dnssd.kind == .instance:
                sightings.append((info.nameKey, segment))
            case .ptr where info.dnssd.kind == .serviceType || info.dnssd.kind == .subtype:
                if case .name(let target) = rr.value {
                    sightings.append((info.target?.key ?? target.key(in: p), segment))
                }
            default:
                break
            }
        }
    }

    /// DNS-SD service types announced (browse PTR owners), for the summary's short count.
    private static func noteServices(_ input: MDNSInput, into services: inout [UInt64]) {
        for r in input.records
        where r.section == .answer && r.record.type == .ptr && r.labelCount == 3 && r.dnssd.kind == .serviceType {
            services.append(r.record.name.key(in: input.message.payload))
        }
    }
}

/// Text of recently seen addresses in a table indexed by a multiplicative hash of the
/// address (a slot holds the last address that hashed there): a lookup is a multiply and a
/// compare, where a dictionary hashed each address with SipHash. Bounded by its size.
struct AddressTextCache {
    static let bits = 12
    private var slots = GrowingSlots<(address: IPAddress, text: String)>(maxBits: bits)

    mutating func text(_ a: IPAddress) -> String {
        let folded: UInt64
        switch a {
        case .v4(let x): folded = UInt64(x)
        case .v6(let hi, let lo): folded = hi ^ (lo &* 0x9E37_79B9_7F4A_7C15) ^ 0x6A09_E667_F3BC_C909
        }
        let k = Int(truncatingIfNeeded: (folded &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.bits))
        if let s = slots[k], s.address == a { return s.text }
        let t = a.description
        slots[k] = (a, t)
        slots.missed()
        return t
    }
}
