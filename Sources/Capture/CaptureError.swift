/// An input problem: a file that cannot be opened or read, a filter that does not compile,
/// an interface that cannot be captured on. Always names the input.
public struct CaptureError: Error, Sendable, CustomStringConvertible {
    public var input: String
    public var reason: String
    public init(input: String, reason: String) {
        self.input = input
        self.reason = reason
    }
    /// `file.pcap: truncated record (the file ends inside a packet)`.
    public var description: String { "\(input): \(reason)" }
}
