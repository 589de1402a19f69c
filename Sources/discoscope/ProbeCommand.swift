import Analyzer
import ArgumentParser
import Capture
import Driver
import Findings
import Glibc
import NetLayers
import Reporting
import Rules
import Synchronization
import WireFormat

extension DiscoScope {
    /// `discoscope probe -i IFACE`: makes the devices on a link talk, and judges what they say.
    struct ProbeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "probe",
            abstract: "Drive SSDP and mDNS discovery on an interface and check the devices that answer.",
            discussion: """
                Captures on the interface as `capture` does, sends M-SEARCHes (multicast ssdp:all and \
                upnp:rootdevice with MX 2, twice; then unicast to each device for its root, UUID and types) and \
                mDNS/DNS-SD queries (the _services enumeration, each type, each instance's SRV/TXT, each host's \
                A/AAAA, as QM and QU, over IPv4 and IPv6; one legacy unicast query; one Known-Answer re-ask), \
                fetches each LOCATION's device description (SSDP-601..606), and analyses everything with every \
                rule. Safe by construction: it sends only to 239.255.255.250, 224.0.0.251, ff02::c, ff02::fb and \
                to devices on this link that answered, at most \(ProbeCommand.rate) packets per second (one token \
                bucket), for --duration seconds; sockets are bound to the interface, privileges are dropped once \
                the capture and the sockets are open. Needs root or CAP_NET_RAW/CAP_NET_ADMIN.
                """
        )
        static let rate = 20

        enum ProtocolChoice: String, ExpressibleByArgument, CaseIterable {
            case ssdp, mdns, both
        }

        @Option(name: .shortAndLong, help: ArgumentHelp("Interface to probe on.", valueName: "iface"))
        var interface: String

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Only follow up this device: an IP address, an SSDP UUID or an mDNS host name (prefix).",
                valueName: "target"))
        var target: String?

        @Option(
            name: .long, help: ArgumentHelp("Seconds to run (sending stops up to 3 s earlier).", valueName: "seconds"))
        var duration: Double = 10

        @Option(name: .customLong("protocol"), help: "ssdp, mdns or both.")
        var protocolChoice: ProtocolChoice = .both

        @Flag(name: .long, help: "Do not send over IPv6 even when the interface has a link-local address.")
        var noIPv6 = false

        @Option(
            name: .customShort("w"),
            help: ArgumentHelp(
                "Also write the captured packets, our probes included, to FILE (pcap).", valueName: "file"))
        var writeFile: String?

        @OptionGroup var privileges: PrivilegeOptions

        @OptionGroup var output: OutputOptions
        @OptionGroup var rules: RuleOptions

        func validate() throws {
            try output.check()
            guard duration >= 3 && duration <= 600 else {
                throw ValidationError("--duration must be between 3 and 600 seconds.")
            }
        }

        func run() throws {
            throw ExitCode(try probe())
        }

        func probe() throws -> Int32 {
            guard let iface = ProbeInterface.lookUp(interface) else {
                Frontend.warn("\(interface): no such interface")
                return 2
            }
            var o = LiveSource.Options()
            o.promiscuous = false
            let filter = CaptureCommand.defaultFilter
            guard let handle = CaptureCommand.openLive(interface, o, filter: filter, writeFile: writeFile) else {
                return 2
            }
            let sockets: ProbeSockets
            do {
                sockets = try ProbeSockets(interface: iface, rate: Self.rate, ipv6: !noIPv6)
            } catch {
                Frontend.warn("\(error)")
                return 2
            }
            FileHandleStderr.write(
                "probing on \(interface) for \(duration) s (at most \(Self.rate) packets/s), link-type \(handle.linkType)\n"
            )
            let stop = StopController([handle])
            stop.start()
            let driver = ProbeDriver(
                sockets: sockets, ssdp: protocolChoice != .mdns, mdns: protocolChoice != .ssdp, target: target,
                duration: duration)
            let frontend: Frontend
            do {
                frontend = try Frontend(
                    output: output, rules: rules, live: true, jobs: 1, inputs: [interface],
                    wrapReporter: { format, inner, sink in
                        format == .junit ? DeviceJUnitReporter(sink: sink) as any Reporter : OursMarker(inner, driver)
                    }, ownSources: Set(iface.ownAddresses.map(\.description)))
            } catch let e as InputError {
                Frontend.warn(e.description)
                return 2
            }
            frontend.checksDescriptions = protocolChoice != .mdns
            guard privileges.drop() else { return 2 }
            frontend.analysis.frameTap = { kind, frame, bytes in
                if case .message = kind { driver.observe(frame, bytes) }
            }
            let sender = startThread(named: "probe-send") { driver.runSender() }
            let fetcher = startThread(named: "probe-fetch") { driver.runFetcher() }
            frontend.run(handle, fileIndex: 0) {
                if stop.requested.load(ordering: .relaxed) { return true }
                if frontend.sink.failure != nil { return true }
                return Frontend.now() >= driver.end
            }
            // What was read is analysed now (one job processes a batch at a time): the count
            // of findings on our own messages below needs all of it.
            frontend.analysis.caughtUp()
            driver.stopFlag.store(true, ordering: .relaxed)
            // Both threads stop at the end of the run (each wait is bounded by it).
            if let t = sender { pthread_join(t, nil) }
            if let t = fetcher { pthread_join(t, nil) }
            // The description rules, through the same policy and reporter as every other rule.
            let disabled = frontend.settings.disabled
            for input in driver.descriptionInputs(fileIndex: 0) {
                frontend.analysis.report(external: DescriptionChecks.run(input, disabled: disabled))
            }
            let sent = sockets.sent.withLock { $0 }
            let total = sent.values.reduce(0, +)
            var note = "probe: sent \(total) datagram(s) ("
            note += ProbeSockets.Kind.allCases.compactMap { k in sent[k].map { "\(k): \($0)" } }.joined(separator: ", ")
            note += "), fetched \(driver.fetches.load(ordering: .relaxed)) description(s)"
            let skipped = sockets.notSent.withLock { $0 }
            if skipped > 0 { note += "; \(skipped) planned packet(s) not sent before sending stopped" }
            let refused = sockets.refused.withLock { $0 }
            if refused > 0 { note += "; \(refused) refused by the destination guard" }
            if driver.state.withLock({ $0.truncatedTables }) {
                note += "; some devices or names were left out (bounds)"
            }
            FileHandleStderr.write(note + "\n")
            let own = frontend.ownFindings
            if own.count > 0 {
                var text =
                    "probe: \(own.count) finding(s) on messages we sent left out of the report (they judge the probe):\n"
                for f in own.first {
                    text += TerminalText.escaped("  frame \(f.frames.first ?? 0) \(f.rule) \(f.message)") + "\n"
                }
                FileHandleStderr.write(text)
            }
            let stats = LiveSource.statistics(handle)
            return frontend.finish { summary in
                summary.interface = interface
                // Left out as the probe's own, not suppressed by configuration.
                summary.suppressed = max(0, summary.suppressed - own.count)
                if let s = stats {
                    summary.packetsReceived = s.received
                    summary.packetsDropped = s.dropped
                    summary.packetsDroppedByInterface = s.droppedByInterface
                }
            }
        }
    }
}

/// Passes everything to the real reporter, marking the messages `probe` sent: `"ours": true`
/// in JSON lines, `(ours)` before the summary in text. Messages go through `message(_:)`
/// (no renderer), so each record can be marked.
final class OursMarker: Reporter {
    var inner: any Reporter
    let driver: ProbeDriver

    init(_ inner: any Reporter, _ driver: ProbeDriver) {
        self.inner = inner
        self.driver = driver
    }

    var isStreaming: Bool { inner.isStreaming }

    func message(_ m: MessageRecord, findings: [Finding]) {
        var r = m
        if driver.isOurs(src: m.src, sport: m.sport) {
            r.fields.insert(("ours", .bool(true)), at: 0)
            r.summaryUTF8 = Array("(ours) ".utf8) + r.summaryUTF8
        }
        inner.message(r, findings: findings)
    }
    func finding(_ f: Finding) { inner.finding(f) }
    func finish(_ s: RunSummary) { inner.finish(s) }
    func beginFile(_ index: Int, name: String) { inner.beginFile(index, name: name) }
    func inventory(_ inventory: Inventory) { inner.inventory(inventory) }
    func setSegmentNames(_ names: [String]) { inner.setSegmentNames(names) }
}
