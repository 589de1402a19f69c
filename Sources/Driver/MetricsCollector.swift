import Analyzer
import Capture
import Findings
import Glibc
import Reporting
import Synchronization
import WireFormat

/// What `/metrics` shows, as plain values: made on the reading thread from the analysis
/// (`MetricsSnapshot.init(summary:…)`), handed to the server thread whole under a lock, and
/// written out there (`exposition`), so a scrape costs the capture one copy of this value.
public struct MetricsSnapshot: Sendable {
    /// A device, host or service instance with a label of its own, or `_other`: those past
    /// the cap (or whose label another one already has), added up.
    public struct Entity: Sendable, Hashable {
        public var proto: RuleProtocol
        public var label: String
        /// 1 when present (0 when not); for `_other`, how many of them are present.
        public var present = 0
        /// Seconds since the epoch of its latest message (for `_other`, the latest of all).
        public var lastSeen = 0.0
        /// 1 when its latest word was a goodbye (SSDP byebye, mDNS TTL 0); for `_other`, how many.
        public var goodbye = 0
        public var findings = SeverityCounts()
    }

    /// Labelled entities per kind at most; the rest are added up as `_other`.
    public static let maxEntities = 256
    /// The label of the series that adds up the entities past the cap.
    public static let overflowLabel = "_other"
    /// How long an announcement is taken to last when it gave no lifetime: UPnP's
    /// recommended minimum max-age (UDA 1.1, §1.2.2), and RFC 6762 §10's TTLs for records
    /// naming a host (120 s) and for the others (75 minutes).
    public static let defaultSSDPMaxAge: Int64 = 1800
    public static let defaultHostTTL: Int64 = 120
    public static let defaultServiceTTL: Int64 = 4500

    public var packetsRead = 0
    public var framesSkipped = 0
    /// libpcap's counts, added over the interfaces (nil: not known).
    public var kernel: LiveSource.Statistics? = nil
    public var messages = MessageKindCounts()
    public var findings: [(rule: RuleID, severity: Severity, count: Int)] = []
    public var stateEvicted = 0
    public var devicesPresent: [RuleProtocol: Int] = [.ssdp: 0, .mdns: 0]
    public var servicesPresent = 0
    public var devices: [Entity] = []
    public var services: [Entity] = []
    /// Entities folded into `_other`, by kind (`device`, `service`).
    public var devicesFolded = 0
    public var servicesFolded = 0

    public init() {}

    /// The snapshot of a run at `now`: counts from `summary` and `tally`, entities from `view`.
    public init(
        summary: RunSummary, tally: LiveTally, view: LiveView, now: Timestamp, kernel: LiveSource.Statistics?
    ) {
        packetsRead = summary.framesRead
        framesSkipped = summary.skipped.reduce(0) { $0 &+ $1.count }
        self.kernel = kernel
        messages = tally.messages
        findings = tally.findings.map { ($0.key.rule, $0.key.severity, $0.value) }.sorted {
            $0.rule != $1.rule ? $0.rule < $1.rule : $0.severity < $1.severity
        }
        stateEvicted = view.stateEvicted
        var deviceLabels = Labels()
        for d in view.inventory.devices {
            let present = Self.isPresent(d, view: view, now: now)
            if present { devicesPresent[d.proto, default: 0] += 1 }
            var e = Entity(proto: d.proto, label: d.id)
            e.present = present ? 1 : 0
            e.lastSeen = d.lastSeen.asDouble
            e.goodbye = (d.proto == .ssdp ? d.byebye : d.goodbye) ? 1 : 0
            e.findings = d.findings
            if deviceLabels.take(&e) {
                devices.append(e)
            } else {
                devicesFolded += 1
                deviceLabels.fold(e)
            }
        }
        var serviceLabels = Labels()
        for s in view.inventory.services {
            let present = Self.isPresent(s, view: view, now: now)
            if present { servicesPresent += 1 }
            var e = Entity(proto: .mdns, label: s.instance)
            e.present = present ? 1 : 0
            e.lastSeen = s.lastSeen.asDouble
            e.goodbye = s.goodbye ? 1 : 0
            e.findings = s.findings
            if serviceLabels.take(&e) {
                services.append(e)
            } else {
                servicesFolded += 1
                serviceLabels.fold(e)
            }
        }
        devices += deviceLabels.overflow.map { [$0] } ?? []
        services += serviceLabels.overflow.map { [$0] } ?? []
    }

