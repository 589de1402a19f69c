import Capture
import DNS
import Glibc
import NetLayers
import Rules
import SSDP
import Synchronization
import WireFormat

/// A DNS name as its labels (instance names may hold dots and spaces inside a label).
struct Labels: Hashable, Sendable {
    var labels: [[UInt8]]

    init(_ labels: [[UInt8]]) { self.labels = labels }
    init(_ dotted: String) { labels = dotted.split(separator: ".").map { Array($0.utf8) } }
    init(_ name: DNSName, in payload: [UInt8]) {
        var out: [[UInt8]] = []
        name.forEachLabel(in: payload) { out.append(Array($0)) }
        labels = out
    }

    var lowered: Labels { Labels(labels.map { $0.map { ASCII.lower($0) } }) }
    var wire: [UInt8] {
        var out: [UInt8] = []
        for l in labels.prefix(127) {
            let label = l.prefix(63)
            out.append(UInt8(label.count))
            out += label
        }
        out.append(0)
        return out
    }
    func hasSuffix(_ s: Labels) -> Bool {
        labels.count >= s.labels.count && Array(lowered.labels.suffix(s.labels.count)) == s.lowered.labels
    }
    static let services = Labels("_services._dns-sd._udp.local")
}

/// What `probe` learned from the traffic (fed on the reading thread from each SSDP or mDNS
/// frame) and what it decided to send. Every table is bounded: a flooding or lying device
/// cannot make it grow.
struct ProbeState {
    static let maxDevices = 32
    static let maxTypesPerDevice = 16
    static let maxLocations = 16
    static let maxAdvertisedPerLocation = 64
    static let maxNames = 64

    struct SSDPDevice {
        var address: IPAddress
        var types: [String] = []
    }
    struct LocationKey: Hashable {
        var responder: IPAddress
        var location: String
    }
    struct LocationSeen {
        var advertised: [Advertisement] = []
        var frame: Int
        var time: Timestamp
        var fetch: DescriptionFetch? = nil
        var queued = false
    }

    var ssdpDevices: [String: SSDPDevice] = [:]
    var ssdpOrder: [String] = []
    var locations: [LocationKey: LocationSeen] = [:]
    var locationOrder: [LocationKey] = []
    var serviceTypes: [Labels] = []
    var instances: [Labels] = []
    var hosts: [Labels] = []
    /// PTR answers to the `_services` question, with their TTLs, for the Known-Answer re-ask.
    var servicesAnswers: [(Labels, UInt32)] = []
    var truncatedTables = false

    mutating func addName(_ n: Labels, to which: WritableKeyPath<ProbeState, [Labels]>) {
        let l = n.lowered
        guard !self[keyPath: which].contains(where: { $0.lowered == l }) else { return }
        guard self[keyPath: which].count < Self.maxNames else {
            truncatedTables = true
            return
        }
        self[keyPath: which].append(n)
    }
}

/// Drives discovery: the sending thread, the description fetches, and the observation of
/// what came back.
final class ProbeDriver: @unchecked Sendable {
    let sockets: ProbeSockets
    let protocols: (ssdp: Bool, mdns: Bool)
    let target: String?
    /// Monotonic times: the start, when sending stops, the end of the run.
    let start: Double
    let sendUntil: Double
    let end: Double
    let stopFlag = Atomic<Bool>(false)
    let state = Mutex(ProbeState())
    /// Our own endpoints (address text, port), to mark our messages.
    let ours: Set<String>
    private var decoder = PacketDecoder()
    private let fetchQueue = Mutex<[ProbeState.LocationKey]>([])
    let fetches = Atomic<Int>(0)

    init(sockets: ProbeSockets, ssdp: Bool, mdns: Bool, target: String?, duration: Double) {
        self.sockets = sockets
        protocols = (ssdp, mdns)
        self.target = target?.lowercased()
        start = Frontend.now()
        end = start + duration
        // Leave the last answers time to come: MX 2 plus the fetches.
        sendUntil = end - min(3.0, duration / 3)
        sockets.readLocalPorts()
        var o: Set<String> = []
        for a in sockets.interface.ownAddresses {
            for p in Array(sockets.localPorts.values) + sockets.searchPorts { o.insert("\(a) \(p)") }
        }
        ours = o
        decoder.copiesPayloads = true
    }

