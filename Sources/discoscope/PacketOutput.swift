import Analyzer
import Capture
import Findings
import Glibc
import NetLayers
import Synchronization
import WireFormat

/// `analyze -w FILE`: the frames that carry SSDP or mDNS messages, written to a pcap file
/// Wireshark opens (the IP fragments of a reassembled message with it). With
/// `--only-findings`, only the messages a reported finding names (its frame and related
/// frames): those are known once the analysis has judged them, so the messages go to a
/// temporary file first and the wanted ones are copied at the end (memory holds only the
/// frame numbers). `FILE.pcapng` is written the same way, each packet with the comments of
/// the findings that name it (`AnnotatedPackets`).
final class PacketOutput {
    let path: String
    let onlyFindings: Bool
    /// Frames named by reported findings (only with `--only-findings`); filled by the policy
    /// on worker threads.
    let findingFrames: FrameMarks?
    /// `FILE.pcapng`: the comments of each frame's findings; filled by the policy on worker
    /// threads.
    let comments: FindingComments?
    /// The messages go to the temporary file first (`--only-findings`, comments).
    private var staged: Bool { onlyFindings || comments != nil }
    private var writer: PcapWriter? = nil
    private var fileIndex = 0
    /// The current input's link type differs from the output file's: its frames are left out.
    private var skipping = false
    /// A source of several link types (a pcapng file, a merged session): said once when one
    /// of its frames cannot go to the file.
    private var currentInput = ""
    private var otherLinkSaid = false
    /// Recent IP fragments (a message reassembled from them is written with them), bounded
    /// like the reassembler: 256 frames, 8 MiB.
    private var fragments: [(frame: Int, time: Timestamp, length: Int, bytes: [UInt8])] = []
    private var fragmentBytes = 0
    /// With `--only-findings` or comments: the message each record of the temporary file
    /// belongs to (`fragmentFlag` on the fragments written before it).
    private var records: [UInt64] = []
    static let fragmentFlag: UInt64 = 1 << 63
    private var temporary: String { path + ".discoscope-partial" }

    /// Checks that `path` can be written before any input is read (`-`: standard output,
    /// which libpcap writes to).
    init(path: String, onlyFindings: Bool) throws {
        if path != "-" {
            guard let f = fopen(path, "w") else {
                throw InputError("-w \(path): cannot write (\(String(cString: strerror(errno))))")
            }
            fclose(f)
        }
        self.path = path
        self.onlyFindings = onlyFindings
        findingFrames = onlyFindings ? FrameMarks() : nil
        comments = AnnotatedPackets.wanted(path) ? FindingComments() : nil
    }

    static func key(_ fileIndex: Int, _ frame: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: fileIndex) << 40 | UInt64(truncatingIfNeeded: frame) & 0xFF_FFFF_FFFF
    }

    /// An input starts; a warning when its frames cannot go to the file.
    func begin(_ handle: any FrameSource, fileIndex: Int) -> String? {
        self.fileIndex = fileIndex
        currentInput = handle.input
        otherLinkSaid = false
        fragments.removeAll()
        fragmentBytes = 0
        if let w = writer {
            skipping = w.linkType != handle.linkType
            return skipping
                ? "-w \(path): \(handle.input) has link type \(handle.linkType), the file \(w.linkType); its packets are not written (a pcap file has one link type)"
                : nil
        }
        do {
            writer = try PcapWriter(
                path: staged ? temporary : path, linkType: handle.linkType,
                snaplen: Int32(clamping: max(handle.snapshotLength, 65535)))
            skipping = false
            return nil
        } catch {
            skipping = true
            return error.description
        }
    }

    /// A frame from the analysis's tap (reading thread, capture order).
    func take(_ kind: Analysis.FrameTap, _ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        guard !skipping, let writer else { return }
        guard frame.linkType == writer.linkType else {
            if !otherLinkSaid {
                otherLinkSaid = true
                Frontend.warn(
                    "-w \(path): frames of \(currentInput) with link type \(frame.linkType) are not written (the file has \(writer.linkType); a pcap file has one link type)"
                )
            }
            return
        }
        switch kind {
        case .fragment:
            fragments.append((frame.number, frame.time, frame.originalLength, Array(bytes)))
            fragmentBytes += bytes.count
            while fragments.count > 256 || fragmentBytes > 8 << 20 {
                fragmentBytes -= fragments.removeFirst().bytes.count
            }
        case .message(let fragmentFrames):
            let id = Self.key(fileIndex, frame.number)
            for f in fragmentFrames where f != frame.number {
                guard let k = fragments.firstIndex(where: { $0.frame == f }) else { continue }
                let held = fragments.remove(at: k)
                fragmentBytes -= held.bytes.count
                held.bytes.withUnsafeBytes { b in
                    writer.write(
                        time: (held.time.seconds, held.time.nanoseconds), originalLength: held.length, bytes: b)
                }
                if staged { records.append(id | Self.fragmentFlag) }
            }
            writer.write(
                time: (frame.time.seconds, frame.time.nanoseconds), originalLength: frame.originalLength, bytes: bytes)
            if staged { records.append(id) }
        }
    }

    /// Completes the file; a message when it could not be written completely.
    func finish() -> String? {
        guard let writer else {
            // No input was read: the file stays as created (empty), as tcpdump leaves it.
            return nil
        }
        self.writer = nil
        guard writer.close() else {
            return "-w \(path): could not write the whole file (\(String(cString: strerror(errno))))"
        }
        guard staged else { return nil }
        defer { unlink(temporary) }
        if let comments {
            return AnnotatedPackets.copy(
                from: temporary, to: path, linkType: writer.linkType, records: records,
                wanted: findingFrames?.snapshot(), comments: comments)
        }
        guard let marks = findingFrames else { return nil }
        do {
            let input = try OfflineSource.open(temporary)
            let out = try PcapWriter(
                path: path, linkType: writer.linkType, snaplen: Int32(clamping: max(input.snapshotLength, 65535)))
            try Self.replay(input, records: records, wanted: marks.snapshot()) { frame, bytes, _, _ in
                out.write(
                    time: (frame.time.seconds, frame.time.nanoseconds), originalLength: frame.originalLength,
                    bytes: bytes)
            }
            return out.close()
                ? nil : "-w \(path): could not write the whole file (\(String(cString: strerror(errno))))"
        } catch {
            return "-w \(path): \(error.description)"
        }
    }
}

extension PacketOutput {
    /// Reads the temporary file back (`input`, whose records `records` lists in order): each
    /// record with its message's key and whether it is an IP fragment written before its
    /// message, only those whose message `wanted` holds (every one when nil).
    static func replay(
        _ input: any FrameSource, records: [UInt64], wanted: Set<UInt64>?,
        _ body: (RawFrame, UnsafeRawBufferPointer, _ key: UInt64, _ isFragment: Bool) -> Void
    ) throws(CaptureError) {
        var k = 0
        while case .frame = try input.next({ frame, bytes in
            defer { k += 1 }
            guard k < records.count else { return }
            let key = records[k] & ~fragmentFlag
            if let wanted, !wanted.contains(key) { return }
            body(frame, bytes, key, records[k] & fragmentFlag != 0)
        }) {}
    }
}

/// Frames named by findings, keyed by input and frame number; worker threads insert.
final class FrameMarks: Sendable {
    private let marks = Mutex(Set<UInt64>())
    func insert(_ f: Finding) {
        marks.withLock { set in
            for frame in f.frames { set.insert(PacketOutput.key(f.fileIndex, frame)) }
        }
    }
    func snapshot() -> Set<UInt64> { marks.withLock { $0 } }
}
