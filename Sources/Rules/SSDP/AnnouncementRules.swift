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
        "Per USN: an advertisement (alive or response) lives max-age seconds (plus 1 s of jitter). Needs the capture to show the device again after that time with the same BOOTID (still available) and no byebye for the USN; reported at that message.",
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
        "Per USN: the interval between two alive NOTIFYs (same BOOTID, no byebye between) is at most max-age/2 + 1 s; within one device, max-ages differ by at most a factor of 2. Needs two consecutive alives of a USN in the capture. Reported once per device.",
        example: "re-announce every 1790 s with max-age 1800; rootdevice max-age 1800 and a service max-age 60",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 60),
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
            // A byebye, then a new announcement later: not a refresh.
            RuleExample([
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 0),
                notify(byebye11, at: 10),
                notify(alive11.setting("CACHE-CONTROL", "max-age=100"), at: 90),
            ]),
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.kind == .notify, e.facts.nts == .alive, let d = e.device, let device = e.facts.uuidKey else { return }
        if let u = e.usnState, let last = u.lastAlive, !u.revoked, u.bootID == e.facts.bootID, !e.timeWentBack,
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
        if let first = d.firstAliveMaxAge, let m = e.facts.maxAge, let f = d.firstAliveFrame, min(first, m) > 0,
            max(first, m) / 2 > min(first, m), store.verdicts.firstReport(.refreshInterval, on: device, at: e, &out)
        {
            out.report(
                Self.descriptor,
                "max-age \(m) s here, \(first) s in the alive of frame \(f): advertisements of one device should have comparable durations",
                related: [f])
        }
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
        "Per USN and source: a fourth identical alive (same payload) within 3 s of the first is a storm. Per device and source: an initial alive set (the first alives after the device's byebye, or with a higher BOOTID than before) none of whose USNs is announced again within 5 s was sent once; judged when the capture runs past those 5 s (at the end of the input, or by live capture's timer), not when a byebye cuts the set short.",
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
    struct Key: Hashable {
        var device: UInt64
        var source: IPAddress
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
        let over = store.verdicts.initialSets.rows.filter {
            Timestamp.seconds(from: $0.value.time, to: now) > Self.repeatWindow
        }
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
        "Per UUID, whatever the source: two source addresses that keep sending different BOOTIDs (the other one still sends its own more than 5 s after this one settled on its BOOTID) are two devices sharing a UUID. A multi-homed device (same BOOTID everywhere) and a move to a new address are legal. Devices without BOOTID (UPnP 1.0) cannot be told apart and are not judged. Reported once per UUID.",
        example: "uuid X from 10.0.0.5 (BOOTID 3, /desc.xml) and from 10.0.0.9 (BOOTID 77, /rootDesc.xml)",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("BOOTID.UPNP.ORG", "77").setting("LOCATION", "http://192.168.1.21:80/d.xml"),
                    src: "192.168.1.21", at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 20),
            ])
        ],
        nonTriggering: [
            // Multi-homed: one BOOTID on both interfaces.
            RuleExample([
                notify(alive11, src: "192.168.1.20", at: 0),
                notify(
                    alive11.setting("LOCATION", "http://192.168.2.20:8200/rootDesc.xml"), src: "192.168.2.20", at: 0.01),
                notify(alive11, src: "192.168.1.20", at: 20),
            ]),
            // A new address after a reboot; the old one is silent.
            RuleExample([
                notify(alive11.setting("BOOTID.UPNP.ORG", "3"), src: "192.168.1.20", at: 0),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", at: 10),
                notify(alive11.setting("BOOTID.UPNP.ORG", "4"), src: "192.168.1.21", at: 20),
            ]),
        ])

    /// How long after this source settled on its BOOTID the other may still send its old one
    /// (a multi-homed device's interfaces announce a reboot at slightly different times).
    static let settle = 5.0

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let x = e.facts.bootID, let d = e.device, d.sources.count > 1, let s = e.sourceState, s.bootID == x,
            let device = e.facts.uuidKey
        else { return }
        for o in d.sources where o.address != e.src {
            guard let ob = o.bootID, ob != x, Timestamp.seconds(from: s.bootSeen, to: o.lastSeen) > Self.settle else {
                continue
            }
            guard store.verdicts.firstReport(.uuidUnique, on: device, at: e, &out) else { return }
            out.report(
                Self.descriptor,
                "this UUID is also advertised from \(o.address) with BOOTID \(ob) (frame \(o.lastFrame)) while this host uses BOOTID \(x): two devices share one UUID",
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
        "Per USN: a byebye with no earlier alive or response for it, and no alive for it within 10 s after (byebyes before the first alive are how many devices start). Needs the capture to go on 10 s after the byebye; reported at the end of the input, once per device.",
        example: "byebye uuid:Y::upnp:rootdevice with no earlier alive or response for it", scope: .stateful)
    static let examples = RuleExamples(
        triggering: [RuleExample([notify(byebye11, at: 0), otherSearch(at: 20)])],
        nonTriggering: [
            // Start-up: byebye, then the alive.
            RuleExample([notify(byebye11, at: 0), notify(alive11, at: 0.1), otherSearch(at: 20)]),
            RuleExample([notify(alive11, at: 0), notify(byebye11, at: 10), otherSearch(at: 30)]),
            // The capture ends too soon to tell.
            RuleExample([notify(byebye11, at: 0), otherSearch(at: 2)]),
        ])

    /// A byebye not yet followed by an alive (its verdict row, `SSDPVerdicts.unknownByebyes`,
    /// by USN key).
    struct Pending {
        var device: UInt64
        var uuid: [UInt8]
        var frame: Int
        var time: Timestamp
        var source: IPAddress
    }
    /// An alive this soon after the byebye makes it a start-up byebye.
    static let startUp = 10.0

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard let usn = e.facts.usnKey, let device = e.facts.uuidKey else { return }
        if e.facts.advertises(e.kind) {
            if let t = store.verdicts.unknownByebyes[usn]?.time, Timestamp.seconds(from: t, to: e.time) <= Self.startUp
            {
                store.verdicts.unknownByebyes.remove(usn)
            }
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
        for (_, p) in store.verdicts.unknownByebyes.rows
        where Timestamp.seconds(from: p.time, to: store.latest) > Self.startUp {
            byDevice[p.device, default: []].append(p)
        }
        for (_, list) in byDevice {
            let sorted = list.sorted { $0.frame < $1.frame }
            guard let first = sorted.first else { continue }
            let what = sorted.count == 1 ? "a USN" : "\(sorted.count) USNs"
            out.reportAtEnd(
                Self.descriptor,
                "byebye for \(what) never announced or seen in a response (\(frameList(sorted.map(\.frame))))",
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

/// SSDP-515: a device advertises only the highest version of each type.
struct HighestVersionOnlyRule: SessionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-515", "highest-version-only", .error, "A device advertises only the highest version of each type",
        spec: "UDA 2.0 §1.2.2",
        "Per UUID: alives naming two versions of one device or service type. An error for UPnP/2.0 devices; info for 1.1 (the 1.1 text is unverified); 1.0 devices are not judged.",
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
        "Per UUID: two source addresses with the same BOOTID (one device on two interfaces) whose SERVER or CONFIGID differ. An error for UPnP/2.0 devices; info for 1.1 (unverified); 1.0 devices carry no BOOTID and are not judged. Reported once per UUID.",
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
        "Per UUID and source address: an alive or response whose LOCATION differs from the one this source advertised before, with the same BOOTID (or none in both) and no byebye or update in between. Another interface of a multi-homed device has its own LOCATION (legal).",
        interop: "gssdp treats the change as a missed byebye",
        example: "alive with LOCATION http://10.0.0.5:80/d.xml, later http://10.0.0.5:81/d.xml, same BOOTID",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                notify(alive11, at: 0),
                notify(alive11.setting("LOCATION", "http://192.168.1.20:8201/rootDesc.xml"), at: 10),
            ])
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
        ])

    static func judge(_ e: SSDPEvent, in store: inout SSDPSessionStore, into out: inout SessionReports) {
        guard e.facts.advertises(e.kind), let l = e.facts.locationKey, let s = e.sourceState,
            let before = s.locationKey,
            before != l, !s.revokedSinceLocation, s.bootID == e.facts.bootID
        else { return }
        let now = e.location.map { SSDPText.show($0) } ?? "?"
        out.report(
            Self.descriptor,
            "LOCATION moved to \(now) from the one advertised in frame \(s.locationFrame), with the same BOOTID and no byebye or update in between",
            related: [s.locationFrame])
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
        "Needs a unicast M-SEARCH in the capture, sent to the address a UPnP/1.1-or-later device announced from, on the port it advertised (1900 without SEARCHPORT), for a target the device announced (ssdp:all, upnp:rootdevice, its uuid or one of its types); and a message of that device more than 1.5 s later (it is still there). No response from it to the searcher within 1.5 s is reported at the end of the input.",
        interop:
            "gssdp, pupnp, HUPnP and strict miniupnpd ignore a unicast M-SEARCH without MX (UDA defines it without MX)",
        example: "unicast M-SEARCH to <dev>:SEARCHPORT with no response within 1 s while the device keeps announcing",
        scope: .stateful)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([notify(alive11, at: 0), unicastSearch(at: 10), notify(alive11, at: 20)])
        ],
        nonTriggering: [
            RuleExample([
                notify(alive11, at: 0), unicastSearch(at: 10), response(ssdp(okLine, response11), at: 10.2),
                notify(alive11, at: 20),
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
                store.verdicts.devices[key]?.searchTarget?.take(alive: e)
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
        for p in store.verdicts.unicastSearches.elements {
            for (key, d) in devices {
                guard let t = d.searchTarget, t.address == p.device, t.searchPort == p.port, t.firstSeen < p.time,
                    Timestamp.seconds(from: p.time, to: d.lastSeen) > Self.window, !p.answered.contains(key),
                    Self.matches(p, t, key: key)
                else { continue }
                let uuid = String(decoding: d.uuid, as: UTF8.self)
                out.reportAtEnd(
                    Self.descriptor,
                    "the unicast M-SEARCH to \(p.device) port \(p.port) got no response from uuid:\(uuid) within \(String(format1: Self.window)) s, though the device was still there (frame \(d.lastFrame))",
                    frames: [p.frame, d.lastFrame], time: p.time, source: p.searcher, device: "uuid:\(uuid)")
            }
        }
    }
}
