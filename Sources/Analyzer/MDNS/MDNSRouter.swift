import NetLayers

/// Which datagrams are mDNS: UDP 5353 either side (multicast traffic, legacy queries to 5353
/// and the unicast replies from it). Decoding and the stateless rules (`MDNSJudge`) run on
/// any thread; the session rules run afterwards on the decoded messages, in capture order
/// (`MDNSSessionStage`).
enum MDNSRouter {
    static func claims(_ d: borrowing Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }
}
