import Glibc
import NetLayers
import Synchronization

/// The interface `probe` works on: its index, IPv4 address and netmask, IPv6 link-local
/// address (each when it has one).
struct ProbeInterface: Sendable {
    var name: String
    var index: UInt32
    var ipv4: (address: UInt32, mask: UInt32)?
    var ipv6LinkLocal: IPAddress?

    static func lookUp(_ name: String) -> ProbeInterface? {
        let index = if_nametoindex(name)
        guard index != 0 else { return nil }
        var out = ProbeInterface(name: name, index: index, ipv4: nil, ipv6LinkLocal: nil)
        var list: UnsafeMutablePointer<ifaddrs>? = nil
        guard getifaddrs(&list) == 0 else { return out }
        defer { freeifaddrs(list) }
        var p = list
        while let entry = p {
            defer { p = entry.pointee.ifa_next }
            guard let n = entry.pointee.ifa_name, String(cString: n) == name, let sa = entry.pointee.ifa_addr else {
                continue
            }
            if sa.pointee.sa_family == sa_family_t(AF_INET), out.ipv4 == nil, let m = entry.pointee.ifa_netmask {
                let a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
                let mask = m.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
                out.ipv4 = (a, mask)
            } else if sa.pointee.sa_family == sa_family_t(AF_INET6), out.ipv6LinkLocal == nil {
                let bytes = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { s in
                    withUnsafeBytes(of: s.pointee.sin6_addr) { Array($0) }
                }
                if let a = IPAddress(bytes: bytes), a.isLinkLocal { out.ipv6LinkLocal = a }
            }
        }
        return out
    }

    /// Whether `a` is on this link: IPv4 in the interface's subnet, IPv6 link-local.
    func isOnLink(_ a: IPAddress) -> Bool {
        switch a {
        case .v4(let v):
            guard let (addr, mask) = ipv4, mask != 0 else { return false }
            return v & mask == addr & mask && v != addr && v | mask != 0xFFFF_FFFF
        case .v6:
            return a.isLinkLocal && !a.isMulticast && a != ipv6LinkLocal
        }
    }

    var ownAddresses: [IPAddress] {
        (ipv4.map { [IPAddress.v4($0.address)] } ?? []) + (ipv6LinkLocal.map { [$0] } ?? [])
    }
}

/// One token bucket for every packet `probe` sends (UDP datagrams; an HTTP fetch takes two
/// tokens): at most `rate` per second, spaced evenly (a bucket of one token), so any
/// one-second window holds at most `rate` of them.
final class TokenBucket: Sendable {
    let interval: Double
    private let next = Mutex(0.0)

    init(rate: Int) { interval = 1.0 / Double(max(1, rate)) }

    /// Waits for a token; false (and no token) when none comes before `deadline` or `stop`.
    func take(before deadline: Double, stop: () -> Bool) -> Bool {
        while true {
            if stop() { return false }
            let now = Frontend.now()
            // A token never accumulates: each send is at least `interval` after the one before.
            let wait: Double = next.withLock { n in
                guard now >= n else { return n - now }
                n = now + interval
                return 0
            }
            if wait == 0 { return true }
            if now + wait > deadline { return false }
            var ts = timespec(tv_sec: 0, tv_nsec: Int(min(wait, 0.05) * 1e9))
            nanosleep(&ts, nil)
        }
    }
}

/// Where `probe` may send: the discovery groups, and devices on this link that answered.
/// Every UDP send goes through `ProbeSockets.send`, which asks this and the token bucket.
final class SendGuard: Sendable {
    static let groups: Set<IPAddress> = [.ssdpIPv4, .mdnsIPv4, .ssdpIPv6LinkLocal, .mdnsIPv6]
    let interface: ProbeInterface
    let answered: Mutex<Set<IPAddress>> = Mutex([])
    static let maxAnswered = 256

    init(interface: ProbeInterface) { self.interface = interface }

    /// Records a device that sent SSDP or mDNS on this link.
    func noteAnswer(from a: IPAddress) {
        guard interface.isOnLink(a) else { return }
        answered.withLock { s in if s.count < Self.maxAnswered { s.insert(a) } }
    }

    func allows(_ dst: IPAddress) -> Bool {
        if Self.groups.contains(dst) { return true }
        guard interface.isOnLink(dst) else { return false }
        return answered.withLock { $0.contains(dst) }
    }
}

