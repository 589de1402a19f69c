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
    /// Decodings kept for datagrams that repeat a payload (see `RepeatTable`): `slots`
    /// entries per analyzer (each worker thread has one), about 12 MB each on busy traffic.
    /// 8192 slots held half of the anchors workload's repeats with two threads; 4096 held
    /// 44 %, 16384 56 %.
    private var table = RepeatTable<Decoded>(bits: MDNSAnalyzer.slotBits)
    static let slotBits = 13
    public static let slots = 1 << slotBits
    /// Bumped when the rule list changes: findings collected under an older list are not replayed.
    private var generation = 0
    /// The table slot of the last datagram judged (`MessageWorker` keeps its rendered
    /// summaries in a table of the same size, by the same slot).
    public private(set) var lastSlot = 0

    /// One payload's decoding and what the message-only rules found in it, in order, each
    /// with the index in `rules` of the rule that reported it.
    struct Decoded {
        var view: MDNSMessageView
        var findings: [(rule: Int, finding: Finding)]
        var generation: Int
        /// The host a response speaks for (see `host(_:)`).
        var host: DNSName?
    }

    public init() {}

    /// The payload array for a datagram carrying `bytes`: when the table holds a decoding of
    /// the same bytes, that decoding's array (shared: nothing allocated or copied), else a
    /// copy. Lets the worker that decodes a datagram, rather than the thread that read it,
    /// own the payload it keeps.
    public mutating func payload(_ bytes: UnsafeRawBufferPointer) -> [UInt8] { table.payload(bytes) }

    public static func claims(_ d: Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }
    public func claims(_ d: Datagram) -> Bool { Self.claims(d) }

    public mutating func analyze(_ d: Datagram, into sink: inout FindingSink) -> DNSMessage {
        judge(d, into: &sink).message
    }

    /// Decodes and judges one datagram; returns the rules' view of it (message and per-record facts).
    public mutating func judge(_ d: Datagram, into sink: inout FindingSink) -> MDNSInput {
        // The enabled rules, filtered once per disabled set rather than hashed per message.
        if sink.disabled != filteredFor {
            filteredFor = sink.disabled
            rules = MDNSRules.all.filter { !sink.disabled.contains($0.descriptor.id) }.map(Unmanaged.passUnretained)
            generation &+= 1
        }
        let slot = table.slot(of: d.payload)
        lastSlot = slot
        let input: MDNSInput
        let host: DNSName?
        if let known = table.value(at: slot, for: d.payload), known.generation == generation {
            // Same payload: the message-only rules' findings are those of the decoding's first
            // datagram, in the same places among the others.
            input = MDNSInput(known.view, datagram: d)
            host = known.host
            if let host { sink.deviceKey = host.key(in: input.message.payload) }
            known.findings.withUnsafeBufferPointer { found in
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
            input = MDNSInput(message: DNSMessage(parsing: d.payload), datagram: d)
            host = Self.host(input)
            if let host { sink.deviceKey = host.key(in: input.message.payload) }
            var found: [(rule: Int, finding: Finding)] = []
            for k in rules.indices {
                rules[k]._withUnsafeGuaranteedRef { rule in
                    let before = sink.findings.count
                    rule.check(input, &sink)
                    if rule.judgesMessageOnly {
                        for f in before..<sink.findings.count { found.append((k, sink.findings[f])) }
                    }
                }
            }
            table.store(
                Decoded(view: input.decoded, findings: found, generation: generation, host: host), payload: d.payload, at: slot)
        }
        if let host { sink.attachDevice { host.presentation(in: input.message.payload) } }
        return input
    }

    /// The host a response speaks for: the owner of its first address record, or the target
    /// of its first SRV (for suppressions by host name and the device count).
    private static func host(_ input: MDNSInput) -> DNSName? {
        guard input.isResponse else { return nil }
        if let a = input.records.first(where: { $0.record.type == .a || $0.record.type == .aaaa }) {
            return a.record.name
        }
        if let s = input.records.first(where: { $0.record.type == .srv }), case .srv(_, _, _, let t) = s.record.value {
            return t
        }
        return nil
    }

    public mutating func finish(into sink: inout FindingSink) {}
}
