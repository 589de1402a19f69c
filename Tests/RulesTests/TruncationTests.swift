import DNS
import Findings
import NetLayers
import Testing

@testable import Rules

/// A message the snap length cut is judged on what was captured whole, never on what is
/// missing or on a value cut in the middle: every prefix of a clean message raises nothing
/// (swift-asn1's drip-feed test, turned round).
@Suite struct TruncationTests {
    /// `d` as the capture would hold it with a snap length that kept `kept` payload bytes.
    static func cut(_ d: Datagram, to kept: Int) -> Datagram {
        var c = d
        c.udpPayloadLength = d.payload.count
        c.payload = Array(d.payload.prefix(kept))
        return c
    }

    static let cleanMessages: [(String, Datagram)] = [
        ("alive", multicast(ssdp(notifyLine, alive11))),
        ("byebye", multicast(ssdp(notifyLine, byebye11))),
        ("update", multicast(ssdp(notifyLine, update11))),
        ("search", multicast(ssdp(mSearchLine, search11), sport: 50000)),
        ("response", response(ssdp(okLine, response11))),
        ("mDNS announcement", mdns(service())),
        ("mDNS query", mdns(ask("_ipp._tcp.local"))),
    ]

    @Test func everyPrefixOfACleanMessageRaisesNothing() {
        for (name, d) in Self.cleanMessages {
            #expect(findingsOnLast([d]).filter { $0.severity >= .warning }.isEmpty, "\(name) is not clean whole")
            for kept in 0..<d.payload.count {
                let found = findingsOnLast([Self.cut(d, to: kept)]).filter { $0.severity >= .warning }
                #expect(found.isEmpty, "\(name) cut to \(kept) bytes: \(found.map { "\($0.rule) \($0.message)" })")
            }
        }
    }

    /// The issue's case: NTS cut to `ssdp:al` is not a wrong NTS, and a cut alive lacks nothing.
    @Test func aNotifyCutInsideNTSIsNotAnInvalidNTS() {
        let alive = multicast(ssdp(notifyLine, alive11))
        let text = String(decoding: alive.payload, as: UTF8.self)
        let at = text.utf8.count - text.split(separator: "ssdp:alive", maxSplits: 1)[1].utf8.count - 3
        let found = findingsOnLast([Self.cut(alive, to: at)])
        #expect(!found.contains { $0.rule == "SSDP-302" || $0.rule == "SSDP-301" }, "\(found.map(\.message))")
        // The same bytes whole are an invalid NTS.
        let wrong = multicast(ssdp(notifyLine, alive11.setting("NTS", "ssdp:al")))
        #expect(findingsOnLast([wrong]).contains { $0.rule == "SSDP-302" })
    }

    /// A whole message's rule findings are not replayed onto a cut one with the same bytes,
    /// nor the other way round.
    @Test func aCutMDNSPayloadIsJudgedOnItsOwn() {
        let ptrOnly = mdns(
            response { $0.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local")) })
        var cut = ptrOnly
        cut.udpPayloadLength = ptrOnly.payload.count + 100
        let both = analyse([ptrOnly, cut, ptrOnly]).findings.filter { $0.rule == "MDNS-308" }
        #expect(both.map(\.firstFrame) == [1, 3])
    }
}