    func isOurs(src: String, sport: UInt16) -> Bool { ours.contains("\(src) \(sport)") }

    var stopped: Bool { stopFlag.load(ordering: .relaxed) || Frontend.now() >= end }

    // MARK: Observing (reading thread)

    /// One captured frame that carries an SSDP or mDNS message.
    func observe(_ frame: RawFrame, _ bytes: UnsafeRawBufferPointer) {
        let outcome = decoder.decode(
            frame: frame.number, time: frame.time, linkType: frame.linkType,
            bytes: bytes.assumingMemoryBound(to: UInt8.self).span, originalLength: frame.originalLength,
            wants: { _, _, _, _ in true })
        guard case .datagram(let d) = outcome else { return }
        let payload: [UInt8]
        if let r = d.framePayload {
            guard r.lowerBound >= 0, r.upperBound <= bytes.count else { return }
            payload = Array(UnsafeRawBufferPointer(rebasing: bytes[r]))
        } else {
            payload = d.payload
        }
        if sockets.interface.ownAddresses.contains(d.src) && ours.contains("\(d.src) \(d.srcPort)") { return }
        if d.srcPort == 5353 || d.dstPort == 5353 {
            observeMDNS(d, payload)
        } else {
            observeSSDP(d, payload, frame: frame)
        }
    }

    private func matchesTarget(_ uuid: String?, _ src: IPAddress, host: String? = nil) -> Bool {
        guard let t = target else { return true }
        if "\(src)" == t { return true }
        if let uuid, uuid == t || "uuid:" + uuid == t { return true }
        if let host, host.lowercased().hasPrefix(t) { return true }
        return false
    }

    private func observeSSDP(_ d: Datagram, _ payload: [UInt8], frame: RawFrame) {
        let m = SSDPMessage(parsing: payload)
        guard m.kind == .response || (m.kind == .notify && m.notificationSubtype == .alive),
            let uuidBytes = m.usnUUID
        else { return }
        let uuid = String(decoding: uuidBytes, as: UTF8.self).lowercased()
        guard !uuid.isEmpty, uuid.utf8.count <= 64, matchesTarget(uuid, d.src) else { return }
        sockets.guardrail.noteAnswer(from: d.src)
        let type = m.usnType.map { String(decoding: $0, as: UTF8.self) }
        let location = m.value(.location).map { String(decoding: $0, as: UTF8.self) }
        state.withLock { s in
            if s.ssdpDevices[uuid] == nil {
                if s.ssdpDevices.count < ProbeState.maxDevices {
                    s.ssdpDevices[uuid] = ProbeState.SSDPDevice(address: d.src)
                    s.ssdpOrder.append(uuid)
                } else {
                    s.truncatedTables = true
                }
            }
            if let t = type, t.hasPrefix("urn:"), t.utf8.count <= 200, var dev = s.ssdpDevices[uuid],
                !dev.types.contains(t), dev.types.count < ProbeState.maxTypesPerDevice
            {
                dev.types.append(t)
                s.ssdpDevices[uuid] = dev
            }
            guard let location, !location.isEmpty, location.utf8.count <= 512 else { return }
            let key = ProbeState.LocationKey(responder: d.src, location: location)
            if s.locations[key] == nil {
                guard s.locations.count < ProbeState.maxLocations else {
                    s.truncatedTables = true
                    return
                }
                s.locations[key] = ProbeState.LocationSeen(frame: frame.number, time: frame.time)
                s.locationOrder.append(key)
            }
            let a = Advertisement(uuid: uuid, type: type)
            if var seen = s.locations[key], !seen.advertised.contains(a),
                seen.advertised.count < ProbeState.maxAdvertisedPerLocation
            {
                seen.advertised.append(a)
                s.locations[key] = seen
            }
        }
    }

