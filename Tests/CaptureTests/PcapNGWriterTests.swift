import Capture
import Foundation
import NetLayers
import Testing
import WireFormat

/// `PcapNGWriter`'s packet comments (`-w FILE.pcapng`), read back from the bytes it wrote.
@Suite struct PcapNGWriterTests {
    static func u32(_ b: [UInt8], _ at: Int) -> Int {
        Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24
    }

    /// The options of each enhanced packet block: (code, value) in order.
    static func packetOptions(_ b: [UInt8]) -> [[(code: Int, value: [UInt8])]] {
        var out: [[(Int, [UInt8])]] = []
        var at = 0
        while at + 12 <= b.count {
            let type = u32(b, at)
            let length = u32(b, at + 4)
            guard length >= 12, at + length <= b.count, u32(b, at + length - 4) == length else {
                Issue.record("block at \(at) with length \(length) does not end with it")
                return out
            }
            if type == 6 {
                let captured = u32(b, at + 20)
                var o = at + 28 + (captured + 3) / 4 * 4
                var options: [(Int, [UInt8])] = []
                while o + 4 <= at + length - 4 {
                    let code = Int(b[o]) | Int(b[o + 1]) << 8
                    let n = Int(b[o + 2]) | Int(b[o + 3]) << 8
                    if code == 0 { break }
                    options.append((code, Array(b[(o + 4)..<(o + 4 + n)])))
                    o += 4 + (n + 3) / 4 * 4
                }
                out.append(options)
            }
            at += length
        }
        return out
    }

    @Test func commentsAreOptCommentOptionsAfterThePacketAndAPacketWithoutHasNoOptions() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("w-\(UUID().uuidString).pcapng").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let w = try PcapNGWriter(
            path: path, interfaces: [PcapNGWriter.Interface(name: "", linkType: .ethernet, snapLength: 65535)])
        let payload: [UInt8] = Array(repeating: 0xAB, count: 61)
        let frame = RawFrame(
            number: 1, time: Timestamp(seconds: 1_700_000_000, nanoseconds: 7), linkType: .ethernet,
            capturedLength: 61, originalLength: 61)
        var failure: CaptureError? = nil
        payload.withUnsafeBytes { b in
            do throws(CaptureError) {
                try w.write(interface: 0, frame: frame, bytes: b, comments: ["DiscoScope: one", "DiscoScope: zwei é"])
                try w.write(interface: 0, frame: frame, bytes: b)
                // Longer than an option holds: cut before a whole character.
                try w.write(interface: 0, frame: frame, bytes: b, comments: [String(repeating: "é", count: 40000)])
            } catch {
                failure = error
            }
        }
        #expect(failure?.description == nil)
        #expect(w.close())
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let packets = Self.packetOptions(bytes)
        #expect(packets.count == 3)
        guard packets.count == 3 else { return }
        #expect(packets[0].map(\.code) == [1, 1])
        #expect(
            packets[0].map { String(decoding: $0.value, as: UTF8.self) } == ["DiscoScope: one", "DiscoScope: zwei é"])
        #expect(packets[1].isEmpty)
        #expect(packets[2].count == 1 && packets[2].first?.value.count == 65534)
        #expect(packets[2].first.map { String(validating: $0.value, as: UTF8.self) != nil } == true)
        // The interface block (after the section header) has no if_name when none is given:
        // its first option is if_tsresol.
        let idb = Self.u32(bytes, 4)
        #expect(Self.u32(bytes, idb) == 1 && Int(bytes[idb + 16]) | Int(bytes[idb + 17]) << 8 == 9)
    }
}
