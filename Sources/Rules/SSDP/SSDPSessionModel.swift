import NetLayers
import SSDP
import WireFormat

/// What the capture has shown of SSDP devices so far, in capture order: one record per UUID
/// named in USN (a root device or an embedded one; each carries its own USN set), with the
/// sources it sent from, its USNs and their timing, its boot and configuration numbers.
/// The session store (`SSDPSessionStore`) takes each message into it after the session rules
/// have seen it (rules see a device's record as it was before the message, `SSDPEvent.device`).
///
/// Bounded: at most `maxDevices` records (the least recently seen are evicted in bulk when
/// full, and counted), `maxUSNs` USNs in all, and `SSDPDeviceState.maxUSNs` USNs,
/// `maxSources` sources and `maxTypes` types per record (what does not fit is not tracked,
/// counted, and the record says so). Records age
/// out when their device has been silent for longer than any advertisement it made could
/// last. A record made again for a device whose earlier record was evicted or aged out says
/// `historyIncomplete`: rules that conclude from what was *not* seen stay silent on it.
public struct SSDPSessionModel: Sendable {
    public private(set) var devices: [UInt64: SSDPDeviceState] = [:]
    /// Records dropped because the table was full (the summary's `state_evicted`).
    public private(set) var evicted = 0
    /// USNs tracked in all records.
    public private(set) var usnCount = 0
    /// Keys of devices whose record was dropped (evicted or aged out), so a new record for
    /// them is known to lack history. Bounded; once full, every new record counts as lacking.
    private var forgotten: Set<UInt64> = []
    private var forgottenOverflow = false
    private var lastSweep: Timestamp = .zero

    public static let maxDevices = 4096
    public static let maxUSNs = 65536
    static let maxForgotten = 16384
    /// A device silent this long after its last message is forgotten (unless its max-age was
    /// longer: twice its max-age).
    static let minHorizon: Int64 = 3600
    /// Packet time between two age-out sweeps.
    static let sweepInterval: Int64 = 60

    public init() {}

    public func device(_ key: UInt64) -> SSDPDeviceState? { devices[key] }

    /// What the inventory lists of each device in `devices`, by the same key: kept apart from
    /// the records the rules read, which are copied into every event of their device.
    public private(set) var inventories: [UInt64: SSDPDeviceInventory] = [:]

    /// Whether what the model knew of device `key` may have been dropped (a record of it, or
    /// of any device once the list of dropped keys is full).
    public func mayHaveForgotten(_ key: UInt64) -> Bool { forgottenOverflow || forgotten.contains(key) }

    /// Takes in one message of the device `e.facts.uuidKey` (after the rules saw it).
    public mutating func update(with e: SSDPEvent) {
        sweep(at: e.time)
        guard let key = e.facts.uuidKey, e.kind == .notify || e.kind == .response else { return }
        if devices[key] == nil {
            if devices.count >= Self.maxDevices { evictOldest() }
            var fresh = SSDPDeviceState(firstFrame: e.frame, firstSeen: e.time)
            var listed = SSDPDeviceInventory()
            if let usn = e.usn, let u = SSDPSyntax.uuid(inUSN: usn) {
                listed.uuid = String(decoding: u.prefix(SSDPDeviceInventory.maxText), as: UTF8.self).lowercased()
            }
            fresh.historyIncomplete = forgottenOverflow || forgotten.contains(key)
            devices[key] = fresh
            inventories[key] = listed
        }
        if let k = inventories.index(forKey: key) { inventories.values[k].take(e) }
        guard let k = devices.index(forKey: key) else { return }
        let mayAdd = usnCount < Self.maxUSNs
        // Found once and changed in place: reading the record through its key would copy it.
        let (added, lostHistory) = Self.take(e, into: &devices.values[k], mayAddUSN: mayAdd)
        usnCount += added
        if lostHistory { evicted += 1 }
    }

    /// Takes `e` into device `d`; returns how many USNs it added and whether the device's
    /// history became incomplete with it.
    private static func take(_ e: SSDPEvent, into d: inout SSDPDeviceState, mayAddUSN: Bool) -> (Int, Bool) {
        let before = d.usns.count
        let wasIncomplete = d.historyIncomplete
        d.take(e, mayAddUSN: mayAddUSN)
        return (d.usns.count - before, !wasIncomplete && d.historyIncomplete)
    }

