import Findings
import NetLayers
import Rules
import WireFormat

/// The in-order part of mDNS analysis, on the thread that reads the capture: claims UDP 5353
/// either side (multicast traffic, legacy queries to 5353 and the unicast replies from it)
/// and runs the session rules over each message's header in capture order. Decoding and the
/// stateless rules (`MDNSJudge`) run afterwards, on any thread.
struct MDNSRouter {
    private var sessions: SessionEngine<MDNSEvent>

    init(disabled: Set<RuleID> = []) {
        sessions = SessionEngine(RuleRegistry.mdnsSession, disabled: disabled)
    }

    static func claims(_ d: borrowing Datagram) -> Bool { d.srcPort == 5353 || d.dstPort == 5353 }

    /// The session rules' reports on `d`, whose payload is `range` of `bytes` (a payload too
    /// short for the header's ID and flags is left to the stateless rules).
    mutating func settle(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> [SessionReports.Report] {
        guard !sessions.isEmpty, range.count >= 4 else { return [] }
        let b = range.lowerBound
        let event = MDNSEvent(
            frame: d.frame, time: d.time, src: d.src, srcPort: d.srcPort, dst: d.dst, dstPort: d.dstPort,
            id: UInt16(bytes[b]) << 8 | UInt16(bytes[b + 1]), isResponse: bytes[b + 2] & 0x80 != 0)
        var reports = SessionReports()
        sessions.observe(event, into: &reports)
        return reports.reports
    }

    /// The end of the input: session rules conclude.
    mutating func finish(into out: inout SessionReports) {
        sessions.finish(into: &out)
    }
}
