import Glibc
import NetLayers
import Rules
import SSDP

/// The description fetch of `probe`: one HTTP/1.0 GET on a pre-opened TCP socket bound to
/// the interface, with a deadline for the whole exchange and a size cap. Redirects are
/// reported, never followed; anything that is not HTTP is a failure with its reason.
enum ProbeHTTP {
    static let maxBody = 64 * 1024
    static let maxHeader = 8 * 1024
    /// Header fields kept for the description rules.
    static let maxFields = 64
    static let timeout = 3.0

    /// Fetches `url` (whose host is `address`) on socket `fd`, which it closes.
    static func fetch(_ url: HTTPURL, address: IPAddress, fd: Int32, sockets: ProbeSockets, deadline: Double)
        -> DescriptionFetch
    {
        defer { close(fd) }
        let end = min(deadline, Frontend.now() + timeout)
        let rc = sockets.withSockaddr(address, url.port) { sa, len in connect(fd, sa, len) }
        if rc != 0 && errno != EINPROGRESS { return .failed("connect: \(String(cString: strerror(errno)))") }
        guard wait(fd, for: Int16(POLLOUT), until: end) else { return .failed("no connection within \(timeout) s") }
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        if err != 0 { return .failed("connect: \(String(cString: strerror(err)))") }
        let hostText = address.isIPv6 ? "[\(address)]" : "\(address)"
        let request = Array(
            ("GET \(url.path) HTTP/1.0\r\nHost: \(hostText):\(url.port)\r\n"
                + "User-Agent: Linux UPnP/1.1 discoscope-probe/1\r\nAccept: text/xml, */*\r\nConnection: close\r\n\r\n")
                .utf8)
        var off = 0
        while off < request.count {
            guard wait(fd, for: Int16(POLLOUT), until: end) else { return .failed("request not sent in time") }
            let n = request[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failed("send: \(String(cString: strerror(errno)))")
            }
            off += n
        }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        let cap = maxHeader + maxBody + 1
        while data.count < cap {
            guard wait(fd, for: Int16(POLLIN), until: end) else {
                if data.isEmpty { return .failed("no answer within \(timeout) s") }
                // A server that keeps the connection open: judge what came, if complete.
                break
            }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, cap - data.count), 0) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return .failed("recv: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            data += chunk[0..<n]
        }
        return parse(data)
    }

    /// Waits until `fd` is ready for `events` or `end` passes.
    static func wait(_ fd: Int32, for events: Int16, until end: Double) -> Bool {
        while true {
            let left = end - Frontend.now()
            if left <= 0 { return false }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&p, 1, Int32(min(left, 1.0) * 1000) + 1)
            if r > 0 { return true }
            if r < 0 && errno != EINTR { return false }
        }
    }

    /// Judges an HTTP/1.x response (status line, headers, body) as read.
    static func parse(_ data: [UInt8]) -> DescriptionFetch {
        guard let headerEnd = find([13, 10, 13, 10], in: data) else {
            if data.count >= maxHeader { return .failed("no end of the HTTP header in \(maxHeader) bytes") }
            return .failed(data.isEmpty ? "connection closed without an answer" : "incomplete or non-HTTP answer")
        }
        guard headerEnd <= maxHeader else { return .failed("HTTP header longer than \(maxHeader) bytes") }
        let head = String(decoding: data[0..<headerEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.map { $0.split(separator: " ", maxSplits: 2) } ?? []
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]), (100...599).contains(code)
        else { return .failed("not an HTTP response") }
        var contentLength: Int? = nil
        var location = ""
        // The fields as received, for the description rules (PROF-507); at most `maxFields`.
        var fields: [ResponseHeader] = []
        for l in lines.dropFirst() {
            guard let colon = l.firstIndex(of: ":") else { continue }
            let name = l[..<colon].lowercased()
            let value = l[l.index(after: colon)...].trimmingPrefix(" ")
            if name == "content-length" { contentLength = Int(value) }
            if name == "location" { location = String(value) }
            if fields.count < maxFields {
                fields.append(ResponseHeader(name: String(l[..<colon]), value: String(value).trimmingSpaces))
            }
        }
        var body = Array(data[(headerEnd + 4)...])
        if (300...399).contains(code) {
            return .redirect(status: code, target: location.isEmpty ? "(no Location)" : location)
        }
        guard (200...299).contains(code) else { return .httpStatus(code) }
        if body.count > maxBody || (contentLength ?? 0) > maxBody { return .tooLarge(limit: maxBody) }
        if let n = contentLength, n >= 0, n < body.count { body = Array(body[0..<n]) }
        return .document(status: code, body: body, headers: fields)
    }

    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        var i = 0
        while i <= hay.count - needle.count {
            if hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
