public struct SSDPMessage: Sendable {
    public var startLine: ArraySlice<UInt8>
    public init(parsing payload: [UInt8]) {
        let end = payload.firstIndex(of: 0x0A) ?? payload.endIndex
        startLine = payload[payload.startIndex..<end]
    }
}
