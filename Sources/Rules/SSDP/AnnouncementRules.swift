import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-506 … SSDP-519: announcements, boot and configuration numbers, and device identity
// across messages, judged on the session model (`SSDPEvent.device`: the device's record as
// it was before the message). Keys are the catalog's: the UUID in USN, and for the boot
// numbers the UUID plus the source address. What a rule still has to decide about a device
// is in its row of `SSDPVerdicts.devices` (one per device, shared by the rules).

/// `frames a, b and c` (at most `limit` named).
func frameList(_ frames: [Int], limit: Int = 6) -> String {
    let shown = frames.prefix(limit).map(String.init)
    let more = frames.count > limit ? " and \(frames.count - limit) more" : ""
    return (frames.count == 1 ? "frame " : "frames ") + shown.joined(separator: ", ") + more
}

/// SSDP-506: a device re-sends every advertisement before its max-age runs out.
struct ReannounceBeforeExpiryRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-506", "reannounce-before-expiry", .error,
        "A device re-sends ssdp:alive for every USN before the previous advertisement's max-age expires",
        spec: "UDA 1.1/2.0 §1.2.2",
        "Per USN: an advertisement (alive or response) lives max-age seconds (plus 1 s of jitter). Needs the capture to show the device again after that time with the same BOOTID (still available) and no byebye for the USN; reported at that message. Such a USN was not refreshed within half of max-age either, which SSDP-507 reports where it became evident; a refresh later than max-age/2 but before expiry is SSDP-507 only.",
        interop:
            "control points drop the device from their list when the advertisement expires (it disappears until the next search)",
        example: "last alive for USN U at t with max-age 1800, a response for another USN at t + 1900, nothing for U",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=60"), at: 0),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 0.01),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 25),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 50),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 75),
            ])
        ],
        nonTriggering: [
            // Every USN refreshed in time.
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 25)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 50)
                    + [notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 75)]),
            // The root device USN was revoked by a byebye.
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=60"), at: 0),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 0.01),
                notify(targeting("upnp:rootdevice", byebye11), at: 20),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 25),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 75),
            ]),
            // A late refresh (after max-age/2, before expiry): SSDP-507 only.
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 45)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 90)),
            // A new boot: the old advertisements were superseded.
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=60"), at: 0),
                notify(
                    targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60").setting(
                        "BOOTID.UPNP.ORG", "8"),
                    at: 75),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let d = e.device, let next = d.nextExpiry, next < e.time, !e.timeWentBack else { return }
        // The USNs whose advertisement ran out since the device's previous message (earlier
        // ones were reported then), advertised under the BOOTID this message carries.
        var expired: [(frame: Int, maxAge: UInt64)] = []
        for (_, u) in d.usns where u.isLive && u.bootID == e.facts.bootID {
            guard let x = u.expiry, x > d.lastSeen, x < e.time, let m = u.maxAge else { continue }
            expired.append((u.lastAdvertisedFrame, m))
        }
        guard !expired.isEmpty else { return }
        expired.sort { $0.frame < $1.frame }
        let ages = Set(expired.map(\.maxAge)).sorted().map(String.init).joined(separator: " or ")
        let what = expired.count == 1 ? "an advertisement" : "\(expired.count) advertisements"
        out.report(
            Self.descriptor,
            "\(what) of this device (last sent in \(frameList(expired.map(\.frame)))) expired after max-age \(ages) s without being re-sent, while the device is still active",
            related: expired.map(\.frame))
    }
}

/// SSDP-507: refreshes come before half of max-age; a set's max-ages are comparable.
struct RefreshIntervalRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-507", "refresh-interval", .warning,
        "Advertisements are refreshed within half of max-age, and a set has comparable max-ages",
        spec: "UDA 1.1/2.0 §1.2.2",
        "Per USN announced by an alive: the next alive for it (same BOOTID, no byebye between) comes at most max-age/2 + 1 s after the last one. Reported where this first becomes evident: at that late alive, or earlier, at the first message of the device (same BOOTID) sent when the USN's refresh is already overdue (its other USNs are refreshed, it is not), so one alive of the USN is enough. A USN that expires while the device is still active is also SSDP-506. Within one device, max-ages differ by at most a factor of 2. Reported once per device. A NOTIFY sent unicast to an endpoint whose M-SEARCH still awaits answers (within its MX plus the pairing slack) answers that search: it is neither a refresh nor the alive a refresh is measured from (a device that only does that is SSDP-520's).",
        example: "re-announce every 1790 s with max-age 1800; rootdevice max-age 1800 and a service max-age 60",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 60),
            ]),
            // One alive for the root device USN: its siblings are refreshed, it is overdue at
            // 60 s (max-age/2 + 1 = 51 s), before any second alive of it.
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 0.01),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 40),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 60),
            ]),
            RuleExample([
                notify(targeting("upnp:rootdevice"), at: 0),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 0.01),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 40),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 80),
            ]),
            // Near miss: the root device USN is refreshed on its own schedule, each time within
            // 51 s, while its sibling's alives come in between.
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 0.01),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 40),
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=100"), at: 45),
                notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=100"), at: 80),
                notify(targeting("upnp:rootdevice").setting("CACHE-CONTROL", "max-age=100"), at: 90),
            ]),
            // A byebye, then a new announcement later: not a refresh.
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(byebye11, at: 10),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 90),
            ]),
            // Near miss: a unicast NOTIFY answering a search 60 s after the alive (ssdpy) is
            // no late re-announcement.
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                searchFrom(at: 60), unicastNotify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 60.01),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let d = e.device, let device = e.facts.uuidKey, !e.timeWentBack,
            e.kind == .response || (e.kind == .notify && e.facts.nts != .update),
            store.verdicts.devices[device]?.reported.contains(.refreshInterval) != true
        else { return }
        // A NOTIFY answering a search (unicast to the searcher within its MX) is no refresh:
        // it neither ends an interval nor counts as the device's alive.
        let alive = e.kind == .notify && e.facts.nts == .alive && !e.answersSearch
        if alive, let u = e.usnState, let last = u.lastAlive, !u.revoked, u.bootID == e.facts.bootID,
            let m = u.maxAge, m > 0
        {
            let interval = Timestamp.seconds(from: last, to: e.time)
            if interval > Double(m) / 2 + 1,
                store.verdicts.firstReport(.refreshInterval, on: device, at: e, &out)
            {
                out.report(
                    Self.descriptor,
                    "re-announced \(String(format1: interval)) s after the alive of frame \(u.lastAliveFrame); with max-age \(m) s it should come within \(m / 2) s",
                    related: [u.lastAliveFrame])
                return
            }
        }
        if let due = d.nextRefreshDue, due < e.time, let overdue = overdue(d, e),
            store.verdicts.firstReport(.refreshInterval, on: device, at: e, &out)
        {
            let since = Timestamp.seconds(from: overdue.lastAlive, to: e.time)
            out.report(
                Self.descriptor,
                "the device is still sending, but the alive of frame \(overdue.frame) has not been refreshed for \(String(format1: since)) s; with max-age \(overdue.maxAge) s it should be within \(overdue.maxAge / 2) s",
                related: [overdue.frame])
            return
        }
        guard alive else { return }
        if let first = d.firstAliveMaxAge, let m = e.facts.maxAge, let f = d.firstAliveFrame, min(first, m) > 0,
            max(first, m) / 2 > min(first, m), store.verdicts.firstReport(.refreshInterval, on: device, at: e, &out)
        {
            out.report(
                Self.descriptor,
                "max-age \(m) s here, \(first) s in the alive of frame \(f): advertisements of one device should have comparable durations",
                related: [f])
        }
    }

    /// The earliest-announced USN of `d` (other than `e`'s own) whose refresh was due before
    /// `e`, announced under the BOOTID `e` carries and not revoked.
    private static func overdue(_ d: SSDPDeviceState, _ e: SSDPEvent) -> (
        frame: Int, lastAlive: Timestamp, maxAge: UInt64
    )? {
        var best: (frame: Int, lastAlive: Timestamp, maxAge: UInt64)?
        for (k, u) in d.usns where k != e.facts.usnKey && u.isLive && u.bootID == e.facts.bootID {
            guard let due = u.refreshDue, due < e.time, let t = u.lastAlive, let m = u.maxAge else { continue }
            if best.map({ u.lastAliveFrame < $0.frame }) ?? true { best = (u.lastAliveFrame, t, m) }
        }
        return best
    }
}

