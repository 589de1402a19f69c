import Glibc
import Synchronization

/// Where `capture --metrics` listens: `PORT` (on 127.0.0.1), `ADDR:PORT` (an IPv4 address)
/// or `[ADDR]:PORT` (an IPv6 address). Addresses are literals: nothing is resolved.
public struct MetricsListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    public var isIPv6: Bool

    public init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// The address `text` names, or nil when it is none of the three forms.
    public static func parse(_ text: String) -> MetricsListenAddress? {
        func port(_ s: Substring) -> UInt16? {
            guard !s.isEmpty, s.count <= 5, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return UInt16(s)
        }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let p = port(rest.dropFirst()), isLiteral(host, v6: true) else { return nil }
            return MetricsListenAddress(host: host, port: p, isIPv6: true)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return port(parts[0]).map { MetricsListenAddress(host: "127.0.0.1", port: $0, isIPv6: false) }
        case 2:
            let host = String(parts[0])
            guard let p = port(parts[1]), isLiteral(host, v6: false) else { return nil }
            return MetricsListenAddress(host: host, port: p, isIPv6: false)
        default:
            return nil
        }
    }

    private static func isLiteral(_ host: String, v6: Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(v6 ? AF_INET6 : AF_INET, host, &buffer) == 1
    }

    /// `127.0.0.1:9464`, `[::1]:9464`.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why the metrics listener could not be opened.
public struct MetricsServerError: Error, CustomStringConvertible {
    public var description: String
}

/// A small HTTP/1.x server for `/metrics` and `/healthz`, on one thread of its own: one
/// `poll` over the listening socket and the open connections, nothing blocking.
///
/// Every connection is bounded: its request line and headers (at most `maxRequestBytes`,
/// else 431), the time it may take to send them and to take the reply (`timeout`, else it
/// is closed), and how many are open at once (`maxConnections`; one more is accepted and
/// closed at once). Each connection gets one reply and is closed (`Connection: close`).
/// GET and HEAD are served; other methods get 405, other paths 404.
///
/// The listening socket is opened by `open` (before the capture drops its privileges) and
/// served from `start`; `stop` ends the thread and closes every socket.
public final class MetricsServer: Sendable {
    public struct Limits: Sendable {
        public var maxRequestBytes = 8192
        public var timeout = 5.0
        public var maxConnections = 16
        public init() {}
    }