    /// The labels handed out for one kind of entity: each once, at most `maxEntities`.
    private struct Labels {
        var used: Set<String> = []
        var overflow: Entity? = nil

        /// Gives `e` its label (cut to the format's bound) and returns true, or returns false
        /// when it must be added up in `_other`: past the cap, or its label taken.
        mutating func take(_ e: inout Entity) -> Bool {
            let label = MetricsExposition.cut(e.label)
            let key = "\(e.proto.rawValue) \(label)"
            guard used.count < MetricsSnapshot.maxEntities, label != MetricsSnapshot.overflowLabel,
                !used.contains(key)
            else { return false }
            used.insert(key)
            e.label = label
            return true
        }

        mutating func fold(_ e: Entity) {
            var o = overflow ?? Entity(proto: e.proto, label: MetricsSnapshot.overflowLabel)
            o.present += e.present
            o.lastSeen = max(o.lastSeen, e.lastSeen)
            o.goodbye += e.goodbye
            o.findings.add(e.findings)
            overflow = o
        }
    }

    /// Whether a device or host is still announced at `now`: no goodbye after its latest
    /// announcement, whose lifetime has not run out (SSDP: the longest max-age it gave; mDNS:
    /// its address records' TTLs; without either, the defaults above).
    static func isPresent(_ d: InventoryDevice, view: LiveView, now: Timestamp) -> Bool {
        switch d.proto {
        case .ssdp:
            guard !d.byebye else { return false }
            let maxAge = d.maxAge.max().map { Int64(clamping: $0) } ?? defaultSSDPMaxAge
            return d.lastSeen.adding(seconds: maxAge).seconds >= now.seconds
        case .mdns:
            guard !d.goodbye else { return false }
            if let until = view.hostsCachedUntil[d.id] { return until >= now }
            return d.lastSeen.adding(seconds: defaultHostTTL).seconds >= now.seconds
        }
    }

    static func isPresent(_ s: InventoryService, view: LiveView, now: Timestamp) -> Bool {
        guard !s.goodbye else { return false }
        if let until = view.servicesCachedUntil[s.instance] { return until >= now }
        return s.lastSeen.adding(seconds: defaultServiceTTL).seconds >= now.seconds
    }

    /// The text exposition of this snapshot.
    public var exposition: String {
        var w = MetricsExposition()
        w.family("discoscope_packets_read_total", .counter, help: "Packets read from the capture.")
        w.sample("discoscope_packets_read_total", [], packetsRead)
        w.family(
            "discoscope_frames_skipped_total", .counter,
            help: "Frames the analysis skipped (link type not decoded, malformed, headers cut short).")
        w.sample("discoscope_frames_skipped_total", [], framesSkipped)
        if let k = kernel {
            w.family(
                "discoscope_kernel_packets_received_total", .counter,
                help: "Packets the kernel passed the filter (libpcap ps_recv, added over the interfaces).")
            w.sample("discoscope_kernel_packets_received_total", [], Double(k.received))
            w.family(
                "discoscope_kernel_packets_dropped_total", .counter,
                help: "Packets dropped for lack of buffer space (libpcap ps_drop).")
            w.sample("discoscope_kernel_packets_dropped_total", [], Double(k.dropped))
            w.family(
                "discoscope_interface_packets_dropped_total", .counter,
                help: "Packets the network interface or its driver dropped (libpcap ps_ifdrop).")
            w.sample("discoscope_interface_packets_dropped_total", [], Double(k.droppedByInterface))
        }
        w.family("discoscope_messages_total", .counter, help: "SSDP and mDNS messages decoded, by protocol and kind.")
        for m in messages.all {
            w.sample("discoscope_messages_total", [("protocol", m.proto.rawValue), ("kind", m.kind)], m.count)
        }
        w.family("discoscope_findings_total", .counter, help: "Findings reported, by rule and severity.")
        for f in findings {
            w.sample(
                "discoscope_findings_total", [("rule", f.rule.rawValue), ("severity", f.severity.rawValue)], f.count)
        }
        w.family(
            "discoscope_state_evicted_total", .counter,
            help:
                "Session table entries evicted because their table was full (findings that needed them were not made)."
        )
        w.sample("discoscope_state_evicted_total", [], stateEvicted)
        w.family(
            "discoscope_devices_present", .gauge,
            help: "SSDP root devices and mDNS hosts whose latest announcement has not expired or said goodbye.")
        for p in [RuleProtocol.ssdp, .mdns] {
            w.sample("discoscope_devices_present", [("protocol", p.rawValue)], devicesPresent[p] ?? 0)
        }
        w.family(
            "discoscope_service_instances_present", .gauge,
            help: "DNS-SD service instances whose records have not expired or said goodbye.")
        w.sample("discoscope_service_instances_present", [], servicesPresent)
        w.family(
            "discoscope_metrics_entities_dropped", .gauge,
            help: "Devices and service instances without series of their own (past the cap), added up in _other.")
        w.sample("discoscope_metrics_entities_dropped", [("kind", "device")], devicesFolded)
        w.sample("discoscope_metrics_entities_dropped", [("kind", "service")], servicesFolded)
        Self.write(devices, kind: "device", into: &w)
        Self.write(services, kind: "service", into: &w)
        return w.text
    }

