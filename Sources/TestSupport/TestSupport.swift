import Foundation
import NetLayers
import WireFormat

/// Finds the package's files from a test: `#filePath` → package root → `captures/`.
public enum Fixtures {
    /// The package root (the folder holding Package.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // TestSupport.swift, TestSupport, Sources
        return url.path
    }()

    /// Absolute path of a bundled capture, e.g. `capture("link/ethernet.pcap")`.
    public static func capture(_ relative: String) -> String {
        packageRoot + "/captures/" + relative
    }

    /// `../shared/captures/public` beside the repository (present on developer machines and
    /// in CI), or nil.
    public static var sharedPublicCaptures: String? {
        let p = packageRoot + "/../shared/captures/public"
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: p, isDirectory: &isDir) && isDir.boolValue ? p : nil
    }

    /// Whether tests that read `../shared/captures/public` run: when it is present, or when
    /// `DISCOSCOPE_REQUIRE_SHARED` is set (CI sets it, so a missing collection fails there
    /// instead of being skipped). A plain clone has no `../shared`: those tests report
    /// themselves skipped, with `sharedSkipReason`.
    public static var runsSharedCaptureTests: Bool {
        sharedPublicCaptures != nil || ProcessInfo.processInfo.environment["DISCOSCOPE_REQUIRE_SHARED"] != nil
    }

    public static let sharedSkipReason =
        "needs ../shared/captures/public beside the repository (absent in a plain clone; CI has it)"

    /// The built `discoscope` executable (`swift test` builds it with the tests).
    public static var binary: String {
        let candidates = [
            packageRoot + "/.build/debug/discoscope",
            packageRoot + "/.build/release/discoscope",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }
}

/// The result of running a program to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var lines: [Substring] { stdout.split(separator: "\n") }
}

/// Runs `executable` with `arguments`, collecting its output (bounded by the test).
public func runProcess(
    _ executable: String, _ arguments: [String], stdin: Data? = nil, currentDirectory: String? = nil,
    environment: [String: String]? = nil
) throws -> ProcessResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let currentDirectory { p.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    if let environment { p.environment = environment }
    // Output goes to temporary files: no pipe can fill up and block the child.
    let dir = FileManager.default.temporaryDirectory
    let outURL = dir.appendingPathComponent("discoscope-test-\(UUID().uuidString).out")
    let errURL = dir.appendingPathComponent("discoscope-test-\(UUID().uuidString).err")
    // A file that cannot be made fails below, where its handle is opened (with the reason).
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }
    let outHandle = try FileHandle(forWritingTo: outURL)
    let errHandle = try FileHandle(forWritingTo: errURL)
    p.standardOutput = outHandle
    p.standardError = errHandle
    let input = Pipe()
    p.standardInput = input
    try p.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try? input.fileHandleForWriting.close()
    p.waitUntilExit()
    try? outHandle.close()
    try? errHandle.close()
    let outData = (try? Data(contentsOf: outURL)) ?? Data()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return ProcessResult(
        status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs the built `discoscope` with `arguments`.
public func discoscope(_ arguments: [String], stdin: Data? = nil, currentDirectory: String? = nil) throws
    -> ProcessResult
{
    try runProcess(Fixtures.binary, arguments, stdin: stdin, currentDirectory: currentDirectory)
}

/// Bytes from hex text written in tests (whitespace ignored); empty on malformed text, which
/// makes the test's own expectations fail visibly.
public func hex(_ text: String) -> [UInt8] {
    bytes(fromHex: text) ?? []
}

/// A datagram for rule and decoder tests, with sensible defaults.
public func makeDatagram(
    _ payload: [UInt8], src: String = "192.168.1.20", srcPort: UInt16 = 5353, dst: String = "224.0.0.251",
    dstPort: UInt16 = 5353, hopLimit: UInt8 = 255, frame: Int = 1,
    time: Timestamp = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)
) -> Datagram {
    Datagram(
        frame: frame, time: time, src: IPAddress(text: Array(src.utf8)) ?? .v4(0),
        dst: IPAddress(text: Array(dst.utf8)) ?? .v4(0), srcPort: srcPort, dstPort: dstPort, hopLimit: hopLimit,
        payload: payload)
}

