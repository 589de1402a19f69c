import DNS
import Findings
import NetLayers

enum MDNSRender {
    static func record(_ m: DNSMessage, _ d: Datagram, verbose: Bool) -> MessageRecord {
        MessageRecord(
            frame: d.frame, time: d.time, src: d.src.description, sport: d.srcPort, dst: d.dst.description,
            dport: d.dstPort, ipTTL: d.hopLimit, proto: .mdns, kind: "query", summary: "id \(m.id)")
    }
}
