import Analyzer
import ArgumentParser
import Capture
import Driver
import Findings
import Glibc
import NetLayers
import Reporting
import Synchronization
import WireFormat

extension DiscoScope {
    /// `discoscope capture -i IFACE [options] [BPF filter]`: live analysis as root, safely.
    struct CaptureCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "capture",
            abstract: "Capture live on an interface and analyse SSDP and mDNS as packets arrive.",
            discussion: """
                Needs root or CAP_NET_RAW/CAP_NET_ADMIN. After the interfaces, the report output and any -w \
                file are open, privileges are dropped to -Z USER (default nobody when started as root), \
                before any packet is decoded. Several -i capture the segments (links) of one network as one \
                session: packets merged in time order, each message and finding naming its interface; -w \
                then writes pcapng with one interface description per interface. -G, -C and -W rotate -w and a --format jsonl -o report \
                as tcpdump rotates -w; SIGHUP reopens them (after logrotate renamed them). Ctrl-C or SIGTERM stops capturing, \
                finishes the analysis and prints the summary with libpcap's received/dropped counts; a second Ctrl-C exits at once.
                Exit status as analyze: 0 pass, 1 findings at or above --fail-on, 2 usage or input error, \
                3 fewer SSDP and mDNS messages than --min-messages.
                Default filter: \(CaptureCommand.defaultFilter)
                """
        )

        /// SSDP and mDNS, SSDP responses from ephemeral ports (UDP payloads starting with
        /// "HTTP"), IP fragments (mDNS responses above the MTU), and multicast membership:
        /// IGMP, and MLD (ICMPv6 behind the hop-by-hop header MLD always carries).
        static let defaultFilter =
            "udp port 1900 or udp port 5353 or (udp and udp[8:4] = 0x48545450) or (ip[6:2] & 0x3fff != 0) or (ip6 and ip6[6] = 44) or igmp or (ip6 and ip6[6] = 0 and ip6[40] = 58)"

        /// Opens a live capture on `interface` with `filter`, also writing what it captures to
        /// `writeFile` when given; says what went wrong (and what libpcap warned of) on standard
        /// error. Before the privilege drop: `capture` and `probe` both open theirs this way.
        static func openLive(
            _ interface: String, _ options: LiveSource.Options, filter: String, writeFile: String?
        ) -> PcapHandle? {
            do {
                let handle = try LiveSource.open(interface, options: options)
                if let w = handle.activationWarning { Frontend.warn(w) }
                try LiveSource.setFilter(handle, filter)
                if let w = writeFile { try LiveSource.dump(handle, to: w) }
                return handle
            } catch {
                Frontend.warn(error.description)
                return nil
            }
        }

        @Option(
            name: .shortAndLong,
            help: ArgumentHelp(
                "Interface to capture on (`any` for all; see -D); repeatable: each interface a segment of one session. Default: the first that is up and not loopback, as tcpdump picks it.",
                valueName: "iface"),
            completion: .custom { _, _, _ in ((try? LiveSource.interfaces()) ?? []).map(\.name) })
        var interface: [String] = []

        @Flag(name: [.customShort("D"), .long], help: "List the interfaces libpcap can capture on, and exit.")
        var listInterfaces = false

        @Option(
            name: .customShort("c", allowingJoined: true),
            help: ArgumentHelp(
                "Stop after COUNT packets, as tcpdump -c (-c 100 or -c100): those the filter passes, over all interfaces.",
                valueName: "count"))
        var count: Int?

        @Option(name: .long, help: ArgumentHelp("Stop after SECONDS.", valueName: "seconds"))
        var duration: Double?

        @Option(name: [.customShort("s"), .long], help: "Snapshot length in bytes.")
        var snaplen: Int32 = 262_144

        @Flag(name: .long, help: "Do not put the interface into promiscuous mode.")
        var noPromiscuous = false

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Hand each packet over as it arrives, even when the report does not go to a terminal.",
                discussion:
                    "Packets are handed over as they arrive when the report goes to a terminal and when several interfaces are captured."
            ))
        var immediateMode = false

        @Option(
            name: [.customShort("B"), .long],
            help: ArgumentHelp(
                "Kernel capture buffer size in KiB (absorbs announcement storms and pauses of the analysis).",
                valueName: "KiB"))
        // When packets are handed over as they arrive (`immediateMode`, a terminal), libpcap
        // has the kernel hand over each 256 KiB block of the ring after about a millisecond,
        // however few packets it holds, so the ring absorbs a pause of the analysis of about a
        // millisecond per block: 32 MiB is 128 blocks. Filled blocks hold far more
        // (Benchmarks/README.md, "Live capture: blocks and buffer").
        var bufferSize: Int32 = 32768

        @Option(
            name: .customShort("w"),
            help: ArgumentHelp(
                "Also write the captured packets to FILE (pcap, each packet written as it comes; pcapng with several -i); -G, -C and -W rotate it.",
                discussion:
                    "FILE.pcapng: pcapng, each packet with the findings known when its message's output is written as packet comments (Wireshark: frame.comment contains \"SSDP-005\"); packets wait in a bounded queue until then. Findings concluded later (a deadline passed, the end of the capture) are in the report only. It is written whole: -G, -C and -W rotate a .pcap file.",
                valueName: "file"))
        var writeFile: String?

        @OptionGroup var rotation: RotationOptions

        @OptionGroup var privileges: PrivilegeOptions

        @Option(name: [.customShort("F"), .long], help: "BPF filter expression (instead of trailing arguments).")
        var filter: String?

        @Argument(
            help: ArgumentHelp(
                "BPF filter expression (default: SSDP, mDNS, HTTP-looking UDP and IP fragments).", valueName: "filter"))
        var filterWords: [String] = []

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Serve Prometheus metrics at http://ADDR:PORT/metrics (and /healthz); ADDR defaults to 127.0.0.1, [::1]:PORT for IPv6. See docs/SENSOR.md.",
                valueName: "[addr:]port"))
        var metrics: String?

        @OptionGroup var subnets: SubnetOptions
        @OptionGroup var jobs: JobsOptions

        @OptionGroup var output: OutputOptions
        @OptionGroup var rules: RuleOptions

        func validate() throws {
            try output.check()
            if Set(interface).count != interface.count {
                throw ValidationError("-i names an interface twice.")
            }
            if let c = count, c < 1 { throw ValidationError("-c needs a positive count.") }
            if writeFile == "-" && output.output == nil {
                throw ValidationError(
                    "-w - writes the packets to standard output, where the report goes too: give -o FILE for the report"
                )
            }
            if let d = duration, !(d > 0) { throw ValidationError("--duration needs a positive number of seconds.") }
            try rotation.check(writeFile: writeFile, output: output)
            if rotation.rotates, let w = writeFile, AnnotatedPackets.wanted(w) {
                throw ValidationError(
                    "-w \(w): a pcapng file with finding comments is written whole and cannot rotate; give -w FILE.pcap to rotate"
                )
            }
            if let m = metrics, MetricsListenAddress.parse(m) == nil {
                throw ValidationError(
                    "--metrics \(m): give PORT, ADDR:PORT or [ADDR]:PORT with a numeric address (127.0.0.1:9464, [::1]:9464)"
                )
            }
        }

        func run() throws {
            if listInterfaces {
                do {
                    for (k, i) in try LiveSource.interfaces().enumerated() {
                        var line = "\(k + 1).\(i.name)"
                        if let d = i.description { line += " (\(d))" }
                        if !i.flags.isEmpty { line += " [\(i.flags.joined(separator: ", "))]" }
                        print(TerminalText.escaped(line))
                    }
                } catch {
                    Frontend.warn(error.description)
                    throw ExitCode(2)
                }
                return
            }
            throw ExitCode(try capture())
        }

        /// tcpdump's choice when no -i is given: the first interface libpcap lists that is up
        /// and not loopback (libpcap lists running, non-loopback ones first).
        static func defaultInterface() throws(CaptureError) -> String? {
            let all = try LiveSource.interfaces()
            let usable = all.filter { $0.flags.contains("Up") && !$0.flags.contains("Loopback") && $0.name != "any" }
            return (usable.first { $0.flags.contains("Running") } ?? usable.first)?.name
        }

        /// The subnets of each segment of a capture on `interfaces` (by segment name: the
        /// interface's, or `""` for a capture on one): those `--subnet` gives for it, else
        /// the interface's own addresses as libpcap lists them. With one interface, `--subnet
        /// NAME=` may name it.
        static func subnets(of interfaces: [String], given: SubnetOptions) throws -> [String: LinkSubnets] {
            let several = interfaces.count > 1
            var out = try given.bySegment(among: several ? interfaces : ["", interfaces[0]])
            if !several, let named = out.removeValue(forKey: interfaces[0]) {
                for p in named.prefixes { out["", default: LinkSubnets()].add(p) }
            }
            let listed = (try? LiveSource.interfaces()) ?? []
            for name in interfaces {
                let key = several ? name : ""
                if out[key] == nil, let i = listed.first(where: { $0.name == name }), !i.subnets.isEmpty {
                    out[key] = i.subnets
                }
            }
            return out
        }

        func capture() throws -> Int32 {
            var interfaces = interface
            if interfaces.isEmpty {
                do {
                    guard let picked = try Self.defaultInterface() else {
                        Frontend.warn("no interface is up apart from loopback; name one with -i (see -D for the list)")
                        return 2
                    }
                    interfaces = [picked]
                    Frontend.warn(
                        "no -i given: capturing on \(picked), the first interface that is up and not loopback (-D lists them)"
                    )
                } catch {
                    Frontend.warn(error.description)
                    return 2
                }
            }
            var o = LiveSource.Options()
            o.snaplen = snaplen
            o.promiscuous = !noPromiscuous
            // As tcpdump: packets as they arrive when the report goes to a terminal; else the
            // kernel hands them over in blocks (within the read timeout), which takes far less
            // work per packet and lets a busy link's packets reach the workers in whole batches.
            // Several interfaces' packets are merged in the order they arrive: as they arrive.
            o.immediate =
                immediateMode || interfaces.count > 1 || (output.output == nil && isatty(STDOUT_FILENO) != 0)
            o.bufferSize = bufferSize.multipliedReportingOverflow(by: 1024).overflow ? Int32.max : bufferSize * 1024
            var expression = filterWords.joined(separator: " ")
            if let f = filter { expression = expression.isEmpty ? f : "(\(f)) and (\(expression))" }
            if expression.isEmpty { expression = Self.defaultFilter }
            // Every interface is opened (and the first -w file created) before the privilege
            // drop. One interface: -w is pcap, as tcpdump writes it; several: one pcapng with
            // an interface description each, written in the merged order. Either may rotate.
            // FILE.pcapng: DiscoScope writes it once each message is analysed, with finding
            // comments (`AnnotatedCapture`); it does not rotate.
            let several = interfaces.count > 1
            let annotate = writeFile.map(AnnotatedPackets.wanted) ?? false
            var handles: [PcapHandle] = []
            for name in interfaces {
                guard let handle = Self.openLive(name, o, filter: expression, writeFile: nil) else { return 2 }
                handles.append(handle)
            }
            var writer: PcapNGWriter? = nil
            if annotate, let path = writeFile {
                do {
                    writer = try PcapNGWriter(
                        path: path,
                        interfaces: zip(interfaces, handles).map {
                            PcapNGWriter.Interface(name: $0, linkType: $1.linkType, snapLength: $1.snapshotLength)
                        })
                } catch {
                    Frontend.warn(error.description)
                    return 2
                }
            }
            let outputs = CaptureOutputs()
            if !annotate, let path = writeFile {
                let format: any CaptureFileFormat =
                    several
                    ? PcapNGFormat(
                        interfaces: zip(interfaces, handles).map {
                            PcapNGWriter.Interface(name: $0, linkType: $1.linkType, snapLength: $1.snapshotLength)
                        })
                    : PcapFormat(linkType: handles[0].linkType, snapLength: handles[0].snapshotLength)
                do {
                    outputs.packets = try CaptureFileOutput(
                        policy: rotation.policy(path), format: format, warn: { Frontend.warn($0) })
                } catch {
                    Frontend.warn("-w " + error.description)
                    return 2
                }
            }
            // What tcpdump says when it starts, and the filter in force (a capture that shows
            // nothing should not leave the user guessing whether it runs).
            var start = ""
            for (name, handle) in zip(interfaces, handles) {
                let linkName =
                    handle.linkType.description + (handle.linkType.libpcapDescription.map { " (\($0))" } ?? "")
                start +=
                    "listening on \(name), link-type \(linkName), snapshot length \(handle.snapshotLength) bytes\n"
            }
            FileHandleStderr.write(
                start + "filter: \(expression)\(filterWords.isEmpty && filter == nil ? " (the default)" : "")\n")
            let linkSubnets = try Self.subnets(of: interfaces, given: subnets)
            for name in interfaces {
                guard let known = linkSubnets[several ? name : ""], !known.isEmpty else { continue }
                FileHandleStderr.write("subnets of \(name): \(known.description)\n")
            }
            // The session's name: the interface, or the interfaces joined by `+`.
            let session = interfaces.joined(separator: "+")
            let captured: any FrameSource =
                several
                ? MergedSource(Array(zip(handles.map { $0 as any FrameSource }, interfaces)), input: session)
                : handles[0]
            var source: any FrameSource = outputs.packets.map { RecordingSource(captured, output: $0) } ?? captured
            let annotated = writer.map { AnnotatedCapture(writer: $0, comments: FindingComments(), several: several) }
            if let annotated { source = AnnotatingSource(source, capture: annotated) }
            // Not root, with capabilities (systemd's AmbientCapabilities=, setcap): the capture
            // is open and nothing later needs them. Given up before the first other thread
            // starts, since each thread has its own and inherits its maker's.
            if geteuid() != 0 && Capabilities.held() {
                guard Capabilities.dropAll() else { return 2 }
            }
            // SIGINT, SIGTERM and SIGHUP are blocked before the analysis starts its threads,
            // which inherit the mask: only the controller's thread takes them.
            let stop = StopController(handles)
            stop.start()
            let frontend: Frontend
            do {
                // JSON lines to a file: a sink that rotates (-G, -C, -W) and reopens on SIGHUP.
                if output.format == .jsonl, let path = output.output, path != "-" {
                    do {
                        let file = try RotatingFile(
                            policy: rotation.policy(path), flag: "-o", ofLines: true, append: rotation.append,
                            warn: { Frontend.warn($0) })
                        outputs.report = RotatingReportSink(file)
                    } catch { throw InputError("-o " + error.description) }
                }
                frontend = try Frontend(
                    output: output, rules: rules, live: true, jobs: jobs.count, inputs: [session],
                    subnets: linkSubnets, reportSink: outputs.report, findingComments: annotated?.comments)
            } catch let e as InputError {
                Frontend.warn(e.description)
                return 2
            }
            // The metrics listener is opened before the drop too (a port below 1024 needs root).
            var metricsServer: MetricsServer? = nil
            if let text = metrics, let address = MetricsListenAddress.parse(text) {
                let live = LiveMetrics(collector: MetricsCollector())
                let collector = live.collector
                do {
                    metricsServer = try MetricsServer.open(address) { collector.snapshot.exposition }
                } catch {
                    Frontend.warn(error.description)
                    return 2
                }
                frontend.analysis.keepLiveTally()
                let analysis = frontend.analysis
                analysis.onConcluded = { now in
                    var stats: LiveSource.Statistics? = nil
                    for h in handles {
                        guard let s = LiveSource.statistics(h) else { continue }
                        stats = stats.map { $0 + s } ?? s
                    }
                    live.refresh(analysis, now: now, kernel: stats)
                }
            }
            // Everything privileged is open (the capture, the report and the temporary file
            // SARIF and JUnit keep results in): drop before the first packet is decoded.
            outputs.handOver(to: privileges)
            guard privileges.drop() else { return 2 }
            // Rotated files are made from now on, as the user the capture now runs as.
            if let problem = outputs.directoryProblem() {
                Frontend.warn(problem)
                return 2
            }
            if let server = metricsServer {
                guard server.start() else {
                    Frontend.warn("--metrics: cannot start the thread that serves the metrics")
                    return 2
                }
                let shown = MetricsListenAddress(
                    host: server.address.host, port: server.port, isIPv6: server.address.isIPv6)
                FileHandleStderr.write("metrics: http://\(shown)/metrics\n")
            }
            defer { metricsServer?.stop() }
            if let annotated { frontend.analysis.onSettled = { annotated.settled(through: $0) } }
            let started = Frontend.now()
            let limit = count
            let deadline = duration.map { started + $0 }
            frontend.run(source, fileIndex: 0) {
                // Between packets, on the thread that writes the files: SIGHUP reopens them.
                outputs.reopenIfAsked(stop.reopens.load(ordering: .relaxed))
                if stop.requested.load(ordering: .relaxed) { return true }
                // -G with -W: every file is written.
                if outputs.finished { return true }
                // The report cannot be written (disk full, closed pipe): stop, and say so. A
                // rotating report says it and goes on (its sink has no failure to stop on).
                if frontend.sink.failure != nil { return true }
                if let limit, frontend.analysis.summary.framesRead >= limit { return true }
                if let deadline, Frontend.now() >= deadline { return true }
                return false
            }
            // A rotating capture file's losses were said as they happened; this says the total.
            let packetProblem = outputs.packets?.file.close()
            if let packetProblem, outputs.packets?.file.fatal == nil { Frontend.warn(packetProblem) }
            if let annotated {
                // Everything read is emitted first, so the packets still held get the
                // findings known before the capture's end.
                frontend.analysis.caughtUp()
                if !annotated.finish() {
                    Frontend.warn("\(annotated.writer.path): the capture file could not be written completely")
                }
            }
            // libpcap's counts, added over the interfaces.
            var stats: LiveSource.Statistics? = nil
            for h in handles {
                guard let s = LiveSource.statistics(h) else { continue }
                stats = stats.map { $0 + s } ?? s
            }
            if let s = stats, s.dropped > 0 || s.droppedByInterface > 0 {
                Frontend.warn(
                    "the kernel dropped \(s.dropped) packet(s) (interface: \(s.droppedByInterface)); findings that need every packet may be incomplete. A larger -B buffer or a narrower filter helps."
                )
            }
            let status = frontend.finish { summary in
                summary.interface = session
                if let s = stats {
                    summary.packetsReceived = s.received
                    summary.packetsDropped = s.dropped
                    summary.packetsDroppedByInterface = s.droppedByInterface
                }
                if let packetProblem, outputs.packets?.file.fatal == nil { summary.inputErrors.append(packetProblem) }
            }
            // Packets that did not reach the capture file: the run is not clean.
            return packetProblem != nil ? max(status, 2) : status
        }
    }
}

