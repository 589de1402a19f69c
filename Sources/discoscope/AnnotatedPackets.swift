import Analyzer
import Capture
import Findings
import Glibc
import NetLayers
import Reporting
import Synchronization
import WireFormat

/// `-w FILE.pcapng` (`analyze`, `capture`): each packet written with the findings that name
/// it as its comments (`opt_comment`, one per finding, `FindingComment`'s text), so that
/// Wireshark's `frame.comment contains "SSDP-005"` lists them. A finding with related frames
/// comments on each frame it names (the same text on each, which lists them all). Packets
/// without findings get no comment. A name ending in `.pcapng` (any case) chooses this
/// format; any other is written as before.
enum AnnotatedPackets {
    static func wanted(_ path: String) -> Bool {
        path != "-" && path.lowercased().hasSuffix(".pcapng")
    }

    /// `analyze`: the frames of the temporary file (`records`, in order: each one's key, with
    /// `PacketOutput.fragmentFlag` on the IP fragments written before their message) copied to
    /// `path` as pcapng, the message frames with their comments; with `wanted`
    /// (`--only-findings`), only the records whose message it holds. Returns why the file
    /// could not be written.
    static func copy(
        from temporary: String, to path: String, linkType: LinkType, records: [UInt64], wanted: Set<UInt64>?,
        comments: FindingComments
    ) -> String? {
        do {
            let input = try OfflineSource.open(temporary)
            let out = try PcapNGWriter(
                path: path,
                interfaces: [
                    PcapNGWriter.Interface(
                        name: "", linkType: linkType, snapLength: max(input.snapshotLength, 65535))
                ])
            var failure: CaptureError? = nil
            try PacketOutput.replay(input, records: records, wanted: wanted) { frame, bytes, key, isFragment in
                guard failure == nil else { return }
                let texts = isFragment ? [] : comments.take(key)
                do throws(CaptureError) {
                    try out.write(interface: 0, frame: frame, bytes: bytes, comments: texts)
                } catch {
                    failure = error
                }
            }
            if let failure { return "-w \(path): \(failure.reason)" }
            if let bound = comments.boundMessage(path) { Frontend.warn(bound) }
            return out.close()
                ? nil : "-w \(path): could not write the whole file (\(String(cString: strerror(errno))))"
        } catch {
            return "-w \(path): \(error.description)"
        }
    }
}

/// The comment texts of the findings that name each frame, keyed as `PacketOutput.key`
/// (input and frame number), in the order the findings passed the policy: a message's own
/// findings on its worker, then those of the session rules, in capture order, the same for
/// every `-j`. Worker threads and the ordering thread insert; bounded by `maxBytes` over all
/// frames and `maxBytesPerFrame` per frame (the findings past a frame's bound are counted
/// and said in one last comment).
final class FindingComments: Sendable {
    static let maxBytes = 64 << 20
    static let maxBytesPerFrame = 64 << 10
    /// What a kept text is counted as beyond its bytes (its entry, its string).
    static let overhead = 48

    private struct Entry {
        var texts: [String] = []
        var bytes = 0
        var more = 0
    }
    private struct State {
        var frames: [UInt64: Entry] = [:]
        var bytes = 0
        /// Comments not kept for want of room under `maxBytes`.
        var leftOut = 0
        /// `capture`: the key of the last frame written; later comments for it and the frames
        /// before it are not kept (those findings are in the report only).
        var written: UInt64? = nil
    }
    private let state = Mutex(State())

    func insert(_ f: Finding) {
        let frames = f.frames
        guard !frames.isEmpty else { return }
        let text = FindingComment.text(f)
        let cost = text.utf8.count + Self.overhead
        state.withLock { s in
            for (n, frame) in frames.enumerated() where !frames[..<n].contains(frame) {
                let key = PacketOutput.key(f.fileIndex, frame)
                if let w = s.written, key <= w { continue }
                guard s.bytes + cost <= Self.maxBytes else {
                    s.leftOut += 1
                    continue
                }
                var e = s.frames[key] ?? Entry()
                if e.bytes + cost > Self.maxBytesPerFrame {
                    e.more += 1
                } else {
                    e.texts.append(text)
                    e.bytes += cost
                    s.bytes += cost
                }
                s.frames[key] = e
            }
        }
    }

    /// The comments of the frame `key` (forgotten here), the last one saying how many more
    /// findings name it when its bound was reached.
    func take(_ key: UInt64) -> [String] {
        state.withLock { s in
            guard let e = s.frames.removeValue(forKey: key) else { return [] }
            s.bytes -= e.bytes
            guard e.more > 0 else { return e.texts }
            return e.texts + [
                FindingComment.prefix
                    + "\(e.more) more finding(s) on this packet are in the report (at most \(Self.maxBytesPerFrame >> 10) KiB of comments per packet)"
            ]
        }
    }

