import WireFormat

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
        var out: [UInt8] = []
        appendKey(rule: rule, source: source, device: device, message: message, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func key(_ f: Finding) -> String {
        key(rule: f.rule.rawValue, source: f.source, device: f.device, message: f.message)
    }

    /// The key's bytes, appended to `out` in one pass over each text, into one reservation
    /// (SARIF makes one for every result): a key is never longer than its three texts and
    /// two tabs (a measured word becomes `#`, with its trailing `.` or `:`).
    public static func appendKey(
        rule: String, source: String, device: String?, message: String, to out: inout [UInt8]
    ) {
        var rule = rule
        var message = message
        var (subject, named) = subjectText(source: source, device: device)
        rule.withUTF8 { r in
            subject.withUTF8 { s in
                message.withUTF8 { m in
                    out.append(addingCapacity: r.count &+ s.count &+ m.count &+ 2) { o in
                        for b in r { o.put(cleaned(b)) }
                        o.put(0x09)
                        putSubject(s, isDevice: named, to: &o)
                        o.put(0x09)
                        putTemplate(m, to: &o)
                    }
                }
            }
        }
    }

    /// The device a finding names (SSDP UUID without `uuid:`, mDNS host name without its
    /// trailing dot, in lower case), else its sender's address.
    public static func subject(source: String, device: String?) -> String {
        var (text, named) = subjectText(source: source, device: device)
        var out: [UInt8] = []
        text.withUTF8 { s in out.append(addingCapacity: s.count) { putSubject(s, isDevice: named, to: &$0) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text the subject is made of: the device when the finding names one, else the sender.
    private static func subjectText(source: String, device: String?) -> (text: String, isDevice: Bool) {
        if let device, !device.isEmpty { (device, true) } else { (source, false) }
    }

    private static func putSubject(_ s: UnsafeBufferPointer<UInt8>, isDevice: Bool, to out: inout OutputSpan<UInt8>) {
        var start = 0
        var end = s.count
        if isDevice {
            if end > 5, lower(s[0]) == UInt8(ascii: "u"), lower(s[1]) == UInt8(ascii: "u"),
                lower(s[2]) == UInt8(ascii: "i"), lower(s[3]) == UInt8(ascii: "d"), s[4] == UInt8(ascii: ":")
            {
                start = 5
            }
            if end - start > 1, s[end - 1] == UInt8(ascii: ".") { end -= 1 }
        }
        for k in start..<end { out.put(cleaned(lower(s[k]))) }
    }

    /// `message` with each word that is a measured value replaced by `#`. A word is what lies
    /// between spaces and the punctuation `( ) [ ] { } , ; = " '` (and `<`, `>`); it is a
    /// measured value when, less one trailing `.` or `:`, it is a decimal number (sign,
    /// fraction and a unit such as `ms`, `s`, `%` or `-byte` allowed), a `0x` hexadecimal
    /// number, or a clock time (`15:36:01.250`). Words that merely contain digits — `h1-avahi.local.`,
    /// `10.99.0.4`, `MediaServer:1`, `#2`, `02:99:00:00:00:01` — are names and stay.
    public static func template(_ message: String) -> String {
        var message = message
        var out: [UInt8] = []
        message.withUTF8 { m in out.append(addingCapacity: m.count) { putTemplate(m, to: &$0) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The message is copied in runs of bytes that stay as they are; a run ends at a tab or
    /// line break (read as a space) and at a measured word (read as `#`).
    private static func putTemplate(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout OutputSpan<UInt8>) {
        var run = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if isDelimiter(b) {
                if cleaned(b) != b {
                    out.put(UnsafeBufferPointer(rebasing: bytes[run..<i]))
                    out.put(0x20)
                    run = i + 1
                }
                i += 1
                continue
            }
            var j = i + 1
            while j < bytes.count, !isDelimiter(bytes[j]) { j += 1 }
            let word = bytes[i..<j]
            var body = word
            if let last = body.last, last == UInt8(ascii: ".") || last == UInt8(ascii: ":"), body.count > 1 {
                body = body.dropLast()
            }
            if isMeasured(body) {
                out.put(UnsafeBufferPointer(rebasing: bytes[run..<i]))
                out.put(UInt8(ascii: "#"))
                if body.count < word.count, let last = word.last { out.put(last) }
                run = j
            }
            i = j
        }
        out.put(UnsafeBufferPointer(rebasing: bytes[run...]))
    }

    /// A 64-bit FNV-1a digest of `key`, as 16 hex digits (SARIF `partialFingerprints`).
    public static func fingerprint(_ key: String) -> String { fingerprint(bytes: Array(key.utf8)) }

    /// The digest of the key's bytes (`appendKey`), as 16 hex digits.
    public static func fingerprint(bytes: [UInt8]) -> String {
        let h = digest(bytes)
        return String(utf8Bound: 16) { $0.put(hex: h, digits: 16) }
    }

    /// The 64-bit FNV-1a digest of the key's bytes (`appendKey`).
    public static func digest(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { u in
            for b in u {
                h ^= UInt64(b)
                h = h &* 0x0000_0100_0000_01B3
            }
        }
        return h
    }

    /// Tabs and line breaks read as spaces, so a key is one line of three tab-separated fields.
    private static func cleaned(_ b: UInt8) -> UInt8 { b == 0x09 || b == 0x0A || b == 0x0D ? 0x20 : b }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Space, tab, line breaks and `( ) [ ] { } , ; = " ' < >`: one bit each in two words.
    @inline(__always)
    private static func isDelimiter(_ b: UInt8) -> Bool {
        let below64: UInt64 =
            1 << 0x09 | 1 << 0x0A | 1 << 0x0D | 1 << 0x20 | 1 << 0x22 | 1 << 0x27 | 1 << 0x28 | 1 << 0x29
            | 1 << 0x2C | 1 << 0x3B | 1 << 0x3C | 1 << 0x3D | 1 << 0x3E
        let below128: UInt64 = 1 << (0x5B - 64) | 1 << (0x5D - 64) | 1 << (0x7B - 64) | 1 << (0x7D - 64)
        return b < 64 ? below64 >> b & 1 != 0 : b < 128 ? below128 >> (b &- 64) & 1 != 0 : false
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    /// Units a number may carry without a space (`942ms`, `2.5s`, `40%`, `3x`).
    private static let units: [[UInt8]] = ["ms", "s", "us", "µs", "%", "x", "×", "B", "KiB", "MiB", "kB"].map {
        Array($0.utf8)
    }

    static func isMeasured<W: Collection<UInt8>>(_ w: W) -> Bool where W.SubSequence: Collection<UInt8> {
        // Every measured form starts with a digit or a sign: most words are letters.
        guard let first = w.first, isDigit(first) || first == 0x2B || first == 0x2D || first == 0x7E else {
            return false
        }
        var i = w.startIndex
        // 0x1A2B
        if w.count > 2, first == UInt8(ascii: "0") {
            let second = w[w.index(after: i)]
            if second == UInt8(ascii: "x") || second == UInt8(ascii: "X") {
                return w.dropFirst(2).allSatisfy(isHexDigit)
            }
        }
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == UInt8(ascii: "~") {
            i = w.index(after: i)
        }
        // hh:mm:ss(.fraction)
        if isClock(w[i...]) { return true }
        let intStart = i
        while i < w.endIndex, isDigit(w[i]) { i = w.index(after: i) }
        guard i > intStart else { return false }
        if i < w.endIndex, w[i] == UInt8(ascii: ".") {
            var k = w.index(after: i)
            let fracStart = k
            while k < w.endIndex, isDigit(w[k]) { k = w.index(after: k) }
            guard k > fracStart else { return false }
            i = k
        }
        let rest = w[i...]
        // `523-byte`, `2-second`: a number with its unit as one word.
        if rest.count > 1, rest.first == UInt8(ascii: "-"), rest.dropFirst().allSatisfy(isLetter) { return true }
        return rest.isEmpty || units.contains { $0.elementsEqual(rest) }
    }

    /// `h:mm:ss` or `hh:mm:ss`, with an optional `.fraction`: two digits at most per part.
    private static func isClock<W: Collection<UInt8>>(_ w: W) -> Bool {
        var part = 0
        var digits = 0
        var fraction = false
        var fractionDigits = 0
        for b in w {
            if isDigit(b) {
                if fraction {
                    fractionDigits += 1
                } else {
                    digits += 1
                    if digits > 2 { return false }
                }
            } else if b == UInt8(ascii: ":"), !fraction {
                guard digits > 0, part < 2 else { return false }
                part += 1
                digits = 0
            } else if b == UInt8(ascii: "."), part == 2, !fraction, digits > 0 {
                fraction = true
            } else {
                return false
            }
        }
        return part == 2 && digits > 0 && (!fraction || fractionDigits > 0)
    }
}