    private func observeMDNS(_ d: Datagram, _ payload: [UInt8]) {
        let m = DNSMessage(parsing: payload)
        guard m.header.qr else { return }
        var host: String? = nil
        for rr in m.answers + m.additionals where rr.type == .a || rr.type == .aaaa {
            host = rr.name.presentation(in: payload)
            break
        }
        guard matchesTarget(nil, d.src, host: host) || target == nil else { return }
        sockets.guardrail.noteAnswer(from: d.src)
        state.withLock { s in
            for rr in m.answers + m.additionals {
                let owner = Labels(rr.name, in: payload)
                switch rr.value {
                case .name(let t) where rr.type == .ptr:
                    let target = Labels(t, in: payload)
                    if owner.lowered == Labels.services.lowered {
                        s.addName(target, to: \.serviceTypes)
                        if rr.ttl > 0, !s.servicesAnswers.contains(where: { $0.0.lowered == target.lowered }),
                            s.servicesAnswers.count < ProbeState.maxNames
                        {
                            s.servicesAnswers.append((target, rr.ttl))
                        }
                    } else if owner.labels.count >= 3, owner.labels.first?.first != UInt8(ascii: "_") {
                        continue  // reverse-mapping PTR and the like
                    } else if owner.labels.count == 3 || owner.labels.count == 5 {
                        // `_type._proto.local` or a subtype `_sub._printer._sub...`: its instances.
                        s.addName(target, to: \.instances)
                    }
                case .srv(_, _, _, let t):
                    s.addName(owner, to: \.instances)
                    s.addName(Labels(t, in: payload), to: \.hosts)
                default:
                    continue
                }
            }
        }
    }

    // MARK: Sending (its own thread)

    /// The discovery plan, run until `sendUntil`: the multicast searches and enumeration, then
    /// follow-ups for what answered, each sent once.
    func runSender() {
        var sentAt: [String: Double] = [:]
        while !stopped && Frontend.now() < sendUntil {
            let t = Frontend.now() - start
            var planned: [Planned] = []
            if protocols.ssdp { planned += ssdpPlan(t) }
            if protocols.mdns { planned += mdnsPlan(t) }
            var sentOne = false
            for p in planned where sentAt[p.key] == nil {
                // A repeat waits for the transmission before it (RFC 6762 §5.2: a querier's
                // first two transmissions are at least one second apart, then the interval
                // doubles).
                if let (before, delay) = p.after {
                    guard let at = sentAt[before], Frontend.now() - at >= delay else { continue }
                }
                p.send()
                sentAt[p.key] = Frontend.now()
                sentOne = true
                if stopped || Frontend.now() >= sendUntil { break }
            }
            if !sentOne {
                var ts = timespec(tv_sec: 0, tv_nsec: 50_000_000)
                nanosleep(&ts, nil)
            }
        }
    }

    /// One packet of the plan: its identity (sent once), what it waits for, how to send it.
    struct Planned {
        var key: String
        var after: (String, Double)? = nil
        var send: () -> Void
    }

    private func sendUDP(_ payload: [UInt8], _ kind: ProbeSockets.Kind, _ dst: IPAddress, _ port: UInt16) {
        sockets.send(payload, from: kind, to: dst, port: port, deadline: sendUntil) { self.stopped }
    }

    static func mSearch(st: String, host: String, mx: Int?) -> [UInt8] {
        var s = "M-SEARCH * HTTP/1.1\r\nHOST: \(host)\r\nMAN: \"ssdp:discover\"\r\n"
        if let mx { s += "MX: \(mx)\r\n" }
        s += "ST: \(st)\r\nUSER-AGENT: Linux/6 UPnP/1.1 discoscope-probe/1\r\n\r\n"
        return Array(s.utf8)
    }

