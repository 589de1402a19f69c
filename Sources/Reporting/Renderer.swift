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
    public mutating func append(_ s: String) { bytes.append(string: s) }

    @inlinable
    public mutating func append(_ s: StaticString) { bytes.append(s) }

    /// Text that may hold packet bytes, escaped for a terminal (see `TerminalText`).
    public mutating func append(terminalSafe s: String) {
        var copy = s
        copy.withUTF8 { TerminalText.append($0, to: &bytes) }
    }

    @inlinable
    public mutating func append(byte b: UInt8) { bytes.append(b) }

    public mutating func append(decimal value: Int) { bytes.append(decimal: value) }

    /// `value` as exactly `width` decimal digits with leading zeros (clock fields).
    public mutating func append(zeroPadded value: Int, width: Int) { bytes.append(zeroPadded: value, width: width) }
}

/// Where a rule's interop note may be inserted: after the finding line that ends at
/// `offset`, indented by `indent` spaces.
public struct NotePoint: Sendable {
    public var offset: Int
    public var indent: Int
    public var rule: RuleID
    public var interop: String
    public init(offset: Int, indent: Int, rule: RuleID, interop: String) {
        self.offset = offset
        self.indent = indent
        self.rule = rule
        self.interop = interop
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
    /// Findings known only at the end of the input (`Finding.atEnd`), as one block.
    mutating func render(endOfInput findings: [Finding], into chunk: inout RenderedChunk)
    /// Findings of session rules about one message, placed after its lines (`underMessage`:
    /// the message itself was shown).
    mutating func render(sessionFindings findings: [Finding], underMessage: Bool, into chunk: inout RenderedChunk)
    /// The run's segment names by index (`Segments`): given before the first record or
    /// finding of a segment the renderer has no name for (the table only grows).
    mutating func setSegmentNames(_ names: [String])
}

extension MessageRenderer {
    public mutating func setSegmentNames(_ names: [String]) {}

    public mutating func render(endOfInput findings: [Finding], into chunk: inout RenderedChunk) {
        for f in findings { render(finding: f, into: &chunk) }
    }

    public mutating func render(
        sessionFindings findings: [Finding], underMessage: Bool, into chunk: inout RenderedChunk
    ) {
        for f in findings { render(finding: f, into: &chunk) }
    }
}
