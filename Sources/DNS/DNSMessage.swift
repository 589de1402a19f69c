public struct DNSMessage: Sendable {
    public var id: UInt16
    public init(parsing payload: [UInt8]) {
        id = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 0
    }
}
