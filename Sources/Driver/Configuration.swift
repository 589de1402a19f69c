import Analyzer
import Findings
import Rules
import Yams

/// `.discoscope.yml`: rule selection, severity overrides and suppressions for CI.
///
/// ```yaml
/// fail-on: warning            # error | warning | info | never
/// min-severity: info          # report only findings at or above
/// enable: [SSDP-104, MDNS-3xx…]   # run only these (IDs or names)
/// disable: [SSDP-011, instance-label]
/// severity:                   # per-rule overrides
///   SSDP-022: info
/// suppress:
///   - rule: MDNS-309
///     source: 192.168.1.5     # optional: sender address
///     device: printer.local.  # optional: SSDP UUID or mDNS host name
///     reason: avahi publishes no A record on this interface   # required
/// ```
/// Unknown keys and unknown rule IDs are errors that name the line.
public struct Configuration: Sendable {
    public struct Suppression: Sendable {
        public var rule: RuleID
        public var source: String?
        public var device: String?
        public var reason: String
        public var line: Int
    }

    public var failOn: Severity?? = nil
    public var minSeverity: Severity? = nil
    public var enable: [RuleID] = []
    public var disable: [RuleID] = []
    public var severity: [RuleID: Severity] = [:]
    public var suppressions: [Suppression] = []

    public init() {}

    public struct ConfigError: Error, CustomStringConvertible {
        public var description: String
    }

