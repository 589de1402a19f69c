import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-5xx: stateful and timing rules across messages, and the stateful half of SSDP-205.

/// SSDP-205, its pairing half: a response goes to the port the M-SEARCH came from.
struct ResponsePortPairingRule: SessionRule {
    static var descriptor: RuleDescriptor { ResponseUnicastRule.descriptor }
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11), dport: 50001, at: 1),
                ], severity: .error),
            // From an ephemeral port to the wrong port: neither side is 1900, still analysed.
            RuleExample(
                [
                    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11), dport: 50001, sport: 41234, at: 1),
                ], severity: .error),
        ],
        nonTriggering: [
            RuleExample([
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                response(ssdp(okLine, response11), dport: 50000, at: 1),
            ])
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .response, e.search == nil, let other = e.searchFromOtherPort else { return }
        out.report(
            Self.descriptor, severity: .error,
            "response sent to port \(e.dstPort), but the M-SEARCH (frame \(other.frame)) came from port \(other.port)",
            related: [other.frame])
    }
}

/// SSDP-501: a response to a multicast M-SEARCH arrives within MX seconds, a device's
/// responses to ssdp:all are spread over the MX rather than sent as one burst, and a device
/// that answers search after search at once (under 5 % of the MX, for at least 5 searches and
/// 4 in 5 of those it answered) is said not to randomise its delay. One answer after a longer
/// delay does not clear it: uniform delays fall under 5 % of the MX for 1 search in 20, so
/// 7 of 8 such searches (gerbera.pcap: pupnp 1.8.4) are no chance.
struct ResponseWithinMXRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-501", "response-within-mx", .warning, "A response to a multicast M-SEARCH arrives within MX seconds",
        spec: "UDA 1.1/2.0 §1.3.3",
        "MX is capped at 5 for UPnP 1.1+ control points and 120 for 1.0; 0.5 s slack for capture jitter. Warning: a device (responder address and LOCATION) whose first response to each multicast search with MX 1 or more came under 5 % of the MX (the MX taken as at most 5 s) after the M-SEARCH, for at least 5 searches and at least 4 in 5 of the searches it answered, does not wait a random delay over the MX (uniform delays would fall there for 1 search in 20): on a large network every such device answers at once and the responses collide at the searcher. Judged at the end of the input, once per device; only the first response of the device to each search counts (a set of responses to ssdp:all is one answer); DiscoScope stays silent for fewer than 5 such searches, since a few prompt answers can be chance. Info: a device (responder address and LOCATION) that answers a multicast ssdp:all search with MX 1 or more with 3 or more responses, all within 10 ms, sent them as one burst instead of spreading them at random over the MX; judged when the search's window ends (at the end of the input, or by live capture's timer), reported once per device (UUID of its first response).",
        interop: "pupnp waits up to MX − 10 % with no cap; async_upnp_client sends each response twice",
        example:
            "M-SEARCH MX 3 at t0, 200 OK at t0 + 4.2 s; 9 of 10 searches with MX 2-3 answered within 5 ms (pupnp 1.8.4); all 12 responses to ssdp:all within 1 ms (info)",
        scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("MX", "3").setting("ST", "upnp:rootdevice")),
                    src: "192.168.1.10",
                    sport: 50000),
                response(ssdp(okLine, response11), at: 4.2),
            ]),
            // Late and from an ephemeral port: still analysed, and late.
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("MX", "3").setting("ST", "upnp:rootdevice")),
                    src: "192.168.1.10",
                    sport: 50000),
                response(ssdp(okLine, response11), sport: 41234, at: 9),
            ]),
            // pupnp 1.8.4: five searches with MX 2, each answered 2 ms after it (warning).
            RuleExample(answered(after: [0.002, 0.002, 0.002, 0.002, 0.002]), severity: .warning),
            // gerbera 1.1 on pupnp 1.8.4 (gerbera.pcap): seven answers 0.2-4.2 ms after the
            // search and one 597 ms after an MX of 3 s: 7 in 8 within 5 % of the MX.
            RuleExample(
                answered(after: [0.0004, 0.597, 0.0042, 0.0002, 0.0002, 0.0003, 0.0002, 0.0003], mx: 3),
                severity: .warning),
            // ssdp:all with MX 3, the whole set within 2 ms: one burst (info).
            RuleExample(
                [multicast(ssdp(mSearchLine, search11.setting("MX", "3")), src: "192.168.1.10", sport: 50000)]
                    + burst(at: [1.0, 1.001, 1.002]) + [otherSearch(at: 10)], severity: .info),
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("MX", "3").setting("ST", "upnp:rootdevice")),
                    src: "192.168.1.10",
                    sport: 50000),
                response(ssdp(okLine, response11), at: 3.4),
            ]),
            // Near miss: the same set spread over the MX.
            RuleExample(
                [multicast(ssdp(mSearchLine, search11.setting("MX", "3")), src: "192.168.1.10", sport: 50000)]
                    + burst(at: [0.4, 1.3, 2.6]) + [otherSearch(at: 10)]),
            // Near miss: two responses at once are not a set sent as a burst.
            RuleExample(
                [multicast(ssdp(mSearchLine, search11.setting("MX", "3")), src: "192.168.1.10", sport: 50000)]
                    + burst(at: [1.0, 1.001]) + [otherSearch(at: 10)]),
            // Near miss: five searches answered at random over the MX of 2 s.
            RuleExample(answered(after: [0.3, 1.1, 0.7, 1.6, 0.2])),
            // Near miss: four prompt answers are too few to tell a fixed delay from chance.
            RuleExample(answered(after: [0.002, 0.002, 0.002, 0.002])),
            // Near miss: five prompt answers of seven (under 4 in 5).
            RuleExample(answered(after: [0.002, 0.002, 1.2, 0.002, 0.002, 0.8, 0.002])),
            // Near miss: the capture ends inside the window (more responses may have come).
            RuleExample(
                [multicast(ssdp(mSearchLine, search11.setting("MX", "3")), src: "192.168.1.10", sport: 50000)]
                    + burst(at: [1.0, 1.001, 1.002])),
        ])

    /// The example device's answers to ssdp:all (root device, UUID, device type) at `times`.
    static func burst(at times: [Double]) -> [Datagram] {
        zip(["upnp:rootdevice", "uuid:\(exampleUUID)", deviceTypeNT], times).map { nt, t in
            response(ssdp(okLine, SearchResponseSetRule.answering(nt)), at: t)
        }
    }

    /// Searches for upnp:rootdevice with MX `mx` from 192.168.1.10:50000, 4 s apart, each
    /// answered by the example device `after` seconds (one search per delay), and a search
    /// from another host after the last window.
    static func answered(after delays: [Double], mx: Int = 2) -> [Datagram] {
        delays.enumerated().flatMap { k, d in
            let t = Double(k) * 4
            return [
                multicast(
                    ssdp(mSearchLine, search11.setting("MX", "\(mx)").setting("ST", "upnp:rootdevice")),
                    src: "192.168.1.10", sport: 50000, at: t),
                response(ssdp(okLine, response11), at: t + d),
            ]
        } + [otherSearch(at: Double(delays.count) * 4 + 10)]
    }

    /// Capture timestamps jitter: a response this much past MX is still in time.
    static let slack = 0.5
    /// A first answer this fraction of the MX (at most `promptMX` s) after its search came at
    /// once; `promptCount` such searches, `promptShare` of those answered, show a fixed delay.
    static let promptFraction = 0.05
    static let promptMX = 5.0
    static let promptCount = 5
    static let promptShare = 0.8

    /// One device, by responder address and LOCATION.
    struct DeviceKey: WordHashable {
        var responder: IPAddress
        var location: UInt64

        func feedWords<S: WordSink>(into sink: inout S) {
            responder.feedWords(into: &sink)
            sink.add(location)
        }
    }
    /// How soon a device answered the multicast searches with MX 1 or more it answered (a
    /// verdict row, `SSDPVerdicts.answerDelays`).
    struct Delays {
        /// The latest search counted (its later responses are the same answer).
        var search: Int
        var answered = 0
        var prompt = 0
        /// The prompt answers' delays, seconds, and MX range.
        var fastest = Double.infinity
        var slowest = 0.0
        var mxLow: UInt64 = .max
        var mxHigh: UInt64 = 0
        /// The first 8 prompt answers' frames, and the latest answer that was not prompt.
        var frames: [Int] = []
        var late: (frame: Int, delay: Double)?
        var uuid: [UInt8]
        var responder: IPAddress
        var first: Timestamp
        var last: Timestamp
        var reported = false
    }
    /// A device's answers to ssdp:all all within this span (at least `burstCount` of them)
    /// were sent as one burst.
    static let burstSpan = 0.01
    static let burstCount = 3

    /// Who answers whom: one device is its address and LOCATION (the root device and its
    /// embedded ones share the description).
    struct AnswerKey: WordHashable {
        var searcher: Endpoint
        var responder: IPAddress
        var location: UInt64

        func feedWords<S: WordSink>(into sink: inout S) {
            searcher.feedWords(into: &sink)
            responder.feedWords(into: &sink)
            sink.add(location)
        }
    }
    /// A device's answers to one ssdp:all search (its verdict row, `SSDPVerdicts.allAnswers`).
    struct Answers {
        var search: Int
        var searchTime: Timestamp
        var mx: UInt64
        /// The end of the search's window.
        var closes: Double
        var responder: IPAddress
        /// The UUID key and text of its first response's USN.
        var device: UInt64
        var uuid: [UInt8]
        var first: Timestamp
        var last: Timestamp
        var count = 1
        var frames: [Int]

        mutating func take(_ frame: Int, at t: Timestamp) {
            last = t
            count &+= 1
            if frames.count < 8 { frames.append(frame) }
        }

        var isBurst: Bool {
            count >= ResponseWithinMXRule.burstCount
                && Timestamp.seconds(from: first, to: last) <= ResponseWithinMXRule.burstSpan
        }
    }

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeWindows(by: e.time, &store, &out)
        guard e.kind == .response, let s = e.search, s.unicastTo == nil, let mx = s.mx, !e.timeWentBack else { return }
        let delay = Timestamp.seconds(from: s.time, to: e.time)
        if delay > Double(mx) + Self.slack, delay < 130 {
            out.report(
                Self.descriptor,
                "response \(String(format1: delay)) s after the M-SEARCH of frame \(s.frame), whose MX allows \(mx) s",
                related: [s.frame])
            return
        }
        guard mx >= 1, delay >= 0, let location = e.facts.locationKey, let device = e.facts.uuidKey else { return }
        noteDelay(e, s, mx, delay, DeviceKey(responder: e.src, location: location), &store, &out)
        guard ASCII.equalsIgnoringCase(s.st, s.st.indices, "ssdp:all") else { return }
        let key = AnswerKey(searcher: Endpoint(address: e.dst, port: e.dstPort), responder: e.src, location: location)
        if let f = store.verdicts.allAnswers[key]?.search {
            if f == s.frame {
                store.verdicts.allAnswers[key]?.take(e.frame, at: e.time)
                return
            }
            // A newer search from the same endpoint: the older one's answers are complete.
            if let old = store.verdicts.allAnswers[key], old.isBurst {
                store.verdicts.bursts.append(old, evicted: &out.evictions)
            }
        }
        let uuid = e.usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }.map { Array($0.prefix(80)) } ?? []
        let closes = s.time.asDouble + Double(mx) + Self.slack
        store.verdicts.allAnswers.insert(
            Answers(
                search: s.frame, searchTime: s.time, mx: mx, closes: closes, responder: e.src, device: device,
                uuid: uuid,
                first: e.time, last: e.time, frames: [e.frame]),
            for: key, at: e.time, evicted: &out.evictions)
        store.verdicts.earliestAllClose = min(store.verdicts.earliestAllClose ?? .infinity, closes)
    }

    /// Counts a device's first response to search `s` as prompt (under `promptFraction` of the
    /// MX) or not.
    private static func noteDelay(
        _ e: SSDPEvent, _ s: RecentSearch, _ mx: UInt64, _ delay: Double, _ key: DeviceKey,
        _ store: inout SSDPSessionStore, _ out: inout SessionReports
    ) {
        let prompt = delay < Self.promptFraction * min(Double(mx), Self.promptMX)
        let fresh = Delays(
            search: -1, uuid: e.usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }.map { Array($0.prefix(80)) } ?? [],
            responder: e.src, first: e.time, last: e.time)
        store.verdicts.answerDelays.update(key, default: fresh, at: e.time, evicted: &out.evictions) { d in
            guard d.search != s.frame else { return }
            d.search = s.frame
            d.last = e.time
            d.answered &+= 1
            guard prompt else {
                d.late = (e.frame, delay)
                return
            }
            d.prompt &+= 1
            d.fastest = min(d.fastest, delay)
            d.slowest = max(d.slowest, delay)
            d.mxLow = min(d.mxLow, mx)
            d.mxHigh = max(d.mxHigh, mx)
            if d.frames.count < 8 { d.frames.append(e.frame) }
        }
    }

    /// The devices that answered at once, every time: reported at the end of the input.
    private static func reportPrompt(_ store: inout SSDPSessionStore, _ out: inout SessionReports) {
        let rows = store.verdicts.answerDelays
        let due = rows.slots(
            where: {
                !$0.reported && $0.prompt >= Self.promptCount
                    && Double($0.prompt) >= Self.promptShare * Double($0.answered)
            }, by: { $0.frames.first ?? 0 })
        for k in due {
            let d = rows[k]
            store.verdicts.answerDelays.modify(rows.rows.keys[k]) { $0.reported = true }
            let uuid = String(decoding: d.uuid, as: UTF8.self)
            let mx = d.mxLow == d.mxHigh ? "\(d.mxLow)" : "\(d.mxLow)-\(d.mxHigh)"
            var other = ""
            if let late = d.late {
                other =
                    "; the latest other one after \(Int((min(late.delay, 86400) * 1000).rounded())) ms (frame \(late.frame))"
            }
            out.reportAtEnd(
                Self.descriptor, severity: .warning,
                "uuid:\(uuid) answered \(d.prompt) of the \(d.answered) multicast searches (MX \(mx) s) it answered within \(String(format1: d.fastest * 1000))-\(String(format1: d.slowest * 1000)) ms, under 5 % of the MX\(other): it does not wait a random delay in [0, MX] (UDA asks for one), so on a large network every such device answers at once and the responses collide at the searcher",
                frames: d.frames, time: d.first, source: d.responder, device: "uuid:\(uuid)")
        }
    }

    /// Answers whose search window ended by `now`: those sent as one burst wait to be reported.
    private static func closeWindows(by now: Timestamp, _ store: inout SSDPSessionStore, _ out: inout SessionReports) {
        let t = now.asDouble
        // The table is scanned only once its earliest window may have ended.
        guard let earliest = store.verdicts.earliestAllClose, earliest < t else { return }
        // In the order of their first responses, not the table's: the window of bursts is
        // capped, and what it drops must not depend on hashing.
        let closed = store.verdicts.allAnswers.rows.filter { $0.value.closes < t }.sorted {
            ($0.value.frames.first ?? $0.value.search) < ($1.value.frames.first ?? $1.value.search)
        }
        for (key, a) in closed {
            store.verdicts.allAnswers.remove(key)
            if a.isBurst { store.verdicts.bursts.append(a, evicted: &out.evictions) }
        }
        store.verdicts.earliestAllClose = store.verdicts.allAnswers.rows.values.lazy.map(\.closes).min()
    }

    static func conclude(by now: Timestamp, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeWindows(by: now, &store, &out)
        guard !store.verdicts.bursts.isEmpty else { return }
        for a in store.verdicts.bursts.elements.sorted(by: { $0.first < $1.first }) {
            guard
                store.verdicts.firstReport(
                    .responseBurst, on: a.device, frame: a.frames.first ?? a.search, time: a.first, &out)
            else { continue }
            let uuid = String(decoding: a.uuid, as: UTF8.self)
            let ms = Timestamp.seconds(from: a.first, to: a.last) * 1000
            out.reportAtEnd(
                Self.descriptor, severity: .info,
                "uuid:\(uuid) sent its \(a.count) responses to the ssdp:all search of frame \(a.search) (MX \(a.mx) s) within \(String(format1: ms)) ms, as one burst; UDA asks for a random delay over the MX",
                frames: a.frames + [a.search], time: a.first, source: a.responder, device: "uuid:\(uuid)")
        }
        store.verdicts.bursts.removeAll()
    }

    /// A window the input ends inside is not judged: more responses may have come.
    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        conclude(by: store.latest, in: &store, into: &out)
        if !store.verdicts.answerDelays.isEmpty { reportPrompt(&store, &out) }
    }
}