/// SSDP-508: an initial announcement set is sent more than once, and no more than three
/// identical alive messages for one USN come within a few seconds.
///
/// An alive set is known to be an initial one when the capture shows what came before it:
/// the device's byebye (start-up byebyes, or leaving and coming back) or a lower BOOTID. A
/// capture that starts with a device's alives says nothing about whether they were initial.
struct AliveStormRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-508", "alive-storm", .warning,
        "An initial announcement set is sent more than once, and an announcement at most three times within a few seconds",
        spec: "UDA 1.1/2.0 §1.2.2",
        "Per USN and source: a fourth identical alive (same payload) within 3 s of the first is a storm; an alive sent unicast to a searcher while its M-SEARCH awaits answers is a search answer and not counted (four such answers to four searchers are no storm). Per device and source: an initial alive set (the first alives after the device's byebye, or with a higher BOOTID than before) none of whose USNs is announced again within 5 s was sent once; judged when the capture runs past those 5 s (at the end of the input, or by live capture's timer), not when a byebye cuts the set short.",
        example:
            "10 identical alive messages for USN U within 2 s; after its byebye, a device sends its alive set once and nothing within 5 s",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11, at: 0), notify(alive11, at: 0.2), notify(alive11, at: 0.4), notify(alive11, at: 0.6),
            ]),
            // Start-up byebye, then the alive set once.
            RuleExample([
                notify(byebye11, at: 0), notify(alive11, at: 0.5),
                notify(targeting("uuid:\(exampleUUID)"), at: 0.51), otherSearch(at: 20),
            ]),
            // A new BOOTID, announced once.
            RuleExample([
                notify(alive11, at: 0), notify(alive11.setting("BOOTID.UPNP.ORG", "8"), at: 100),
                otherSearch(at: 120),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11, at: 0), notify(alive11, at: 0.2), notify(alive11, at: 0.4), notify(alive11, at: 5),
            ]),
            // The initial set repeated 300 ms later.
            RuleExample([
                notify(byebye11, at: 0), notify(alive11, at: 0.5), notify(targeting("uuid:\(exampleUUID)"), at: 0.51),
                notify(alive11, at: 0.8), notify(targeting("uuid:\(exampleUUID)"), at: 0.81), otherSearch(at: 20),
            ]),
            // The capture ends before the set could have been repeated.
            RuleExample([notify(byebye11, at: 0), notify(alive11, at: 0.5), otherSearch(at: 3)]),
            // Whether the first alives of a capture were initial is unknown.
            RuleExample([notify(alive11, at: 0), otherSearch(at: 20)]),
            // Near miss: four identical alives within 1 s, but each a unicast NOTIFY answering
            // another searcher's M-SEARCH (ssdpy answers searches so): no storm.
            RuleExample(
                (0..<4).flatMap { k in
                    [
                        searchFrom(port: 50000 + UInt16(k), at: 0.3 * Double(k)),
                        unicastNotify(alive11, port: 50000 + UInt16(k), at: 0.3 * Double(k) + 0.01),
                    ]
                }),
        ])

    /// An initial alive set being watched for its repetition (its verdict row,
    /// `SSDPVerdicts.initialSets`).
    struct InitialSet {
        var uuid: [UInt8]
        var why: String
        var frame: Int
        var time: Timestamp
        var frames: [Int]
        /// Alives per USN key.
        var alives: [UInt64: Int]

        /// Counts one more alive for `usn`.
        mutating func take(_ usn: UInt64, frame: Int) {
            let known = alives[usn] != nil
            guard known || alives.count < AliveStormRule.maxUSNs else { return }
            if !known, frames.count < 8 { frames.append(frame) }
            alives[usn, default: 0] += 1
        }
    }
    struct Key: WordHashable {
        var device: UInt64
        var source: IPAddress

        func feedWords<S: WordSink>(into sink: inout S) {
            sink.add(device)
            source.feedWords(into: &sink)
        }
    }
    /// A set whose window closed at `closed` without a repetition, until it is reported
    /// (`SSDPVerdicts.sentOnce`).
    struct SentOnce {
        var source: IPAddress
        var set: InitialSet
        var closed: Timestamp
    }
    /// The initial set is to be repeated within this many seconds (UDA: "a few hundred ms
    /// apart"; a repetition seconds later still counts).
    static let repeatWindow = 5.0
    static let maxUSNs = 64

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeWindows(by: e.time, &store, &out)
        storm(e, &out)
        guard e.kind == .notify, let device = e.facts.uuidKey, let usn = e.facts.usnKey, !e.timeWentBack else {
            return
        }
        let key = Key(device: device, source: e.src)
        if e.facts.nts == .byebye {
            // The set was cut short: nothing to judge.
            store.verdicts.initialSets.remove(key)
            return
        }
        guard e.facts.nts == .alive else { return }
        if store.verdicts.initialSets[key]?.take(usn, frame: e.frame) != nil { return }
        guard let s = e.sourceState, !e.deviceForgotten, !(e.device?.historyIncomplete ?? false) else { return }
        let why: String
        if s.left {
            why = "after its byebye"
        } else if let b = e.facts.bootID, let old = s.bootID, b > old {
            why = "with BOOTID \(b) after \(old)"
        } else {
            return
        }
        let uuid = e.usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }.map { Array($0.prefix(80)) } ?? []
        store.verdicts.initialSets.insert(
            InitialSet(uuid: uuid, why: why, frame: e.frame, time: e.time, frames: [e.frame], alives: [usn: 1]),
            for: key, at: e.time, evicted: &out.evictions)
        if store.verdicts.oldestInitialSet == nil { store.verdicts.oldestInitialSet = e.time }
    }

    /// The storm half: a fourth identical alive within the burst window.
    private static func storm(_ e: SSDPEvent, _ out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .alive, let u = e.usnState, u.burstCount == 3,
            u.burstPayload == e.payloadKey, u.burstSource == e.src
        else { return }
        let span = Timestamp.seconds(from: u.burstStart, to: e.time)
        guard span <= SSDPUSNState.burstWindow else { return }
        out.report(
            Self.descriptor,
            "fourth identical alive for this USN within \(String(format1: span)) s (the first in frame \(u.burstFrame)); UDA asks for at most three",
            related: [u.burstFrame])
    }

    /// Sets whose repetition window ended by `now`: those never repeated wait to be reported.
    private static func closeWindows(by now: Timestamp, _ store: inout SSDPSessionStore, _ out: inout SessionReports) {
        // The table is scanned only once its oldest window may have ended.
        guard let oldest = store.verdicts.oldestInitialSet, Timestamp.seconds(from: oldest, to: now) > Self.repeatWindow
        else { return }
        // In frame order, not the table's: the window of sets sent once is capped.
        let over = store.verdicts.initialSets.rows.filter {
            Timestamp.seconds(from: $0.value.time, to: now) > Self.repeatWindow
        }.sorted { $0.value.frame < $1.value.frame }
        for (key, set) in over {
            store.verdicts.initialSets.remove(key)
            guard set.alives.values.allSatisfy({ $0 == 1 }) else { continue }
            store.verdicts.sentOnce.append(SentOnce(source: key.source, set: set, closed: now), evicted: &out.evictions)
        }
        store.verdicts.oldestInitialSet = store.verdicts.initialSets.rows.values.lazy.map(\.time).min()
    }

    static func conclude(by now: Timestamp, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        closeWindows(by: now, &store, &out)
        guard !store.verdicts.sentOnce.isEmpty else { return }
        for once in store.verdicts.sentOnce.elements.sorted(by: { $0.set.frame < $1.set.frame }) {
            let set = once.set
            let uuid = String(decoding: set.uuid, as: UTF8.self)
            let what = set.alives.count == 1 ? "its one alive" : "its \(set.alives.count) alives"
            out.reportAtEnd(
                Self.descriptor,
                "the initial announcement set of uuid:\(uuid) (\(set.why), \(frameList(set.frames))) was sent once: none of \(what) was repeated within \(String(format1: Self.repeatWindow)) s; UDA asks for the initial set more than once, a few hundred ms apart",
                frames: set.frames, time: set.time, source: once.source, device: "uuid:\(uuid)")
        }
        store.verdicts.sentOnce.removeAll()
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        conclude(by: store.latest, in: &store, into: &out)
    }
}