    /// Drops, every `sweepInterval` of packet time, the records of devices silent for longer
    /// than their horizon.
    private mutating func sweep(at now: Timestamp) {
        guard now.seconds &- lastSweep.seconds >= Self.sweepInterval else { return }
        lastSweep = now
        guard !devices.isEmpty else { return }
        var gone: [UInt64] = []
        for (k, d) in devices {
            let horizon = max(Self.minHorizon, Int64(clamping: min(d.longestMaxAge, 1 << 40)) * 2)
            if now.seconds &- d.lastSeen.seconds > horizon { gone.append(k) }
        }
        for k in gone { forget(k) }
    }

    /// Drops the least recently seen eighth of the records (bulk, so a flood of new devices
    /// costs a sort every few hundred insertions, not a scan each).
    private mutating func evictOldest() {
        let order = devices.map { ($0.key, $0.value.lastSeen, $0.value.lastFrame) }.sorted {
            $0.1 != $1.1 ? $0.1 < $1.1 : $0.2 < $1.2
        }
        for (k, _, _) in order.prefix(max(1, Self.maxDevices / 8)) {
            forget(k)
            evicted += 1
        }
    }

    private mutating func forget(_ k: UInt64) {
        usnCount -= devices[k]?.usns.count ?? 0
        devices[k] = nil
        inventories[k] = nil
        if forgotten.count < Self.maxForgotten { forgotten.insert(k) } else { forgottenOverflow = true }
    }
}

/// One device (a UUID from USN) as the capture has shown it.
public struct SSDPDeviceState: Sendable {
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// The version its SERVER claimed last.
    public var claimedVersion: UPnPVersion?
    /// The sources it sent from (at most `maxSources`), each with its boot and configuration
    /// numbers and LOCATION.
    public var sources: [SSDPSourceState] = []
    /// Its USNs (at most `maxUSNs`), by key.
    public var usns: [UInt64: SSDPUSNState] = [:]
    /// Device and service types it advertised, by type key, with the versions seen (at most
    /// `maxTypes`).
    public var types: [TypeVersion] = []
    /// What its alive NOTIFYs named: `upnp:rootdevice`, `uuid:…`, a device type.
    public var announcedRootDevice = false
    public var announcedUUID = false
    public var announcedDeviceType = false
    /// Its first alive NOTIFY, and that alive's max-age.
    public var firstAliveFrame: Int?
    public var firstAlive: Timestamp?
    public var firstAliveMaxAge: UInt64?
    /// The longest max-age it used (how long its advertisements may live).
    public var longestMaxAge: UInt64 = 0
    /// No later than the earliest expiry after `lastSeen` of one of its live USNs (nil: none
    /// is ahead). Invariant: nil or after `lastSeen`; a rule that sees a message later than
    /// it looks for the USNs that expired in between.
    public var nextExpiry: Timestamp?
    /// No later than the earliest refresh due (`SSDPUSNState.refreshDue`) after `lastSeen` of
    /// one of its live announced USNs (nil: none is ahead). Same invariant as `nextExpiry`.
    public var nextRefreshDue: Timestamp?
    /// Some of its state could not be kept (USN table full, or an earlier record of it was
    /// dropped): conclusions from absence are not drawn.
    public var historyIncomplete = false

    public struct TypeVersion: Sendable {
        public var typeKey: UInt64
        public var version: UInt64
        public var frame: Int
    }

    public static let maxUSNs = 128
    public static let maxSources = 8
    public static let maxTypes = 64

    init(firstFrame: Int, firstSeen: Timestamp) {
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        self.lastFrame = firstFrame
        self.lastSeen = firstSeen
    }

    public func source(_ a: IPAddress) -> SSDPSourceState? { sources.first { $0.address == a } }

    /// Whether `typeKey` was advertised with `version`.
    public func hasType(_ typeKey: UInt64, version: UInt64) -> Bool {
        types.contains { $0.typeKey == typeKey && $0.version == version }
    }

    /// Takes in one of its messages; a USN not tracked yet is added only when `mayAddUSN`
    /// (the model's total allows it).
    mutating func take(_ e: SSDPEvent, mayAddUSN: Bool = true) {
        let f = e.facts
        lastFrame = e.frame
        lastSeen = e.time
        if let v = e.claimedVersion { claimedVersion = v }
        if let m = f.maxAge, m > longestMaxAge { longestMaxAge = m }
        takeSource(e)
        if e.kind == .notify, f.nts == .alive {
            if firstAlive == nil {
                firstAlive = e.time
                firstAliveFrame = e.frame
                firstAliveMaxAge = f.maxAge
            }
            switch f.target {
            case .rootDevice: announcedRootDevice = true
            case .uuid: announcedUUID = true
            case .deviceType: announcedDeviceType = true
            default: break
            }
            if let t = f.typeKey, let v = f.typeVersion, !hasType(t, version: v) {
                if types.count < Self.maxTypes {
                    types.append(TypeVersion(typeKey: t, version: v, frame: e.frame))
                } else {
                    historyIncomplete = true
                }
            }
        }
        takeUSN(e, mayAdd: mayAddUSN)
        if let n = nextExpiry, n > e.time, nextRefreshDue.map({ $0 > e.time }) ?? true {
            // Both still ahead (or no refresh due): a USN just advertised can only bring them
            // closer.
            if let u = f.usnKey, let state = usns[u], state.isLive {
                if let x = state.expiry, x > e.time, x < n { nextExpiry = x }
                if let x = state.refreshDue, x > e.time, nextRefreshDue.map({ x < $0 }) ?? true { nextRefreshDue = x }
            }
        } else {
            recomputeDue(after: e.time)
        }
    }

