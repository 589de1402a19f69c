import Findings
import NetLayers
import SSDP

enum SSDPRender {
    static func record(_ m: SSDPMessage, _ d: Datagram, verbose: Bool) -> MessageRecord {
        MessageRecord(
            frame: d.frame, time: d.time, src: d.src.description, sport: d.srcPort, dst: d.dst.description,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .ssdp, kind: "other",
            summary: String(decoding: m.startLine, as: UTF8.self))
    }
}
