import DNS
import Findings
import NetLayers
import WireFormat

extension RData {
    /// The address an A or AAAA record gives (nil for other types).
    var address: IPAddress? {
        switch self {
        case .a(let v): .v4(v)
        case .aaaa(let hi, let lo): .v6(hi, lo)
        default: nil
        }
    }
}

/// What several mDNS rules share.
enum MDNSRuleSupport {
    /// Reports each decoder anomaly of `kinds` as a finding of `descriptor`, unless the snap
    /// length cut the datagram (what is missing cannot be judged) and the rule says so.
    static func reportAnomalies(
        _ kinds: [DNSAnomaly.Kind], in i: MDNSInput, as descriptor: RuleDescriptor, severity: Severity? = nil,
        suppressWhenTruncated: Bool = true, into out: inout FindingSink, _ text: (DNSAnomaly) -> String
    ) {
        if suppressWhenTruncated && i.truncated { return }
        for a in i.message.anomalies where kinds.contains(a.kind) {
            let place = a.section.map { " (\($0.rawValue)[\(a.index)])" } ?? ""
            out.report(descriptor, severity: severity, text(a) + place, field: "offset \(a.offset)")
        }
    }

    static func looksLikeText(_ p: [UInt8]) -> Bool {
        let head = p.prefix(16)
        guard head.count >= 4 else { return false }
        return head.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }

    static let metaTypes: Set<UInt16> = [0, 251, 252, 253, 254, 255]
    static let nameCompressible: Set<UInt16> = [2, 5, 12, 39, 6, 15, 18, 21, 36, 17, 26, 33, 47]

    static func hex16(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - s.count) + s
    }

    /// What is wrong with the service label `p[r]` (RFC 6335 §5.1: `_`, then 1–15 letters,
    /// digits and single inner hyphens, at least one letter); nil when nothing is. Read in
    /// place: a string is made only for a label that fails.
    static func serviceLabelProblem(_ p: [UInt8], _ range: Range<Int>) -> String? {
        let r = range.clamped(to: p.indices)
        guard let f = r.first, p[f] == 0x5F else { return "does not start with _" }
        let body = (r.lowerBound + 1)..<r.upperBound
        if body.isEmpty || body.count > 15 { return "\(body.count) characters after _ (1–15)" }
        var letter = false
        var doubleHyphen = false
        var previous: UInt8 = 0
        for k in body {
            let b = p[k]
            if ASCII.isAlpha(b) {
                letter = true
            } else if b == 0x2D {
                if previous == 0x2D { doubleHyphen = true }
            } else if !ASCII.isDigit(b) {
                return "characters other than letters, digits and hyphens"
            }
            previous = b
        }
        if !letter { return "no letter" }
        if p[body.lowerBound] == 0x2D || p[body.upperBound - 1] == 0x2D { return "leading or trailing hyphen" }
        if doubleHyphen { return "double hyphen" }
        return nil
    }

    /// RDATA equality, comparing embedded names by value (they may be compressed differently).
    static func sameRData(_ a: ResourceRecord, _ b: ResourceRecord, _ p: [UInt8]) -> Bool {
        switch (a.value, b.value) {
        case (.name(let x), .name(let y)): return x.equals(y, in: p)
        case (.srv(let p1, let w1, let o1, let x), .srv(let p2, let w2, let o2, let y)):
            return p1 == p2 && w1 == w2 && o1 == o2 && x.equals(y, in: p)
        case (.nsec(let x, let bx), .nsec(let y, let by)): return x.equals(y, in: p) && p[bx].elementsEqual(p[by])
        default: return p[a.rdata].elementsEqual(p[b.rdata])
        }
    }
}

/// The unique answer names of a multicast response from 5353 (an announcement or an answer),
/// each once: indices in `i.records` (`MDNSMessageView.claimedAnswers`).
func claimedNames(_ i: MDNSInput) -> [Int] {
    guard i.isResponse, i.isMulticast, i.datagram.srcPort == 5353 else { return [] }
    return i.decoded.claimedAnswers
}