    private mutating func takeSource(_ e: SSDPEvent) {
        let f = e.facts
        var k = sources.firstIndex { $0.address == e.src }
        if k == nil {
            guard sources.count < Self.maxSources else {
                historyIncomplete = true
                return
            }
            sources.append(SSDPSourceState(address: e.src, firstFrame: e.frame, firstSeen: e.time))
            k = sources.count - 1
        }
        guard let i = k else { return }
        sources[i].take(e, f)
    }

    private mutating func takeUSN(_ e: SSDPEvent, mayAdd: Bool) {
        let f = e.facts
        guard let u = f.usnKey else { return }
        let boot = source(e.src)?.bootID
        // Found once and changed in place.
        if let k = usns.index(forKey: u) {
            usns.values[k].take(e, f, boot: boot)
            return
        }
        guard mayAdd, usns.count < Self.maxUSNs else {
            historyIncomplete = true
            return
        }
        var fresh = SSDPUSNState()
        fresh.take(e, f, boot: boot)
        usns[u] = fresh
    }

    /// `nextExpiry` and `nextRefreshDue`: the earliest expiry and refresh due after `now` of
    /// a live USN.
    private mutating func recomputeDue(after now: Timestamp) {
        var expiry: Timestamp? = nil
        var refresh: Timestamp? = nil
        for (_, u) in usns where u.isLive {
            if let x = u.expiry, x > now, expiry.map({ x < $0 }) ?? true { expiry = x }
            if let x = u.refreshDue, x > now, refresh.map({ x < $0 }) ?? true { refresh = x }
        }
        nextExpiry = expiry
        nextRefreshDue = refresh
    }
}

/// One source address of a device: what its messages from there carried last.
public struct SSDPSourceState: Sendable {
    public var address: IPAddress
    public var firstFrame: Int
    public var firstSeen: Timestamp
    public var lastFrame: Int
    public var lastSeen: Timestamp
    /// BOOTID.UPNP.ORG of its last message that had one (an update's BOOTID is the one it
    /// ends), and the frame that set it.
    public var bootID: UInt64?
    public var bootFrame = 0
    public var bootSeen: Timestamp = .zero
    /// An alive with `bootID` was seen.
    public var aliveWithBoot = false
    /// A byebye with `bootID` came after an alive with it: the device left, and must come
    /// back with a higher BOOTID.
    public var byebyeAfterAlive: Int?
    /// The device said byebye (and has not advertised since).
    public var left = false
    /// NEXTBOOTID.UPNP.ORG of an ssdp:update, until a message carries it.
    public var pendingNextBootID: UInt64?
    public var updateFrame = 0
    /// CONFIGID.UPNP.ORG last carried, and the different one before it (same BOOTID).
    public var configID: UInt64?
    public var configFrame = 0
    public var previousConfigID: UInt64?
    public var previousConfigFrame = 0
    public var serverKey: UInt64?
    public var serverFrame = 0
    /// LOCATION last advertised (alive or response), and whether a byebye or update came
    /// since.
    public var locationKey: UInt64?
    public var locationFrame = 0
    public var revokedSinceLocation = false
    /// The link-layer address of its last message that had one (empty: none known).
    public var mac = MACBytes()
    /// Its last advertisement (alive or response) and that one's max-age.
    public var lastAdvertised: Timestamp?
    public var maxAge: UInt64?
    /// SEARCHPORT.UPNP.ORG it advertised last (nil: none, so 1900).
    public var searchPort: UInt16?

    /// Its last advertisement is still live at `t`: not expired (max-age plus 1 s of jitter)
    /// and not revoked by a byebye.
    public func isLive(at t: Timestamp) -> Bool {
        guard !left, let a = lastAdvertised, let m = maxAge else { return false }
        return Timestamp.seconds(from: a, to: t) <= Double(min(m, 1 << 40)) + 1
    }