/// SSDP-509: BOOTID stays the same while the device stays available; after an update, the
/// update's NEXTBOOTID.
struct BootIDStableRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-509", "bootid-stable", .error,
        "BOOTID.UPNP.ORG is the same in every message while the device stays available",
        spec: "UDA 1.1/2.0 §1.2.2 BOOTID, §1.2.4",
        "Per UUID and source address: a response or update whose BOOTID differs from the current one (no byebye in between), or, after an ssdp:update, a message that does not carry its NEXTBOOTID. An alive or byebye with a higher BOOTID is a new initial announcement (judged by SSDP-510).",
        example: "alive with BOOTID 5, then a search response with BOOTID 6 and no update or new initial announce",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "5"), at: 0),
                response(ssdp(okLine, response11.setting("BOOTID.UPNP.ORG", "6")), at: 1),
            ]),
            RuleExample([
                notify(alive11, at: 0),
                notify(update11.setting("NEXTBOOTID.UPNP.ORG", "8"), at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "9"), at: 11),
            ]),
        ],
        nonTriggering: [
            RuleExample([notify(alive11, at: 0), response(ssdp(okLine, response11), at: 1)]),
            RuleExample([
                notify(alive11, at: 0),
                notify(update11.setting("NEXTBOOTID.UPNP.ORG", "8"), at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "8"), at: 11),
                response(ssdp(okLine, response11.setting("BOOTID.UPNP.ORG", "8")), at: 12),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let x = e.facts.bootID, let s = e.sourceState, !s.left else { return }
        if let n = s.pendingNextBootID {
            guard e.facts.nts != .update, x != n else { return }
            out.report(
                Self.descriptor,
                "BOOTID \(x), but the ssdp:update of frame \(s.updateFrame) announced NEXTBOOTID \(n) for the messages after it",
                related: [s.updateFrame])
            return
        }
        guard let b = s.bootID, x != b, e.kind == .response || e.facts.nts == .update else { return }
        out.report(
            Self.descriptor,
            "BOOTID \(x) differs from \(b) (frame \(s.bootFrame)) with no byebye, update or new announcement in between",
            related: [s.bootFrame])
    }
}

/// SSDP-510: BOOTID increases on each initial announcement.
struct BootIDIncreasesRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-510", "bootid-increases", .error, "BOOTID.UPNP.ORG increases on each initial announcement",
        spec: "UDA 1.1/2.0 §1.2, §1.2.2 BOOTID",
        "Per UUID and source address: an alive or byebye with a lower BOOTID than the device's current one, or an alive after the device's byebye with the BOOTID its earlier alives had. A byebye burst before the first alive at start-up is not a return. A counter that wraps from near 2^31 is a warning.",
        example: "byebye with BOOTID 10 and later an alive set with BOOTID 10; BOOTID 12 followed by 11",
        scope: .stateful, lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "12"), at: 0),
                notify(alive11.setting("BOOTID.UPNP.ORG", "11"), at: 1),
            ]),
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "10"), at: 0),
                notify(byebye11.setting("BOOTID.UPNP.ORG", "10"), at: 5),
                notify(alive11.setting("BOOTID.UPNP.ORG", "10"), at: 8),
            ]),
        ],
        nonTriggering: [
            // Start-up: byebyes first, then the alives, one BOOTID.
            RuleExample([
                notify(byebye11.setting("BOOTID.UPNP.ORG", "10"), at: 0),
                notify(alive11.setting("BOOTID.UPNP.ORG", "10"), at: 0.1),
                notify(alive11.setting("BOOTID.UPNP.ORG", "10"), at: 0.3),
            ]),
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "10"), at: 0),
                notify(byebye11.setting("BOOTID.UPNP.ORG", "10"), at: 5),
                notify(byebye11.setting("BOOTID.UPNP.ORG", "11"), at: 7),
                notify(alive11.setting("BOOTID.UPNP.ORG", "11"), at: 8),
            ]),
        ])

    /// A drop from above this to below `wrapLow` is a counter that wrapped.
    static let wrapHigh: UInt64 = 2_147_483_647 - (1 << 20)
    static let wrapLow: UInt64 = 1 << 20

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .alive || e.facts.nts == .byebye, let x = e.facts.bootID,
            let s = e.sourceState, let b = s.bootID, s.pendingNextBootID == nil
        else { return }
        if x < b {
            if b > Self.wrapHigh, x < Self.wrapLow {
                out.report(
                    Self.descriptor, severity: .warning, "BOOTID wrapped from \(b) (frame \(s.bootFrame)) to \(x)",
                    related: [s.bootFrame])
            } else {
                out.report(
                    Self.descriptor, "BOOTID went down from \(b) (frame \(s.bootFrame)) to \(x)", related: [s.bootFrame]
                )
            }
        } else if x == b, e.facts.nts == .alive, s.left, let bye = s.byebyeAfterAlive {
            out.report(
                Self.descriptor,
                "announced again with BOOTID \(x) after its byebye (frame \(bye)) ended the boot that used it; a new announcement needs a higher BOOTID",
                related: [bye])
        }
    }
}

/// SSDP-511: one CONFIGID in all concurrent messages of a device.
struct ConfigIDConsistentRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-511", "configid-consistent", .error,
        "CONFIGID.UPNP.ORG is the same in all concurrent messages of one device",
        spec: "UDA 1.1/2.0 §1.2.2 CONFIGID",
        "Per UUID and source address, same BOOTID: after CONFIGID changed from A to B, a message with A again shows two configurations announced at once (a whole-set change never goes back). Reported once per device.",
        example: "in one burst the rootdevice NOTIFY has CONFIGID 3 and a service NOTIFY of the same root CONFIGID 4",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CONFIGID.UPNP.ORG", "3"), at: 0),
                notify(targeting(deviceTypeNT).setting("CONFIGID.UPNP.ORG", "4"), at: 0.01),
                notify(targeting("upnp:rootdevice").setting("CONFIGID.UPNP.ORG", "3"), at: 30),
            ])
        ],
        nonTriggering: [
            RuleExample([
                notify(targeting("upnp:rootdevice").setting("CONFIGID.UPNP.ORG", "3"), at: 0),
                notify(targeting(deviceTypeNT).setting("CONFIGID.UPNP.ORG", "3"), at: 0.01),
                notify(targeting("upnp:rootdevice").setting("CONFIGID.UPNP.ORG", "4"), at: 30),
                notify(targeting(deviceTypeNT).setting("CONFIGID.UPNP.ORG", "4"), at: 30.01),
            ])
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let c = e.facts.configID, let s = e.sourceState, let current = s.configID, c != current,
            s.previousConfigID == c, e.facts.bootID == s.bootID, let device = e.facts.uuidKey,
            store.verdicts.firstReport(.configID, on: device, at: e, &out)
        else { return }
        out.report(
            Self.descriptor,
            "CONFIGID \(c) again after \(current) (frame \(s.configFrame)); the device announces two configurations at once (\(c) in frame \(s.previousConfigFrame))",
            related: [s.configFrame, s.previousConfigFrame])
    }
}

