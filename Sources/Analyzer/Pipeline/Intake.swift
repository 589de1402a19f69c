import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// Reading, the first part of the pipeline (on the reading thread, in capture order): a frame
/// becomes a datagram (IP reassembly included), and a datagram goes to the analysis that
/// takes it — SSDP or mDNS — or nowhere.
/// Counts what the summary says of frames and datagrams, and why frames were skipped.
struct Intake {
    private var decoder = PacketDecoder()
    /// The session's multicast memberships (IGMP/MLD), for the inventory.
    private(set) var memberships = MembershipTracker()
    /// The membership rules' stage of the current input (a new one for each input).
    private var multicast: MulticastStage
    private let disabled: Set<RuleID>
    /// Frames whose link type is not decoded, reported once per link type.
    private var unsupportedSeen: Set<LinkType> = []
    /// The same link types, in the order first seen.
    private(set) var unsupportedLinkTypes: [LinkType] = []
    private(set) var unsupportedFrames = 0
    private var pendingSkip: SkipReason? = nil
    private var pendingSkips = 0

    /// Where a routed datagram goes.
    enum Route {
        case ssdp
        case mdns
    }

    /// A datagram taken for analysis, and what `analyze -w` writes for its frame.
    struct Taken {
        var datagram: Datagram
        var route: Route
        /// The frames of the IP fragments it was reassembled from (none for a whole one).
        var fragmentFrames: [Int]
    }

    /// What a frame turned out to be.
    enum Outcome {
        case taken(Taken)
        /// An IP fragment held for reassembly (`analyze -w` keeps its frame).
        case fragmentHeld
        case none
    }

    init(disabled: Set<RuleID>) {
        self.disabled = disabled
        multicast = MulticastStage(disabled: disabled)
        decoder.copiesPayloads = false
    }

    /// The membership stage of the input that ended, replaced by a fresh one for the next.
    /// Entries the membership rules' tables evicted in the current session so far.
    var multicastEvicted: Int { multicast.stateEvicted }

    mutating func takeMulticast() -> MulticastStage {
        var ended = MulticastStage(disabled: disabled)
        swap(&ended, &multicast)
        return ended
    }

    /// A membership message, in capture order: for the inventory and the membership rules.
    mutating func membership(_ p: MembershipPacket) {
        memberships.take(p)
        multicast.membership(p)
    }

