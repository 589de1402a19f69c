import Reporting

/// A reporter's output kept in memory, for the fuzz targets to check.
public final class MemorySink: OutputSink {
    public var bytes: [UInt8] = []
    public init() {}
    public func write(_ text: String) { bytes.append(contentsOf: text.utf8) }
    public func write(bytes b: UnsafeRawBufferPointer) { bytes.append(contentsOf: b) }
    public func flush() {}
}