/// SSDP-512: one UUID is not advertised by two hosts with different BOOTIDs.
struct UUIDUniqueRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-512", "uuid-unique", .error, "One UUID is not advertised by two different hosts",
        spec: "UDA 1.1/2.0 §1.1.4, §1.2",
        "Per UUID in USN, whatever the source address: two source addresses whose advertisements carry different BOOTIDs at the same time are two devices sharing a UUID. From different link-layer (MAC) addresses: the other's advertisement is still live (not expired, no byebye, no update announcing this BOOTID) more than 5 s after the two BOOTIDs began to coexist (a multi-homed device's interfaces announce a reboot at slightly different times). Without a MAC on both (raw IP captures), a host that moved to a new address after a reboot cannot be told from a second host: the older BOOTID must be heard again more than 5 s after the newer one appeared. The same MAC is one host (a move, SSDP-517); one BOOTID on several addresses is a multi-homed device (legal, SSDP-516). Devices without BOOTID (UPnP 1.0) cannot be told apart and are not judged. Reported once per UUID. DiscoScope reads this as follows: the catalog keys this on the root UUID; an embedded device's UUID is as unique as its root's and its messages do not name the root, so each UUID in USN is judged.",
        example:
            "uuid X from 10.0.0.5 (MAC A, BOOTID 3, /desc.xml) and from 10.0.0.9 (MAC B, BOOTID 77, /rootDesc.xml)",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // Another MAC announces BOOTID 77 while the first host's BOOTID 3 is still live.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("BOOTID.UPNP.ORG", "77").setting("LOCATION", "http://192.168.1.21:80/d.xml"),
                    src: "192.168.1.21", mac: otherMAC, at: 10),
                notify(
                    alive11.setting("BOOTID.UPNP.ORG", "77").setting("LOCATION", "http://192.168.1.21:80/d.xml"),
                    src: "192.168.1.21", mac: otherMAC, at: 20),
            ]),
            // No MAC known: the first host keeps talking with its own BOOTID.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("BOOTID.UPNP.ORG", "77").setting("LOCATION", "http://192.168.1.21:80/d.xml"),
                    src: "192.168.1.21", at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 20),
            ]),
        ],
        nonTriggering: [
            // Multi-homed: one BOOTID on both interfaces.
            RuleExample([
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20",
                    mac: otherMAC, at: 0.01),
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 20),
            ]),
            // A multi-homed device reboots without byebye: its interfaces take BOOTID 8 a
            // moment apart.
            RuleExample([
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20",
                    mac: otherMAC, at: 0.01),
                notify(alive11.setting("BOOTID.UPNP.ORG", "8"), src: "192.168.1.20", mac: exampleMAC, at: 100),
                notify(
                    alive11.setting("BOOTID.UPNP.ORG", "8").setting(
                        "LOCATION", "http://192.168.2.20:8200/rootDesc.xml"),
                    src: "192.168.2.20", mac: otherMAC, at: 100.5),
                notify(alive11.setting("BOOTID.UPNP.ORG", "8"), src: "192.168.1.20", mac: exampleMAC, at: 120),
            ]),
            // A new address after a reboot, same MAC (a move, SSDP-517's), the old one silent.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", mac: exampleMAC, at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", mac: exampleMAC, at: 20),
            ]),
            // Another MAC after the first host's byebye: a replacement, not two at once.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(byebye11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", mac: exampleMAC, at: 5),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", mac: otherMAC, at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", mac: otherMAC, at: 20),
            ]),
            // No MAC known, new address after a reboot, the old one silent.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 0),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", at: 20),
            ]),
        ])

    /// How long two BOOTIDs of one UUID may coexist before they are two hosts (a multi-homed
    /// device's interfaces announce a reboot at slightly different times).
    static let settle = 5.0

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let x = e.facts.bootID, e.facts.nts != .update, let d = e.device, !d.sources.isEmpty,
            let device = e.facts.uuidKey
        else { return }
        let s = e.sourceState
        // Since when this source has been sending BOOTID x.
        let since = s?.bootID == x ? (s?.bootSeen ?? e.time) : e.time
        let mac = e.sourceMAC
        for o in d.sources where o.address != e.src {
            guard let ob = o.bootID, ob != x, !o.left, o.pendingNextBootID != x else { continue }
            // One link-layer address is one host: a move, not a clone.
            if mac.count > 0, o.mac == mac { continue }
            let clone: Bool
            if mac.count > 0, o.mac.count > 0 {
                let coexist = max(since, o.bootSeen)
                clone = o.isLive(at: e.time) && Timestamp.seconds(from: coexist, to: e.time) > Self.settle
            } else if since < o.bootSeen {
                // This BOOTID is the older one, heard again after the other's appeared.
                clone = Timestamp.seconds(from: o.bootSeen, to: e.time) > Self.settle
            } else {
                // The other's BOOTID is the older one: heard after this one's appeared.
                clone = Timestamp.seconds(from: since, to: o.lastSeen) > Self.settle
            }
            guard clone else { continue }
            guard store.verdicts.firstReport(.uuidUnique, on: device, at: e, &out) else { return }
            let macs = mac.count > 0 && o.mac.count > 0 ? " from another MAC" : ""
            out.report(
                Self.descriptor,
                "this UUID is also advertised\(macs) from \(o.address) with BOOTID \(ob) (frame \(o.lastFrame)) while this host uses BOOTID \(x): two devices share one UUID",
                related: [o.lastFrame])
            return
        }
    }
}

/// SSDP-513: a byebye for a USN never seen advertised (info: often a capture that started late).
struct ByebyeUnknownUSNRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-513", "byebye-unknown-usn", .info, "An ssdp:byebye for a USN never announced or seen in a response",
        spec: "UDA 1.1/2.0 §1.2.3",
        "Per USN: a byebye for a USN that no alive or response of the capture advertised, before or after it (byebyes before the first alive are how many devices start). Judged at the end of the input, reported once per device. Never announced means in this capture: a capture that starts after a device's alives shows its later byebye as unknown, hence info; devices whose earlier record the model dropped are not judged.",
        example: "byebye uuid:Y::upnp:rootdevice with no earlier alive or response for it", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([notify(byebye11, at: 0), otherSearch(at: 20)]),
            // The capture ends right after the byebye: nothing advertised the USN.
            RuleExample([notify(byebye11, at: 0)]),
            // Its siblings are announced, this USN never is.
            RuleExample([notify(byebye11, at: 0), notify(targeting("uuid:\(exampleUUID)"), at: 0.1)]),
        ],
        nonTriggering: [
            // Start-up: byebye, then the alive.
            RuleExample([notify(byebye11, at: 0), notify(alive11, at: 0.1), otherSearch(at: 20)]),
            RuleExample([notify(alive11, at: 0), notify(byebye11, at: 10), otherSearch(at: 30)]),
            // Near miss: announced long after the byebye (any time in the capture clears it).
            RuleExample([notify(byebye11, at: 0), notify(alive11, at: 60)]),
            // Seen in a search response only.
            RuleExample([notify(byebye11, at: 0), response(ssdp(okLine, response11), at: 30)]),
        ])

    /// A byebye for a USN not (yet) seen advertised (its verdict row,
    /// `SSDPVerdicts.unknownByebyes`, by USN key).
    struct Pending {
        var device: UInt64
        var uuid: [UInt8]
        var frame: Int
        var time: Timestamp
        var source: IPAddress
    }

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let usn = e.facts.usnKey, let device = e.facts.uuidKey else { return }
        if e.facts.advertises(e.kind) {
            if !store.verdicts.unknownByebyes.isEmpty { store.verdicts.unknownByebyes.remove(usn) }
            return
        }
        guard e.kind == .notify, e.facts.nts == .byebye, store.verdicts.unknownByebyes[usn] == nil,
            !e.deviceForgotten, !(e.device?.historyIncomplete ?? false), !(e.usnState?.everAdvertised ?? false)
        else { return }
        let uuid = e.usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }.map { Array($0.prefix(80)) } ?? []
        store.verdicts.unknownByebyes.insert(
            Pending(device: device, uuid: uuid, frame: e.frame, time: e.time, source: e.src), for: usn, at: e.time,
            evicted: &out.evictions)
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        var byDevice: [UInt64: [Pending]] = [:]
        for (_, p) in store.verdicts.unknownByebyes.rows { byDevice[p.device, default: []].append(p) }
        for list in byDevice.values.sorted(by: { ($0.map(\.frame).min() ?? 0) < ($1.map(\.frame).min() ?? 0) }) {
            let sorted = list.sorted { $0.frame < $1.frame }
            guard let first = sorted.first else { continue }
            let what = sorted.count == 1 ? "a USN" : "\(sorted.count) USNs"
            out.reportAtEnd(
                Self.descriptor,
                "byebye for \(what) never announced or seen in a response in this capture (\(frameList(sorted.map(\.frame))))",
                frames: sorted.map(\.frame), time: first.time, source: first.source,
                device: "uuid:" + String(decoding: first.uuid, as: UTF8.self))
        }
    }
}