/// SIGINT / SIGTERM / SIGHUP handling without async-signal-unsafe work in a handler: the
/// signals are blocked in every thread and one thread waits for them with `sigwait`. The
/// first SIGINT or SIGTERM asks the capture loop to stop (and wakes libpcap); the second exits
/// at once with 130. SIGHUP asks the reading thread, which writes the outputs, to reopen them
/// (`reopens` counts the requests; the reader compares it with the count it handled).
final class StopController: @unchecked Sendable {
    let requested = Atomic<Bool>(false)
    let reopens = Atomic<Int>(0)
    private let handles: [PcapHandle]

    init(_ handles: [PcapHandle]) { self.handles = handles }

    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        return set
    }

    func start() {
        var set = Self.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // The thread lives as long as the process; it holds the controller.
        let tid = startThread { [self] in
            var set = StopController.signalSet()
            var sig: Int32 = 0
            while sigwait(&set, &sig) == 0 {
                if sig == SIGHUP {
                    reopens.wrappingAdd(1, ordering: .relaxed)
                    continue
                }
                if requested.exchange(true, ordering: .relaxed) { _exit(130) }
                for h in handles { h.breakLoop() }
            }
        }
        if let tid { pthread_detach(tid) }
    }
}

/// Dropping root after the capture handle is open, as tcpdump's -Z does.
enum Privileges {
    struct DropError: Error, CustomStringConvertible {
        var description: String
    }

