import DNS
import Findings
import NetLayers
import WireFormat

// What the Matter rules (PROF-001 … PROF-021, shared/rules/profiles.md "0xx") share: the one
// parser of a Matter decimal with the one table of ranges, the TXT lookups, the checks of
// hexadecimal names, and the records of their examples.

/// A Matter decimal (profiles.md, "Conventions"): ASCII digits without a leading zero (`0`
/// alone, or a digit 1–9 followed by digits), as the certification harness's expression and
/// the SDK's `MakeU32FromAsciiDecimal` accept it, and no larger than the key allows.
enum MatterDecimal {
    /// Why bytes are not a Matter decimal in range.
    enum Failure: Error, Equatable, Sendable {
        case empty
        case notDecimal
        case leadingZero
        case tooLarge
    }

    /// The value of `bytes`, at most `max`. Digits past the largest value are read (a later
    /// non-digit still makes it `notDecimal`) without arithmetic that could overflow.
    static func parse<C: Collection>(_ bytes: C, max: UInt64) -> Result<UInt64, Failure> where C.Element == UInt8 {
        guard let first = bytes.first else { return .failure(.empty) }
        var value: UInt64 = 0
        var large = false
        for b in bytes {
            guard ASCII.isDigit(b) else { return .failure(.notDecimal) }
            guard !large else { continue }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(UInt64(b &- 0x30))
            if o1 || o2 || s > max { large = true } else { value = s }
        }
        if first == 0x30, bytes.count > 1 { return .failure(.leadingZero) }
        return large ? .failure(.tooLarge) : .success(value)
    }
}

extension MatterDecimal.Failure {
    /// What is wrong with a value whose largest is `max` ("has a leading zero").
    func text(max: UInt64) -> String {
        switch self {
        case .empty: "is empty"
        case .notDecimal: "is not a decimal number"
        case .leadingZero: "has a leading zero"
        case .tooLarge: "is above \(max)"
        }
    }
}

/// The numbers of the Matter TXT keys and subtypes, each with its largest value: the one
/// table of ranges (profiles.md, "Implementation notes for the analyzer").
enum MatterNumber: Sendable, CaseIterable {
    /// `D` and `_L<d>`: the 12-bit discriminator.
    case discriminator
    /// `_S<s>`: the discriminator's upper 4 bits.
    case shortDiscriminator
    /// The vendor of `VP`, and `_V<v>`.
    case vendorID
    /// The product of `VP`.
    case productID
    /// `DT` and `_T<t>`: 32 bits.
    case deviceType
    /// `SII`, `SAI` (milliseconds).
    case sessionInterval
    /// `SAT` (milliseconds).
    case activeThreshold
    /// `T`: a bitmap of bits 1 and 2 (bit 0 reserved).
    case transports
    /// `ICD`.
    case icd
    /// `CM` (`3` only in the newest harness).
    case commissioningMode
    /// `PH`: bits 0–22.
    case pairingHint
    /// `CP` (a commissioner's).
    case commissionerPasscode

    var max: UInt64 {
        switch self {
        case .discriminator: 4095
        case .shortDiscriminator: 15
        case .vendorID, .productID: 65535
        case .deviceType: 4_294_967_295
        case .sessionInterval: 3_600_000
        case .activeThreshold: 65535
        case .transports: 6
        case .icd: 1
        case .commissioningMode: 3
        case .pairingHint: 8_388_607
        case .commissionerPasscode: 1
        }
    }

    func parse<C: Collection>(_ bytes: C) -> Result<UInt64, MatterDecimal.Failure> where C.Element == UInt8 {
        MatterDecimal.parse(bytes, max: max)
    }

    /// `value` `failure` says: "has a leading zero (a Matter decimal of 0–4095 without leading
    /// zeros)".
    func problem(_ failure: MatterDecimal.Failure) -> String {
        "\(failure.text(max: max)) (a Matter decimal of 0–\(max), without leading zeros)"
    }
}

/// What the Matter rules read of an instance and its message.
enum Matter {
    /// A message whose records are its sender's own: a response, or a probe's Authority
    /// section. A query's Known-Answers are another host's copies.
    static func judges(_ m: MDNSMessageView) -> Bool { m.isResponse || m.isProbe }

    /// The instance has a TXT to judge: not a goodbye, in a message `judges` takes.
    static func judgesTXT(_ i: ProfileInstance, _ m: MDNSMessageView) -> Bool {
        guard let t = i.txt, judges(m) else { return false }
        return m.records[t].record.ttl > 0
    }

    /// The first TXT pair whose key is `key` ignoring case (RFC 6763 §6.4, SDK `IsKey`).
    static func pair(_ key: StaticString, of i: ProfileInstance, in m: MDNSMessageView) -> ProfileInstance.TXTPair? {
        i.txtPair(key, in: m)
    }

    /// A pair's value read as `n` (a boolean attribute, with no `=`, is empty).
    static func value(
        _ pair: ProfileInstance.TXTPair, _ n: MatterNumber, in p: [UInt8]
    ) -> Result<UInt64, MatterDecimal.Failure> {
        guard let v = pair.value else { return .failure(.empty) }
        return n.parse(p[v])
    }

    /// The value of key `key` read as `n`: nil when absent or not a valid number.
    static func number(_ key: StaticString, _ n: MatterNumber, of i: ProfileInstance, in m: MDNSMessageView) -> UInt64?
    {
        guard let pair = pair(key, of: i, in: m), case .success(let v) = value(pair, n, in: m.message.payload) else {
            return nil
        }
        return v
    }

    /// `key=value` as written, escaped for a message.
    static func show(_ pair: ProfileInstance.TXTPair, in p: [UInt8]) -> String {
        MDNSText.show(p[pair.key.lowerBound..<(pair.value?.upperBound ?? pair.key.upperBound)])
    }