/// SSDP-514: the advertisement set is complete.
struct AdvertisementSetCompleteRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-514", "advertisement-set-complete", .error,
        "A device announces upnp:rootdevice (root only), uuid:<UUID> and its device type",
        spec: "UDA 1.1/2.0 §1.2.2 Tables 1-1 to 1-3; UDA 1.0 §1.1.2",
        "Per UUID: over a whole max-age period of its own messages after its first alive (so every advertisement had to be refreshed in the capture), its alives name NT uuid:<UUID> and a device type. Reported at the end of the input.",
        example: "over more than one max-age period, device X only ever sends NT: upnp:rootdevice NOTIFYs",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0),
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 25),
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 50),
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 75),
            ])
        ],
        nonTriggering: [
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 25)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 50)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 75)),
            // Not a whole max-age period: the rest of the set may still come.
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0),
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 25),
            ]),
        ])

    /// A device's first alive and what its alives named (its part of the device's row,
    /// `SSDPDeviceVerdicts.announcements`; the row keeps its UUID and when it was last seen).
    struct Announcements {
        var firstFrame: Int
        var firstTime: Timestamp
        var source: IPAddress
        var maxAge: UInt64?
        var uuidNT = false
        var deviceType = false
        /// The model had dropped what it knew of the device by its first alive.
        var incomplete = false
    }

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let key = e.facts.uuidKey, e.kind == .notify, e.facts.nts == .alive, let usn = e.usn,
            SSDPSyntax.uuid(inUSN: usn) != nil
        else { return }
        store.verdicts.changeDevice(key, at: e, &out) { d in
            if d.announcements == nil {
                d.keepUUID(of: e)
                d.announcements = Announcements(
                    firstFrame: e.frame, firstTime: e.time, source: e.src, maxAge: e.facts.maxAge,
                    incomplete: e.deviceForgotten || (e.device?.historyIncomplete ?? false))
            }
            switch e.facts.target {
            case .uuid: d.announcements?.uuidNT = true
            case .deviceType: d.announcements?.deviceType = true
            default: break
            }
        }
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        for (_, d) in store.verdicts.devices.rows {
            guard let a = d.announcements, !a.incomplete, let m = a.maxAge,
                Timestamp.seconds(from: a.firstTime, to: d.lastSeen) > Double(m) + 1
            else { continue }
            var missing: [String] = []
            if !a.uuidNT { missing.append("NT uuid:\(String(decoding: d.uuid, as: UTF8.self))") }
            if !a.deviceType { missing.append("a device type") }
            guard !missing.isEmpty else { continue }
            let span = Timestamp.seconds(from: a.firstTime, to: d.lastSeen)
            out.reportAtEnd(
                Self.descriptor,
                "over \(String(format1: span)) s (max-age \(m) s) the alives of uuid:\(String(decoding: d.uuid, as: UTF8.self)) never announced \(missing.joined(separator: " or "))",
                frames: [a.firstFrame, d.lastFrame], time: a.firstTime, source: a.source,
                device: "uuid:" + String(decoding: d.uuid, as: UTF8.self))
        }
    }
}

/// SSDP-520: a device multicasts ssdp:alive, not only answers searches.
struct MulticastAliveRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-520", "multicast-alive", .error,
        "A device multicasts ssdp:alive when added and again within max-age, not only answers searches",
        spec: "UDA 1.1/2.0 §1.2.2; UDA 1.0 §1.1.2",
        "UDA 1.1 §1.2.2: \"When a device is added to the network, it shall multicast discovery messages to advertise its root device, any embedded devices, and any services\", and re-sends them before max-age expires. Per UUID in USN: the device's first NOTIFY or response starts a window as long as the largest max-age it gave (plus 1 s); when the capture (its last packet, any sender) runs past that window and no ssdp:alive of the UUID went to an SSDP group, the device is reported once, at the end of the input, with the frames that did advertise it (responses, unicast NOTIFYs). DiscoScope infers from the capture alone: it assumes the capture sees the segment's group traffic (a device's multicast alive seen from any of its addresses counts). Silent when the capture ends within that window, when the device gave no max-age, and when the model had dropped the device's history by its first message.",
        interop:
            "a control point that does not search, or searched before the device came up, never learns of it, and one that found it forgets it when max-age runs out unless it searches again",
        example:
            "a device that answers every M-SEARCH with a unicast NOTIFY (ssdpy 0.4.1) and multicasts nothing over more than its max-age of 30 s",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // Search answers only, for longer than max-age 60 s.
            RuleExample([
                searchFrom(at: 0), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 0.1),
                searchFrom(at: 70), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 70.1),
            ]),
            // Unicast NOTIFYs answering searches (ssdpy), the capture running on past max-age.
            RuleExample([
                searchFrom(at: 0), unicastNotify(alive11.setting("CACHE-CONTROL", "max-age=30"), at: 0.01),
                searchFrom(at: 20), unicastNotify(alive11.setting("CACHE-CONTROL", "max-age=30"), at: 20.01),
                otherSearch(at: 40),
            ]),
        ],
        nonTriggering: [
            // Near miss: the capture ends before max-age (60 s) has passed since the first answer.
            RuleExample([
                searchFrom(at: 0), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 0.1),
                searchFrom(at: 50), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 50.1),
            ]),
            // Near miss: one multicast alive in the capture, then search answers only.
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0),
                searchFrom(at: 30), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 30.1),
                searchFrom(at: 70), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=60")), at: 70.1),
            ]),
            // No max-age given: the window is unknown.
            RuleExample([
                searchFrom(at: 0), response(ssdp(okLine, response11.removing("CACHE-CONTROL")), at: 0.1),
                searchFrom(at: 4000), response(ssdp(okLine, response11.removing("CACHE-CONTROL")), at: 4000.1),
            ]),
        ])

    /// What a device advertised before any multicast alive (its part of the device's row,
    /// `SSDPDeviceVerdicts.multicastAlive`).
    struct Watch {
        var firstFrame: Int
        var firstTime: Timestamp
        var source: IPAddress
        /// The largest max-age it gave.
        var maxAge: UInt64?
        /// Its advertising messages (the first few frames).
        var count = 0
        var frames: [Int] = []
        var multicast = false
        /// The model had dropped what it knew of the device by its first message.
        var incomplete = false
    }
    static let maxFrames = 6

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.facts.advertises(e.kind), let key = e.facts.uuidKey else { return }
        let multicast = e.kind == .notify && e.dst.isMulticast
        store.verdicts.changeDevice(key, at: e, &out) { d in
            if d.multicastAlive == nil {
                d.keepUUID(of: e)
                d.multicastAlive = Watch(
                    firstFrame: e.frame, firstTime: e.time, source: e.src,
                    incomplete: e.deviceForgotten || (e.device?.historyIncomplete ?? false))
            }
            guard d.multicastAlive?.multicast == false else { return }
            if multicast {
                d.multicastAlive?.multicast = true
                d.multicastAlive?.frames = []
                return
            }
            if let m = e.facts.maxAge, m > (d.multicastAlive?.maxAge ?? 0) { d.multicastAlive?.maxAge = m }
            d.multicastAlive?.count &+= 1
            if (d.multicastAlive?.frames.count ?? Self.maxFrames) < Self.maxFrames {
                d.multicastAlive?.frames.append(e.frame)
            }
        }
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        let end = store.latest
        for (_, d) in store.verdicts.devices.rows.sorted(by: { $0.value.lastFrame < $1.value.lastFrame }) {
            guard let w = d.multicastAlive, !w.multicast, !w.incomplete, let m = w.maxAge, m > 0 else { continue }
            let span = Timestamp.seconds(from: w.firstTime, to: end)
            guard span > Double(m) + 1 else { continue }
            let uuid = "uuid:" + String(decoding: d.uuid, as: UTF8.self)
            let what = w.count == 1 ? "its one advertisement was" : "all \(w.count) of its advertisements were"
            out.reportAtEnd(
                Self.descriptor,
                "\(uuid) never multicast an ssdp:alive over the \(String(format1: span)) s the capture ran after its first message (max-age \(m) s): \(what) search answers or unicast NOTIFYs; a device multicasts its alives when added and again within max-age",
                frames: w.frames, time: w.firstTime, source: w.source, device: uuid)
        }
    }
}

