import Glibc
import NetLayers

/// Several sources read as one session, each a segment (link) of the same network: capture
/// files (`analyze --segments`) or interfaces (`capture -i A -i B`), merged in time order.
///
/// Offline this is a k-way merge: each part holds its next record (libpcap's buffer, or the
/// pcapng reader's, stays valid until that part is read again), the earliest goes first, and
/// ties go to the part given first. Live, a part with nothing pending is asked again before
/// each pick, after the pending ones were stamped, so what arrives later is stamped later.
///
/// Frames are numbered in merged order, as `mergecap` would write them (a record the filter
/// rejects still takes its number). A part is one segment, named as given, unless it has
/// segments of its own (a pcapng file with several interfaces): those are `NAME/INTERFACE`.
/// A part that fails (a damaged file, an interface gone) ends alone: its error is handed over
/// by `takeLaterErrors`, and the others go on.
public final class MergedSource: FrameSource {
    private let parts: [any FrameSource]
    private let partNames: [String]
    public let input: String
    /// Each part's next record, once read.
    private var pending: [(frame: RawFrame, bytes: UnsafeRawBufferPointer, passes: Bool)?]
    private var ended: [Bool]
    /// Per part, its own segment index → this source's.
    private var segmentMap: [[UInt16]]
    public private(set) var segmentNames: [String] = []
    /// Whether frames are named by segment: several parts, or a part with segments of its own.
    private let named: Bool
    private var number = 0
    private var laterErrors: [CaptureError] = []
    /// Live capture with `-w` on several interfaces: every record goes here, in merged order,
    /// before it is analysed (interface `k` is part `k`).
    private let writer: PcapNGWriter?

    /// `parts` with the name of each one's segment; `input` names the whole.
    public init(_ parts: [(source: any FrameSource, name: String)], input: String, writer: PcapNGWriter? = nil) {
        self.parts = parts.map(\.source)
        partNames = parts.map(\.name)
        self.input = input
        self.writer = writer
        pending = Array(repeating: nil, count: parts.count)
        ended = Array(repeating: false, count: parts.count)
        segmentMap = Array(repeating: [], count: parts.count)
        named = parts.count > 1 || parts.contains { !$0.source.segmentNames.isEmpty }
        guard named else { return }
        // The parts' segments in the order given (later interfaces of a pcapng file come
        // after, as they appear).
        for k in parts.indices { extendMap(k) }
    }

    public var linkType: LinkType { parts.first?.linkType ?? .ethernet }
    public var snapshotLength: Int { parts.map(\.snapshotLength).max() ?? 0 }
    public var isLive: Bool { parts.contains { $0.isLive } }

    public var totalBytes: Int64? {
        var sum: Int64 = 0
        for p in parts {
            guard let t = p.totalBytes else { return nil }
            sum &+= t
        }
        return sum
    }

    public var bytesRead: Int64? {
        guard totalBytes != nil else { return nil }
        return parts.reduce(0) { $0 &+ ($1.bytesRead ?? 0) }
    }

    public var expandedBytes: Int64? {
        let expanded = parts.compactMap(\.expandedBytes)
        return expanded.isEmpty ? nil : expanded.reduce(0, &+)
    }

    public func setOfflineFilter(_ expression: String) throws(CaptureError) {
        for p in parts { try p.setOfflineFilter(expression) }
    }

    /// Names part `k`'s segments that have none here yet.
    private func extendMap(_ k: Int) {
        let own = parts[k].segmentNames
        if own.isEmpty {
            if segmentMap[k].isEmpty { add(partNames[k], to: k) }
            return
        }
        while segmentMap[k].count < own.count { add(partNames[k] + "/" + own[segmentMap[k].count], to: k) }
    }

    private func add(_ name: String, to k: Int) {
        // The index is 16 bits; beyond, frames share the last segment (a pcapng file holds at
        // most `PcapNGReader.maxInterfaces` interfaces, so this takes thousands of parts).
        guard segmentNames.count < Int(UInt16.max) else {
            segmentMap[k].append(UInt16.max - 1)
            return
        }
        segmentMap[k].append(UInt16(truncatingIfNeeded: segmentNames.count))
        segmentNames.append(name)
    }

    /// This source's segment of part `k`'s frame on its own segment `own`.
    private func segment(_ k: Int, _ own: UInt16) -> UInt16 {
        guard named else { return 0 }
        if Int(own) >= segmentMap[k].count { extendMap(k) }
        let map = segmentMap[k]
        return Int(own) < map.count ? map[Int(own)] : (map.first ?? 0)
    }

    public func read() throws(CaptureError) -> SourceRead {
        // Every part with nothing pending reads once (its previous record was handed over,
        // and the caller is done with it).
        for k in parts.indices where pending[k] == nil && !ended[k] {
            do {
                switch try parts[k].read() {
                case .frame(let frame, let bytes, let passes): pending[k] = (frame, bytes, passes)
                case .idle: break
                case .end: ended[k] = true
                }
            } catch {
                ended[k] = true
                laterErrors.append(error)
            }
        }
        // The earliest pending record; a tie goes to the part given first.
        var best = -1
        for k in pending.indices {
            guard let p = pending[k] else { continue }
            if best < 0 { best = k } else if let b = pending[best], p.frame.time < b.frame.time { best = k }
        }
        guard best >= 0, let p = pending[best] else { return ended.allSatisfy { $0 } ? .end : .idle }
        pending[best] = nil
        number += 1
        var frame = p.frame
        frame.number = number
        frame.segment = segment(best, p.frame.segment)
        if let writer {
            // A killed process leaves a readable file: each record reaches it before it is
            // analysed. A write that fails ends the capture.
            try writer.write(interface: best, frame: frame, bytes: p.bytes)
        }
        return .frame(frame, p.bytes, passes: p.passes)
    }

    /// Live: waits up to the parts' poll interval for a packet on any of them. A part whose
    /// interface went down or away ends alone (`takeLaterErrors`).
    public func waitForFrames() throws(CaptureError) {
        var fds: [pollfd] = []
        var who: [Int] = []
        var timeout: Int32 = 0
        for k in parts.indices where !ended[k] {
            guard let h = parts[k] as? PcapHandle, let fd = h.selectableFD else { continue }
            fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            who.append(k)
            timeout = max(timeout, h.pollMilliseconds)
        }
        guard !fds.isEmpty else { return }
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        for (i, k) in who.enumerated() where ready <= 0 || fds[i].revents & Int16(POLLIN) == 0 {
            guard let h = parts[k] as? PcapHandle, let problem = h.interfaceProblem() else { continue }
            ended[k] = true
            laterErrors.append(problem)
        }
    }

    public func takeLaterErrors() -> [CaptureError] {
        defer { laterErrors.removeAll() }
        return laterErrors
    }
}
