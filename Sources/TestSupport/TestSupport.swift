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