    /// The port listened on (the one the system chose when 0 was asked for).
    public let port: UInt16
    public let address: MetricsListenAddress
    private let listener: Int32
    private let limits: Limits
    private let metrics: @Sendable () -> String
    private let stopping = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)

    private init(
        listener: Int32, address: MetricsListenAddress, port: UInt16, limits: Limits,
        metrics: @escaping @Sendable () -> String
    ) {
        self.listener = listener
        self.address = address
        self.port = port
        self.limits = limits
        self.metrics = metrics
    }

    /// Opens the listening socket at `address`; `metrics` makes the text `/metrics` serves
    /// (called on the server's thread).
    public static func open(
        _ address: MetricsListenAddress, limits: Limits = Limits(), metrics: @escaping @Sendable () -> String
    ) throws(MetricsServerError) -> MetricsServer {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("cannot open a socket", address) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if address.isIPv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var sa = sockaddr_in6()
            sa.sin6_family = sa_family_t(AF_INET6)
            sa.sin6_port = address.port.bigEndian
            _ = inet_pton(AF_INET6, address.host, &sa.sin6_addr)
            bound = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var sa = sockaddr_in()
            sa.sin_family = sa_family_t(AF_INET)
            sa.sin_port = address.port.bigEndian
            _ = inet_pton(AF_INET, address.host, &sa.sin_addr)
            bound = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0, listen(fd, 64) == 0, setNonBlocking(fd) else {
            let e = failure("cannot listen", address)
            close(fd)
            throw e
        }
        var storage = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        // sin_port and sin6_port sit at the same offset.
        let port = named == 0 ? UInt16(bigEndian: storage.sin6_port) : address.port
        return MetricsServer(listener: fd, address: address, port: port, limits: limits, metrics: metrics)
    }

    private static func failure(_ what: String, _ address: MetricsListenAddress) -> MetricsServerError {
        MetricsServerError(description: "--metrics \(address): \(what) (\(String(cString: strerror(errno))))")
    }

    private static func setNonBlocking(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0
    }

    /// Starts serving on a thread of its own; false when the thread could not be started.
    public func start() -> Bool {
        guard let tid = startThread(named: "ds-metrics", { [self] in serve() }) else { return false }
        thread.withLock { $0 = tid }
        return true
    }

    /// Ends the serving thread (within its poll interval) and closes every socket.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        if let tid = thread.withLock({ t -> pthread_t? in
            defer { t = nil }
            return t
        }) {
            pthread_join(tid, nil)
        } else {
            close(listener)
        }
    }

    /// One open connection: what it sent so far, or the reply being sent.
    private struct Connection {
        var fd: Int32
        var request: [UInt8] = []
        var reply: [UInt8] = []
        var sent = 0
        var replying = false
        var deadline: Double
    }

    private func serve() {
        var connections: [Connection] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer {
            for c in connections { close(c.fd) }
            close(listener)
        }
        while !stopping.load(ordering: .relaxed) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            for c in connections {
                fds.append(pollfd(fd: c.fd, events: Int16(c.replying ? POLLOUT : POLLIN), revents: 0))
            }
            // Wake for the earliest deadline, and at least every 250 ms to see `stop`.
            var wait = 0.25
            let before = Self.monotonic()
            for c in connections { wait = min(wait, max(0, c.deadline - before)) }
            _ = poll(&fds, nfds_t(fds.count), Int32(wait * 1000) + 1)
            let now = Self.monotonic()
            var open: [Connection] = []
            for (k, var c) in connections.enumerated() {
                let events = Int32(fds[k + 1].revents)
                if now >= c.deadline || events & (POLLERR | POLLNVAL) != 0 {
                    close(c.fd)
                    continue
                }
                if c.replying {
                    if events & (POLLOUT | POLLHUP) != 0, !send(&c) {
                        close(c.fd)
                        continue
                    }
                } else if events & (POLLIN | POLLHUP) != 0 {
                    let n = chunk.withUnsafeMutableBytes {
                        recv(c.fd, $0.baseAddress, min($0.count, limits.maxRequestBytes - c.request.count), 0)
                    }
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        close(c.fd)
                        continue
                    }
                    if n > 0 { c.request += chunk[0..<n] }
                    if let reply = reply(to: c.request) {
                        c.reply = reply
                        c.replying = true
                        c.deadline = now + limits.timeout
                        if !send(&c) {
                            close(c.fd)
                            continue
                        }
                    }
                }
                open.append(c)
            }
            connections = open
            if Int32(fds[0].revents) & POLLIN != 0 { accept(into: &connections, now: now) }
        }
    }

    /// Takes every connection waiting: kept while fewer than `maxConnections` are open,
    /// else closed at once.
    private func accept(into connections: inout [Connection], now: Double) {
        // Bounded, so that a flood of connections cannot keep the loop from the others.
        for _ in 0..<64 {
            let fd = Glibc.accept(listener, nil, nil)
            guard fd >= 0 else { return }
            guard connections.count < limits.maxConnections, Self.setNonBlocking(fd) else {
                close(fd)
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            connections.append(Connection(fd: fd, deadline: now + limits.timeout))
        }
    }

    /// Sends what the socket takes of `c`'s reply; false when the connection is done
    /// (all sent, or the peer went away).
    private func send(_ c: inout Connection) -> Bool {
        while c.sent < c.reply.count {
            let n = c.reply.withUnsafeBytes {
                Glibc.send(c.fd, $0.baseAddress.map { $0 + c.sent }, $0.count - c.sent, Int32(MSG_NOSIGNAL))
            }
            if n < 0 { return errno == EAGAIN || errno == EINTR }
            c.sent += n
        }
        shutdown(c.fd, Int32(SHUT_WR))
        return false
    }

    /// The reply to `request` once its header ends (nil while more may come), or 431 when
    /// it reached the bound without ending.
    func reply(to request: [UInt8]) -> [UInt8]? {
        guard Self.headerEnds(request), let lineEnd = request.firstIndex(of: 0x0A) else {
            return request.count >= limits.maxRequestBytes
                ? Self.response(431, "Request Header Fields Too Large", "request header too large\n") : nil
        }
        var line = request[request.startIndex..<lineEnd]
        if line.last == 0x0D { line = line.dropLast() }
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].starts(with: Array("HTTP/1.".utf8)), parts[1].first == 0x2F else {
            return Self.response(400, "Bad Request", "bad request\n")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        guard method == "GET" || method == "HEAD" else {
            return Self.response(405, "Method Not Allowed", "only GET and HEAD\n", extra: "Allow: GET, HEAD\r\n")
        }
        let target = parts[1]
        let path = target.firstIndex(of: 0x3F).map { target[target.startIndex..<$0] } ?? target
        let head = method == "HEAD"
        switch String(decoding: path, as: UTF8.self) {
        case "/metrics":
            return Self.response(200, "OK", metrics(), type: MetricsExposition.contentType, head: head)
        case "/healthz":
            return Self.response(200, "OK", "ok\n", head: head)
        default:
            return Self.response(404, "Not Found", "not found: /metrics and /healthz are served\n", head: head)
        }
    }

    /// Whether the request's header is complete: an empty line (CRLF CRLF, or LF LF).
    private static func headerEnds(_ r: [UInt8]) -> Bool {
        var k = r.startIndex
        while let lf = r[k...].firstIndex(of: 0x0A) {
            let next = r.index(after: lf)
            if next < r.endIndex, r[next] == 0x0A { return true }
            if next < r.endIndex, r[next] == 0x0D, r.index(after: next) < r.endIndex, r[r.index(after: next)] == 0x0A {
                return true
            }
            k = next
        }
        return false
    }

    static func response(
        _ status: Int, _ reason: String, _ body: String, type: String = "text/plain; charset=utf-8",
        extra: String = "", head: Bool = false
    ) -> [UInt8] {
        let bytes = Array(body.utf8)
        var text = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\n"
        text += extra + "Connection: close\r\n\r\n"
        return Array(text.utf8) + (head ? [] : bytes)
    }

    private static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