/// SSDP-502: a response to a unicast M-SEARCH arrives within 1 s.
struct UnicastResponseWithinOneSecondRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-502", "unicast-response-within-1s", .warning, "A response to a unicast M-SEARCH arrives within 1 s",
        spec: "UDA 1.1/2.0 §1.3.3",
        "Pairs a response from the device with the unicast M-SEARCH sent to it from the endpoint the response goes to (up to 5 s later); 0.5 s slack for capture jitter. Devices claiming UPnP/1.1 or later.",
        example: "unicast M-SEARCH at t0, response at t0 + 2.3 s", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample([unicastSearch(at: 0), response(ssdp(okLine, response11), at: 2.3)])],
        nonTriggering: [
            RuleExample([unicastSearch(at: 0), response(ssdp(okLine, response11), at: 0.4)]),
            // Judged against UDA 1.0, which sets no limit.
            RuleExample([
                unicastSearch(at: 0),
                response(ssdp(okLine, response11.setting("SERVER", "Linux/6.1 UPnP/1.0 test-dev/1.0")), at: 2.3),
            ]),
        ])

    static let limit = 1.0
    static let slack = 0.5

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .response, let s = e.search, s.unicastTo == e.src, e.version >= .v1_1, !e.timeWentBack else {
            return
        }
        let delay = Timestamp.seconds(from: s.time, to: e.time)
        guard delay > Self.limit + Self.slack else { return }
        out.report(
            Self.descriptor,
            "response \(String(format1: delay)) s after the unicast M-SEARCH of frame \(s.frame); UDA asks for 1 s",
            related: [s.frame])
    }
}