    init(address: IPAddress, firstFrame: Int, firstSeen: Timestamp) {
        self.address = address
        self.firstFrame = firstFrame
        self.firstSeen = firstSeen
        self.lastFrame = firstFrame
        self.lastSeen = firstSeen
    }

    mutating func take(_ e: SSDPEvent, _ f: SSDPFacts) {
        lastFrame = e.frame
        lastSeen = e.time
        if e.sourceMAC.count > 0 { mac = e.sourceMAC }
        if f.advertises(e.kind) {
            lastAdvertised = e.time
            maxAge = f.maxAge
            if let p = f.searchPort { searchPort = UInt16(exactly: p) }
        }
        if let s = f.serverKey {
            serverKey = s
            serverFrame = e.frame
        }
        if f.nts == .update {
            if let n = f.nextBootID {
                pendingNextBootID = n
                updateFrame = e.frame
            }
            revokedSinceLocation = true
        } else if let b = f.bootID {
            if b != bootID {
                bootID = b
                bootFrame = e.frame
                bootSeen = e.time
                aliveWithBoot = false
                byebyeAfterAlive = nil
                previousConfigID = nil
            }
            if pendingNextBootID == b { pendingNextBootID = nil }
        }
        if let c = f.configID, c != configID {
            if configID != nil {
                previousConfigID = configID
                previousConfigFrame = configFrame
            }
            configID = c
            configFrame = e.frame
        }
        switch (e.kind, f.nts) {
        case (.notify, .alive):
            byebyeAfterAlive = nil
            aliveWithBoot = true
            left = false
        case (.notify, .byebye):
            if aliveWithBoot, byebyeAfterAlive == nil { byebyeAfterAlive = e.frame }
            left = true
            revokedSinceLocation = true
        default:
            break
        }
        if f.advertises(e.kind), let l = f.locationKey {
            if l != locationKey {
                locationKey = l
                locationFrame = e.frame
            }
            revokedSinceLocation = false
        }
    }
}

/// One USN of a device: when it was last advertised, how long that lasts, its LOCATION, and
/// the burst of identical alive messages it is in.
public struct SSDPUSNState: Sendable {
    /// Last alive NOTIFY for it.
    public var lastAlive: Timestamp?
    public var lastAliveFrame = 0
    /// Last alive or response: the advertisement that is current, and its max-age.
    public var lastAdvertised: Timestamp?
    public var lastAdvertisedFrame = 0
    public var maxAge: UInt64?
    /// The BOOTID of its source when it was last advertised.
    public var bootID: UInt64?
    /// A byebye revoked it (and it was not advertised since).
    public var revoked = false
    /// It was advertised (alive or response) at some point.
    public var everAdvertised = false
    public var locationKey: UInt64?
    public var locationFrame = 0
    /// Identical alive messages (same payload and source) in a row, and since when.
    public var burstStart: Timestamp = .zero
    public var burstFrame = 0
    public var burstCount = 0
    public var burstPayload: UInt64 = 0
    public var burstSource: IPAddress = .v4(0)

    /// Identical alives closer together than this belong to one burst.
    public static let burstWindow = 3.0

    /// When the current advertisement expires, plus one second for capture and clock jitter.
    public var expiry: Timestamp? {
        guard let t = lastAdvertised, let m = maxAge else { return nil }
        return Timestamp(seconds: t.seconds &+ Int64(clamping: min(m, 1 << 40)) &+ 1, nanoseconds: t.nanoseconds)
    }

    /// When a refresh of its last alive is due: half its max-age after it, plus one second
    /// for capture and clock jitter (SSDP-507; nil: never announced by an alive).
    public var refreshDue: Timestamp? {
        guard let t = lastAlive, let m = maxAge, m > 0 else { return nil }
        let half = min(m, 1 << 40)
        let ns = Int64(t.nanoseconds) + (half % 2 == 1 ? 500_000_000 : 0)
        return Timestamp(
            seconds: t.seconds &+ Int64(half / 2) &+ 1 &+ ns / 1_000_000_000,
            nanoseconds: UInt32(truncatingIfNeeded: ns % 1_000_000_000))
    }

    /// Advertised and not revoked.
    public var isLive: Bool { everAdvertised && !revoked }