/// SSDP-521: a device whose advertisements all ran out with no refresh and no byebye went
/// silent; reported when that happens (live capture's timer), or at the end of a capture
/// that outlived them.
struct AdvertisementExpiredRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-521", "advertisement-expired", .warning,
        "A device leaving the network says ssdp:byebye rather than letting its advertisements run out",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.3",
        "UDA 1.1 §1.2.3: \"When a device and its services are going to be removed from the network, the device should multicast an ssdp:byebye message corresponding to each of the ssdp:alive messages it multicasted that have not already expired\"; an advertisement lives max-age seconds (§1.2.2). Per UUID in USN: when every USN the device advertised (alive or response) and did not revoke by a byebye has run out (its last advertisement plus its max-age plus 1 s of jitter) and nothing of the device came since, it went silent: reported once, with its last advertisement's frame, and again only after it advertises anew. This is the finding that tells a sensor a device went silent (a presence metric only stops counting it). Live capture reports it on its timer, about a second after the last advertisement ran out; offline it is reported at the end of the input only when the capture's SSDP traffic ran on at least another max-age past that moment (a capture that ends soon after cannot tell a device that left from one whose refresh came just after). Silent when the device revoked all its USNs (it said goodbye), gave no max-age, or when the model had dropped part of its history. DiscoScope infers from the capture alone: a refresh sent where the capture does not see it (another link, a lost packet) looks the same.",
        interop:
            "control points drop the device when its advertisements run out; without a byebye they show it as present until then, and a sensor learns it is gone only from this silence",
        example:
            "alive set with max-age 1800 at t, then nothing of the device: at t + 1801 s its advertisements ran out with no refresh and no byebye",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            // One alive set with max-age 60, then the capture runs on past 2 × 61 s.
            RuleExample(aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0) + [otherSearch(at: 130)]),
            // A device that answered a search (response, max-age 30) and then went quiet.
            RuleExample([
                searchFrom(at: 0), response(ssdp(okLine, response11.setting("CACHE-CONTROL", "max-age=30")), at: 0.1),
                otherSearch(at: 70),
            ]),
        ],
        nonTriggering: [
            // Near miss: it said goodbye for every USN it advertised.
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + aliveSet(byebye11, at: 20) + [otherSearch(at: 130)]),
            // Near miss: refreshed at 30 s; the capture ends 39 s after that ran out, under a
            // max-age more.
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 30) + [otherSearch(at: 130)]),
            // Near miss: one USN revoked, the others still refreshed.
            RuleExample(
                aliveSet(alive11.setting("CACHE-CONTROL", "max-age=60"), at: 0)
                    + [notify(targeting("upnp:rootdevice", byebye11), at: 10)]
                    + [
                        notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 25),
                        notify(targeting(deviceTypeNT).setting("CACHE-CONTROL", "max-age=60"), at: 25.01),
                        notify(targeting("uuid:\(exampleUUID)").setting("CACHE-CONTROL", "max-age=60"), at: 50),
                        notify(targeting(deviceTypeNT).setting("CACHE-CONTROL", "max-age=60"), at: 50.01),
                    ] + [otherSearch(at: 70)]),
            // No max-age given: how long the advertisements live is unknown.
            RuleExample([notify(alive11.removing("CACHE-CONTROL"), at: 0), otherSearch(at: 4000)]),
        ])

    /// What was reported of a device (`SSDPVerdicts.silentDevices`): its latest message then.
    struct Silence {
        var lastSeen: Timestamp
        var lastFrame: Int
    }

    /// When its advertisements that still count ran out, with its last one.
    struct Expiry {
        var expiry: Timestamp
        var frame: Int
        var time: Timestamp
        var maxAge: UInt64
        var usns: Int
    }

    /// Nothing to judge per message: the model keeps each USN's last advertisement, and a
    /// device is judged when its advertisements may have run out (`conclude`, `finish`).
    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {}

    /// The latest expiry of `d`'s USNs advertised and not revoked, and its last advertisement
    /// (nil: no such USN, or one with no max-age).
    static func expiry(of d: SSDPDeviceState) -> Expiry? {
        var latest: Expiry?
        for (_, u) in d.usns where u.isLive {
            guard let x = u.expiry, let t = u.lastAdvertised, let m = u.maxAge else { return nil }
            guard var l = latest else {
                latest = Expiry(expiry: x, frame: u.lastAdvertisedFrame, time: t, maxAge: m, usns: 1)
                continue
            }
            l.usns &+= 1
            if x > l.expiry { l.expiry = x }
            if u.lastAdvertisedFrame > l.frame {
                l.frame = u.lastAdvertisedFrame
                l.time = t
            }
            if m > l.maxAge { l.maxAge = m }
            latest = l
        }
        return latest
    }

    static func conclude(by now: Timestamp, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        report(by: now, outlived: false, &store, &out)
    }

    /// Offline: only what ran out at least a max-age before the last packet.
    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        report(by: store.latest, outlived: true, &store, &out)
    }

    private static func report(
        by now: Timestamp, outlived: Bool, _ store: inout SSDPSessionStore, _ out: inout SessionReports
    ) {
        var silent: [(key: UInt64, d: SSDPDeviceState, x: Expiry)] = []
        for (key, d) in store.model.devices where !d.historyIncomplete && d.longestMaxAge > 0 {
            // No advertisement of it can have run out yet (whole seconds: an expiry is its
            // advertisement's time plus max-age plus 1 s, to the nanosecond).
            let bound = Int64(clamping: min(d.longestMaxAge, 1 << 40)) &+ 1
            guard now.seconds &- d.lastSeen.seconds >= bound else { continue }
            if let s = store.verdicts.silentDevices[key], s.lastSeen == d.lastSeen, s.lastFrame == d.lastFrame {
                continue
            }
            guard let x = expiry(of: d), x.expiry < now else { continue }
            if outlived {
                let past = Timestamp.seconds(from: x.expiry, to: now)
                guard past >= Double(min(x.maxAge, 1 << 40)) else { continue }
            }
            silent.append((key, d, x))
        }
        for (key, d, x) in silent.sorted(by: { $0.x.frame < $1.x.frame }) {
            store.verdicts.silentDevices.insert(
                Silence(lastSeen: d.lastSeen, lastFrame: d.lastFrame), for: key, at: now, evicted: &out.evictions)
            let text = store.model.inventories[key]?.uuid ?? ""
            let uuid = "uuid:" + (text.isEmpty ? "?" : text)
            let latest = d.sources.max { ($0.lastAdvertised ?? .zero) < ($1.lastAdvertised ?? .zero) }
            let source = latest?.address ?? .v4(0)
            let quiet = Timestamp.seconds(from: x.time, to: now)
            let what = x.usns == 1 ? "its advertisement" : "its \(x.usns) advertisements"
            out.reportAtEnd(
                Self.descriptor,
                "\(uuid) went silent: \(what) (max-age \(x.maxAge) s, the last at frame \(x.frame)) ran out with no refresh and no ssdp:byebye for \(x.usns == 1 ? "it" : "them") (\(String(format1: quiet)) s since that frame); control points drop it",
                frames: [x.frame], time: x.time, source: source, device: uuid)
        }
    }
}

/// SSDP-515: a device advertises only the highest version of each type.
struct HighestVersionOnlyRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-515", "highest-version-only", .error, "A device advertises only the highest version of each type",
        spec: "UDA 2.0 §1.2.2",
        "Per UUID: alives naming two versions of one device or service type. An error for UPnP/2.0 devices; info for 1.1 (Not confirmed: that the UDA 1.1 text asks this too); 1.0 devices are not judged.",
        example: "NT urn:…:ContentDirectory:1 and NT …:ContentDirectory:2 with the same uuid", scope: .stateful,
        lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    notify(
                        targeting("urn:schemas-upnp-org:service:ContentDirectory:1").setting(
                            "SERVER", "Linux/6.1 UPnP/2.0 test-dev/1.0"), at: 0),
                    notify(
                        targeting("urn:schemas-upnp-org:service:ContentDirectory:2").setting(
                            "SERVER", "Linux/6.1 UPnP/2.0 test-dev/1.0"), at: 0.01),
                ], severity: .error)
        ],
        nonTriggering: [
            RuleExample([
                notify(targeting("urn:schemas-upnp-org:service:ContentDirectory:2"), at: 0),
                notify(targeting("urn:schemas-upnp-org:service:ContentDirectory:2"), at: 30),
                notify(targeting("urn:schemas-upnp-org:service:ConnectionManager:1"), at: 30.01),
            ])
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .alive, e.version >= .v1_1, let t = e.facts.typeKey,
            let v = e.facts.typeVersion, let d = e.device, !d.hasType(t, version: v),
            let other = d.types.first(where: { $0.typeKey == t && $0.version != v })
        else { return }
        out.report(
            Self.descriptor, severity: e.version >= .v2_0 ? .error : .info,
            "version \(v) of this type advertised besides version \(other.version) (frame \(other.frame)); only the highest supported version is advertised",
            related: [other.frame])
    }
}