/// SSDP-503: a device does not answer a multicast M-SEARCH without MX (or with a bad MAN).
struct DiscardMalformedSearchRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-503", "discard-malformed-search", .error,
        "A device silently discards a multicast M-SEARCH without MX or with a bad MAN",
        spec: "UDA 1.1/2.0 §1.3.3; §1.1.5",
        "Pairs a response with the multicast M-SEARCH last sent from the endpoint it goes to (within 5 s when MX is missing): MX missing is an error (MUST), MAN other than \"ssdp:discover\" a warning (SHOULD).",
        interop: "async_upnp_client answers searches without MX",
        example: "200 OK to control point C within 5 s after C's multicast M-SEARCH that had no MX", scope: .stateful,
        lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    multicast(ssdp(mSearchLine, search11.removing("MX")), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11), at: 1),
                ], severity: .error),
            RuleExample(
                [
                    multicast(
                        ssdp(mSearchLine, search11.setting("MAN", "ssdp:discover")), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11), at: 1),
                ], severity: .warning),
        ],
        nonTriggering: [
            RuleExample([
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                response(ssdp(okLine, response11), at: 1),
            ])
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .response, let s = e.search, s.unicastTo == nil else { return }
        if !s.hasMX {
            out.report(
                Self.descriptor,
                "answers the multicast M-SEARCH of frame \(s.frame), which has no MX: a device must discard it silently",
                related: [s.frame])
        } else if !s.manValid {
            out.report(
                Self.descriptor, severity: .warning,
                "answers the M-SEARCH of frame \(s.frame), whose MAN is not \"ssdp:discover\": a device should discard it",
                related: [s.frame])
        }
    }
}

