import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// The per-message part of SSDP analysis: decodes a datagram's payload and runs the stateless
/// SSDP rules on it in a context its bytes or the session settled (`SSDPContext`). One per
/// worker thread.
///
/// It keeps no decodings: SSDP messages are cheaper to decode again than to keep (a table of
/// them, as mDNS has, was measured: Benchmarks/README.md).
struct SSDPJudge: Sendable {
    private let engine: RuleEngine<SSDPInput>

    init(disabled: Set<RuleID>) {
        engine = RuleEngine(RuleRegistry.ssdp, disabled: disabled)
    }

    /// The decoding of a datagram's whole payload, as captured (what `judge` takes).
    static func decode(_ d: borrowing Datagram) -> SSDPMessage { SSDPMessage(parsing: d.payload) }

    /// Judges `d`, whose whole payload `captured` decodes (`decode`). The datagram and the
    /// message move into the input (each copy retains their arrays).
    mutating func judge(
        _ d: consuming Datagram, _ captured: SSDPMessage, _ c: borrowing SSDPContext, into sink: inout FindingSink
    ) -> SSDPInput {
        let input: SSDPInput
        if d.isTruncated {
            // Rules judge the complete lines only; the message is shown as captured.
            let complete = SSDPMessage(parsing: Array(d.payload[..<Self.endOfCompleteLines(d.payload)]))
            input = SSDPInput(
                message: complete, datagram: d, version: c.version, claimedVersion: c.claimedVersion,
                isCandidateResponse: c.isCandidateResponse, fromSearchPort: c.fromSearchPort, captured: captured)
        } else {
            input = SSDPInput(
                message: captured, datagram: d, version: c.version,
                claimedVersion: c.claimedVersion, isCandidateResponse: c.isCandidateResponse,
                fromSearchPort: c.fromSearchPort)
        }
        if c.deviceKey != 0 { sink.deviceKey = c.deviceKey }
        // A message cut inside its start line has nothing whole to judge.
        if !(input.isTruncated && input.message.payload.isEmpty) { engine.run(input, into: &sink) }
        // USN's UUID is looked up only when there are findings to carry it.
        sink.attachDevice { input.message.usnUUID.map { "uuid:" + String(decoding: $0, as: UTF8.self) } }
        return input
    }

    /// Where the complete lines of a cut payload end: after its last LF. A line ending in a
    /// lone CR at the very end may have lost its LF to the cut, so it counts as cut too.
    static func endOfCompleteLines(_ p: [UInt8]) -> Int {
        guard let lf = p.lastIndex(of: 0x0A) else { return 0 }
        return lf + 1
    }
}