/// SSDP-516: a multi-homed device's messages differ only in HOST, CACHE-CONTROL and LOCATION.
struct MultiHomedConsistentRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-516", "multihomed-consistent", .error,
        "A multi-homed device sends the same field values on every interface",
        spec: "UDA 2.0 §1.2.2, §1.2.3",
        "Per UUID in USN, whatever the source address: two source addresses with the same BOOTID (one device on two interfaces or addresses, each with its own LOCATION, which is legal) whose SERVER or CONFIGID differ. An error for UPnP/2.0 devices; info for 1.1 (Not confirmed: that the UDA 1.1 text asks this too); 1.0 devices carry no BOOTID and are not judged. Reported once per UUID. DiscoScope reads this as follows: the catalog keys this on the root UUID; an embedded device's messages do not name their root, so each UUID in USN is judged (whatever the source address, as the catalog asks).",
        example: "the same USN from two source IPs of one device (same BOOTID) with different SERVER or CONFIGID",
        scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("SERVER", "Linux/6.1 UPnP/2.0 test-dev/1.0"), src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("SERVER", "Linux/6.1 UPnP/2.0 test-dev/2.0").setting(
                        "LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20", at: 0.01),
            ])
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11.setting("SERVER", "Linux/6.1 UPnP/2.0 test-dev/1.0"), src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("SERVER", "Linux/6.1 UPnP/2.0 test-dev/1.0").setting(
                        "LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20", at: 0.01),
            ])
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .alive || e.facts.nts == .byebye, e.version >= .v1_1,
            let x = e.facts.bootID, let d = e.device, d.sources.count > 0, let device = e.facts.uuidKey
        else { return }
        for o in d.sources where o.address != e.src && o.bootID == x {
            var differs: [String] = []
            var frames: [Int] = []
            if let a = e.facts.serverKey, let b = o.serverKey, a != b {
                differs.append("SERVER")
                frames.append(o.serverFrame)
            }
            if let a = e.facts.configID, let b = o.configID, a != b {
                differs.append("CONFIGID (\(a) here, \(b) there)")
                frames.append(o.configFrame)
            }
            guard !differs.isEmpty else { continue }
            guard store.verdicts.firstReport(.multiHomed, on: device, at: e, &out) else { return }
            let related = Array(Set(frames)).sorted()
            out.report(
                Self.descriptor, severity: e.version >= .v2_0 ? .error : .info,
                "same BOOTID \(x) as from \(o.address) (\(frameList(related))), but a different \(differs.joined(separator: " and ")): one device's interfaces must send the same values",
                related: related)
            return
        }
    }
}

/// SSDP-517: LOCATION does not move without a byebye or update.
struct LocationMovesRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-517", "location-moves", .info,
        "LOCATION does not change under one BOOTID without a byebye or update",
        spec: "UDA 1.1/2.0 §1, §1.2",
        "Per UUID in USN, whatever the source address: a LOCATION that moves to a different port or address of the same host, with the same BOOTID (or none in both) and no byebye or update in between. The same host is the same source address (an alive or response whose LOCATION differs from the one that address advertised before), or the same link-layer (MAC) address: a new source address whose first message came after the old address's last one, which it outlives by more than half the old advertisement's max-age (a device still on the old address would have refreshed it by then; one reported per UUID). A device that keeps advertising on several addresses at once (dual stack, several interfaces, each with its own LOCATION) is multi-homed, which is legal (SSDP-516 judges its consistency). Without a MAC (raw IP captures) a new address cannot be told from another host or interface, and only the same address is judged. DiscoScope reads this as follows: each UUID in USN, not only the root's (embedded devices' messages do not name their root).",
        interop: "gssdp treats the change as a missed byebye",
        example: "alive with LOCATION http://10.0.0.5:80/d.xml, later http://10.0.0.5:81/d.xml, same BOOTID",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11, at: 0),
                notify(alive11.setting("LOCATION", "http://192.168.1.20:8201/rootDesc.xml"), at: 10),
            ]),
            // A new address from the same MAC, same BOOTID, no byebye: the old one falls silent
            // and the new one is still heard 1000 s later (past half of max-age 1800).
            RuleExample([
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.1.77:8200/rootDesc.xml"), src: "192.168.1.77",
                    mac: exampleMAC, at: 600),
                notify(
                    alive11.setting("LOCATION", "http://192.168.1.77:8200/rootDesc.xml"), src: "192.168.1.77",
                    mac: exampleMAC, at: 1000),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11, at: 0),
                notify(byebye11, at: 5),
                notify(
                    alive11.setting("LOCATION", "http://192.168.1.20:8201/rootDesc.xml").setting(
                        "BOOTID.UPNP.ORG", "8"),
                    at: 10),
            ]),
            RuleExample([
                notify(alive11, src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20", at: 0.01),
            ]),
            // Near miss: dual stack from one MAC, both addresses keep advertising (multi-homed).
            RuleExample([
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("LOCATION", "http://[fe80::1]:8200/rootDesc.xml"), src: "fe80::1",
                    mac: exampleMAC, at: 0.01),
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 900),
                notify(
                    alive11.setting("LOCATION", "http://[fe80::1]:8200/rootDesc.xml"), src: "fe80::1",
                    mac: exampleMAC, at: 900.01),
                notify(
                    alive11.setting("LOCATION", "http://[fe80::1]:8200/rootDesc.xml"), src: "fe80::1",
                    mac: exampleMAC, at: 1000),
            ]),
            // Near miss: the new address is not heard long enough after the old one's last
            // alive to say the old one is gone.
            RuleExample([
                notify(alive11, src: "192.168.1.20", mac: exampleMAC, at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.1.77:8200/rootDesc.xml"), src: "192.168.1.77",
                    mac: exampleMAC, at: 600),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.facts.advertises(e.kind), let l = e.facts.locationKey, let d = e.device else { return }
        if let s = e.sourceState {
            if let before = s.locationKey, before != l, !s.revokedSinceLocation, s.bootID == e.facts.bootID {
                let now = e.location.map { SSDPText.show($0) } ?? "?"
                out.report(
                    Self.descriptor,
                    "LOCATION moved to \(now) from the one advertised in frame \(s.locationFrame), with the same BOOTID and no byebye or update in between",
                    related: [s.locationFrame])
            }
        }
        let mac = e.sourceMAC
        guard mac.count > 0, let device = e.facts.uuidKey else { return }
        // Since when this address has been heard.
        let here = e.sourceState?.firstSeen ?? e.time
        for o in d.sources where o.address != e.src && o.mac == mac {
            guard o.bootID == e.facts.bootID, !o.left, !o.revokedSinceLocation, o.lastSeen < here,
                let old = o.locationKey, old != l, let a = o.lastAdvertised, let m = o.maxAge,
                Timestamp.seconds(from: a, to: e.time) > Double(min(m, 1 << 40)) / 2 + 1,
                store.verdicts.firstReport(.movedAddress, on: device, at: e, &out)
            else { continue }
            let now = e.location.map { SSDPText.show($0) } ?? "?"
            out.report(
                Self.descriptor,
                "LOCATION moved to \(now) on \(e.src) from the one \(o.address) advertised (last in frame \(o.lastFrame)), same MAC and BOOTID, no byebye or update in between; \(o.address) has been silent since",
                related: [o.locationFrame, o.lastFrame])
            return
        }
    }
}

/// SSDP-518: an update's LOCATION is the one sent before for the USN.
struct UpdateLocationSameRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-518", "update-location-same", .error,
        "The LOCATION of an ssdp:update equals the LOCATION sent before for that USN",
        spec: "UDA 1.1/2.0 §1.2.4 LOCATION",
        "Per USN (else per UUID and source address): an update whose LOCATION differs from the last one advertised. Needs an earlier advertisement in the capture.",
        example: "alive LOCATION /a.xml, then update LOCATION /b.xml for the same USN", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11, at: 0),
                notify(update11.setting("LOCATION", "http://192.168.1.20:8200/other.xml"), at: 10),
            ])
        ],
        nonTriggering: [RuleExample([notify(alive11, at: 0), notify(update11, at: 10)])])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .update, let l = e.facts.locationKey else { return }
        let before: (key: UInt64, frame: Int)?
        if let u = e.usnState, let k = u.locationKey {
            before = (k, u.locationFrame)
        } else if let s = e.sourceState, let k = s.locationKey {
            before = (k, s.locationFrame)
        } else {
            before = nil
        }
        guard let b = before, b.key != l else { return }
        out.report(
            Self.descriptor,
            "update LOCATION \(e.location.map { SSDPText.show($0) } ?? "?") differs from the LOCATION advertised in frame \(b.frame)",
            related: [b.frame])
    }
}

