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
    /// What the message-only rules found in the last payload decoded, in order, each with the
    /// index in `rules` of the rule that reported it; a datagram sharing that decoding
    /// reports them again. `repeatable` is false until they have been collected for the
    /// current rule list.
    private var messageFindings: [(rule: Int, finding: Finding)] = []
    private var repeatable = false
    public init() {}

    public static func claims(_ d: Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }
    public func claims(_ d: Datagram) -> Bool { Self.claims(d) }

    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> DNSMessage {
        judge(d, into: &sink).message
    }

    /// Decodes and judges one datagram; returns the rules' view of it (message and per-record facts).
    public mutating func judge(_ d: Datagram, into sink: inout FindingSink) -> MDNSInput {
        let input: MDNSInput
        let repeated: Bool
        if let last, last.datagram.payload.sameBytes(as: d.payload) {
            input = MDNSInput(last.decoded, datagram: d)
            repeated = true
        } else {
            input = MDNSInput(message: DNSMessage(parsing: d.payload), datagram: d)
            repeated = false
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
            repeatable = false
        }
        if repeated && repeatable {
            // Same payload: the message-only rules' findings are those of the decoding's first
            // datagram, in the same places among the others.
            messageFindings.withUnsafeBufferPointer { found in
                var next = 0
                for k in rules.indices {
                    rules[k]._withUnsafeGuaranteedRef { rule in
                        if rule.judgesMessageOnly {
                            while next < found.count, found[next].rule == k {
                                sink.repeatFinding(found[next].finding)
                                next += 1
                            }
                        } else {
                            rule.check(input, &sink)
                        }
                    }
                }
            }
        } else {
            messageFindings.removeAll(keepingCapacity: true)
            for k in rules.indices {
                rules[k]._withUnsafeGuaranteedRef { rule in
                    let before = sink.findings.count
                    rule.check(input, &sink)
                    if rule.judgesMessageOnly {
                        for f in before..<sink.findings.count { messageFindings.append((k, sink.findings[f])) }
                    }
                }
            }
            repeatable = true
        }
        if let host { sink.attachDevice { host.presentation(in: m.payload) } }
        return input
    }

    public mutating func finish(into sink: inout FindingSink) {}
}