    mutating func take(_ e: SSDPEvent, _ f: SSDPFacts, boot: UInt64?) {
        if f.advertises(e.kind) {
            lastAdvertised = e.time
            lastAdvertisedFrame = e.frame
            maxAge = f.maxAge
            bootID = boot
            revoked = false
            everAdvertised = true
            if let l = f.locationKey {
                locationKey = l
                locationFrame = e.frame
            }
        } else if e.kind == .notify, f.nts == .byebye {
            revoked = true
        }
        // An alive that answers a search (unicast to the searcher) is no (re-)announcement.
        guard e.kind == .notify, f.nts == .alive, !e.answersSearch else { return }
        lastAlive = e.time
        lastAliveFrame = e.frame
        if burstCount > 0, burstPayload == e.payloadKey, burstSource == e.src,
            Timestamp.seconds(from: burstStart, to: e.time) <= Self.burstWindow
        {
            burstCount &+= 1
        } else {
            burstStart = e.time
            burstFrame = e.frame
            burstCount = 1
            burstPayload = e.payloadKey
            burstSource = e.src
        }
    }
}

/// What the inventory lists of one device (a UUID from USN): texts copied only when they
/// change or are new (a message that repeats what the device said before costs a few
/// comparisons of keys), each list bounded; what does not fit sets `incomplete`.
public struct SSDPDeviceInventory: Sendable {
    /// The UUID as in USN, lower case, without `uuid:`.
    public var uuid = ""
    /// Its NOTIFYs and responses.
    public var messages = 0
    /// SERVER's value, last seen.
    public var server: String?
    private var serverKey: UInt64?
    /// It announced or answered as `upnp:rootdevice`.
    public var isRoot = false
    /// NT / ST values of the device and service types it advertised or answered with.
    public private(set) var types: [String] = []
    private var typeKeys: [UInt64] = []
    /// LOCATION values, in order seen.
    public private(set) var locations: [String] = []
    public private(set) var locationKeys: [UInt64] = []
    /// BOOTID.UPNP.ORG values, each change in order seen.
    public private(set) var bootIDs: [UInt64] = []
    /// Distinct max-age values.
    public private(set) var maxAges: [UInt64] = []
    /// Its last NOTIFY was a byebye, and nothing advertised it since.
    public var byebyeLast = false
    /// Source link-layer addresses.
    public private(set) var macs: [MACBytes] = []
    /// A list reached its bound.
    public private(set) var incomplete = false
    /// Its first message on each segment of a session of several, and who sent it there.
    public private(set) var sightings = SegmentSightings()

    static let maxTypes = 64
    static let maxLocations = 8
    static let maxBootIDs = 32
    static let maxMaxAges = 16
    static let maxMACs = 4
    /// Longest text kept of a value (a SERVER or LOCATION longer than this is cut).
    public static let maxText = 512

    public init() {}

    static func text(_ b: ArraySlice<UInt8>) -> String { String(decoding: b.prefix(maxText), as: UTF8.self) }

    mutating func take(_ e: SSDPEvent) {
        let f = e.facts
        messages &+= 1
        sightings.note(on: e.segment, from: e.src, frame: e.frame, time: e.captured)
        if let s = f.serverKey, s != serverKey, let v = e.server {
            serverKey = s
            server = Self.text(v)
        }
        let advertises = f.advertises(e.kind)
        if f.target == .rootDevice { isRoot = true }
        if e.kind == .notify {
            if f.nts == .byebye { byebyeLast = true } else if f.nts == .alive { byebyeLast = false }
        } else if advertises {
            byebyeLast = false
        }
        if advertises, f.target == .deviceType || f.target == .serviceType, let t = e.target {
            let k = SSDPFacts.key(t)
            if !typeKeys.contains(k) {
                if typeKeys.count < Self.maxTypes {
                    typeKeys.append(k)
                    types.append(Self.text(t))
                } else {
                    incomplete = true
                }
            }
        }
        if advertises, let l = f.locationKey, locationKeys.last != l, !locationKeys.contains(l), let v = e.location {
            if locationKeys.count < Self.maxLocations {
                locationKeys.append(l)
                locations.append(Self.text(v))
            } else {
                incomplete = true
            }
        }
        if f.nts != .update, let b = f.bootID, bootIDs.last != b {
            if bootIDs.count < Self.maxBootIDs { bootIDs.append(b) } else { incomplete = true }
        }
        if let m = f.maxAge, !maxAges.contains(m) {
            if maxAges.count < Self.maxMaxAges { maxAges.append(m) } else { incomplete = true }
        }
        if e.sourceMAC.count > 0, macs.last != e.sourceMAC, !macs.contains(e.sourceMAC) {
            if macs.count < Self.maxMACs { macs.append(e.sourceMAC) } else { incomplete = true }
        }
    }
}