/// SSDP-519: a device answers unicast M-SEARCH on its SEARCHPORT (on 1900 when it advertises
/// none).
struct UnicastSearchAnsweredRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-519", "unicast-search-answered", .error,
        "A device answers unicast M-SEARCH on its SEARCHPORT.UPNP.ORG (on 1900 when it advertises none)",
        spec: "UDA 1.1/2.0 §1.2.2 SEARCHPORT, §1.3.2",
        "Needs a unicast M-SEARCH in the capture, sent to the address a UPnP/1.1-or-later device announced from, on the port it advertised (1900 without SEARCHPORT), for a target the device announced (ssdp:all, upnp:rootdevice, its uuid or one of its types); and a message of that device more than 1.5 s later (it is still there). No response from it to the searcher within 1.5 s is reported at the end of the input; as info when other SSDP devices (another LOCATION) advertise from the same address and port, which a unicast datagram reaches only one of. A unicast M-SEARCH to a SEARCHPORT other than 1900 is taken in by its start line.",
        interop:
            "gssdp, pupnp, HUPnP and strict miniupnpd ignore a unicast M-SEARCH without MX (UDA defines it without MX)",
        example: "unicast M-SEARCH to <dev>:SEARCHPORT with no response within 1 s while the device keeps announcing",
        scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([notify(alive11, at: 0), unicastSearch(at: 10), notify(alive11, at: 20)], severity: .error),
            // Port 1900 of the host is shared with another SSDP device (another LOCATION), which
            // answered: only info.
            RuleExample(
                [
                    notify(alive11, at: 0),
                    notify(
                        targeting("upnp:rootdevice", alive11, uuid: otherUUID).setting(
                            "LOCATION", "http://192.168.1.20:49152/desc.xml"), at: 1),
                    unicastSearch(at: 10),
                    response(
                        ssdp(
                            okLine,
                            response11.setting("USN", "uuid:\(otherUUID)::upnp:rootdevice").setting(
                                "LOCATION", "http://192.168.1.20:49152/desc.xml")), at: 10.2),
                    notify(alive11, at: 20),
                ], severity: .info),
            // Sent to the advertised SEARCHPORT (not port 1900: taken in by its start line),
            // unanswered.
            RuleExample([
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 0),
                unicastSearch(unicastSearch11.setting("HOST", "192.168.1.20:49200"), dport: 49200, at: 10),
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 20),
            ]),
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11, at: 0), unicastSearch(at: 10), response(ssdp(okLine, response11), at: 10.2),
                notify(alive11, at: 20),
            ]),
            // Near miss: sent to the advertised SEARCHPORT and answered from it.
            RuleExample([
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 0),
                unicastSearch(unicastSearch11.setting("HOST", "192.168.1.20:49200"), dport: 49200, at: 10),
                response(ssdp(okLine, response11), sport: 49200, at: 10.2),
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 20),
            ]),
            // Sent to 1900 while the device advertises SEARCHPORT 49200.
            RuleExample([
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 0), unicastSearch(at: 10),
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 20),
            ]),
            // The device is not seen again after the search.
            RuleExample([notify(alive11, at: 0), unicastSearch(at: 10), otherSearch(at: 20)]),
        ])

    /// Where a device announces from, its search port, what it announced (its part of the
    /// device's row, `SSDPDeviceVerdicts.searchTarget`; the row keeps its UUID and when it was
    /// last seen). Made at its first alive from UPnP/1.1 on.
    struct SearchTarget {
        var address: IPAddress
        var searchPort: UInt16 = 1900
        var firstSeen: Timestamp
        var rootDevice = false
        /// Type keys with version (at most `maxTypes`).
        var types: [UInt64] = []

        /// Takes in an alive of the device: what it says from `address`.
        mutating func take(alive e: SSDPEvent) {
            guard address == e.src else { return }
            if let p = e.facts.searchPort, let port = UInt16(exactly: p) { searchPort = port }
            if e.facts.target == .rootDevice { rootDevice = true }
            if let t = UnicastSearchAnsweredRule.typeVersionKey(e.facts), !types.contains(t),
                types.count < UnicastSearchAnsweredRule.maxTypes
            {
                types.append(t)
            }
        }
    }
    /// A unicast M-SEARCH (its verdict row, `SSDPVerdicts.unicastSearches`).
    struct Probe {
        var frame: Int
        var time: Timestamp
        var searcher: IPAddress
        var searcherPort: UInt16
        var device: IPAddress
        var port: UInt16
        var target: SSDPFacts.Target
        var typeKey: UInt64?
        var uuidKey: UInt64?
        /// Devices (UUID keys) that answered it.
        var answered: [UInt64] = []
    }
    static let maxTypes = 32
    static let window = 1.5

    /// A type and its version as one key.
    static func typeVersionKey(_ f: SSDPFacts) -> UInt64? {
        guard let t = f.typeKey else { return nil }
        return t ^ ((f.typeVersion ?? 0) &* 0x9E37_79B9_7F4A_7C15)
    }

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        switch e.kind {
        case .mSearch where !e.dst.isMulticast:
            store.verdicts.unicastSearches.append(
                Probe(
                    frame: e.frame, time: e.time, searcher: e.src, searcherPort: e.srcPort, device: e.dst,
                    port: e.dstPort,
                    target: e.facts.target, typeKey: Self.typeVersionKey(e.facts), uuidKey: e.facts.targetUUIDKey),
                evicted: &out.evictions)
        case .response:
            guard let key = e.facts.uuidKey else { return }
            for k in store.verdicts.unicastSearches.elements.indices.reversed() {
                let p = store.verdicts.unicastSearches.elements[k]
                guard p.device == e.src, p.searcher == e.dst, p.searcherPort == e.dstPort, !p.answered.contains(key),
                    p.answered.count < 64
                else { continue }
                store.verdicts.unicastSearches[k].answered.append(key)
            }
        case .notify:
            guard let key = e.facts.uuidKey, e.facts.nts == .alive else { return }
            if e.version >= .v1_1, let usn = e.usn, SSDPSyntax.uuid(inUSN: usn) != nil {
                store.verdicts.changeDevice(key, at: e, &out) { d in
                    if d.searchTarget == nil {
                        d.keepUUID(of: e)
                        d.searchTarget = SearchTarget(address: e.src, firstSeen: e.time)
                    }
                    d.searchTarget?.take(alive: e)
                }
            } else {
                store.verdicts.devices.modify(key) { $0.searchTarget?.take(alive: e) }
            }
        default:
            break
        }
    }

    /// Whether `t` (device `key`) must answer a search for `p`'s target.
    static func matches(_ p: Probe, _ t: SearchTarget, key: UInt64) -> Bool {
        switch p.target {
        case .all: true
        case .rootDevice: t.rootDevice
        case .uuid: p.uuidKey == key
        case .deviceType, .serviceType: p.typeKey.map { t.types.contains($0) } ?? false
        default: false
        }
    }

    static func finish(in store: inout SSDPSessionStore, into out: inout SessionReports) {
        let devices = store.verdicts.devices.rows.filter { $0.value.searchTarget != nil }.sorted {
            $0.value.lastFrame < $1.value.lastFrame
        }
        var shared: [UInt64: Bool] = [:]
        for p in store.verdicts.unicastSearches.elements {
            for (key, d) in devices {
                guard let t = d.searchTarget, t.address == p.device, t.searchPort == p.port, t.firstSeen < p.time,
                    Timestamp.seconds(from: p.time, to: d.lastSeen) > Self.window, !p.answered.contains(key),
                    Self.matches(p, t, key: key)
                else { continue }
                let uuid = String(decoding: d.uuid, as: UTF8.self)
                let isShared = shared[key] ?? Self.sharesPort(store.model, key, t.address, t.searchPort)
                shared[key] = isShared
                let text =
                    "the unicast M-SEARCH to \(p.device) port \(p.port) got no response from uuid:\(uuid) within \(String(format1: Self.window)) s, though the device was still there (frame \(d.lastFrame))"
                if isShared {
                    out.reportAtEnd(
                        Self.descriptor, severity: .info,
                        text
                            + "; other SSDP devices (another LOCATION) use port \(p.port) of \(p.device) too, and a unicast datagram reaches only one socket bound to a port: advertising SEARCHPORT.UPNP.ORG avoids this",
                        frames: [p.frame, d.lastFrame], time: p.time, source: p.searcher, device: "uuid:\(uuid)")
                } else {
                    out.reportAtEnd(
                        Self.descriptor, text, frames: [p.frame, d.lastFrame], time: p.time, source: p.searcher,
                        device: "uuid:\(uuid)")
                }
            }
        }
    }

    /// Whether another device (a record with another LOCATION, so not one of its embedded
    /// devices) advertised from `address` with the same search port as device `key`.
    static func sharesPort(_ m: SSDPSessionModel, _ key: UInt64, _ address: IPAddress, _ port: UInt16) -> Bool {
        guard let own = m.device(key)?.source(address)?.locationKey else { return false }
        for (k, d) in m.devices where k != key {
            guard let s = d.source(address), let l = s.locationKey, l != own, (s.searchPort ?? 1900) == port else {
                continue
            }
            return true
        }
        return false
    }
}
