/// How bad a finding is. The catalog maps the spec's keywords onto it:
/// MUST → error, SHOULD → warning, MAY / INFO → info.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}