/// The sockets `probe` sends from, all opened before privileges are dropped, each bound to
/// the interface (SO_BINDTODEVICE), with the interface as multicast interface. SSDP goes
/// out with TTL / hop limit 1 (its group and unicast peers are on the link), mDNS with 255
/// (RFC 6762 §11: receivers may discard anything else).
final class ProbeSockets: @unchecked Sendable {
    enum Kind: Int, CaseIterable {
        case ssdp4, mdns4, legacy4, ssdp6, mdns6
    }
    /// SSDP searches each go from a socket of their own (kept open to the end, so answers are
    /// received), so that every answer pairs with exactly one search (SSDP-501, 504, 505
    /// pair a response with the latest search from its destination port). Their number
    /// bounds the searches of a run.
    private let ssdpPool4 = Mutex<[Int32]>([])
    private let ssdpPool6 = Mutex<[Int32]>([])
    private var ssdpAll: [Int32] = []
    static let searchSockets4 = 48
    static let searchSockets6 = 16
    /// Local ports of the search sockets, to mark our own messages in the report.
    private(set) var searchPorts: [UInt16] = []
    let interface: ProbeInterface
    let guardrail: SendGuard
    let bucket: TokenBucket
    private var fds: [Kind: Int32] = [:]
    /// Pre-opened TCP sockets for the description fetches (bound to the interface while
    /// privileged); each fetch uses one, so their number bounds the fetches.
    private let tcp4 = Mutex<[Int32]>([])
    private let tcp6 = Mutex<[Int32]>([])
    static let fetchSockets = 12
    /// Local ports of the UDP sockets, to mark our own messages in the report.
    private(set) var localPorts: [Kind: UInt16] = [:]
    /// Packets sent, per kind (datagrams; HTTP fetches counted apart).
    let sent = Mutex<[Kind: Int]>([:])
    let refused = Mutex(0)
    /// Sends the bucket had no token for before the deadline.
    let notSent = Mutex(0)

    struct OpenError: Error, CustomStringConvertible { var description: String }

    init(interface: ProbeInterface, rate: Int, ipv6: Bool) throws {
        self.interface = interface
        guardrail = SendGuard(interface: interface)
        bucket = TokenBucket(rate: rate)
        if interface.ipv4 != nil {
            fds[.ssdp4] = try open(v6: false, port: 0, hops: 1)
            let searchPool = try (0..<Self.searchSockets4).map { _ in try open(v6: false, port: 0, hops: 1) }
            ssdpPool4.withLock { $0 = searchPool }
            ssdpAll += searchPool
            // QM questions come from port 5353 (RFC 6762 §5.2; from another port they are
            // legacy queries answered by unicast). Shared with a responder on this host.
            fds[.mdns4] = try open(v6: false, port: 5353, hops: 255)
            fds[.legacy4] = try open(v6: false, port: 0, hops: 255)
            let pool = try (0..<Self.fetchSockets).map { _ in try tcpSocket(v6: false) }
            tcp4.withLock { $0 = pool }
        }
        if ipv6, interface.ipv6LinkLocal != nil {
            fds[.ssdp6] = try open(v6: true, port: 0, hops: 1)
            let searchPool = try (0..<Self.searchSockets6).map { _ in try open(v6: true, port: 0, hops: 1) }
            ssdpPool6.withLock { $0 = searchPool }
            ssdpAll += searchPool
            fds[.mdns6] = try open(v6: true, port: 5353, hops: 255)
            let pool = try (0..<(Self.fetchSockets / 2)).map { _ in try tcpSocket(v6: true) }
            tcp6.withLock { $0 = pool }
        }
        guard !fds.isEmpty else {
            throw OpenError(description: "\(interface.name) has no IPv4 address and no IPv6 link-local address")
        }
    }

    deinit {
        for fd in Array(fds.values) + ssdpAll { close(fd) }
        for fd in tcp4.withLock({ $0 }) + tcp6.withLock({ $0 }) { close(fd) }
    }

    func has(_ k: Kind) -> Bool { fds[k] != nil }

    private func fail(_ what: String) -> OpenError {
        OpenError(description: "\(interface.name): \(what): \(String(cString: strerror(errno)))")
    }

