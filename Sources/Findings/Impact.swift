import WireFormat

/// What a finding does to real clients, in three classes: the one ranking `explain`'s reasons
/// and the summary's opening lines share (severities stay the catalog's; only the order is
/// by impact).
public enum Impact: Int, Sendable, Comparable {
    /// Some clients never list the device: a finding of a visibility rule, or an error that
    /// the interop notes say some stacks drop, ignore, discard, reject or never accept.
    case hides = 0
    /// Likely trouble: any other error or warning (timing, caching, display).
    case trouble = 1
    /// Minor: info.
    case minor = 2

    public static func < (a: Impact, b: Impact) -> Bool { a.rawValue < b.rawValue }

    /// The words of an interop note that say a stack loses the message.
    static let losing: [StaticString] = ["drop", "ignore", "discard", "reject", "never"]

    /// The impact of a finding of `severity` whose interop note (its own, else its rule's)
    /// is `interop`; a finding of a visibility rule (`RuleDescriptor.hides`) hides the device
    /// whatever its severity.
    public static func of(severity: Severity, interop: String?, hides: Bool = false) -> Impact {
        if hides || (severity == .error && losesMessage(interop)) { return .hides }
        return severity == .info ? .minor : .trouble
    }

    /// Whether an interop note says some stack loses the message.
    public static func losesMessage(_ interop: String?) -> Bool {
        guard let interop else { return false }
        // The words are ASCII: found in the note's bytes, ASCII case ignored, not by a
        // search of the lower-cased text by characters, which every rule's descriptor paid
        // at each start (Benchmarks/README.md, "Measurements behind the code").
        let note = Array(interop.utf8)
        return losing.contains { word in
            let n = word.utf8CodeUnitCount
            guard note.count >= n else { return false }
            return (0...(note.count - n)).contains { ASCII.equalsIgnoringCase(note, $0..<($0 + n), word) }
        }
    }
}

/// A visibility rule's finding as the run summary quotes it: where it shows, what it names
/// and what it says.
public struct HidingExample: Sendable, Hashable {
    public var frame: Int?
    public var source: String
    public var device: String?
    public var message: String

    public init(_ f: borrowing Finding) {
        frame = f.firstFrame
        source = f.source
        device = f.device
        message = f.message
    }
}
