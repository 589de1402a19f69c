import Capture
import Foundation
import NetLayers
import TestSupport
import Testing

/// IGMP and MLD decoding against tshark, packet by packet, on real recordings: the avahi
/// reflector testbed (IGMPv3 and MLDv2 reports of every host) and a public capture.
@Suite struct MembershipTsharkTests {
    static let files = [
        "captures/testbed/reflector/working-lan.pcap", "captures/testbed/reflector/working-iot.pcap",
        "captures/testbed/reflector/filtered-lan.pcap", "captures/testbed/reflector/filtered-iot.pcap",
        "captures/public/zeek__zeek__mdns.pcap",
    ]

    static var tshark: String? {
        ["/usr/bin/tshark", "/usr/local/bin/tshark"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Per membership frame: `frame type modes groups`, as tshark dissects it.
    static func tsharkLines(_ path: String, tshark: String) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tshark)
        p.arguments = [
            "-r", path, "-Y",
            "igmp || icmpv6.type == 130 || icmpv6.type == 131 || icmpv6.type == 132 || icmpv6.type == 143",
            "-T", "fields", "-E", "separator=|", "-e", "frame.number", "-e", "igmp.type", "-e", "igmp.record_type",
            "-e", "igmp.maddr", "-e", "icmpv6.type", "-e", "icmpv6.mldr.mar.record_type", "-e",
            "icmpv6.mldr.mar.multicast_address", "-e", "icmpv6.mld.multicast_address",
        ]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            func at(_ k: Int) -> String { k < f.count ? f[k] : "" }
            if !at(1).isEmpty {
                let type = Int(at(1).dropFirst(2), radix: 16).map(String.init) ?? at(1)
                return "\(at(0)) \(type) [\(at(2))] [\(at(3))]"
            }
            let groups = at(6).isEmpty ? at(7) : at(6)
            return "\(at(0)) \(at(4)) [\(at(5))] [\(groups)]"
        }
    }

    /// The same, from DiscoScope's frame decoder.
    static func ourLines(_ path: String) throws -> [String] {
        let handle = try OfflineSource.open(path)
        var decoder = PacketDecoder()
        var lines: [String] = []
        var buffer: [UInt8] = []
        while true {
            let step = try handle.next { frame, bytes in
                buffer = Array(bytes)
                let outcome = decoder.decode(
                    frame: frame.number, time: frame.time, linkType: frame.linkType, frameBytes: buffer,
                    originalLength: frame.originalLength, wants: { _, _, _, _ in false })
                guard case .membership(let p) = outcome else { return }
                switch p.message {
                case .success(let m): lines.append("\(p.frame) " + Self.describe(m, ipv6: p.src.isIPv6))
                case .failure(let e): lines.append("\(p.frame) error \(e)")
                }
            }
            if case .end = step { break }
        }
        return lines
    }

    static func describe(_ m: MembershipMessage, ipv6: Bool) -> String {
        let type: Int =
            switch (m.version, m.kind) {
            case (.igmpV1, .query), (.igmpV2, .query), (.igmpV3, .query): 0x11
            case (.igmpV1, _): 0x12
            case (.igmpV2, .leave): 0x17
            case (.igmpV2, _): 0x16
            case (.igmpV3, _): 0x22
            case (_, .query): 130
            case (.mldV1, .leave): 132
            case (.mldV1, _): 131
            case (.mldV2, _): 143
            }
        let unspecified = ipv6 ? "::" : "0.0.0.0"
        switch m.kind {
        case .query, .leave:
            return "\(type) [] [\(m.group?.description ?? unspecified)]"
        case .report where m.version == .igmpV3 || m.version == .mldV2:
            let modes = m.records.map { String($0.mode.rawValue) }.joined(separator: ",")
            return "\(type) [\(modes)] [\(m.records.map(\.group.description).joined(separator: ","))]"
        case .report:
            return "\(type) [] [\(m.records.map(\.group.description).joined(separator: ","))]"
        }
    }

    @Test(arguments: files)
    func everyMembershipPacketDecodesAsTsharkDissectsIt(file: String) throws {
        guard let tshark = Self.tshark else {
            print("skipped: tshark is not installed (apt-get install tshark)")
            return
        }
        let path = Fixtures.packageRoot + "/" + file
        let theirs = try Self.tsharkLines(path, tshark: tshark)
        let ours = try Self.ourLines(path)
        #expect(!ours.isEmpty, "\(file) holds membership messages")
        #expect(ours == theirs)
    }
}
