import DNS
import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// The in-order part of mDNS analysis, run over each batch's decoded messages in capture
/// order: the session rules (`MDNSSessionStage`), then each finding they make placed under
/// the message that revealed it.
///
/// With worker threads, the pool's ordering thread runs it (`WorkerPool`'s in-order step), so
/// the reading thread is free to read meanwhile; with one job, the reading thread runs it
/// after each message. One thread at a time: the analysis touches the settler itself only
/// when no batch is in flight (after draining the pool: the end of an input, live capture's
/// timer), and the pool's lock orders those accesses after the ordering thread's.
final class MDNSSessionSettler: @unchecked Sendable {
    /// The session rules and model of the current input.
    private(set) var stage: MDNSSessionStage
    /// Formats what the session rules find, in capture order (its own renderer: which interop
    /// notes it has passed then depends on capture order alone, not on how batches were
    /// spread over threads).
    private var renderer: (any MessageRenderer)?
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

    init(
        options: Analysis.Options, renderer: (any MessageRenderer)?, policy: (@Sendable (Finding) -> Finding?)?
    ) {
        disabled = options.disabledRules
        stage = MDNSSessionStage(disabled: disabled)
        self.renderer = renderer
        self.policy = policy
        findingDetails = options.findingDetails
        wantMessages = options.wantMessages
    }

    /// The end of an input: its stage as it ended, and a fresh one for the next input.
    func takeStage() -> MDNSSessionStage {
        var ended = MDNSSessionStage(disabled: disabled)
        swap(&ended, &stage)
        return ended
    }

    /// Live capture's timer (see `MDNSSessionStage.conclude`).
    func conclude(by now: Timestamp, into out: inout SessionReports) {
        stage.conclude(by: now, into: &out)
    }

    /// Runs the mDNS session rules over a batch's decoded messages in capture order, and
    /// places each finding under the message that revealed it: in the formatted chunk right
    /// after that message's lines, or with that message's findings for reporters that take
    /// records. Findings pass the same policy and tally as the others.
    func settle(_ r: inout BatchOutput) {
        if r.spent.segmentNames.count != segmentNamesGiven, renderer != nil {
            segmentNamesGiven = r.spent.segmentNames.count
            renderer?.setSegmentNames(r.spent.segmentNames)
        }
        var insertions: [(item: MDNSSessionItem, findings: [Finding], chunk: RenderedChunk)] = []
        var reports = SessionReports()
        for item in r.mdnsSession {
            reports.removeAll()
            stage.observe(item.input, into: &reports)
            guard !reports.isEmpty else { continue }
            var sink = FindingSink(datagram: item.input.datagram, fileIndex: item.fileIndex)
            sink.buildsDetails = findingDetails
            for rep in reports.reports {
                sink.report(rep.descriptor, severity: rep.severity, rep.message, related: rep.related)
            }
            let host = MDNSJudge.host(item.input)
            if let host {
                sink.attachDevice { host.presentation(in: item.input.message.payload) }
            }
            r.position = item.position
            var findings = MessageWorker.accept(sink.findings, policy: policy, into: &r)
            guard !findings.isEmpty else { continue }
            let segment = item.input.datagram.segment
            if segment != 0 { MessageWorker.place(&findings, on: segment) }
            // Counted for the host the message speaks for, as its message rules' findings are.
            if let key = host?.key(in: item.input.message.payload) {
                var c = SeverityCounts()
                for f in findings {
                    c.add(f.severity)
                    r.hostFindingTexts.append((key, f.message, f.severity))
                }
                r.deviceFindings.append((key, c))
            }
            var chunk = RenderedChunk()
            renderer?.render(sessionFindings: findings, underMessage: wantMessages, into: &chunk)
            insertions.append((item, findings, chunk))
        }
        r.mdnsSession.removeAll()
        guard !insertions.isEmpty else { return }
        if renderer != nil {
            // The chunk again, with each message's session findings after its lines (and the
            // interop note places moved with the bytes they follow).
            var out = RenderedChunk()
            swap(&out.bytes, &spare)
            out.bytes.removeAll(keepingCapacity: true)
            out.bytes.reserveCapacity(r.chunk.bytes.count + insertions.reduce(0) { $0 + $1.chunk.bytes.count })
            var copied = 0
            var note = 0
            func copy(upTo end: Int) {
                out.bytes.append(contentsOf: r.chunk.bytes[copied..<end])
                while note < r.chunk.notes.count, r.chunk.notes[note].offset <= end {
                    var n = r.chunk.notes[note]
                    n.offset += out.bytes.count - end
                    out.notes.append(n)
                    note += 1
                }
                copied = end
            }
            for ins in insertions {
                copy(upTo: min(max(ins.item.chunkEnd, copied), r.chunk.bytes.count))
                let shift = out.bytes.count
                out.bytes.append(contentsOf: ins.chunk.bytes)
                for var n in ins.chunk.notes {
                    n.offset += shift
                    out.notes.append(n)
                }
            }
            copy(upTo: r.chunk.bytes.count)
            swap(&r.chunk, &out)
            swap(&spare, &out.bytes)
        } else {
            // Back to front, so the places of earlier messages stay where they were.
            for ins in insertions.reversed() {
                let end = min(ins.item.messagesEnd, r.messages.count)
                if ins.item.hasEntry, end > 0 {
                    r.messages[end - 1].1 += ins.findings
                } else {
                    r.messages.insert((nil, ins.findings), at: end)
                }
            }
        }
    }
}
