import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// The per-message part of SSDP analysis: decodes a datagram's payload and runs the stateless
/// SSDP rules on it in a context its bytes or the session settled (`SSDPContext`). Datagrams
/// that repeat a payload reuse its decoding, its facts and what the message rules found in it
/// in the same version context, as mDNS does (`MDNSJudge`). One per worker thread.
struct SSDPJudge: Sendable {
    private let engine: RuleEngine<SSDPInput>
    /// Decodings kept for datagrams that repeat a payload (see `RepeatTable`), 2^`slotBits`
    /// per judge: SSDP devices repeat each NOTIFY for every target and every announcement
    /// period, and answer every search with the same responses.
    private var table: RepeatTable<Decoded>
    /// The table slot of the message being judged (set by `decode`).
    private var slot = 0

    /// One payload's decoding, what the in-order stage reads from it, and what the message
    /// rules found in it in each version context it was judged in (message rules see the
    /// message and its version alone).
    struct Decoded {
        /// What the payload decodes to, held by reference: the table, the worker and the
        /// judge read it in place rather than copying the message and its facts.
        final class Decoding: Sendable {
            let message: SSDPMessage
            let facts: SSDPRouter.Facts
            let payloadKey: UInt64
            /// The service profiles the payload claims (`SSDPMessageView.claims`).
            let claims: ServiceProfiles
            /// The message's fields as JSON members (`SSDPRender.writeFields`), when the run's
            /// reports carry them: made once per payload, as its decoding is.
            let fieldsJSON: [UInt8]

            init(
                message: SSDPMessage, facts: SSDPRouter.Facts, payloadKey: UInt64, claims: ServiceProfiles,
                fieldsJSON: [UInt8]
            ) {
                self.message = message
                self.facts = facts
                self.payloadKey = payloadKey
                self.claims = claims
                self.fieldsJSON = fieldsJSON
            }
        }
        let decoding: Decoding
        /// What the message rules found in each version context it was judged in.
        var judged: [(version: UPnPVersion, claimed: UPnPVersion?, kept: [RuleEngine<SSDPInput>.Kept])] = []

        var message: SSDPMessage { decoding.message }
        var facts: SSDPRouter.Facts { decoding.facts }
        var payloadKey: UInt64 { decoding.payloadKey }
        var claims: ServiceProfiles { decoding.claims }
        var fieldsJSON: [UInt8] { decoding.fieldsJSON }
    }

    /// Whether decodings keep their message's fields as JSON (`Decoded.fieldsJSON`).
    let makesFields: Bool

    init(disabled: Set<RuleID>, slotBits: Int = Analysis.RepeatTableSizes.analysis.ssdpBits, fields: Bool = false) {
        engine = RuleEngine(RuleRegistry.ssdp, disabled: disabled)
        table = RepeatTable(bits: slotBits)
        makesFields = fields
    }

    /// The payload array for a datagram carrying `bytes`: the table's array when it holds a
    /// decoding of the same bytes (shared), else a copy owned by this worker.
    mutating func payload(_ bytes: UnsafeRawBufferPointer) -> [UInt8] { table.payload(bytes) }

    /// The decoding of a datagram's whole payload, as captured, with its facts (what `judge`
    /// and `SSDPRouter.start` take): from the table when an earlier datagram carried the same
    /// bytes.
    mutating func decode(_ d: borrowing Datagram) -> Decoded {
        slot = table.slot(of: d.payload)
        if let known = table.value(at: slot, for: d.payload) { return known }
        let message = SSDPMessage(parsing: d.payload)
        let facts = SSDPRouter.Facts(message)
        // A NOTIFY's target (`facts.target`) is its NT.
        let claims = SSDPMessageView.claims(
            message.payload, st: facts.st, nt: message.kind == .notify ? facts.target : nil, usnType: facts.usnType,
            among: engine.judgedProfiles)
        let decoded = Decoded(
            decoding: Decoded.Decoding(
                message: message, facts: facts,
                payloadKey: d.payload.withUnsafeBytes { UInt64(truncatingIfNeeded: $0.contentHash) }, claims: claims,
                fieldsJSON: makesFields ? SSDPRender.fieldsJSON(message) : []))
        table.store(decoded, payload: d.payload, at: slot)
        return decoded
    }

    /// Judges `d`, whose whole payload `decoded` decodes (`decode`, just before). The
    /// datagram and the message move into the input (each copy retains their arrays).
    mutating func judge(
        _ d: consuming Datagram, _ decoded: borrowing Decoded, _ c: borrowing SSDPContext,
        into sink: inout FindingSink
    ) -> SSDPInput {
        let captured = decoded.message
        if c.deviceKey != 0 { sink.deviceKey = c.deviceKey }
        let input: SSDPInput
        if d.isTruncated {
            // Rules judge the complete lines only; the message is shown as captured. What is
            // found in a cut payload is not kept for others.
            let complete = SSDPMessage(parsing: Array(d.payload[..<Self.endOfCompleteLines(d.payload)]))
            input = SSDPInput(
                message: complete, datagram: d, version: c.version, claimedVersion: c.claimedVersion,
                isCandidateResponse: c.isCandidateResponse, fromSearchPort: c.fromSearchPort, captured: captured,
                claimedProfiles: SSDPMessageView.claims(complete, among: engine.judgedProfiles))
            // A message cut inside its start line has nothing whole to judge.
            if !input.message.payload.isEmpty { engine.run(input, into: &sink) }
        } else {
            input = SSDPInput(
                message: captured, datagram: d, version: c.version,
                claimedVersion: c.claimedVersion, isCandidateResponse: c.isCandidateResponse,
                fromSearchPort: c.fromSearchPort, claimedProfiles: decoded.claims)
            judgeWhole(input, into: &sink)
        }
        // USN's UUID is looked up only when there are findings to carry it.
        sink.attachDevice { input.message.usnUUID.map { "uuid:" + String(decoding: $0, as: UTF8.self) } }
        return input
    }

    /// Runs the rules on a whole datagram: the message rules' findings replayed when its
    /// payload was judged in the same version context before.
    private mutating func judgeWhole(_ input: SSDPInput, into sink: inout FindingSink) {
        let payload = input.datagram.payload
        guard var known = table.value(at: slot, for: payload) else {
            engine.run(input, into: &sink)
            return
        }
        if let j = known.judged.first(where: { $0.version == input.version && $0.claimed == input.claimedVersion }) {
            engine.replay(j.kept, on: input, into: &sink)
            return
        }
        var kept: [RuleEngine<SSDPInput>.Kept] = []
        engine.run(input, keeping: &kept, into: &sink)
        known.judged.append((input.version, input.claimedVersion, kept))
        table.store(known, payload: payload, at: slot)
    }

    /// Where the complete lines of a cut payload end: after its last LF. A line ending in a
    /// lone CR at the very end may have lost its LF to the cut, so it counts as cut too.
    static func endOfCompleteLines(_ p: [UInt8]) -> Int {
        guard let lf = p.lastIndex(of: 0x0A) else { return 0 }
        return lf + 1
    }
}