/// SSDP-504: the response's ST echoes the search (the requested version for a URN).
struct ResponseSTMatchesSearchRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-504", "response-st-matches-search", .error, "Response ST echoes the search (same version for a URN)",
        spec: "UDA 1.1/2.0 §1.3.2, §1.3.3",
        "ssdp:all may be answered with any NT; other searches with the same ST; a URN search with the requested version. A response also never carries a higher version of a device or service type in ST than the device's alive NOTIFYs announced for that type (a device answers only for versions it supports).",
        interop: "a default miniupnpd build answers searches for any version of its types",
        example: "search for …:MediaServer:1 answered with ST …:MediaServer:4", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1")),
                    src: "192.168.1.10", sport: 50000),
                response(
                    ssdp(
                        okLine,
                        response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:4"))),
            ]),
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("ST", "upnp:rootdevice")), src: "192.168.1.10", sport: 50000),
                response(
                    ssdp(
                        okLine,
                        response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:1"))),
            ]),
            // The device announces MediaServer:1, but answers a search for version 4 with it.
            RuleExample([
                notify(targeting(deviceTypeNT), at: 0),
                multicast(
                    ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4")),
                    src: "192.168.1.10", sport: 50000, at: 10),
                response(
                    ssdp(
                        okLine,
                        response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:4")), at: 10.5),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1")),
                    src: "192.168.1.10", sport: 50000),
                response(
                    ssdp(
                        okLine,
                        response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:1"))),
            ]),
            RuleExample([
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                response(ssdp(okLine, response11)),
            ]),
            // Near miss: the device announces MediaServer:4 and answers a search for it.
            RuleExample([
                notify(targeting("urn:schemas-upnp-org:device:MediaServer:4"), at: 0),
                multicast(
                    ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4")),
                    src: "192.168.1.10", sport: 50000, at: 10),
                response(
                    ssdp(
                        okLine,
                        response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:4")), at: 10.5),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .response else { return }
        if !matchesSearch(e, &out) { return }
        // A version above the highest the device announced for the type.
        guard let t = e.facts.typeKey, let v = e.facts.typeVersion, let d = e.device else { return }
        var highest: SSDPDeviceState.TypeVersion?
        for k in d.types where k.typeKey == t && k.version >= (highest?.version ?? 0) { highest = k }
        guard let a = highest, a.version < v else { return }
        out.report(
            Self.descriptor,
            "response ST claims version \(v) of this type, but the device announced version \(a.version) (frame \(a.frame)); a device answers only for versions it supports",
            related: [a.frame])
    }

    /// The search half: whether the response passed it (nothing reported).
    private static func matchesSearch(_ e: SSDPEvent, _ out: inout SessionReports) -> Bool {
        guard let s = e.search, let st = e.st else { return true }
        let delay = Timestamp.seconds(from: s.time, to: e.time)
        guard delay >= 0, delay < 130 else { return true }
        let asked = s.st[...]
        if asked.equals("ssdp:all") || asked.isEmpty { return true }
        if SSDPSyntax.hasPrefix(asked, "urn:"), let a = SSDPSyntax.parseURN(asked), let r = SSDPSyntax.parseURN(st) {
            if a.kind == r.kind, a.domain.elementsEqual(r.domain), a.type.elementsEqual(r.type) {
                if !a.version.elementsEqual(r.version) {
                    out.report(
                        Self.descriptor,
                        "search for version \(SSDPText.show(a.version)) (frame \(s.frame)) answered with version \(SSDPText.show(r.version)); the response must carry the requested version",
                        related: [s.frame])
                    return false
                }
                return true
            }
        }
        if !st.elementsEqual(asked) {
            out.report(
                Self.descriptor,
                "response ST \(SSDPText.show(st)) does not match the search for \(SSDPText.show(asked)) (frame \(s.frame))",
                related: [s.frame])
            return false
        }
        return true
    }
}

extension String {
    /// One decimal place, without Foundation.
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}

/// SSDP-505: a device answers ssdp:all with its whole set, and a root device answers with
/// one upnp:rootdevice response per search.
struct SearchResponseSetRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-505", "search-response-set", .error,
        "A root device answers a search with its whole set, and with one response for upnp:rootdevice",
        spec: "UDA 1.1/2.0 §1.3.3, §1.2.2",
        "Each multicast M-SEARCH for ssdp:all or upnp:rootdevice seen from an endpoint may be answered once, within its MX (+ 0.5 s), by each root device (UUID and source address) with ST upnp:rootdevice; a response beyond that is a duplicate (retransmitted searches each count). Whole set: a device (UUID and source) that answers a multicast ssdp:all search must answer, within the MX (+ 0.5 s), for every USN its alive NOTIFYs announced before the search (and did not revoke); judged when the capture runs past the window (at the end of the input, or by live capture's timer). The 3 + 2d + k count itself is not checked (Not confirmed: the exact wording of that count in UDA): the device's own alive set is the measure.",
        interop: "async_upnp_client sends each search response twice",
        example:
            "2 responses with ST upnp:rootdevice from one root UUID to one search; alives announce 3 USNs, the ssdp:all search gets 1 response",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                response(ssdp(okLine, response11), at: 0.3),
                response(ssdp(okLine, response11), at: 1.2),
            ]),
            // Three USNs announced, one of them given to ssdp:all.
            RuleExample(
                aliveSet(at: 0) + [
                    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000, at: 10),
                    response(ssdp(okLine, answering("upnp:rootdevice")), at: 10.3),
                    response(ssdp(okLine, answering("uuid:\(exampleUUID)")), at: 10.4),
                    otherSearch(at: 20),
                ]),
        ],
        nonTriggering: [
            // The control point searched twice: one response to each.
            RuleExample([
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000),
                multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000, at: 0.5),
                response(ssdp(okLine, response11), at: 1.0),
                response(ssdp(okLine, response11), at: 1.2),
            ]),
            // The whole set.
            RuleExample(
                aliveSet(at: 0) + [
                    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000, at: 10),
                    response(ssdp(okLine, answering("upnp:rootdevice")), at: 10.3),
                    response(ssdp(okLine, answering("uuid:\(exampleUUID)")), at: 10.4),
                    response(ssdp(okLine, answering(deviceTypeNT)), at: 10.5),
                    otherSearch(at: 20),
                ]),
            // The capture ends inside the window: the rest may still come.
            RuleExample(
                aliveSet(at: 0) + [
                    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000, at: 10),
                    response(ssdp(okLine, answering("upnp:rootdevice")), at: 10.3),
                ]),
        ])

    /// A search response of the example device for `nt`.
    static func answering(_ nt: String) -> Headers {
        let usn = nt.hasPrefix("uuid:") ? nt : "uuid:\(exampleUUID)::\(nt)"
        return response11.setting("ST", nt).setting("USN", usn)
    }

    /// One device's answers to one ssdp:all search (its verdict row, `SSDPVerdicts.setAnswers`).
    struct SetAnswer {
        var search: Int
        var searchTime: Timestamp
        var expires: Double
        var uuid: [UInt8]
        var source: IPAddress
        var frames: [Int]
        /// USN keys its alives announced before the search, and those it answered with.
        var announced: Set<UInt64>
        var answered: Set<UInt64> = []

        /// Takes in a response for `usn` at `now`, when the search's window is still open.
        mutating func take(_ usn: UInt64, frame: Int, at now: Double) -> Bool {
            guard now <= expires else { return false }
            if answered.count < SearchResponseSetRule.maxUSNs { answered.insert(usn) }
            if frames.count < 8 { frames.append(frame) }
            return true
        }
    }
    /// An answer whose window ended at `closed` with announced USNs left out, until it is
    /// reported (`SSDPVerdicts.incompleteSets`).
    struct Incomplete {
        var answer: SetAnswer
        var closed: Timestamp
    }
    static let maxUSNs = 64

    struct Search {
        var frame: Int
        var time: Timestamp
        var expires: Double
        /// `expires` as a time.
        var deadline: Timestamp
        /// The responders that used up this search.
        var answeredBy: [Responder] = []
    }
    /// The open searches (ssdp:all or upnp:rootdevice) of one searcher endpoint, oldest first,
    /// at most `maxPerEndpoint` (its verdict row, `SSDPVerdicts.rootSearches`).
    struct OpenSearches {
        var list: [Search]
        /// The end of its latest window: past it, the row holds nothing open.
        var deadline: Timestamp { list.lazy.map(\.deadline).max() ?? .zero }

        /// Adds a search sent at `now`, dropping those whose window ended.
        mutating func add(_ s: Search, at now: Double) {
            list.removeAll { $0.expires < now }
            if list.count >= SearchResponseSetRule.maxPerEndpoint { list.removeFirst() }
            list.append(s)
        }

        /// Uses up, for `responder`, the first open search it has not answered; when there is
        /// none, the latest open search (already answered) is returned.
        mutating func use(by responder: Responder, at now: Double) -> Search? {
            for k in list.indices where list[k].expires >= now && !list[k].answeredBy.contains(responder) {
                list[k].answeredBy.append(responder)
                return nil
            }
            return list.last { $0.expires >= now }
        }
    }
    /// A root device (UUID key) answering from an address.
    struct Responder: Hashable {
        var device: UInt64
        var source: IPAddress
    }
    /// Who answers whom.
    struct SetKey: Hashable {
        var searcher: Endpoint
        var responder: Responder
    }
    static let maxPerEndpoint = 16
    static let slack = 0.5

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeSets(by: e.time, &store, &out)
        wholeSet(e, &store, &out)
        switch e.kind {
        case .mSearch where e.dst.isMulticast:
            guard e.facts.target == .all || e.facts.target == .rootDevice, !e.timeWentBack else { return }
            let key = Endpoint(address: e.src, port: e.srcPort)
            // MX capped as devices cap it (5 under UPnP 1.1, 120 under 1.0); 5 when absent.
            let mx = min(e.facts.mx ?? 5, e.version >= .v1_1 ? 5 : 120)
            let now = e.time.asDouble
            let late = Int64(mx) * 1_000_000_000 + Int64(Self.slack * 1e9) + Int64(e.time.nanoseconds)
            let search = Search(
                frame: e.frame, time: e.time, expires: now + Double(mx) + Self.slack,
                deadline: Timestamp(
                    seconds: e.time.seconds &+ late / 1_000_000_000, nanoseconds: UInt32(late % 1_000_000_000)))
            if store.verdicts.rootSearches[key]?.add(search, at: now) == nil {
                store.verdicts.rootSearches.insert(
                    OpenSearches(list: [search]), for: key, at: e.time, evicted: &out.evictions)
            }
        case .response:
            guard e.facts.target == .rootDevice, let device = e.facts.uuidKey, !e.timeWentBack,
                e.search?.unicastTo == nil
            else { return }
            let key = Endpoint(address: e.dst, port: e.dstPort)
            let answered = store.verdicts.rootSearches[key]?.use(
                by: Responder(device: device, source: e.src), at: e.time.asDouble)
            if let last = answered ?? nil {
                out.report(
                    Self.descriptor,
                    "another upnp:rootdevice response from this root device to the M-SEARCH of frame \(last.frame), already answered: one response per root device",
                    related: [last.frame])
            }
        default:
            break
        }
    }

    /// The whole-set half: a response to an open ssdp:all search counts for its device.
    private static func wholeSet(_ e: SSDPEvent, _ store: inout SSDPSessionStore, _ out: inout SessionReports) {
        guard e.kind == .response, !e.timeWentBack, let device = e.facts.uuidKey, let usn = e.facts.usnKey else {
            return
        }
        let key = SetKey(
            searcher: Endpoint(address: e.dst, port: e.dstPort), responder: Responder(device: device, source: e.src))
        // Within the window, whatever the endpoint searched for since (control points send
        // several searches from one socket).
        if store.verdicts.setAnswers[key]?.take(usn, frame: e.frame, at: e.time.asDouble) == true { return }
        guard let search = e.search, search.unicastTo == nil,
            ASCII.equalsIgnoringCase(search.st, search.st.indices, "ssdp:all")
        else { return }
        // Only what the device announced before the search, still live, is owed.
        guard let d = e.device, !e.deviceForgotten, !d.historyIncomplete else { return }
        var announced: Set<UInt64> = []
        for (k, u) in d.usns where u.lastAlive != nil && u.isLive && u.lastAliveFrame < search.frame {
            guard announced.count < Self.maxUSNs else { return }
            announced.insert(k)
        }
        guard announced.count > 1 else { return }
        let uuid = e.usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }.map { Array($0.prefix(80)) } ?? []
        store.verdicts.setAnswers.insert(
            SetAnswer(
                search: search.frame, searchTime: search.time, expires: search.expires.asDouble, uuid: uuid,
                source: e.src, frames: [e.frame], announced: announced, answered: [usn]),
            for: key, at: e.time, evicted: &out.evictions)
        store.verdicts.earliestSetExpiry = min(store.verdicts.earliestSetExpiry ?? .infinity, search.expires.asDouble)
    }

    /// Answers whose window ended by `now`: those that left announced USNs out wait to be
    /// reported.
    private static func closeSets(by now: Timestamp, _ store: inout SSDPSessionStore, _ out: inout SessionReports) {
        let t = now.asDouble
        // The table is scanned only once its earliest window may have ended.
        guard let earliest = store.verdicts.earliestSetExpiry, earliest < t else { return }
        // In frame order, not the table's: the window of incomplete sets is capped.
        let closed = store.verdicts.setAnswers.rows.filter { $0.value.expires < t }.sorted {
            ($0.value.frames.first ?? 0) < ($1.value.frames.first ?? 0)
        }
        for (key, a) in closed {
            store.verdicts.setAnswers.remove(key)
            guard !a.announced.isSubset(of: a.answered) else { continue }
            store.verdicts.incompleteSets.append(Incomplete(answer: a, closed: now), evicted: &out.evictions)
        }
        store.verdicts.earliestSetExpiry = store.verdicts.setAnswers.rows.values.lazy.map(\.expires).min()
    }

    static func conclude(by now: Timestamp, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeSets(by: now, &store, &out)
        guard !store.verdicts.incompleteSets.isEmpty else { return }
        for c in store.verdicts.incompleteSets.elements.sorted(by: { $0.answer.frames[0] < $1.answer.frames[0] }) {
            let a = c.answer
            let uuid = String(decoding: a.uuid, as: UTF8.self)
            let missing = a.announced.subtracting(a.answered).count
            out.reportAtEnd(
                Self.descriptor,
                "uuid:\(uuid) answered the ssdp:all search of frame \(a.search) for \(a.answered.intersection(a.announced).count) of the \(a.announced.count) USNs its alives announced (\(missing) left out): a device answers ssdp:all with its whole set",
                frames: a.frames + [a.search], time: a.searchTime, source: a.source, device: "uuid:\(uuid)")
        }
        store.verdicts.incompleteSets.removeAll()
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        conclude(by: store.latest, in: &store, into: &out)
    }
}