    public static func parse(_ yaml: String, path: String) throws -> Configuration {
        func fail(_ line: Int?, _ what: String) -> ConfigError {
            ConfigError(description: "\(path)\(line.map { ":\($0)" } ?? ""): \(what)")
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let e as YamlError {
            let (mark, what) = yamlProblem(e)
            throw ConfigError(
                description: "\(path)\(mark.map { ":\($0.line):\($0.column)" } ?? ""): not valid YAML: \(what)")
        }
        var c = Configuration()
        guard let root else { return c }
        guard case .mapping(let top) = root else {
            throw fail(
                root.mark?.line,
                "expected settings, one per line (such as `fail-on: warning`), at the top level, not a list or a single value"
            )
        }

        func scalar(_ n: Node, _ key: String, accepted: String = "") throws -> String {
            guard case .scalar(let s) = n else {
                let what = n.isMapping ? "a mapping" : "a list"
                throw fail(n.mark?.line, "\(key): expected a single value\(accepted), not \(what)")
            }
            return s.string
        }
        func severity(_ n: Node, _ key: String, orNever: Bool = false) throws -> Severity {
            let accepted = orNever ? "error, warning, info or never" : "error, warning or info"
            let v = try scalar(n, key, accepted: " (\(accepted))")
            guard let s = Severity(rawValue: v.lowercased()) else {
                throw fail(n.mark?.line, "\(key): unknown severity '\(v)'; use one of \(accepted)")
            }
            return s
        }
        func ruleID(_ n: Node, _ key: String) throws -> RuleID {
            let v = try scalar(n, key)
            guard let d = RuleCatalog.find(v) else {
                throw fail(n.mark?.line, "\(key): " + RuleSuggestion.unknownRule(v))
            }
            return d.id
        }
        func ruleList(_ n: Node, _ key: String) throws -> [RuleID] {
            switch n {
            case .sequence(let seq): return try seq.map { try ruleID($0, key) }
            case .scalar: return [try ruleID(n, key)]
            default:
                throw fail(
                    n.mark?.line,
                    "\(key): expected a list of rule IDs or names (e.g. [SSDP-005, mx-range]), not a mapping")
            }
        }

        for (k, v) in top {
            let key = try scalar(k, "key")
            let line = k.mark?.line
            switch key {
            case "fail-on":
                let s = try scalar(v, key, accepted: " (error, warning, info or never)").lowercased()
                if s == "never" { c.failOn = .some(nil) } else { c.failOn = .some(try severity(v, key, orNever: true)) }
            case "min-severity":
                c.minSeverity = try severity(v, key)
            case "enable":
                c.enable = try ruleList(v, key)
            case "disable":
                c.disable = try ruleList(v, key)
            case "severity":
                guard case .mapping(let m) = v else {
                    throw fail(
                        v.mark?.line ?? line,
                        "severity: expected a mapping of rule: severity, one per line (e.g. `  SSDP-022: info`)")
                }
                for (rk, rv) in m { c.severity[try ruleID(rk, "severity")] = try severity(rv, "severity") }
            case "suppress":
                guard case .sequence(let seq) = v else {
                    throw fail(
                        v.mark?.line ?? line,
                        "suppress: expected a list of entries, each starting `- rule: ID` with a `reason:` (and optionally source, device)"
                    )
                }
                for item in seq {
                    guard case .mapping(let m) = item else {
                        throw fail(item.mark?.line, "suppress: each entry is a mapping with rule and reason")
                    }
                    var rule: RuleID? = nil
                    var source: String? = nil
                    var device: String? = nil
                    var reason: String? = nil
                    for (ek, ev) in m {
                        let name = try scalar(ek, "suppress")
                        switch name {
                        case "rule": rule = try ruleID(ev, "suppress.rule")
                        case "source": source = try scalar(ev, "suppress.source")
                        case "device": device = try scalar(ev, "suppress.device")
                        case "reason": reason = try scalar(ev, "suppress.reason")
                        default:
                            throw fail(ek.mark?.line, "suppress: unknown key '\(name)' (rule, source, device, reason)")
                        }
                    }
                    guard let rule else { throw fail(item.mark?.line, "suppress: entry without rule") }
                    guard let reason, !reason.isEmpty else {
                        throw fail(item.mark?.line, "suppress: entry for \(rule) without a reason")
                    }
                    c.suppressions.append(
                        Suppression(
                            rule: rule, source: source, device: device, reason: reason, line: item.mark?.line ?? 0))
                }
            default:
                throw fail(line, "unknown key '\(key)' (fail-on, min-severity, enable, disable, severity, suppress)")
            }
        }
        return c
    }

    /// Whether a suppression covers `f` (device names compare case-insensitively, with or
    /// without the trailing dot).
    public func suppresses(_ f: Finding) -> Bool {
        suppressions.contains { s in
            guard s.rule == f.rule else { return false }
            if let src = s.source, src != f.source { return false }
            if let dev = s.device {
                func norm(_ x: String) -> String {
                    var y = x.lowercased()
                    if y.hasSuffix(".") { y.removeLast() }
                    if y.hasPrefix("uuid:") { y.removeFirst(5) }
                    return y
                }
                guard let fd = f.device, norm(fd) == norm(dev) else { return false }
            }
            return true
        }
    }
}

extension Node {
    fileprivate var isMapping: Bool {
        if case .mapping = self { return true }
        return false
    }
}

/// Where a YAML error is (line and column, 1-based) and what it is, in plain words: the
/// scanner's and parser's commonest problems say what to fix; the rest keep libyaml's words.
func yamlProblem(_ e: YamlError) -> (mark: Mark?, text: String) {
    func explain(_ context: YamlError.Context?, _ problem: String) -> String {
        let opened = context.map { " (opened at line \($0.mark.line), column \($0.mark.column))" } ?? ""
        switch problem {
        case "mapping values are not allowed in this context":
            return
                "a `key: value` where none can be: is this line indented more than the setting before it? Settings start at the beginning of the line; only the entries of a mapping or list under a key are indented"
        case "found character that cannot start any token":
            return
                "a character that cannot start a value (YAML does not allow tabs for indentation: indent with spaces)"
        case _ where problem.hasPrefix("found a tab character"):
            return "a tab in the indentation (YAML indents with spaces only)"
        case "did not find expected <document start>":
            return
                "this line is indented differently from the first setting (settings start at the beginning of a line)"
        case "found unexpected end of stream" where context?.text.contains("quoted") == true:
            return "a quoted value is not closed\(opened)"
        case "did not find expected key":
            return "this line is indented differently from the entries around it"
        case "did not find expected ',' or ']'":
            return "a list in brackets is not closed with `]`\(opened)"
        case "did not find expected ',' or '}'":
            return "a mapping in braces is not closed with `}`\(opened)"
        case "found unexpected end of stream":
            return "the file ends inside a quoted value or bracketed list\(opened)"
        default:
            return context.map { "\(problem) (\($0.text) at line \($0.mark.line), column \($0.mark.column))" }
                ?? problem
        }
    }
    switch e {
    case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
        .composer(let context, let problem, let mark, _):
        return (mark, explain(context, problem))
    case .duplicatedKeysInMapping(let duplicates, let context):
        return (context.mark, "a setting is given twice: \(duplicates.sorted().joined(separator: ", "))")
    case .reader(let problem, _, _, _):
        return (nil, "\(problem) (the file must be UTF-8 text)")
    default:
        return (nil, e.description.split(separator: "\n").first.map(String.init) ?? "unreadable")
    }
}

/// Known findings (`--write-baseline`, `--baseline`): one line per finding identity
/// (`FindingIdentity`: rule, subject, message template; no frame numbers, times or measured
/// values), tab-separated, so that CI fails only on new findings.
///
/// Version 2 lines are `rule<TAB>subject<TAB>template`. A version 1 file (rule, source,
/// device, message) is still read: each of its lines is taken as the identity it names.
public struct Baseline: Sendable {
    public private(set) var keys: Set<String> = []
    public static let header =
        "# discoscope baseline v2: rule<TAB>device or sender<TAB>message with measured values as #"

    public init() {}

    public static func key(_ f: Finding) -> String { FindingIdentity.key(f) }

    public mutating func insert(_ f: Finding) { keys.insert(Self.key(f)) }
    public func contains(_ f: Finding) -> Bool { keys.contains(Self.key(f)) }

    public static func parse(_ text: String, path: String) throws -> Baseline {
        var b = Baseline()
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 || parts.count == 4, RuleCatalog.find(parts[0]) != nil else {
                throw Configuration.ConfigError(
                    description:
                        "\(path):\(n + 1): not a baseline line (rule, device or sender, and message, separated by tabs)"
                )
            }
            if parts.count == 4 {
                b.keys.insert(
                    FindingIdentity.key(
                        rule: parts[0], source: parts[1], device: parts[2].isEmpty ? nil : parts[2], message: parts[3]))
            } else {
                b.keys.insert(parts.joined(separator: "\t"))
            }
        }
        return b
    }

    public var text: String {
        ([Self.header] + keys.sorted()).joined(separator: "\n") + "\n"
    }
}
