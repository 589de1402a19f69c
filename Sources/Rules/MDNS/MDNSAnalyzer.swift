import DNS
import Findings
import NetLayers
import WireFormat

/// Decides which datagrams are mDNS (UDP 5353 either side: multicast traffic, legacy
/// queries to 5353 and the unicast replies from 5353), decodes them and runs the mDNS rules.
public struct MDNSAnalyzer: Sendable {
    /// The enabled rules, unretained (see `SSDPChecker`).
    private var rules = MDNSRules.all.map(Unmanaged.passUnretained)
    private var filteredFor: Set<RuleID> = []
    /// The last message judged: a datagram with the same payload shares its decoding.
    private var last: MDNSInput? = nil
    public init() {}

    public static func claims(_ d: Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }
    public func claims(_ d: Datagram) -> Bool { Self.claims(d) }

    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> DNSMessage {
        judge(d, into: &sink).message
    }

    /// Decodes and judges one datagram; returns the rules' view of it (message and per-record facts).
    public mutating func judge(_ d: Datagram, into sink: inout FindingSink) -> MDNSInput {
        let input: MDNSInput
        if let last, last.datagram.payload.sameBytes(as: d.payload) {
            input = MDNSInput(sharing: last, datagram: d)
        } else {
            input = MDNSInput(message: DNSMessage(parsing: d.payload), datagram: d)
        }
        last = input
        let m = input.message
        // The host a response speaks for: the owner of its first address record, or the
        // target of its first SRV (for suppressions by host name and the device count).
        var host: DNSName? = nil
        if input.isResponse {
            if let a = input.records.first(where: { $0.record.type == .a || $0.record.type == .aaaa }) {
                host = a.record.name
            } else if let s = input.records.first(where: { $0.record.type == .srv }), case .srv(_, _, _, let t) = s.record.value {
                host = t
            }
        }
        if let host { sink.deviceKey = host.key(in: m.payload) }
        // The enabled rules, filtered once per disabled set rather than hashed per message.
        if sink.disabled != filteredFor {
            filteredFor = sink.disabled
            rules = MDNSRules.all.filter { !sink.disabled.contains($0.descriptor.id) }.map(Unmanaged.passUnretained)
        }
        for rule in rules {
            rule._withUnsafeGuaranteedRef { $0.check(input, &sink) }
        }
        if let host { sink.attachDevice { host.presentation(in: m.payload) } }
        return input
    }

    public mutating func finish(into sink: inout FindingSink) {}
}