    private func ssdpPlan(_ t: Double) -> [Planned] {
        var out: [Planned] = []
        // UDA 1.1/2.0 §1.3.2: multicast searches with MX 2, each sent twice (one second apart).
        for round in 0..<2 where t >= Double(round) {
            for st in ["ssdp:all", "upnp:rootdevice"] {
                if sockets.has(.ssdp4) {
                    out.append(
                        Planned(key: "ssdp4 \(st) \(round)") {
                            self.sendUDP(
                                Self.mSearch(st: st, host: "239.255.255.250:1900", mx: 2), .ssdp4, .ssdpIPv4, 1900)
                        })
                }
                if sockets.has(.ssdp6) {
                    out.append(
                        Planned(key: "ssdp6 \(st) \(round)") {
                            self.sendUDP(
                                Self.mSearch(st: st, host: "[FF02::C]:1900", mx: 2), .ssdp6, .ssdpIPv6LinkLocal, 1900)
                        })
                }
            }
        }
        // Unicast searches to each device that answered (UDA 1.1/2.0 §1.3.2: HOST is the
        // device's address and port; no MX), for its root, UUID and every type it announced,
        // once the multicast searches' answers are in (MX 2 after the second round): an answer
        // to a multicast search then cannot pass for one to a unicast search (SSDP-519).
        guard t >= 3.5 else { return out }
        let devices = state.withLock { s in s.ssdpOrder.compactMap { u in s.ssdpDevices[u].map { (u, $0) } } }
        for (uuid, dev) in devices {
            let kind: ProbeSockets.Kind = dev.address.isIPv6 ? .ssdp6 : .ssdp4
            guard sockets.has(kind) else { continue }
            let host = dev.address.isIPv6 ? "[\(dev.address)]:1900" : "\(dev.address):1900"
            for st in ["upnp:rootdevice", "uuid:\(uuid)"] + dev.types {
                out.append(
                    Planned(key: "unicast \(dev.address) \(st)") {
                        self.sendUDP(Self.mSearch(st: st, host: host, mx: nil), kind, dev.address, 1900)
                    })
            }
        }
        return out
    }

    static func query(
        _ questions: [(Labels, UInt16)], qu: Bool, id: UInt16 = 0, answers: [(Labels, Labels, UInt32)] = []
    )
        -> [UInt8]
    {
        var out: [UInt8] = DNSBuilder.u16(id) + DNSBuilder.u16(0) + DNSBuilder.u16(UInt16(questions.count))
        out += DNSBuilder.u16(UInt16(answers.count)) + DNSBuilder.u16(0) + DNSBuilder.u16(0)
        for (name, type) in questions {
            out += name.wire + DNSBuilder.u16(type) + DNSBuilder.u16(qu ? 0x8001 : 0x0001)
        }
        for (owner, target, ttl) in answers {
            let rdata = target.wire
            out += owner.wire + DNSBuilder.u16(12) + DNSBuilder.u16(1) + DNSBuilder.u32(ttl)
            out += DNSBuilder.u16(UInt16(rdata.count)) + rdata
        }
        return out
    }