    static func drop(to user: String) throws {
        guard let pw = getpwnam(user) else {
            throw DropError(
                description: "-Z \(user): no such user; cannot drop privileges (use --no-drop to stay root)")
        }
        let uid = pw.pointee.pw_uid
        let gid = pw.pointee.pw_gid
        guard initgroups(user, gid) == 0 || setgroups(0, nil) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
            throw DropError(description: "cannot drop privileges to \(user): \(String(cString: strerror(errno)))")
        }
        // Verify: the real and effective IDs changed and root cannot be regained.
        guard getuid() == uid, geteuid() == uid, getgid() == gid, uid == 0 || setuid(0) != 0 else {
            throw DropError(description: "privileges were not fully dropped to \(user)")
        }
        // The analysis threads already run: the C library changes the IDs of every thread
        // (POSIX credentials are per process); checked, since they decode hostile packets.
        guard everyThread(hasUID: uid) else {
            throw DropError(description: "privileges were not dropped to \(user) in every thread")
        }
    }

    /// Whether every thread of this process has `uid` as its real, effective, saved and
    /// file-system user ID (the `Uid:` line of /proc/self/task/*/status).
    static func everyThread(hasUID uid: uid_t) -> Bool {
        guard let dir = opendir("/proc/self/task") else { return false }
        defer { closedir(dir) }
        var threads = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true else { continue }
            guard let f = fopen("/proc/self/task/\(name)/status", "r") else { continue }  // the thread ended
            defer { fclose(f) }
            var line: UnsafeMutablePointer<CChar>? = nil
            var capacity = 0
            defer { free(line) }
            var ids: [Substring] = []
            while getline(&line, &capacity, f) > 0, let l = line {
                let text = String(cString: l)
                guard text.hasPrefix("Uid:") else { continue }
                ids = text.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " || $0 == "\n" })
                break
            }
            guard ids.count == 4, ids.allSatisfy({ uid_t($0) == uid }) else { return false }
            threads += 1
        }
        return threads > 0
    }
}
