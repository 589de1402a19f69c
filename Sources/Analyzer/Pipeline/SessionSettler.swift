import DNS
import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// The in-order part of the analysis, run over each batch in capture order after its
/// messages were decoded, judged and formatted: the SSDP session stage (`SSDPSessionStage`)
/// over its SSDP messages and the mDNS session stage (`MDNSSessionStage`) over its mDNS ones,
/// then each finding they make placed under the message that revealed it. An SSDP message
/// whose context the session decides (see `SSDPRouter.start`) was shown without findings:
/// those of the context the session settles go under it, with the session rules'.
///
/// With worker threads, the pool's ordering thread runs it (`WorkerPool`'s in-order step), so
/// the reading thread is free to read meanwhile; with one job, the reading thread runs it
/// after each batch. One thread at a time: the analysis touches the settler itself only
/// when no batch is in flight (after draining the pool: the end of an input, live capture's
/// timer), and the pool's lock orders those accesses after the ordering thread's.
final class SessionSettler: @unchecked Sendable {
    /// The session rules and models of the current input.
    private(set) var mdns: MDNSSessionStage
    private(set) var ssdp: SSDPSessionStage
    /// Formats what the session rules find, in capture order (its own renderer: which interop
    /// notes it has passed then depends on capture order alone, not on how batches were
    /// spread over threads).
    private var renderer: (any MessageRenderer)?
    /// Judges the SSDP messages whose context the workers did not foresee.
    private var worker: MessageWorker
    private let policy: (@Sendable (Finding) -> Finding?)?
    private let disabled: Set<RuleID>
    private let findingDetails: Bool
    private let wantMessages: Bool
    /// How many of the run's segment names the renderer was given (the table only grows).
    private var segmentNamesGiven = 0
    /// The buffer of the chunk a batch's output replaced, kept to write the next batch's
    /// into: each batch's output is written again with its session findings in place, and a
    /// fresh buffer for it each time came from pages the allocator had just returned (the
    /// batches recycle their buffers for the same reason, `Batch`).
    private var spare: [UInt8] = []
    /// Where session findings count among the findings of their message: after the others.
    private static let sessionFindingsIndex = 1 << 40

    init(
        options: Analysis.Options, renderer: (any MessageRenderer)?, worker: MessageWorker,
        policy: (@Sendable (Finding) -> Finding?)?
    ) {
        disabled = options.disabledRules
        mdns = MDNSSessionStage(disabled: disabled)
        ssdp = SSDPSessionStage(disabled: disabled)
        self.renderer = renderer
        self.worker = worker
        self.policy = policy
        findingDetails = options.findingDetails
        wantMessages = options.wantMessages
    }

    /// The end of an input: its stages as they ended, and fresh ones for the next input.
    func takeStages() -> (ssdp: SSDPSessionStage, mdns: MDNSSessionStage) {
        var endedSSDP = SSDPSessionStage(disabled: disabled)
        var endedMDNS = MDNSSessionStage(disabled: disabled)
        swap(&endedSSDP, &ssdp)
        swap(&endedMDNS, &mdns)
        return (endedSSDP, endedMDNS)
    }

    /// Live capture's timer: SSDP's session rules report what became certain by `now`.
    func concludeSSDP(by now: Timestamp, into out: inout SessionReports) {
        ssdp.conclude(by: now, into: &out)
    }

    /// Live capture's timer: mDNS's session rules report what became certain by `now`.
    func concludeMDNS(by now: Timestamp, into out: inout SessionReports) {
        mdns.conclude(by: now, into: &out)
    }

    /// What goes into a batch's output at one message's place.
    private struct Insertion {
        var place: OutputPlace
        /// Entries for reporters that take records (findings only, with `place.hasEntry`).
        var entries: [(MessageRecord?, [Finding])]
        var chunk: RenderedChunk
    }

    /// Runs the session rules over a batch's messages in capture order, and places each
    /// finding under the message that revealed it (with the stateless rules' findings of
    /// an SSDP message whose context the session settled): in
    /// the formatted chunk right after that message's lines, or with that message's findings
    /// for reporters that take records. Findings pass the same policy and tally as the others.
    func settle(_ r: inout BatchOutput) {
        if r.spent.segmentNames.count != segmentNamesGiven {
            segmentNamesGiven = r.spent.segmentNames.count
            renderer?.setSegmentNames(r.spent.segmentNames)
        }
        var insertions: [Insertion] = []
        settleSSDP(&r, into: &insertions)
        settleMDNS(&r, into: &insertions)
        guard !insertions.isEmpty else { return }
        // In capture order (each protocol's are; together they interleave).
        insertions.sort { $0.place.position < $1.place.position }
        if renderer != nil {
            splice(insertions, into: &r.chunk)
        } else {
            // Back to front, so the places of earlier messages stay where they were.
            for ins in insertions.reversed() {
                let end = min(ins.place.messagesEnd, r.messages.count)
                if ins.place.hasEntry, end > 0 {
                    for e in ins.entries { r.messages[end - 1].1 += e.1 }
                } else {
                    r.messages.insert(contentsOf: ins.entries, at: end)
                }
            }
        }
    }

