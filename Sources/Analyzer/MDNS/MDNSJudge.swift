import DNS
import Findings
import NetLayers
import Rules
import WireFormat

/// The per-message part of mDNS analysis: decodes a datagram's payload and runs the mDNS
/// rules on it. Datagrams that repeat a payload reuse its decoding and what the message rules
/// found in it. One per worker thread.
struct MDNSJudge: Sendable {
    private let engine: RuleEngine<MDNSInput>
    /// Decodings kept for datagrams that repeat a payload (see `RepeatTable`): 2^`slotBits`
    /// entries per judge (each worker thread has one). The size is a trade between hits and
    /// memory (Benchmarks/README.md, "Measurements behind the code").
    private var table: RepeatTable<Decoded>
    /// The table slot of the last datagram judged (`MessageWorker` keeps its rendered
    /// summaries in a table of the same size, by the same slot).
    private(set) var lastSlot = 0

    /// One payload's decoding and what the message rules found in it.
    struct Decoded {
        var view: MDNSMessageView
        var kept: [RuleEngine<MDNSInput>.Kept]
        /// The host a response's records are about (see `named(_:)`).
        var host: DNSName?
    }

    init(disabled: Set<RuleID>, slotBits: Int = Analysis.RepeatTableSizes.analysis.mdnsBits) {
        engine = RuleEngine(RuleRegistry.mdns, disabled: disabled)
        table = RepeatTable(bits: slotBits)
        judgedProfiles = (RuleRegistry.mdnsSession + RuleRegistry.mdnsSegments)
            .filter { !disabled.contains($0.descriptor.id) }
            .reduce(engine.judgedProfiles) { $0.union($1.observedProfiles) }
        sessions = MDNSSessionStage.isEnabled(disabled: disabled)
    }

    /// The service profiles the enabled mDNS rules judge, message and session rules alike:
    /// a decoding looks for profile instances only when there are some.
    let judgedProfiles: ServiceProfiles
    /// Whether the run's session stage runs: a decoding makes the facts it reads only then.
    let sessions: Bool

    /// The payload array for a datagram carrying `bytes`: when the table holds a decoding of
    /// the same bytes, that decoding's array (shared: nothing allocated or copied), else a
    /// copy. Lets the worker that decodes a datagram, rather than the thread that read it,
    /// own the payload it keeps.
    mutating func payload(_ bytes: UnsafeRawBufferPointer) -> [UInt8] { table.payload(bytes) }

    /// Decodes and judges one datagram captured on a link with `subnets`; returns the rules'
    /// view of it (message and per-record facts).
    mutating func judge(
        _ d: Datagram, subnets: LinkSubnets = LinkSubnets(), into sink: inout FindingSink
    ) -> MDNSInput {
        let slot = table.slot(of: d.payload)
        lastSlot = slot
        let input: MDNSInput
        let host: DNSName?
        if d.isTruncated {
            // A cut payload is judged on its own: its findings are not kept for others, nor
            // those of a whole one with the same bytes replayed on it.
            input = MDNSInput(
                message: DNSMessage(parsing: d.payload), datagram: d, subnets: subnets, judging: judgedProfiles,
                sessions: sessions)
            host = Self.host(input)
            if let host { sink.deviceKey = host.key(in: input.message.payload) }
            engine.run(input, into: &sink)
        } else if let known = table.value(at: slot, for: d.payload) {
            // Same payload: the message rules' findings are those of the decoding's first
            // datagram, in the same places among the others.
            input = MDNSInput(known.view, datagram: d, subnets: subnets)
            host = input.isRelayed ? nil : known.host
            if let host { sink.deviceKey = host.key(in: input.message.payload) }
            engine.replay(known.kept, on: input, into: &sink)
        } else {
            input = MDNSInput(
                message: DNSMessage(parsing: d.payload), datagram: d, subnets: subnets, judging: judgedProfiles,
                sessions: sessions)
            let named = Self.named(input)
            host = input.isRelayed ? nil : named
            if let host { sink.deviceKey = host.key(in: input.message.payload) }
            var kept: [RuleEngine<MDNSInput>.Kept] = []
            engine.run(input, keeping: &kept, into: &sink)
            table.store(Decoded(view: input.decoded, kept: kept, host: named), payload: d.payload, at: slot)
        }
        if let host { sink.attachDevice { host.presentation(in: input.message.payload) } }
        return input
    }

    /// The host a response speaks for: the owner of its first address record, or the target
    /// of its first SRV (for suppressions by host name and the device count); nil for a
    /// forwarder's copy of a host's records (`MDNSInput.isRelayed`): that is the forwarder's
    /// message, not the host's.
    static func host(_ input: MDNSInput) -> DNSName? {
        input.isRelayed ? nil : named(input)
    }

    /// The host a response's records are about, whoever sent it (`host`, for the payload's
    /// decoding: whether it was relayed depends on the datagram).
    static func named(_ input: MDNSInput) -> DNSName? {
        guard input.isResponse else { return nil }
        if let a = input.records.first(where: { $0.record.type == .a || $0.record.type == .aaaa }) {
            return a.record.name
        }
        if let s = input.records.first(where: { $0.record.type == .srv }), case .srv(_, _, _, let t) = s.record.value {
            return t
        }
        return nil
    }
}