/// Deterministic PRNG (SplitMix64) for fuzz loops in tests: the same seed, the same inputs.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The records of a little-endian microsecond pcap file (the fixtures' format): time and
/// bytes of each. Empty when the file cannot be read or is not such a file.
public func pcapRecords(_ path: String) -> [(seconds: UInt32, micros: UInt32, data: [UInt8])] {
    guard let d = FileManager.default.contents(atPath: path), d.count >= 24 else { return [] }
    let b = [UInt8](d)
    func u32(_ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }
    guard u32(0) == 0xA1B2_C3D4 else { return [] }
    var out: [(UInt32, UInt32, [UInt8])] = []
    var o = 24
    while o + 16 <= b.count {
        let n = Int(u32(o + 8))
        guard o + 16 + n <= b.count else { break }
        out.append((u32(o), u32(o + 4), Array(b[(o + 16)..<(o + 16 + n)])))
        o += 16 + n
    }
    return out
}

/// A pcapng file built block by block, in either byte order, for reader tests: what a
/// writer would produce, and (with the overrides) what a hostile one could.
public struct PcapNGBuilder {
    public private(set) var bytes: [UInt8] = []
    public let bigEndian: Bool

    /// Starts with a Section Header Block.
    public init(bigEndian: Bool = false) {
        self.bigEndian = bigEndian
        section()
    }

    func u16(_ v: UInt16) -> [UInt8] {
        let le = [UInt8(v & 0xFF), UInt8(v >> 8)]
        return bigEndian ? le.reversed() : le
    }

    func u32(_ v: UInt32) -> [UInt8] {
        let le = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) }
        return bigEndian ? le.reversed() : le
    }

    static func padded(_ b: [UInt8]) -> [UInt8] { b + [UInt8](repeating: 0, count: (4 - b.count % 4) % 4) }

    /// A block of `type` with `body` (padded to 4 bytes); `length` and `trailer` replace the
    /// total length in front and behind (a hostile block).
    public mutating func block(_ type: UInt32, _ body: [UInt8], length: UInt32? = nil, trailer: UInt32? = nil) {
        let body = Self.padded(body)
        let n = UInt32(12 + body.count)
        bytes += u32(type) + u32(length ?? n) + body + u32(trailer ?? n)
    }

    public mutating func section() {
        // Byte-order magic, version 1.0, section length unknown (-1).
        block(0x0A0D_0D0A, u32(0x1A2B_3C4D) + u16(1) + u16(0) + [UInt8](repeating: 0xFF, count: 8))
    }

    /// An option: code, length, value padded to 4 bytes.
    public func option(_ code: UInt16, _ value: [UInt8]) -> [UInt8] {
        u16(code) + u16(UInt16(value.count)) + Self.padded(value)
    }

    /// An Interface Description Block: `name` as `if_name`, `resolution` as `if_tsresol`,
    /// `extra` options before the end of options.
    public mutating func interface(
        linkType: UInt16 = 1, snapLength: UInt32 = 65535, name: String? = nil, resolution: UInt8? = nil,
        extra: [UInt8] = []
    ) {
        var body = u16(linkType) + u16(0) + u32(snapLength)
        if let name { body += option(2, Array(name.utf8)) }
        if let resolution { body += option(9, [resolution]) }
        body += extra + option(0, [])
        block(1, body)
    }

    /// An Enhanced Packet Block: `units` of the interface's resolution; `captured` replaces the
    /// captured length (a hostile block).
    public mutating func packet(interface: UInt32, units: UInt64, _ data: [UInt8], captured: UInt32? = nil) {
        block(
            6,
            u32(interface) + u32(UInt32(truncatingIfNeeded: units >> 32)) + u32(UInt32(truncatingIfNeeded: units))
                + u32(captured ?? UInt32(data.count)) + u32(UInt32(data.count)) + data)
    }

    /// A Simple Packet Block (interface 0, no time).
    public mutating func simplePacket(_ data: [UInt8]) {
        block(3, u32(UInt32(data.count)) + data)
    }

    /// Raw bytes at the end (a cut block, garbage).
    public mutating func append(_ raw: [UInt8]) { bytes += raw }

    /// Writes the file; its path.
    public func write(_ path: String) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