    /// The session's memberships, and a fresh tracker for the next session.
    mutating func takeMemberships() -> MembershipTracker {
        var ended = MembershipTracker()
        swap(&ended, &memberships)
        return ended
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

    private mutating func skip(_ reason: SkipReason, _ summary: inout RunSummary) {
        if pendingSkip == reason {
            pendingSkips += 1
            return
        }
        flushSkips(into: &summary)
        pendingSkip = reason
        pendingSkips = 1
    }

    /// Adds the run of skipped frames counted so far to the summary (first-seen order kept).
    mutating func flushSkips(into summary: inout RunSummary) {
        if let r = pendingSkip { summary.skip(r.text, count: pendingSkips) }
        pendingSkip = nil
        pendingSkips = 0
    }

    /// Takes one frame. A payload left in the frame by the decoder is copied into `batch`'s
    /// buffer (the worker that decodes it makes its own copy from there), and taken out again
    /// when it is neither SSDP nor mDNS; the returned datagram then locates it there
    /// (`framePayload`). `warn` hears of a link type first seen that is not decoded.
    mutating func frame(
        _ frame: RawFrame, _ bytes: UnsafeRawBufferPointer, into batch: inout Batch, summary: inout RunSummary,
        warn: (String) -> Void
    ) -> Outcome {
        summary.framesRead += 1
        guard bytes.count > 0 else {
            skip(.empty, &summary)
            return .none
        }
        // Decoded where the capture library read it (copied into an array first, each frame
        // cost a copy and the array's bookkeeping).
        decoder.segment = frame.segment
        let outcome = decoder.decode(
            frame: frame.number, time: frame.time, linkType: frame.linkType,
            bytes: bytes.assumingMemoryBound(to: UInt8.self).span, originalLength: frame.originalLength,
            wants: { _, _, _, _ in true })
        switch outcome {
        case .datagram(var d):
            guard let r = d.framePayload else {
                guard let route = route(d, d.payload, d.payload.indices, &summary) else { return .none }
                return .taken(Taken(datagram: d, route: route, fragmentFrames: d.fragmentFrames))
            }
            let start = batch.bytes.count
            batch.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[r]))
            let inBatch = start..<batch.bytes.count
            guard let route = route(d, batch.bytes, inBatch, &summary) else {
                batch.bytes.removeSubrange(inBatch)
                return .none
            }
            // From here `framePayload` locates the payload in the batch's buffer.
            d.framePayload = inBatch
            return .taken(Taken(datagram: d, route: route, fragmentFrames: []))
        case .unsupportedLink(let lt):
            unsupportedFrames += 1
            skip(.unsupported(lt), &summary)
            if unsupportedSeen.insert(lt).inserted {
                unsupportedLinkTypes.append(lt)
                let file = summary.files.last ?? ""
                warn("\(file): unsupported link type \(lt) (\(lt.rawValue)); its frames are skipped")
            }
        case .malformed(let why):
            skip(.malformed(why), &summary)
        case .truncatedHeaders:
            skip(.cutHeaders, &summary)
        case .fragmentHeld:
            return .fragmentHeld
        case .membership(let p):
            membership(p)
        case .uninteresting, .notUDP:
            break
        }
        return .none
    }

    /// Live capture's timer: the membership rules report what they found by `now`.
    mutating func conclude(by now: Timestamp, into reports: inout SessionReports) {
        multicast.conclude(by: now, into: &reports)
    }

    /// Which analysis takes a datagram whose payload is `payload` of `bytes` (none: neither
    /// SSDP nor mDNS), the datagram counted.
    mutating func route(
        _ d: borrowing Datagram, _ bytes: [UInt8], _ payload: Range<Int>, _ summary: inout RunSummary
    ) -> Route? {
        if d.srcPort == 1900 || d.dstPort == 1900 || d.srcPort == 5353 || d.dstPort == 5353 {
            summary.portDatagrams += 1
        }
        if SSDPRouter.claims(d, bytes, payload) {
            summary.ssdpMessages += 1
            multicast.ssdp(d, bytes, payload)
            return .ssdp
        }
        if MDNSRouter.claims(d) {
            summary.mdnsMessages += 1
            multicast.mdns(d, bytes, payload)
            return .mdns
        }
        return nil
    }

    /// The end of the run: fragments never completed and datagrams given up in reassembly,
    /// by cause (the timeout, the two bounds on what is held, and fragments that contradict
    /// each other), into the summary; a bound reached is also a limit (`limit`).
    func concludeReassembly(into summary: inout RunSummary, limit: (LimitReached, inout RunSummary) -> Void) {
        let r = decoder.reassembler
        if r.inFlight > 0 {
            summary.skip("IP fragments never completed", count: r.inFlight)
        }
        if r.timedOut > 0 {
            summary.skip(
                "IP datagrams incomplete after \(r.timeoutSeconds) s of capture time (reassembly timeout, as Linux)",
                count: r.timedOut)
        }
        if r.droppedAtDatagramLimit > 0 {
            summary.skip(
                "IP datagrams dropped from reassembly at its limit of \(r.maxDatagrams) in progress",
                count: r.droppedAtDatagramLimit)
            limit(
                LimitReached(
                    limit: "reassembly_datagrams", value: r.maxDatagrams,
                    message:
                        "more than \(r.maxDatagrams) IP datagrams were being reassembled at once: the oldest incomplete ones were dropped (\(r.droppedAtDatagramLimit)); a fixed bound, as the kernel's, against fragment floods"
                ), &summary)
        }
        if r.droppedAtByteLimit > 0 {
            summary.skip(
                "IP datagrams dropped from reassembly at its limit of \(r.maxBytes / (1 << 20)) MiB held",
                count: r.droppedAtByteLimit)
            limit(
                LimitReached(
                    limit: "reassembly_bytes", value: r.maxBytes,
                    message:
                        "more than \(r.maxBytes / (1 << 20)) MiB of IP fragments were held for reassembly: the oldest incomplete datagrams were dropped (\(r.droppedAtByteLimit)); a fixed bound, as the kernel's, against fragment floods"
                ), &summary)
        }
        let inconsistent = r.abandoned - r.timedOut - r.droppedAtDatagramLimit - r.droppedAtByteLimit
        if inconsistent > 0 {
            summary.skip(
                "IP datagrams given up in reassembly (fragments that contradict each other)", count: inconsistent)
        }
        if r.overlapConflicts > 0 {
            summary.skip(
                "IP fragments overlapping with different contents (first copy kept, as Wireshark does)",
                count: r.overlapConflicts)
        }
    }
}
