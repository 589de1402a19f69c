import Findings
import Rules

/// "Did you mean" for rule IDs and names that are not in the catalog (`--enable`,
/// `--disable`, the configuration file, `rules explain`).
public enum RuleSuggestion {
    /// `unknown rule 'SSDP-14'; did you mean SSDP-104 (mx-range)? (see `discoscope rules`)`.
    public static func unknownRule(_ key: String) -> String {
        var text = "unknown rule '\(key)'"
        let close = suggestions(for: key)
        if !close.isEmpty {
            text += "; did you mean " + close.map { "\($0.id) (\($0.name))" }.joined(separator: " or ") + "?"
        }
        return text + " (see `discoscope rules`)"
    }

    /// The catalog's rules nearest to `key` by edit distance on the ID or the name (at most
    /// three, nearest first); else those whose name contains `key` as a word or part of one
    /// (`crlf` → `crlf-line-endings`; at most five, when `key` has three or more
    /// characters); empty when none is near enough to be a plausible typo.
    public static func suggestions(for key: String) -> [RuleDescriptor] {
        let close = nearest(key)
        guard close.isEmpty else { return close }
        let k = key.lowercased()
        guard k.utf8.count >= 3, k.utf8.count <= 100 else { return [] }
        return Array(RuleCatalog.all.filter { $0.name.contains(k) }.prefix(5))
    }

    /// The rules nearest to `key` by edit distance, as `suggestions` takes them.
    static func nearest(_ key: String) -> [RuleDescriptor] {
        let k = Array(key.lowercased().utf8)
        guard !k.isEmpty, k.count <= 100 else { return [] }
        // An ID without its dash or with another separator (`ssdp104`, `SSDP_104`).
        let compact = k.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: " ") }
        var scored: [(distance: Int, rule: RuleDescriptor)] = []
        for d in RuleCatalog.all {
            let id = Array(d.id.rawValue.lowercased().utf8)
            if id.filter({ $0 != UInt8(ascii: "-") }) == compact {
                scored.append((0, d))
                continue
            }
            let byID = distance(k, id)
            let name = Array(d.name.utf8)
            let byName = distance(k, name)
            let best = min(byID, byName)
            let allowed = max(1, min(3, (byID <= byName ? id.count : name.count) / 4))
            if best <= allowed { scored.append((best, d)) }
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.rule.id < $1.rule.id }
        guard let nearest = scored.first?.distance else { return [] }
        return scored.filter { $0.distance == nearest }.prefix(3).map(\.rule)
    }

    /// Levenshtein distance (insertions, deletions, substitutions, and swaps of neighbours).
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev2 = [Int](repeating: 0, count: b.count + 1)
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, prev2[j - 2] + 1) }
                cur[j] = v
            }
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prev[b.count]
    }
}
