import Capture
import Foundation
import NetLayers
import TestSupport
import Testing
import WireFormat

/// What a source delivered: each frame with its bytes, and the error that ended it.
struct Delivered {
    var frames: [(frame: RawFrame, bytes: [UInt8])] = []
    var error: CaptureError? = nil
    var names: [String] = []
}

func readAll(_ path: String, filter: String? = nil) throws -> (source: any FrameSource, delivered: Delivered) {
    let source = try OfflineSource.open(path)
    if let filter { try source.setOfflineFilter(filter) }
    var out = Delivered()
    do {
        while case .frame = try source.next({ frame, bytes in out.frames.append((frame, Array(bytes))) }) {}
    } catch {
        out.error = error
    }
    out.names = source.segmentNames
    return (source, out)
}

/// pcapng files with several interfaces, read by DiscoScope's own reader (one segment per
/// interface), and files that attack it: every length checked, a clear error, no crash.
@Suite struct PcapNGSourceTests {
    /// Three Ethernet frames of captures/link/ethernet.pcap: M-SEARCH, 200 OK, NOTIFY.
    static let frames = pcapRecords(Fixtures.capture("link/ethernet.pcap")).prefix(3).map(\.data)

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ds-\(UUID().uuidString)-\(name)").path
    }

    /// Two named interfaces and a good packet on each.
    static func twoInterfaces(bigEndian: Bool = false) -> PcapNGBuilder {
        var b = PcapNGBuilder(bigEndian: bigEndian)
        b.interface(name: "lan")
        b.interface(name: "iot")
        b.packet(interface: 0, units: 1_700_000_000_000_000, frames[0])
        b.packet(interface: 1, units: 1_700_000_000_100_000, frames[1])
        return b
    }

    @Test(arguments: [false, true])
    func eachInterfaceIsASegmentInEitherByteOrder(bigEndian: Bool) throws {
        let path = try Self.twoInterfaces(bigEndian: bigEndian).write(Self.temporary("two.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (source, d) = try readAll(path)
        #expect(!(source is PcapHandle))
        #expect(d.error == nil)
        #expect(d.names == ["lan", "iot"])
        #expect(d.frames.map(\.frame.segment) == [0, 1])
        #expect(d.frames.map(\.frame.number) == [1, 2])
        #expect(d.frames.map(\.bytes) == Array(Self.frames.prefix(2)))
        #expect(d.frames[1].frame.time == Timestamp(seconds: 1_700_000_000, nanoseconds: 100_000_000))
    }

    @Test func resolutionOffsetSimplePacketsAndNamesFollowTheInterfaces() throws {
        var b = PcapNGBuilder()
        // Nanoseconds, and 2^-20 s with an offset of 1000 s; no name: FILE#N.
        b.interface(name: "eth0", resolution: 9)
        let offset: [UInt8] = [0xE8, 0x03, 0, 0, 0, 0, 0, 0]  // 1000, little-endian
        b.interface(linkType: 1, resolution: 0x80 | 20, extra: b.option(14, offset))
        b.interface(name: "eth0")  // the same name: the same segment
        b.packet(interface: 0, units: 1_700_000_000_123_456_789, Self.frames[0])
        b.packet(interface: 1, units: 3 << 19, Self.frames[1])  // 1.5 s
        b.packet(interface: 2, units: 1_700_000_001_000_000, Self.frames[2])
        b.simplePacket(Self.frames[2])
        let path = try b.write(Self.temporary("tsresol.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, d) = try readAll(path)
        #expect(d.error == nil)
        let stem = String((path.split(separator: "/").last ?? "").dropLast(".pcapng".count))
        #expect(d.names == ["eth0", "\(stem)#1"])
        #expect(d.frames.map(\.frame.segment) == [0, 1, 0, 0])
        #expect(d.frames[0].frame.time == Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))
        #expect(d.frames[1].frame.time == Timestamp(seconds: 1001, nanoseconds: 500_000_000))
        // A simple packet: interface 0, the last time seen.
        #expect(d.frames[3].frame.time == d.frames[2].frame.time)
        #expect(d.frames[3].bytes == Self.frames[2])
    }

    @Test func aFilterIsAppliedPerRecordAndFramesKeepTheirNumbers() throws {
        let path = try Self.twoInterfaces().write(Self.temporary("filter.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, d) = try readAll(path, filter: "src port 1900")
        #expect(d.frames.map(\.frame.number) == [2])
        #expect(throws: CaptureError.self) { try OfflineSource.open(path).setOfflineFilter("udp port") }
    }

    @Test func oneInterfaceStillGoesThroughLibpcap() throws {
        var b = PcapNGBuilder()
        b.interface(name: "lan")
        b.packet(interface: 0, units: 1_700_000_000_000_000, Self.frames[0])
        let path = try b.write(Self.temporary("one.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (source, d) = try readAll(path)
        #expect(source is PcapHandle)
        #expect(d.names.isEmpty && d.frames.count == 1 && d.frames[0].frame.segment == 0)
    }

    @Test func interfacesOfTwoLinkTypesAreRead() throws {
        let (_, d) = try readAll(Fixtures.capture("link/mixed-linktypes.pcapng"))
        #expect(d.error == nil)
        #expect(d.frames.map(\.frame.linkType) == [.ethernet, .linuxSLL])
        #expect(d.names == ["mixed-linktypes#0", "mixed-linktypes#1"])
    }

    /// Each attack after a good packet on each interface: the packets are delivered, then a
    /// clear error; a good packet after the attack (except after a cut) is not read.
    static let attacks: [(name: String, build: @Sendable (inout PcapNGBuilder) -> Void, reason: String)] = [
        (
            "length not a multiple of 4", { $0.block(6, [UInt8](repeating: 0, count: 40), length: 45) },
            "total length 45"
        ),
        ("length below the minimum", { $0.block(6, [UInt8](repeating: 0, count: 4), length: 16) }, "total length 16"),
        ("length of 4 GiB", { $0.block(6, [UInt8](repeating: 0, count: 40), length: 0xFFFF_FFFC) }, "at most 16777216"),
        (
            "length past the end", { $0.block(6, [UInt8](repeating: 0, count: 40), length: 4096) },
            "file ends in the middle"
        ),
        (
            "trailing length differs", { $0.block(6, [UInt8](repeating: 0, count: 40), trailer: 48) },
            "trailing length 48"
        ),
        (
            "captured length past the block", { $0.packet(interface: 0, units: 0, [1, 2, 3, 4], captured: 65535) },
            "captured length 65535 runs past the block"
        ),
        (
            "interface out of range", { $0.packet(interface: 9, units: 0, frames[0]) },
            "for interface 9, but the section describes 2 interface(s)"
        ),
        (
            "interface out of range in a new section",
            { b in
                b.section()
                b.packet(interface: 0, units: 0, frames[0])
            }, "for interface 0, but the section describes 0 interface(s)"
        ),
        ("option past its block", { $0.block(1, [1, 0, 0, 0, 0xFF, 0xFF, 0, 0, 2, 0, 200, 0]) }, "option 2 runs past"),
        ("time resolution 10^-30", { $0.interface(resolution: 30) }, "time resolution 10^-30"),
        ("cut inside a block", { $0.append([6, 0, 0, 0, 64, 0, 0, 0, 1, 2]) }, "file ends in the middle of a block"),
        ("cut inside a block header", { $0.append([6, 0, 0]) }, "file ends in the middle of a block header"),
        // The cut above, with a good block after it: the lengths run on into the next block.
        ("a block shorter than it says", { $0.append([6, 0, 0, 0, 64, 0, 0, 0]) }, "trailing length"),
        (
            "unknown byte order", { $0.append([0x0A, 0x0D, 0x0D, 0x0A, 28, 0, 0, 0, 1, 2, 3, 4]) },
            "unknown byte-order magic"
        ),
    ]

    @Test(arguments: attacks.indices)
    func aMalformedBlockEndsTheFileWithAClearError(_ k: Int) throws {
        let attack = Self.attacks[k]
        var b = Self.twoInterfaces()
        attack.build(&b)
        if !attack.name.hasPrefix("cut") { b.packet(interface: 0, units: 1_700_000_009_000_000, Self.frames[2]) }
        let path = try b.write(Self.temporary("hostile.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, d) = try readAll(path)
        let error = try #require(d.error, "\(attack.name)")
        #expect(error.description.contains(attack.reason), "\(attack.name): \(error)")
        #expect(error.description.hasPrefix(path + ": "), "\(attack.name): \(error)")
        // The packets before it were delivered; nothing after it.
        #expect(d.frames.count == 2, "\(attack.name)")
    }

    @Test func tooManyInterfacesIsAnErrorNotAnAllocation() throws {
        var b = Self.twoInterfaces()
        for _ in 0..<PcapNGSource.maxInterfaces { b.interface() }
        let path = try b.write(Self.temporary("many.pcapng"))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, d) = try readAll(path)
        #expect(d.error?.description.contains("more than \(PcapNGSource.maxInterfaces) interface descriptions") == true)
        #expect(d.frames.count == 2)
    }

    /// Random damage to a good file (bytes changed, lengths rewritten, the file cut): every
    /// read ends, with frames or an error, never a crash; what is delivered lies within the
    /// file's bytes.
    @Test func mutatedFilesNeverCrashTheReader() throws {
        var good = Self.twoInterfaces()
        good.interface(name: "third", resolution: 9)
        good.simplePacket(Self.frames[2])
        good.packet(interface: 2, units: 5, Self.frames[2])
        let original = good.bytes
        var rng = SplitMix64(seed: 0x5E6_3E47)
        let path = Self.temporary("mutated.pcapng")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for _ in 0..<400 {
            var bytes = original
            switch rng.next() % 4 {
            case 0:
                for _ in 0..<(1 + Int(rng.next() % 8)) {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            case 1:
                // A length or count field (a word at a 4-byte boundary) set to a random value.
                let at = Int(rng.next() % UInt64(bytes.count / 4)) * 4
                for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: rng.next() >> (8 * UInt64(k))) }
            case 2:
                bytes.removeLast(Int(rng.next() % UInt64(bytes.count - 40)))
            default:
                let at = Int(rng.next() % UInt64(bytes.count / 4)) * 4
                for k in 0..<4 { bytes[at + k] = [0xFF, 0xFF, 0xFF, 0x7F][k] }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            guard let (_, d) = try? readAll(path) else { continue }
            #expect(d.frames.allSatisfy { $0.bytes.count <= bytes.count })
        }
    }
}
