/// Prometheus text exposition (format 0.0.4, which OpenMetrics parsers read too): metric
/// families with `# HELP` and `# TYPE` lines, then their samples.
///
/// Label values may come from the wire (a UUID, a host or instance name): they are escaped as
/// the format asks (backslash, double quote, line feed), other control characters become
/// U+FFFD, and they are cut to `maxLabelBytes` bytes of UTF-8 at a character boundary.
public struct MetricsExposition: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge
    }

    /// The longest label value kept, in UTF-8 bytes (a DNS name is at most 255 bytes, a
    /// UUID 36: the cap keeps every series' text short).
    public static let maxLabelBytes = 128
    /// The content type of a scrape.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public private(set) var text = ""
    private var families: Set<String> = []

    public init() {}

    /// Starts a family: its `# HELP` and `# TYPE` lines (once per name; a family started
    /// again only adds samples).
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        guard families.insert(name).inserted else { return }
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample of the family last started: `name{labels} value`.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            for (k, (label, value)) in labels.enumerated() {
                if k > 0 { text += "," }
                text += "\(label)=\"\(Self.escapedLabel(value))\""
            }
            text += "}"
        }
        text += " \(Self.number(value))\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    /// A sample value as the format writes it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 9.0e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// A label value as the format quotes it, cut to `maxLabelBytes` bytes.
    public static func escapedLabel(_ value: String) -> String {
        var out = ""
        for ch in cut(value).unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default:
                out.unicodeScalars.append(isControl(ch) ? "\u{FFFD}" : ch)
            }
        }
        return out
    }

    /// `value` cut to at most `maxLabelBytes` bytes of UTF-8, at a scalar boundary (what
    /// the label shows before escaping; two values alike in their first bytes cut alike).
    public static func cut(_ value: String) -> String {
        guard value.utf8.count > maxLabelBytes else { return value }
        var out = String.UnicodeScalarView()
        var bytes = 0
        for s in value.unicodeScalars {
            let n = String(s).utf8.count
            guard bytes + n <= maxLabelBytes else { break }
            bytes += n
            out.append(s)
        }
        return String(out)
    }

    /// HELP text: backslash and line feed escaped (our own text, escaped all the same).
    static func escapedHelp(_ help: String) -> String {
        var out = ""
        for ch in help.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || s.value == 0x7F || (s.value >= 0x80 && s.value < 0xA0)
    }
}
