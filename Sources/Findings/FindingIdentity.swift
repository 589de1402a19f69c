/// What makes two findings the same problem across runs: the rule, who it is about (the
/// device when the finding names one, else the sender), and the message's template — its
/// words and stable arguments (names, types, header names, addresses) with every measured
/// value (frame numbers, times, counts, offsets, TTLs, intervals, flag words) read as `#`.
///
/// The baseline key, SARIF's `partialFingerprints` and `diff`'s matching all use it, so the
/// same traffic recorded again, with frames deleted or files reordered, keeps its identity.
public enum FindingIdentity {
    /// `rule<TAB>subject<TAB>template`, with tabs and line breaks in wire text read as spaces.
    public static func key(rule: String, source: String, device: String?, message: String) -> String {
        clean(rule) + "\t" + clean(subject(source: source, device: device)) + "\t" + clean(template(message))
    }

    public static func key(_ f: Finding) -> String {
        key(rule: f.rule.rawValue, source: f.source, device: f.device, message: f.message)
    }

    /// The device a finding names (SSDP UUID without `uuid:`, mDNS host name without its
    /// trailing dot, in lower case), else its sender's address.
    public static func subject(source: String, device: String?) -> String {
        guard var d = device?.lowercased(), !d.isEmpty else { return source.lowercased() }
        if d.hasPrefix("uuid:") { d.removeFirst(5) }
        if d.count > 1 && d.hasSuffix(".") { d.removeLast() }
        return d
    }

    /// `message` with each word that is a measured value replaced by `#`. A word is what lies
    /// between spaces and the punctuation `( ) [ ] { } , ; = " '` (and `<`, `>`); it is a
    /// measured value when, less one trailing `.` or `:`, it is a decimal number (sign,
    /// fraction and a unit such as `ms`, `s`, `%` or `-byte` allowed), a `0x` hexadecimal
    /// number, or a clock time (`15:36:01.250`). Words that merely contain digits — `h1-avahi.local.`,
    /// `10.99.0.4`, `MediaServer:1`, `#2`, `02:99:00:00:00:01` — are names and stay.
    public static func template(_ message: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(message.utf8)
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if isDelimiter(bytes[i]) {
                out.append(bytes[i])
                i += 1
                continue
            }
            var j = i
            while j < bytes.count, !isDelimiter(bytes[j]) { j += 1 }
            let word = bytes[i..<j]
            var body = word
            if let last = body.last, last == UInt8(ascii: ".") || last == UInt8(ascii: ":"), body.count > 1 {
                body = body.dropLast()
            }
            if isMeasured(body) {
                out.append(UInt8(ascii: "#"))
                if body.count < word.count, let last = word.last { out.append(last) }
            } else {
                out.append(contentsOf: word)
            }
            i = j
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A 64-bit FNV-1a digest of `key`, as 16 hex digits (SARIF `partialFingerprints`).
    public static func fingerprint(_ key: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    private static func isDelimiter(_ b: UInt8) -> Bool {
        switch b {
        case 0x20, 0x09, 0x0A, 0x0D, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x2C, 0x3B, 0x3D, 0x22, 0x27, 0x3C, 0x3E:
            true
        default: false
        }
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private enum ASCIILetter {
        static func contains(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }

    /// Units a number may carry without a space (`942ms`, `2.5s`, `40%`, `3x`).
    private static let units: [[UInt8]] = ["ms", "s", "us", "µs", "%", "x", "×", "B", "KiB", "MiB", "kB"].map {
        Array($0.utf8)
    }

    static func isMeasured(_ w: ArraySlice<UInt8>) -> Bool {
        guard let first = w.first else { return false }
        var i = w.startIndex
        // 0x1A2B
        if w.count > 2, first == UInt8(ascii: "0"), w[i + 1] == UInt8(ascii: "x") || w[i + 1] == UInt8(ascii: "X") {
            return w.dropFirst(2).allSatisfy(isHexDigit)
        }
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == UInt8(ascii: "~") { i += 1 }
        // hh:mm:ss(.fraction)
        if isClock(w[i...]) { return true }
        let intStart = i
        while i < w.endIndex, isDigit(w[i]) { i += 1 }
        guard i > intStart else { return false }
        if i < w.endIndex, w[i] == UInt8(ascii: ".") {
            let fracStart = i + 1
            var k = fracStart
            while k < w.endIndex, isDigit(w[k]) { k += 1 }
            guard k > fracStart else { return false }
            i = k
        }
        let rest = Array(w[i...])
        // `523-byte`, `2-second`: a number with its unit as one word.
        if rest.count > 1, rest[0] == UInt8(ascii: "-"), rest.dropFirst().allSatisfy(ASCIILetter.contains) {
            return true
        }
        return rest.isEmpty || units.contains(rest)
    }

    private static func isClock(_ w: ArraySlice<UInt8>) -> Bool {
        let parts = w.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        for (k, p) in parts.enumerated() {
            let whole = k == 2 ? (p.split(separator: UInt8(ascii: "."), maxSplits: 1).first ?? p) : p
            guard (1...2).contains(whole.count), whole.allSatisfy(isDigit) else { return false }
            if k == 2, whole.count < p.count {
                let frac = p.dropFirst(whole.count + 1)
                guard !frac.isEmpty, frac.allSatisfy(isDigit) else { return false }
            }
        }
        return true
    }

    /// Tabs and line breaks (by scalar: `"\r\n"` is one Character) read as spaces, so a key
    /// is one line of three tab-separated fields.
    private static func clean(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars { out.append(u == "\t" || u == "\n" || u == "\r" ? " " : u) }
        return String(out)
    }
}
