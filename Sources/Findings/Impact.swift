/// What a finding does to real clients, in three classes: the one ranking `explain`'s reasons
/// and the summary's opening lines share (severities stay the catalog's; only the order is
/// by impact).
public enum Impact: Int, Sendable, Comparable {
    /// Some clients never list the device: an error that the interop notes say some stacks
    /// drop, ignore, discard, reject or never accept.
    case hides = 0
    /// Likely trouble: any other error or warning (timing, caching, display).
    case trouble = 1
    /// Minor: info.
    case minor = 2

    public static func < (a: Impact, b: Impact) -> Bool { a.rawValue < b.rawValue }

    /// The words of an interop note that say a stack loses the message.
    static let losing = ["drop", "ignore", "discard", "reject", "never"]

    /// The impact of a finding of `severity` whose interop note (its own, else its rule's)
    /// is `interop`.
    public static func of(severity: Severity, interop: String?) -> Impact {
        let note = interop?.lowercased() ?? ""
        if severity == .error, losing.contains(where: { note.contains($0) }) { return .hides }
        return severity == .info ? .minor : .trouble
    }
}
