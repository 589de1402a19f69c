import NetLayers

/// Judges one datagram on its own, as the first message of a session: the findings about
/// the message itself (its framing, headers, records, names) and about how it was sent.
/// Nothing that needs other messages, or the end of a session, is judged.
///
/// The datagram is taken as sent from 192.0.2.1 (a documentation address) on
/// `sourcePort` to the protocol's IPv4 group on `destinationPort` when that is 1900 or 5353
/// (a response to 1900 that starts `HTTP/1.`, and one to any other port, goes unicast to
/// 192.0.2.2), with the TTL a conforming sender uses (see `Session.feed`). For findings that
/// need several messages, or other addresses, use a `Session`.
///
/// ```swift
/// let found = check(payload: Array("helloAll".utf8), sourcePort: 5353, destinationPort: 5353)
/// // [error MDNS-001 dns-header-present: …]
/// ```
public func check(payload: [UInt8], sourcePort: UInt16, destinationPort: UInt16) -> [Finding] {
    let source = Endpoint(.v4(0xC000_0201), port: sourcePort)  // 192.0.2.1
    let unicast = Endpoint(.v4(0xC000_0202), port: destinationPort)  // 192.0.2.2
    let destination: Endpoint
    switch destinationPort {
    case 5353: destination = Endpoint(.mdnsIPv4, port: 5353)
    case 1900 where !payload.starts(with: "HTTP/1.".utf8): destination = Endpoint(.ssdpIPv4, port: 1900)
    default: destination = unicast
    }
    return Session().feed(payload: payload, source: source, destination: destination, time: 0)
}
