import NetLayers

/// An IP address and a UDP port: where a datagram came from or went to.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    let ip: IPAddress
    /// The UDP port.
    public let port: UInt16

    /// The address as text, IPv6 in its canonical form (`fe80::1`).
    public var address: String { ip.description }
    public var description: String { ip.isIPv6 ? "[\(address)]:\(port)" : "\(address):\(port)" }

    /// An endpoint from an address in text (`192.0.2.1`, `fe80::1`).
    public init(_ address: String, port: UInt16) throws(EndpointError) {
        guard let ip = IPAddress(text: Array(address.utf8)) else { throw EndpointError(address: address) }
        self.ip = ip
        self.port = port
    }

    init(_ ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// The mDNS group and port over IPv4, 224.0.0.251:5353.
    public static let mdnsIPv4 = Endpoint(.mdnsIPv4, port: 5353)
    /// The mDNS group and port over IPv6, [ff02::fb]:5353.
    public static let mdnsIPv6 = Endpoint(.mdnsIPv6, port: 5353)
    /// The SSDP group and port over IPv4, 239.255.255.250:1900.
    public static let ssdpIPv4 = Endpoint(.ssdpIPv4, port: 1900)
    /// The link-local SSDP group and port over IPv6, [ff02::c]:1900.
    public static let ssdpIPv6 = Endpoint(.ssdpIPv6LinkLocal, port: 1900)
}

/// The text given for an endpoint is not an IPv4 or IPv6 address.
public struct EndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that was given.
    public let address: String
    public var description: String { "not an IPv4 or IPv6 address: \(address)" }
}