    private func setInt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var v = value
        return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    private func bindToDevice(_ fd: Int32) -> Bool {
        var name = Array(interface.name.utf8CString)
        return setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, &name, socklen_t(name.count)) == 0
    }

    private func open(v6: Bool, port: UInt16, hops: Int32) throws -> Int32 {
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail("socket") }
        var ok = bindToDevice(fd)
        guard ok else {
            close(fd)
            throw fail("SO_BINDTODEVICE")
        }
        if port != 0 {
            ok = setInt(fd, SOL_SOCKET, SO_REUSEADDR, 1) && setInt(fd, SOL_SOCKET, SO_REUSEPORT, 1)
        }
        if v6 {
            ok =
                ok && setInt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1)
                && setInt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_IF, Int32(bitPattern: interface.index))
                && setInt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_HOPS, hops)
                && setInt(fd, Int32(IPPROTO_IPV6), IPV6_UNICAST_HOPS, hops)
                && setInt(fd, Int32(IPPROTO_IPV6), IPV6_MULTICAST_LOOP, 0)
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            ok =
                ok
                && withUnsafePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
                    }
                }
        } else {
            var mreq = ip_mreqn()
            mreq.imr_ifindex = Int32(bitPattern: interface.index)
            ok =
                ok
                && setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_IF, &mreq, socklen_t(MemoryLayout<ip_mreqn>.size))
                    == 0
                && setInt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, hops)
                && setInt(fd, Int32(IPPROTO_IP), IP_TTL, hops)
                && setInt(fd, Int32(IPPROTO_IP), IP_MULTICAST_LOOP, 0)
                && setInt(fd, Int32(IPPROTO_IP), IP_MULTICAST_ALL, 0)
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            ok =
                ok
                && withUnsafePointer(to: &sa) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    }
                }
        }
        guard ok else {
            let e = fail("socket options or bind to port \(port)")
            close(fd)
            throw e
        }
        return fd
    }

    private func tcpSocket(v6: Bool) throws -> Int32 {
        let fd = socket(
            v6 ? AF_INET6 : AF_INET,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw fail("socket") }
        // TTL 1: the description fetch never leaves the link.
        guard
            bindToDevice(fd),
            v6 ? setInt(fd, Int32(IPPROTO_IPV6), IPV6_UNICAST_HOPS, 1) : setInt(fd, Int32(IPPROTO_IP), IP_TTL, 1)
        else {
            let e = fail("TCP socket options")
            close(fd)
            throw e
        }
        return fd
    }

    /// Fills in the local ports (after bind).
    func readLocalPorts() {
        searchPorts = ssdpAll.compactMap(localPort)
        for (k, fd) in fds {
            if let p = localPort(fd) { localPorts[k] = p }
        }
    }

    private func localPort(_ fd: Int32) -> UInt16? {
        do {
            var ss = sockaddr_storage()
            var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let ok = withUnsafeMutablePointer(to: &ss) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) == 0 }
            }
            guard ok else { return nil }
            let family = ss.ss_family
            let port = withUnsafePointer(to: &ss) { p -> UInt16 in
                if family == sa_family_t(AF_INET6) {
                    return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                }
                return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
            return port
        }
    }

    /// A pre-opened TCP socket for one fetch (nil when all are used).
    func takeTCP(v6: Bool) -> Int32? {
        v6 ? tcp6.withLock { $0.popLast() } : tcp4.withLock { $0.popLast() }
    }

    /// The socket address of `a`:`port` on this interface.
    func withSockaddr<R>(_ a: IPAddress, _ port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch a {
        case .v4(let v):
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = port.bigEndian
            sa.sin_addr.s_addr = v.bigEndian
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6:
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = port.bigEndian
            sa.sin6_scope_id = interface.index
            let bytes = a.bytes
            withUnsafeMutableBytes(of: &sa.sin6_addr) { raw in
                for (k, b) in bytes.enumerated() where k < raw.count { raw[k] = b }
            }
            return withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Sends `payload` from socket `kind` to `dst`:`port`, if the guard allows the
    /// destination and a token comes before `deadline`. Returns whether it was sent.
    @discardableResult
    func send(
        _ payload: [UInt8], from kind: Kind, to dst: IPAddress, port: UInt16, deadline: Double, stop: () -> Bool
    ) -> Bool {
        guard var fd = fds[kind], dst.isIPv6 == (kind == .ssdp6 || kind == .mdns6) else { return false }
        guard guardrail.allows(dst) else {
            refused.withLock { $0 += 1 }
            return false
        }
        if kind == .ssdp4 || kind == .ssdp6 {
            // A search socket of its own (none left: the run's search budget is used up).
            let own = kind == .ssdp6 ? ssdpPool6.withLock { $0.popLast() } : ssdpPool4.withLock { $0.popLast() }
            guard let own else {
                notSent.withLock { $0 += 1 }
                return false
            }
            fd = own
        }
        guard bucket.take(before: deadline, stop: stop) else {
            notSent.withLock { $0 += 1 }
            return false
        }
        let n = withSockaddr(dst, port) { sa, len in
            payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sa, len) }
        }
        guard n == payload.count else { return false }
        sent.withLock { $0[kind, default: 0] += 1 }
        return true
    }
}
