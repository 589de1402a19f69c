import DNS
import NetLayers
import WireFormat

// Building blocks shared by the mDNS session rules and their examples.

enum MDNSSession {
    /// Capture timestamps jitter: intervals are judged with this much slack.
    static let jitter = 0.01

    /// Seconds from `a` to `b` (never negative: event times never decrease).
    static func since(_ a: Timestamp, _ b: Timestamp) -> Double { max(0, Timestamp.seconds(from: a, to: b)) }

    /// One of 64 bits chosen by a name's key: a set of names as the OR of their bits tells
    /// in one test that a name is not among them (a set bit still needs the names compared).
    static func nameBit(_ name: UInt64) -> UInt64 { 1 &<< ((name &* 0x9E37_79B9_7F4A_7C15) &>> 58) }

}

/// A probe from 192.168.1.20 for `name` (qtype ANY, QU) proposing `printer.local. A`.
func probe(
    _ name: String = "printer.local", qu: Bool = true, qtype: UInt16 = 255, src: String = "192.168.1.20", at t: Double
)
    -> Datagram
{
    mdns(
        query { b in
            b.question(name, qtype, qu: qu)
            b.record(.authority, name, 1, ttl: 120, rdata: B.a("192.168.1.20"))
        }, src: src, at: t)
}

/// `printer.local. A 192.168.1.20` (cache-flush) multicast from 192.168.1.20.
func announce(_ addr: String = "192.168.1.20", src: String = "192.168.1.20", ttl: UInt32 = 120, at t: Double)
    -> Datagram
{
    mdns(
        response { b in
            b.record(.answer, "printer.local", 1, flush: true, ttl: ttl, rdata: B.a(addr))
        }, src: src, at: t)
}

extension MDNSInput {
    /// The answer section's records with their facts (a query's Known-Answers), in order.
    var answerRecords: LazyFilterSequence<[RecordInfo]> { records.lazy.filter { $0.section == .answer } }

    /// The questions with their names' keys (computed when the message was decoded).
    var keyedQuestions: Zip2Sequence<[DNSQuestion], LazyMapSequence<[NameInfo], UInt64>> {
        zip(message.questions, questionNames.lazy.map(\.key))
    }
}

extension MDNSRecordKey {
    /// The record's identity from the keys computed when its message was decoded.
    init(_ r: MDNSInput.RecordInfo) {
        self.init(
            set: MDNSRRSetKey(name: r.nameKey, type: r.record.type.rawValue, rrclass: r.record.rrclass),
            rdata: r.rdataKey)
    }
}
