import Findings
import WireFormat

/// Report text for one or more messages, formatted away from the reporting thread (worker
/// threads format; the reporter writes chunks in capture order).
public struct RenderedChunk: Sendable {
    public var bytes: [UInt8] = []
    /// Places where a rule's interop note belongs if that rule's note has not been printed
    /// yet in this run (text output without `-v`): decided in order, by `emit`.
    public var notes: [NotePoint] = []

    public init() {}

    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        notes.removeAll(keepingCapacity: true)
    }

    @inlinable
    public mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    @inlinable
    public mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inlinable
    public mutating func append(byte b: UInt8) { bytes.append(b) }

    /// A non-negative or negative integer in decimal, without building a `String`.
    public mutating func append(decimal value: Int) {
        var v = value.magnitude
        if value < 0 { bytes.append(0x2D) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[19 - n] = UInt8(truncatingIfNeeded: 0x30 &+ v % 10)
                v /= 10
                n += 1
            } while v != 0 && n < 20
            bytes.append(contentsOf: d[(20 - n)...])
        }
    }

    /// `value` as exactly `width` decimal digits with leading zeros (clock fields).
    public mutating func append(zeroPadded value: Int, width: Int) {
        var div = 1
        for _ in 1..<max(width, 1) { div &*= 10 }
        var v = value
        while div > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 &+ (v / div) % 10))
            v %= div
            div /= 10
        }
    }
}

/// Where a rule's interop note may be inserted: after the finding line that ends at
/// `offset`, indented by `indent` spaces.
public struct NotePoint: Sendable {
    public var offset: Int
    public var indent: Int
    public var descriptor: RuleDescriptor
    public init(offset: Int, indent: Int, descriptor: RuleDescriptor) {
        self.offset = offset
        self.indent = indent
        self.descriptor = descriptor
    }
}

/// Formats messages for a streaming reporter. Pure apart from its own caches, so each
/// worker thread has its own copy and the output of a message depends only on the message
/// and its findings.
public protocol MessageRenderer: Sendable {
    /// One decoded message and its findings.
    mutating func render(_ message: MessageRecord, findings: [Finding], into chunk: inout RenderedChunk)
    /// A finding shown without its message.
    mutating func render(finding: Finding, into chunk: inout RenderedChunk)
}