    /// The instance's first label (its instance name proper).
    static func instanceLabel(_ i: ProfileInstance, in p: [UInt8]) -> Range<Int>? { i.name.firstLabelRange(in: p) }

    /// The SRV target of the instance, with its facts: nil without an SRV, or for the target
    /// "." (no service).
    static func target(
        _ i: ProfileInstance, in m: MDNSMessageView
    ) -> (name: DNSName, info: MDNSInput.NameInfo, srv: Int)? {
        guard let s = i.srv, case .srv(_, _, _, let target) = m.records[s].record.value,
            let info = m.records[s].target, info.labelCount > 0
        else { return nil }
        return (target, info, s)
    }

    /// A subtype PTR among the instance's pointers: its index, and its subtype label's letter
    /// (lower-cased) and the bytes after it (`_L3840` → `l`, `3840`).
    static func forEachSubtype(
        of i: ProfileInstance, in m: MDNSMessageView, _ body: (_ k: Int, _ letter: UInt8, _ rest: Range<Int>) -> Void
    ) {
        let p = m.message.payload
        for k in i.pointers(in: m) where m.records[k].dnssd.kind == .subtype {
            guard let r = m.records[k].firstLabel, r.count >= 2, p[r.lowerBound] == 0x5F else { continue }
            body(k, ASCII.lower(p[r.lowerBound + 1]), (r.lowerBound + 2)..<r.upperBound)
        }
    }
}

/// Whether bytes are a fixed-length uppercase hexadecimal string, and if not, why.
enum MatterHex: Equatable {
    case upper
    /// Hexadecimal of a right length, with lower-case digits.
    case lowerCase
    /// Hexadecimal, but not of a length allowed.
    case length(Int)
    /// A byte that is no hexadecimal digit.
    case notHex

    init(_ p: [UInt8], _ r: Range<Int>, lengths: Int...) {
        var lower = false
        for k in r {
            let b = p[k]
            guard ASCII.isHexDigit(b) else {
                self = .notHex
                return
            }
            if b >= 0x61 { lower = true }
        }
        if !lengths.contains(r.count) {
            self = .length(r.count)
        } else {
            self = lower ? .lowerCase : .upper
        }
    }

    /// Why it is not what it should be, for a message ("lower case").
    var text: String {
        switch self {
        case .upper: "as required"
        case .lowerCase: "lower case"
        case .length(let n): "\(n) characters"
        case .notHex: "not hexadecimal"
        }
    }
}

// MARK: Examples

/// The records of the Matter rules' examples: a node's response as the SDK sends it (TTL 120,
/// a browse PTR, a PTR per subtype, SRV, TXT, and the host's AAAA).
enum MatterExample {
    static let node = "4BA9831AE57CE2F9"
    static let operationalNode = "2906C908D115D362-000000000001B669"
    static let host = "240AC48E5170.local"
    static let ipv6: [UInt16] = [0xfe80, 0, 0, 0, 0x260a, 0xc4ff, 0xfe8e, 0x5170]
    static let mac: [UInt8] = [0x24, 0x0a, 0xc4, 0x8e, 0x51, 0x70]

    /// An instance `instance` of `service` (`_matterc._udp` …) on `host`, with TXT `txt` (or
    /// raw RDATA `rdata`), listed under `subtypes` (`_L3840` …).
    static func announce(
        _ service: String, _ instance: String, txt: [String], rdata: [UInt8]? = nil, subtypes: [String] = [],
        host: String = host, aaaa: Bool = true, a: Bool = false, ttl: UInt32 = 120
    ) -> DNSBuilder {
        response { b in
            let name = "\(instance).\(service).local"
            b.record(.answer, "\(service).local", 12, ttl: ttl, rdata: B.name(name))
            for s in subtypes { b.record(.answer, "\(s)._sub.\(service).local", 12, ttl: ttl, rdata: B.name(name)) }
            b.record(.additional, name, 33, flush: true, ttl: ttl, rdata: B.srv(5540, host))
            b.record(.additional, name, 16, flush: true, ttl: ttl, rdata: rdata ?? B.txt(txt))
            if aaaa { b.record(.additional, host, 28, flush: true, ttl: ttl, rdata: B.aaaa(ipv6)) }
            if a { b.record(.additional, host, 1, flush: true, ttl: ttl, rdata: B.a("192.168.1.115")) }
        }
    }

    /// A commissionable node (`_matterc._udp`).
    static func commissionable(
        _ txt: [String] = ["D=3840", "CM=1"], instance: String = node, subtypes: [String] = [],
        host: String = host, rdata: [UInt8]? = nil
    ) -> Datagram {
        mdns(announce("_matterc._udp", instance, txt: txt, rdata: rdata, subtypes: subtypes, host: host))
    }

    /// An operational node (`_matter._tcp`).
    static func operational(
        _ txt: [String] = ["SII=5000", "SAI=300", "T=0"], instance: String = operationalNode,
        subtypes: [String] = [], host: String = host
    ) -> Datagram {
        mdns(announce("_matter._tcp", instance, txt: txt, subtypes: subtypes, host: host))
    }

    /// A commissioner (`_matterd._udp`).
    static func commissioner(_ txt: [String] = ["VP=65521+32769"], instance: String = node) -> Datagram {
        mdns(announce("_matterd._udp", instance, txt: txt))
    }

    /// TXT RDATA of raw character-strings (bytes that are not UTF-8).
    static func rawTXT(_ strings: [[UInt8]]) -> [UInt8] {
        strings.flatMap { [UInt8(truncatingIfNeeded: $0.count)] + $0 }
    }
}
