import Glibc
import NetLayers
import WireFormat

/// How a capture file lays out its records: the bytes each file starts with, and one
/// record's bytes. `CaptureFileOutput` writes either kind through a `RotatingFile`, so a new
/// layout (a pcapng block with options) only has to say how its blocks look.
public protocol CaptureFileFormat {
    /// The file header (pcap), or the section header and interface descriptions (pcapng).
    var header: [UInt8] { get }
    /// Appends the record of `frame`, captured on interface `interface`, to `out`.
    func record(interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer, into out: inout [UInt8])
}

/// A pcap file of one link type with nanosecond timestamps, as libpcap writes a live capture
/// opened with nanosecond precision (tcpdump -w).
public struct PcapFormat: CaptureFileFormat {
    public var linkType: LinkType
    public var snapLength: Int

    public init(linkType: LinkType, snapLength: Int) {
        self.linkType = linkType
        self.snapLength = snapLength
    }

    public var header: [UInt8] {
        // Magic (nanosecond, written little-endian), version 2.4, zone and accuracy 0, snap
        // length, link type.
        PcapNGWriter.u32(0xA1B2_3C4D) + PcapNGWriter.u16(2) + PcapNGWriter.u16(4) + PcapNGWriter.u32(0)
            + PcapNGWriter.u32(0) + PcapNGWriter.u32(UInt32(clamping: snapLength))
            + PcapNGWriter.u32(UInt32(truncatingIfNeeded: linkType.rawValue))
    }

    public func record(interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let captured = min(bytes.count, max(snapLength, 1))
        // Seconds, nanoseconds, captured length, original length.
        out += PcapNGWriter.u32(UInt32(truncatingIfNeeded: max(frame.time.seconds, 0)))
        out += PcapNGWriter.u32(frame.time.nanoseconds)
        out += PcapNGWriter.u32(UInt32(clamping: captured))
        out += PcapNGWriter.u32(UInt32(clamping: max(frame.originalLength, captured)))
        if let base = bytes.baseAddress { out.append(contentsOf: UnsafeRawBufferPointer(start: base, count: captured)) }
    }
}

/// A pcapng file with one Interface Description Block per interface, as `PcapNGWriter`
/// writes it (the same blocks), for a capture on several interfaces.
public struct PcapNGFormat: CaptureFileFormat {
    public var interfaces: [PcapNGWriter.Interface]

    public init(interfaces: [PcapNGWriter.Interface]) { self.interfaces = interfaces }

    public var header: [UInt8] { PcapNGWriter.header(interfaces) }

    public func record(interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard interface >= 0, interface < interfaces.count else { return }
        PcapNGWriter.enhancedPacket(interface: interface, frame: frame, bytes: bytes, into: &out)
    }
}

/// `capture -w`: every captured record, in capture order, to a capture file that may rotate
/// (`-G`, `-C`, `-W`) and reopens on SIGHUP.
public final class CaptureFileOutput {
    public let file: RotatingFile
    private let format: any CaptureFileFormat
    /// One record's bytes, reused.
    private var scratch: [UInt8] = []

    /// Creates the first file; throws when it cannot be written.
    public init(
        policy: RotationPolicy, format: any CaptureFileFormat, clock: @escaping () -> Int64 = RotatingFile.wallClock,
        warn: @escaping (String) -> Void
    ) throws(CaptureError) {
        self.format = format
        file = try RotatingFile(policy: policy, flag: "-w", header: format.header, clock: clock, warn: warn)
    }

    /// Writes one record; throws when the file does not rotate and the write failed (the
    /// capture ends, as it always did for a plain `-w`). False when it was not written.
    @discardableResult
    public func write(interface: Int, frame: RawFrame, bytes: UnsafeRawBufferPointer) throws(CaptureError) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        format.record(interface: interface, frame: frame, bytes: bytes, into: &scratch)
        // An interface the file does not describe: nothing to write.
        guard !scratch.isEmpty else { return false }
        let written = scratch.withUnsafeBytes { file.write(record: $0) }
        if let code = file.fatal {
            throw CaptureError(
                input: file.path,
                reason:
                    "cannot write the capture file (\(String(cString: strerror(code)))); it holds the \(file.records) packet(s) captured before, and the capture stopped"
            )
        }
        return written
    }
}

/// A source whose every record is written to a `CaptureFileOutput` before it is handed on
/// (interface: the frame's segment, which for a capture on several interfaces is the
/// interface's place among them). It ends when the output's `-W` files are written.
public final class RecordingSource: FrameSource {
    private let source: any FrameSource
    public let output: CaptureFileOutput

    public init(_ source: any FrameSource, output: CaptureFileOutput) {
        self.source = source
        self.output = output
    }

    public var input: String { source.input }
    public var linkType: LinkType { source.linkType }
    public var snapshotLength: Int { source.snapshotLength }
    public var isLive: Bool { source.isLive }
    public var segmentNames: [String] { source.segmentNames }
    public var totalBytes: Int64? { source.totalBytes }
    public var bytesRead: Int64? { source.bytesRead }
    public var expandedBytes: Int64? { source.expandedBytes }
    public func setOfflineFilter(_ expression: String) throws(CaptureError) {
        try source.setOfflineFilter(expression)
    }
    public func waitForFrames() throws(CaptureError) { try source.waitForFrames() }
    public func takeLaterErrors() -> [CaptureError] { source.takeLaterErrors() }

    public func read() throws(CaptureError) -> SourceRead {
        guard !output.file.finished else { return .end }
        let r = try source.read()
        guard case .frame(let frame, let bytes, _) = r else { return r }
        // A killed process leaves a readable file: each record reaches it before it is analysed.
        try output.write(interface: Int(frame.segment), frame: frame, bytes: bytes)
        return output.file.finished ? .end : r
    }
}
