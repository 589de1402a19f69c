/// Where a document reporter (SARIF, JUnit) keeps the text of its results until `finish`:
/// the document's header (rules, totals) comes before the results, so results are written
/// here as they arrive, already serialised, and copied out in order at the end. Only bytes
/// are kept, never `Finding` values. The CLI passes a store backed by an unnamed temporary
/// file; the default keeps the bytes in memory.
public protocol SpillStore: AnyObject {
    /// Bytes appended so far.
    var count: Int { get }
    /// Appends `bytes` and returns where they are.
    @discardableResult
    func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int>
    /// Writes the bytes at `range` (from an earlier `append`) to `sink`.
    func copy(_ range: Range<Int>, to sink: any OutputSink)
}

extension SpillStore {
    @discardableResult
    public func append(_ bytes: [UInt8]) -> Range<Int> {
        bytes.withUnsafeBytes { append($0) }
    }
}

/// A `SpillStore` in memory: one growing byte array.
public final class MemorySpill: SpillStore {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public var count: Int { bytes.count }

    @discardableResult
    public func append(_ bytes: UnsafeRawBufferPointer) -> Range<Int> {
        let start = self.bytes.count
        self.bytes.append(contentsOf: bytes)
        return start..<self.bytes.count
    }

    public func copy(_ range: Range<Int>, to sink: any OutputSink) {
        bytes.withUnsafeBytes { sink.write(bytes: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