    /// `capture`: the comments of frame `key`, which is written now; comments that come later
    /// for it or an earlier frame are not kept.
    func takeWritten(_ key: UInt64) -> [String] {
        let texts = take(key)
        state.withLock { s in s.written = max(s.written ?? 0, key) }
        return texts
    }

    /// What to say when comments were left out for the bound on memory.
    func boundMessage(_ path: String) -> String? {
        let leftOut = state.withLock { $0.leftOut }
        guard leftOut > 0 else { return nil }
        return
            "-w \(path): \(leftOut) finding comment(s) were left out of the file (at most \(Self.maxBytes >> 20) MiB of comments are kept until their packets are written); the report has every finding"
    }
}

/// `capture -w FILE.pcapng`: every captured packet, in the order read, held until the
/// analysis has emitted its message's output (`Analysis.onSettled`) and then written with
/// the comments of the findings known by then. Findings concluded later (a deadline that
/// passed, the end of the capture) are in the report only; a related frame already written
/// gets no comment for a later finding. The queue is bounded (`maxHeldPackets`,
/// `maxHeldBytes`): past it the oldest packet is written at once with the findings known so
/// far, said once. A write that fails ends the capture, as without comments.
final class AnnotatedCapture {
    static let maxHeldPackets = 65536
    static let maxHeldBytes = 32 << 20

    let writer: PcapNGWriter
    let comments: FindingComments
    /// Several interfaces: a frame's segment is its interface (`MergedSource` names one per
    /// part, in order); one interface: interface 0.
    private let several: Bool
    private var held: [(interface: Int, frame: RawFrame, bytes: [UInt8])] = []
    private var head = 0
    private var heldBytes = 0
    private(set) var failure: CaptureError? = nil
    private var early = 0

    init(writer: PcapNGWriter, comments: FindingComments, several: Bool) {
        self.writer = writer
        self.comments = comments
        self.several = several
    }

    /// A frame read from the capture, before it is analysed.
    func hold(_ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        held.append((several ? Int(frame.segment) : 0, frame, Array(bytes)))
        heldBytes += bytes.count
        while held.count - head > Self.maxHeldPackets || heldBytes > Self.maxHeldBytes {
            if early == 0 {
                Frontend.warn(
                    "-w \(writer.path): packets are written before the analysis settled their findings (more than \(Self.maxHeldPackets) packets or \(Self.maxHeldBytes >> 20) MiB waited); those packets carry the findings known so far, the report has every finding"
                )
            }
            early += 1
            writeHead()
        }
    }

    /// Every frame up to `n` is settled: written, with the frames before it.
    func settled(through n: Int) {
        while head < held.count, held[head].frame.number <= n { writeHead() }
        if head == held.count {
            held.removeAll(keepingCapacity: held.capacity <= 4096)
            head = 0
        } else if head >= 4096 && head * 2 >= held.count {
            held.removeFirst(head)
            head = 0
        }
    }

    /// Writes what is still held (the capture ended, and its messages were emitted) and
    /// closes the file; false when it could not be closed (a write that failed before was
    /// said as it happened).
    func finish() -> Bool {
        settled(through: Int.max)
        if let bound = comments.boundMessage(writer.path) { Frontend.warn(bound) }
        return writer.close()
    }

    private func writeHead() {
        let p = held[head]
        held[head].bytes = []
        head += 1
        heldBytes -= p.bytes.count
        guard failure == nil else { return }
        let texts = comments.takeWritten(PacketOutput.key(0, p.frame.number))
        p.bytes.withUnsafeBytes { b in
            do throws(CaptureError) {
                try writer.write(interface: p.interface, frame: p.frame, bytes: b, comments: texts)
            } catch {
                failure = error
            }
        }
    }
}

/// A live source whose every frame goes to an `AnnotatedCapture` as it is read; a write that
/// failed ends it (the error is thrown once, then the source ends).
final class AnnotatingSource: FrameSource {
    let base: any FrameSource
    let capture: AnnotatedCapture
    private var failed = false

    init(_ base: any FrameSource, capture: AnnotatedCapture) {
        self.base = base
        self.capture = capture
    }

    var input: String { base.input }
    var linkType: LinkType { base.linkType }
    var snapshotLength: Int { base.snapshotLength }
    var isLive: Bool { base.isLive }
    var segmentNames: [String] { base.segmentNames }
    var totalBytes: Int64? { base.totalBytes }
    var bytesRead: Int64? { base.bytesRead }
    var expandedBytes: Int64? { base.expandedBytes }
    func setOfflineFilter(_ expression: String) throws(CaptureError) { try base.setOfflineFilter(expression) }
    func waitForFrames() throws(CaptureError) { try base.waitForFrames() }
    func takeLaterErrors() -> [CaptureError] { base.takeLaterErrors() }

    func read() throws(CaptureError) -> SourceRead {
        if let f = capture.failure {
            guard failed else {
                failed = true
                throw f
            }
            return .end
        }
        let r = try base.read()
        if case .frame(let frame, let bytes, _) = r { capture.hold(frame, bytes) }
        return r
    }
}
