import DNS
import Findings
import NetLayers

/// Decides which datagrams are mDNS, decodes them and runs the mDNS rules.
public struct MDNSAnalyzer {
    public init() {}

    public func claims(_ d: Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }

    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> DNSMessage {
        DNSMessage(parsing: d.payload)
    }

    public mutating func finish(into sink: inout FindingSink) {}
}