    private func mdnsPlan(_ t: Double) -> [Planned] {
        var out: [Planned] = []
        // Each question first as QU over IPv4 (RFC 6762 §5.4: the first question may ask for
        // a unicast answer), as QM one second later (from port 5353), and as QM over IPv6.
        func ask(_ key: String, _ questions: [(Labels, UInt16)]) {
            if sockets.has(.mdns4) {
                out.append(
                    Planned(key: "qu4 " + key) {
                        self.sendUDP(Self.query(questions, qu: true), .mdns4, .mdnsIPv4, 5353)
                    })
                out.append(
                    Planned(key: "qm4 " + key, after: ("qu4 " + key, 1.0)) {
                        self.sendUDP(Self.query(questions, qu: false), .mdns4, .mdnsIPv4, 5353)
                    })
            }
            if sockets.has(.mdns6) {
                out.append(
                    Planned(key: "qm6 " + key) {
                        self.sendUDP(Self.query(questions, qu: false), .mdns6, .mdnsIPv6, 5353)
                    })
            }
        }
        ask("services", [(Labels.services, 12)])
        let (types, instances, hosts, known) = state.withLock { s in
            (s.serviceTypes, s.instances, s.hosts, s.servicesAnswers)
        }
        for type in types { ask("ptr \(type.lowered)", [(type, 12)]) }
        for i in instances { ask("srv-txt \(i.lowered)", [(i, 33), (i, 16)]) }
        for h in hosts { ask("addr \(h.lowered)", [(h, 1), (h, 28)]) }
        // RFC 6762 §6.7: one legacy unicast query (source port not 5353, non-zero ID), for the
        // first service type, three seconds after its QM (the interval at least doubles).
        if let first = types.first, sockets.has(.legacy4) {
            let key = "ptr \(first.lowered)"
            out.append(
                Planned(key: "legacy", after: ("qm4 " + key, 3.0)) {
                    self.sendUDP(Self.query([(first, 12)], qu: false, id: 0x5D15), .legacy4, .mdnsIPv4, 5353)
                })
        }
        // RFC 6762 §7.1: the `_services` question again with every answer as a Known-Answer
        // (its TTL as received, so more than half remains), three seconds after its QM: a
        // conforming responder stays silent.
        if !known.isEmpty, sockets.has(.mdns4) {
            let answers = known.prefix(20).map { (Labels.services, $0.0, $0.1) }
            out.append(
                Planned(key: "known-answer", after: ("qm4 services", 3.0)) {
                    self.sendUDP(
                        Self.query([(Labels.services, 12)], qu: false, answers: answers), .mdns4, .mdnsIPv4, 5353)
                })
        }
        return out
    }

    // MARK: Description fetches (their own thread)

    /// Fetches each LOCATION once, as it appears, until the end of the run: only from the
    /// address that sent it, when that address is on the link; never a redirect's target.
    func runFetcher() {
        while !stopped {
            let next: (ProbeState.LocationKey, Bool)? = state.withLock { s in
                for k in s.locationOrder where s.locations[k]?.queued == false {
                    s.locations[k]?.queued = true
                    return (k, true)
                }
                return nil
            }
            guard let (key, _) = next else {
                var ts = timespec(tv_sec: 0, tv_nsec: 50_000_000)
                nanosleep(&ts, nil)
                continue
            }
            let result = fetch(key)
            state.withLock { $0.locations[key]?.fetch = result }
        }
    }

    private func fetch(_ key: ProbeState.LocationKey) -> DescriptionFetch {
        guard let url = HTTPURL(key.location) else { return .notFetched("not an http URL") }
        guard DescriptionHost.same(url.host, key.responder) else {
            return .notFetched("its host is not the address that answered")
        }
        guard sockets.interface.isOnLink(key.responder) else { return .notFetched("not on this link") }
        guard let fd = sockets.takeTCP(v6: key.responder.isIPv6) else {
            return .notFetched("the run's fetch budget is used up")
        }
        // A connection and its request: two tokens of the one bucket.
        guard sockets.bucket.take(before: end, stop: { self.stopped }),
            sockets.bucket.take(before: end, stop: { self.stopped })
        else {
            close(fd)
            return .notFetched("the run ended first")
        }
        fetches.add(1, ordering: .relaxed)
        return ProbeHTTP.fetch(url, address: key.responder, fd: fd, sockets: sockets, deadline: end)
    }

    /// The description inputs of every LOCATION seen (fetched or not), in the order seen.
    func descriptionInputs(fileIndex: Int) -> [DescriptionInput] {
        state.withLock { s in
            s.locationOrder.compactMap { k in
                guard let seen = s.locations[k] else { return nil }
                let fetch = seen.fetch ?? .notFetched("the run ended before the fetch")
                return DescriptionInput(
                    location: k.location, responder: k.responder, advertised: seen.advertised, fetch: fetch,
                    frame: seen.frame, time: seen.time, fileIndex: fileIndex)
            }
        }
    }
}