    private func settleSSDP(_ r: inout BatchOutput, into insertions: inout [Insertion]) {
        // Device counts go at their message's place, back to front.
        var deviceCounts: [(at: Int, key: UInt64, counts: SeverityCounts)] = []
        // By index: copying an item retains its datagram's arrays.
        for k in r.ssdpSession.indices {
            let (context, reports) = ssdp.observe(
                r.ssdpSession[k].datagram, r.ssdpSession[k].facts, payloadKey: r.ssdpSession[k].payloadKey)
            // A message shown without findings: those of the context the session settled
            // (judged here when the worker did not foresee it) count first among them.
            var chosen: [Finding] = []
            let shownAlone = !r.ssdpSession[k].alternatives.isEmpty
            if shownAlone {
                if let a = r.ssdpSession[k].alternatives.first(where: { $0.context == context }) {
                    chosen = a.findings
                } else {
                    let d = r.ssdpSession[k].datagram
                    chosen = worker.ssdpFindings(d, context, fileIndex: r.ssdpSession[k].fileIndex)
                }
            }
            guard !reports.isEmpty || !chosen.isEmpty else { continue }
            let usnUUID = r.ssdpSession[k].usnUUID
            let findings = accepted(
                chosen, reports, of: r.ssdpSession[k].datagram, fileIndex: r.ssdpSession[k].fileIndex,
                at: r.ssdpSession[k].place.position, firstIndex: shownAlone ? 0 : Self.sessionFindingsIndex, into: &r
            ) { usnUUID.map { "uuid:" + String(decoding: $0, as: UTF8.self) } }
            guard !findings.isEmpty else { continue }
            if context.deviceKey != 0 {
                var c = SeverityCounts()
                for f in findings where !f.baselined { c.add(f.severity) }
                deviceCounts.append((r.ssdpSession[k].deviceFindingsEnd, context.deviceKey, c))
            }
            insertions.append(insertion(r.ssdpSession[k].place, findings))
        }
        r.ssdpSession.removeAll()
        for d in deviceCounts.reversed() {
            r.deviceFindings.insert((d.key, d.counts), at: min(d.at, r.deviceFindings.count))
        }
    }

    private func settleMDNS(_ r: inout BatchOutput, into insertions: inout [Insertion]) {
        var reports = SessionReports()
        for item in r.mdnsSession {
            reports.removeAll()
            mdns.observe(item.input, into: &reports)
            guard !reports.isEmpty else { continue }
            // A forwarder's copy speaks for no host (as `MDNSJudge.host` says of a relayed one).
            let host = mdns.lastWasForwarded ? nil : MDNSJudge.host(item.input)
            let findings = accepted(
                [], reports.reports, of: item.input.datagram, fileIndex: item.fileIndex, at: item.place.position,
                firstIndex: Self.sessionFindingsIndex, into: &r
            ) { host?.presentation(in: item.input.message.payload) }
            guard !findings.isEmpty else { continue }
            // Counted for the host the message speaks for, as its message rules' findings are.
            let key = host?.key(in: item.input.message.payload) ?? 0
            MessageWorker.count(findings, device: key, into: &r)
            if key != 0 {
                // A PROF finding counts for its instance by key (`ProfileFindings`).
                for f in findings where !f.baselined && f.profileInstance == 0 {
                    r.hostFindingTexts.append((key, f.message, f.severity))
                }
            }
            insertions.append(insertion(item.place, findings))
        }
        r.mdnsSession.removeAll()
    }

    /// The session rules' reports on the datagram `d` as findings (after `found`, findings
    /// it already has), naming the device `device` gives, through the policy and counted as
    /// the findings of the message at `position` from place `firstIndex` on.
    private func accepted(
        _ found: [Finding], _ reports: [SessionReports.Report], of d: borrowing Datagram, fileIndex: Int,
        at position: Int, firstIndex: Int, into r: inout BatchOutput, device: () -> String?
    ) -> [Finding] {
        var sink = FindingSink(datagram: d, fileIndex: fileIndex)
        sink.buildsDetails = findingDetails
        for rep in reports {
            sink.profile = rep.profile
            sink.profileInstance = rep.instance
            sink.report(rep.descriptor, severity: rep.severity, rep.message, related: rep.related)
        }
        sink.profile = nil
        sink.profileInstance = 0
        sink.attachDevice(device)
        r.position = position
        var findings = MessageWorker.accept(found + sink.findings, policy: policy, firstIndex: firstIndex, into: &r)
        if d.segment != 0 { MessageWorker.place(&findings, on: d.segment) }
        return findings
    }

    /// Session findings under a message: formatted, or as an entry.
    private func insertion(_ place: OutputPlace, _ findings: [Finding]) -> Insertion {
        var chunk = RenderedChunk()
        renderer?.render(sessionFindings: findings, underMessage: wantMessages, into: &chunk)
        return Insertion(place: place, entries: renderer == nil ? [(nil, findings)] : [], chunk: chunk)
    }

    /// The chunk again, with each insertion's bytes at its place (and the interop note places
    /// moved with the bytes they follow).
    private func splice(_ insertions: [Insertion], into chunk: inout RenderedChunk) {
        var out = RenderedChunk()
        swap(&out.bytes, &spare)
        out.bytes.removeAll(keepingCapacity: true)
        out.bytes.reserveCapacity(chunk.bytes.count + insertions.reduce(0) { $0 + $1.chunk.bytes.count })
        var copied = 0
        var note = 0
        func copy(upTo end: Int) {
            out.bytes.append(contentsOf: chunk.bytes[copied..<end])
            while note < chunk.notes.count, chunk.notes[note].offset <= end {
                var n = chunk.notes[note]
                n.offset += out.bytes.count - end
                out.notes.append(n)
                note += 1
            }
            copied = end
        }
        for ins in insertions {
            copy(upTo: min(max(ins.place.chunkEnd, copied), chunk.bytes.count))
            let shift = out.bytes.count
            out.bytes.append(contentsOf: ins.chunk.bytes)
            for var n in ins.chunk.notes {
                n.offset += shift
                out.notes.append(n)
            }
        }
        copy(upTo: chunk.bytes.count)
        swap(&chunk, &out)
        swap(&spare, &out.bytes)
    }
}