    private static func write(_ list: [Entity], kind: String, into w: inout MetricsExposition) {
        let name = "discoscope_\(kind)"
        func labels(_ e: Entity) -> [(String, String)] {
            kind == "device" ? [("protocol", e.proto.rawValue), ("device", e.label)] : [("instance", e.label)]
        }
        w.family(
            "\(name)_present", .gauge,
            help: "1 while the \(kind)'s announcement is live (for _other: how many are).")
        for e in list { w.sample("\(name)_present", labels(e), e.present) }
        w.family(
            "\(name)_last_seen_timestamp_seconds", .gauge,
            help: "When the \(kind)'s latest message was captured, in seconds since the epoch.")
        for e in list { w.sample("\(name)_last_seen_timestamp_seconds", labels(e), e.lastSeen) }
        w.family(
            "\(name)_goodbye", .gauge,
            help: "1 when the \(kind)'s latest word was a goodbye (for _other: how many).")
        for e in list { w.sample("\(name)_goodbye", labels(e), e.goodbye) }
        w.family("\(name)_findings_total", .counter, help: "Findings on the \(kind), by severity.")
        for e in list {
            for (s, n) in [("error", e.findings.error), ("warning", e.findings.warning), ("info", e.findings.info)] {
                w.sample("\(name)_findings_total", labels(e) + [("severity", s)], n)
            }
        }
    }
}

/// The snapshot `/metrics` serves: replaced whole by the reading thread, read whole by the
/// server thread.
public final class MetricsCollector: Sendable {
    private let state = Mutex(MetricsSnapshot())

    public init() {}

    public func publish(_ s: MetricsSnapshot) { state.withLock { $0 = s } }
    public var snapshot: MetricsSnapshot { state.withLock { $0 } }
}

/// The reading thread's side of live metrics: after each conclusion of the capture (once a
/// second), a new snapshot for the collector. The devices and services are rebuilt from the
/// session models at most every `viewInterval` seconds, longer when that takes long, so
/// that a large inventory cannot take more than a small share of the reading thread.
public final class LiveMetrics {
    public let collector: MetricsCollector
    private var view = LiveView()
    private var nextView = 0.0
    /// The reading thread's share a rebuild of the view may take at most.
    static let viewShare = 0.02

    public init(collector: MetricsCollector) { self.collector = collector }

    /// A new snapshot of `analysis` at `now` (the capture's clock), with libpcap's counts.
    public func refresh(_ analysis: Analysis, now: Timestamp, kernel: LiveSource.Statistics?) {
        let started = Self.monotonic()
        if started >= nextView {
            view = analysis.liveView()
            let took = Self.monotonic() - started
            nextView = started + max(1, took / Self.viewShare)
        }
        let tally = analysis.liveTally ?? LiveTally()
        collector.publish(
            MetricsSnapshot(summary: analysis.summary, tally: tally, view: view, now: now, kernel: kernel))
    }

    private static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
