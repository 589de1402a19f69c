import NetLayers

/// What one read of a `FrameSource` gave.
public enum SourceRead {
    /// A record: its frame and its captured bytes, valid until the next read of the same
    /// source, and whether the BPF filter passes it (a record it rejects still counts in
    /// frame numbers, as Wireshark counts them).
    case frame(RawFrame, UnsafeRawBufferPointer, passes: Bool)
    /// A live capture with no packet pending: `waitForFrames` waits (bounded) for one.
    case idle
    /// No more records.
    case end
}

/// Where frames come from: a libpcap handle (a capture file, an interface), a pcapng file
/// with several interfaces read by DiscoScope itself, or several sources merged in time order
/// as the segments of one network. A frame's `segment` indexes `segmentNames`.
public protocol FrameSource: AnyObject {
    /// The name in messages: the file as given, the interface, or a merged session's name.
    var input: String { get }
    /// The link type of its first interface (messages, `analyze -w`'s file); each frame
    /// carries its own.
    var linkType: LinkType { get }
    /// The largest snapshot length of its interfaces.
    var snapshotLength: Int { get }
    /// Packets arrive while it runs (read with a poll timeout).
    var isLive: Bool { get }
    /// The names of its segments (links) by a frame's `segment`; empty for a source of one
    /// unnamed segment, whose frames all have segment 0. Only grows (a pcapng file may
    /// describe another interface after its first packets).
    var segmentNames: [String] { get }
    /// Size of the input and bytes read so far, for progress (nil when unknown).
    var totalBytes: Int64? { get }
    var bytesRead: Int64? { get }
    /// Decompressed bytes so far, for gzip-compressed input (nil otherwise).
    var expandedBytes: Int64? { get }
    /// Applies a BPF filter to each record read (offline).
    func setOfflineFilter(_ expression: String) throws(CaptureError)
    /// The next record, without waiting for a live one. Throws on a read error (a damaged
    /// file, an interface gone): the source ends there, the records before it delivered.
    func read() throws(CaptureError) -> SourceRead
    /// Live: waits up to the poll interval for a packet, and throws when an interface went
    /// down or away. Offline: returns at once.
    func waitForFrames() throws(CaptureError)
    /// Errors of parts of the source that ended early while the rest went on (a damaged file
    /// of a merged session, one interface of several gone), each handed over once.
    func takeLaterErrors() -> [CaptureError]
}

extension FrameSource {
    public func takeLaterErrors() -> [CaptureError] { [] }

    /// Reads the next record the filter passes and hands it to `body` with its bytes. Live,
    /// when no packet is pending, `whenIdle` runs before the wait for the next one (the
    /// caller catches up with what it holds), and `.frame` is returned with nothing handed.
    public func next(
        whenIdle: () -> Void = {}, _ body: (RawFrame, UnsafeRawBufferPointer) -> Void
    ) throws(CaptureError) -> PcapHandle.Step {
        while true {
            switch try read() {
            case .frame(let frame, let bytes, let passes):
                guard passes else { continue }
                body(frame, bytes)
                return .frame
            case .idle:
                whenIdle()
                try waitForFrames()
                return .frame
            case .end:
                return .end
            }
        }
    }
}
