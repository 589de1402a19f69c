import CPcap
import Glibc
import NetLayers

/// Live capture through libpcap: `pcap_create` + options + `pcap_activate`, a kernel BPF
/// filter, statistics, `-w` dumping and the interface list (`-D`).
public enum LiveSource {
    public struct Options: Sendable {
        public var snaplen: Int32 = 262_144
        public var promiscuous = true
        /// Deliver packets as they arrive (lines appear at once).
        public var immediate = true
        /// Kernel buffer in bytes (nil: libpcap's default).
        public var bufferSize: Int32? = nil
        /// Read timeout, so the loop can check for signals and `--duration`.
        public var timeoutMilliseconds: Int32 = 100
        public init() {}
    }

    /// Opens and activates `interface`. Permission problems say what is needed.
    public static func open(_ interface: String, options: Options = Options()) throws(CaptureError) -> PcapHandle {
        var errbuf = [CChar](repeating: 0, count: Int(discoscope_pcap_errbuf_size()))
        guard let p = pcap_create(interface, &errbuf) else {
            throw CaptureError(
                input: interface,
                reason: String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        pcap_set_snaplen(p, options.snaplen)
        pcap_set_promisc(p, options.promiscuous ? 1 : 0)
        pcap_set_immediate_mode(p, options.immediate ? 1 : 0)
        pcap_set_timeout(p, options.timeoutMilliseconds)
        if let b = options.bufferSize { pcap_set_buffer_size(p, b) }
        let nano = pcap_set_tstamp_precision(p, Int32(PCAP_TSTAMP_PRECISION_NANO)) == 0
        let rc = pcap_activate(p)
        if rc < 0 {
            let detail = String(cString: pcap_geterr(p))
            pcap_close(p)
            throw CaptureError(input: interface, reason: describeActivateError(rc, detail, interface))
        }
        // Warnings (promiscuous mode not supported, …) do not stop the capture; the caller
        // reports them.
        let warning =
            rc > 0 ? "\(interface): \(String(cString: pcap_statustostr(rc))): \(String(cString: pcap_geterr(p)))" : nil
        let nanoActive = nano && pcap_get_tstamp_precision(p) == Int32(PCAP_TSTAMP_PRECISION_NANO)
        let handle = PcapHandle(pcap: p, input: interface, nanosecond: nanoActive)
        handle.activationWarning = warning
        // Non-blocking reads plus our own poll: libpcap's blocking read on Linux may not
        // return on its timeout, and the loop must see Ctrl-C, -c and --duration.
        let fd = pcap_get_selectable_fd(p)
        if fd >= 0, pcap_setnonblock(p, 1, &errbuf) == 0 {
            handle.selectableFD = fd
            handle.pollMilliseconds = options.timeoutMilliseconds
            // Watched between packets when it can be asked about (not `any`).
            handle.watchesInterface = discoscope_interface_is_up(fd, interface) == 1
        }
        return handle
    }

    static func describeActivateError(_ rc: Int32, _ detail: String, _ interface: String) -> String {
        switch rc {
        case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED:
            return "you do not have permission to capture on this interface (\(detail)). Capturing needs root or the "
                + "CAP_NET_RAW and CAP_NET_ADMIN capabilities: run `sudo discoscope capture -i \(interface)`, or grant them once with "
                + "`sudo setcap cap_net_raw,cap_net_admin=eip $(command -v discoscope)`"
        case PCAP_ERROR_NO_SUCH_DEVICE:
            return "no such interface (\(detail)); `discoscope capture -D` lists the interfaces"
        case PCAP_ERROR_IFACE_NOT_UP:
            return "the interface is not up (\(detail))"
        default:
            return detail.isEmpty ? String(cString: pcap_statustostr(rc)) : detail
        }
    }

    /// A compiled filter applied in the kernel (live capture).
    public static func setFilter(_ handle: PcapHandle, _ expression: String) throws(CaptureError) {
        var prog = try handle.compileFilter(expression)
        defer { pcap_freecode(&prog) }
        if pcap_setfilter(handle.pcap, &prog) != 0 {
            throw CaptureError(input: handle.input, reason: "cannot set filter '\(expression)': \(handle.lastError)")
        }
    }

    /// Starts writing every captured record to `path` (pcap, nanosecond if the capture is).
    public static func dump(_ handle: PcapHandle, to path: String) throws(CaptureError) {
        guard let d = pcap_dump_open(handle.pcap, path) else {
            throw CaptureError(input: path, reason: "cannot write the capture file: \(handle.lastError)")
        }
        // The file header reaches the disk now, or the capture does not start.
        guard pcap_dump_flush(d) == 0 else {
            let reason = String(cString: strerror(errno))
            pcap_dump_close(d)
            throw CaptureError(input: path, reason: "cannot write the capture file (\(reason))")
        }
        handle.dumper = d
        handle.dumpPath = path
        handle.dumpedLength = pcap_dump_ftell64(d)
    }

    public struct Statistics: Sendable {
        public var received: UInt64
        public var dropped: UInt64
        public var droppedByInterface: UInt64

        public init(received: UInt64, dropped: UInt64, droppedByInterface: UInt64) {
            self.received = received
            self.dropped = dropped
            self.droppedByInterface = droppedByInterface
        }

        /// The counts of two captures (several interfaces) added.
        public static func + (a: Statistics, b: Statistics) -> Statistics {
            Statistics(
                received: a.received &+ b.received, dropped: a.dropped &+ b.dropped,
                droppedByInterface: a.droppedByInterface &+ b.droppedByInterface)
        }
    }

    public static func statistics(_ handle: PcapHandle) -> Statistics? {
        var st = pcap_stat()
        guard pcap_stats(handle.pcap, &st) == 0 else { return nil }
        return Statistics(
            received: UInt64(st.ps_recv), dropped: UInt64(st.ps_drop), droppedByInterface: UInt64(st.ps_ifdrop))
    }

    public struct Interface: Sendable {
        public var name: String
        public var description: String?
        public var flags: [String]
        /// The subnets of its IPv4 and IPv6 addresses (address and netmask, as libpcap lists
        /// them), at most `LinkSubnets.maxPrefixes`.
        public var subnets = LinkSubnets()
    }

    /// The subnets of an interface's addresses in libpcap's list.
    static func subnets(_ first: UnsafeMutablePointer<pcap_addr>?) -> LinkSubnets {
        var out = LinkSubnets()
        var cur = first
        while let a = cur {
            cur = a.pointee.next
            guard let addr = a.pointee.addr, let mask = a.pointee.netmask else { continue }
            let family = Int32(addr.pointee.sa_family)
            guard let address = Self.address(addr, family), let netmask = Self.address(mask, family),
                let p = IPPrefix(address: address, netmask: netmask)
            else { continue }
            if !out.add(p) { break }
        }
        return out
    }

    /// The address a `sockaddr` of `family` holds (a netmask may leave its own family unset).
    private static func address(_ sa: UnsafeMutablePointer<sockaddr>, _ family: Int32) -> IPAddress? {
        switch family {
        case AF_INET:
            return UnsafeRawPointer(sa).withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                IPAddress.v4(UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
            }
        case AF_INET6:
            return UnsafeRawPointer(sa).withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { IPAddress(bytes: $0) }
            }
        default:
            return nil
        }
    }

    /// The interfaces libpcap can capture on, as `tcpdump -D` lists them.
    public static func interfaces() throws(CaptureError) -> [Interface] {
        var errbuf = [CChar](repeating: 0, count: Int(discoscope_pcap_errbuf_size()))
        var list: UnsafeMutablePointer<pcap_if_t>? = nil
        guard pcap_findalldevs(&list, &errbuf) == 0 else {
            throw CaptureError(
                input: "interfaces",
                reason: String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pcap_freealldevs(list) }
        var out: [Interface] = []
        var cur = list
        while let d = cur {
            let f = d.pointee.flags
            var flags: [String] = []
            if f & UInt32(PCAP_IF_UP) != 0 { flags.append("Up") }
            if f & UInt32(PCAP_IF_RUNNING) != 0 { flags.append("Running") }
            if f & UInt32(PCAP_IF_LOOPBACK) != 0 { flags.append("Loopback") }
            if f & UInt32(PCAP_IF_WIRELESS) != 0 { flags.append("Wireless") }
            out.append(
                Interface(
                    name: String(cString: d.pointee.name),
                    description: d.pointee.description.map { String(cString: $0) }, flags: flags,
                    subnets: subnets(d.pointee.addresses)))
            cur = d.pointee.next
        }
        return out
    }
}
