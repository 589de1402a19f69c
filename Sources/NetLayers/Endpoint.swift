import WireFormat

/// An address and a UDP port: one side of a datagram, as the session stages and rules key
/// searchers, queriers and pending queries.
public struct Endpoint: WordHashable, Sendable {
    public var address: IPAddress
    public var port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    @inlinable
    public func feedWords<S: WordSink>(into sink: inout S) {
        address.feedWords(into: &sink)
        sink.add(UInt64(port))
    }
}
