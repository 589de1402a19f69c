import Driver
import Foundation
import Testing

/// The metrics server against hostile clients on the loopback: every request gets a bounded
/// reply or is closed, and `/metrics` is still served afterwards.
@Suite(.serialized) struct MetricsServerTests {
    /// A short deadline, so the slow client's test takes under a second.
    static func server(timeout: Double = 0.5) throws -> MetricsServer {
        var limits = MetricsServer.Limits()
        limits.timeout = timeout
        let s = try MetricsServer.open(
            MetricsListenAddress(host: "127.0.0.1", port: 0, isIPv6: false), limits: limits
        ) { "# HELP discoscope_up_test Test.\n# TYPE discoscope_up_test gauge\ndiscoscope_up_test 1\n" }
        #expect(s.start())
        return s
    }

    /// A blocking client socket connected to `port`, which gives up reading after `seconds`.
    static func connect(_ port: UInt16, seconds: Int = 3) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var sa = sockaddr_in()
        sa.sin_family = sa_family_t(AF_INET)
        sa.sin_port = port.bigEndian
        sa.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(rc == 0)
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the server sends until it closes (or the read times out: nil).
    static func readAll(_ fd: Int32) -> String? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return String(decoding: out, as: UTF8.self) }
            if n < 0 { return errno == ECONNRESET ? String(decoding: out, as: UTF8.self) : nil }
            out += buffer[0..<n]
        }
    }

    static func request(_ port: UInt16, _ text: String) -> String? {
        let fd = connect(port)
        defer { close(fd) }
        send(fd, text)
        return readAll(fd)
    }

    static func status(_ reply: String?) -> String? {
        reply?.split(separator: "\r\n").first.map(String.init)
    }

    @Test func servesMetricsAndHealthzAndRefusesOtherPathsAndMethods() throws {
        let s = try Self.server()
        defer { s.stop() }
        let metrics = Self.request(s.port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(Self.status(metrics) == "HTTP/1.1 200 OK")
        #expect(metrics?.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") == true)
        #expect(
            metrics?.hasSuffix(
                "\r\n\r\n# HELP discoscope_up_test Test.\n# TYPE discoscope_up_test gauge\ndiscoscope_up_test 1\n")
                == true)
        let health = Self.request(s.port, "GET /healthz HTTP/1.0\r\n\r\n")
        #expect(Self.status(health) == "HTTP/1.1 200 OK")
        #expect(health?.hasSuffix("\r\n\r\nok\n") == true)
        #expect(Self.status(Self.request(s.port, "GET /metrics?x=1 HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
        #expect(Self.status(Self.request(s.port, "GET /other HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found")
        #expect(Self.status(Self.request(s.port, "GET / HTTP/1.1\r\n\r\n")) == "HTTP/1.1 404 Not Found")
        let post = Self.request(s.port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(Self.status(post) == "HTTP/1.1 405 Method Not Allowed")
        #expect(post?.contains("Allow: GET, HEAD\r\n") == true)
        #expect(Self.status(Self.request(s.port, "garbage\r\n\r\n")) == "HTTP/1.1 400 Bad Request")
        // HEAD: the headers alone.
        let head = Self.request(s.port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        #expect(Self.status(head) == "HTTP/1.1 200 OK")
        #expect(head?.hasSuffix("Connection: close\r\n\r\n") == true)
    }

    @Test func aRequestHeaderPastEightKiBGets431AndTheServerGoesOn() throws {
        let s = try Self.server()
        defer { s.stop() }
        let long = "GET /" + String(repeating: "a", count: 20_000) + " HTTP/1.1\r\n\r\n"
        let reply = Self.request(s.port, long)
        // The reply, or a reset when the kernel had unread bytes of ours at the close.
        #expect(reply == "" || Self.status(reply) == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(reply != nil, "neither a reply nor a close")
        // Headers past the bound on a good request line: the same.
        let headers = "GET /metrics HTTP/1.1\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 500)
        let padded = Self.request(s.port, headers)
        #expect(padded == "" || Self.status(padded) == "HTTP/1.1 431 Request Header Fields Too Large")
        #expect(Self.status(Self.request(s.port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
    }

    @Test func aClientThatSendsNothingIsClosedAtTheDeadline() throws {
        let s = try Self.server(timeout: 0.5)
        defer { s.stop() }
        let fd = Self.connect(s.port, seconds: 5)
        defer { close(fd) }
        let started = Date()
        let reply = Self.readAll(fd)
        let took = Date().timeIntervalSince(started)
        #expect(reply == "", "closed without a reply")
        #expect(took >= 0.4 && took < 3, "closed after \(took) s")
        // Half a request, then silence: closed too.
        let half = Self.connect(s.port, seconds: 5)
        defer { close(half) }
        Self.send(half, "GET /metr")
        #expect(Self.readAll(half) == "")
        #expect(Self.status(Self.request(s.port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
    }

    @Test func connectionsPastTheBoundAreClosedAtOnceAndTheOpenOnesStillServed() throws {
        let s = try Self.server(timeout: 2)
        defer { s.stop() }
        let bound = MetricsServer.Limits().maxConnections
        // Idle connections up to the bound, held open.
        let idle = (0..<bound).map { _ in Self.connect(s.port, seconds: 5) }
        defer { for fd in idle { close(fd) } }
        usleep(200_000)
        // More are accepted and closed without a reply.
        for _ in 0..<8 {
            let fd = Self.connect(s.port, seconds: 2)
            Self.send(fd, "GET /metrics HTTP/1.1\r\n\r\n")
            let reply = Self.readAll(fd)
            #expect(reply == "", "an extra connection was answered: \(reply ?? "no close")")
            close(fd)
        }
        // The held ones are still served.
        Self.send(idle[0], "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(Self.readAll(idle[0])?.hasSuffix("ok\n") == true)
        for fd in idle.dropFirst() { close(fd) }
        usleep(300_000)
        #expect(Self.status(Self.request(s.port, "GET /metrics HTTP/1.1\r\n\r\n")) == "HTTP/1.1 200 OK")
    }

    @Test func listenAddressesAreParsedStrictly() {
        #expect(
            MetricsListenAddress.parse("9464") == MetricsListenAddress(host: "127.0.0.1", port: 9464, isIPv6: false))
        #expect(MetricsListenAddress.parse("0.0.0.0:80")?.host == "0.0.0.0")
        #expect(MetricsListenAddress.parse("[::1]:9464") == MetricsListenAddress(host: "::1", port: 9464, isIPv6: true))
        for bad in [
            "", "x", "70000", "localhost:9464", "::1:9464", "[::1]", "[::1]:", "1.2.3.4:", ":9464", "[1.2.3.4]:1",
        ] {
            #expect(MetricsListenAddress.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func anIPv6ListenerServesOnTheLoopback() throws {
        guard let s = try? MetricsServer.open(MetricsListenAddress(host: "::1", port: 0, isIPv6: true), metrics: { "" })
        else {
            // A machine without IPv6 on the loopback cannot listen there: said, not passed.
            Issue.record("cannot listen on [::1] here")
            return
        }
        #expect(s.start())
        defer { s.stop() }
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var sa = sockaddr_in6()
        sa.sin6_family = sa_family_t(AF_INET6)
        sa.sin6_port = s.port.bigEndian
        _ = inet_pton(AF_INET6, "::1", &sa.sin6_addr)
        let rc = withUnsafePointer(to: &sa) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        #expect(rc == 0)
        Self.send(fd, "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(Self.readAll(fd)?.hasSuffix("ok\n") == true)
    }
}
