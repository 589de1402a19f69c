/// Text that is safe to show on a terminal. Everything a text report or a message on
/// standard error shows that did not come from DiscoScope's own literals (packet bytes,
/// finding messages that quote them, file names) goes through here, so no byte read from the
/// wire or the command line can reach the terminal as a control sequence.
///
/// Escaped, as `cat -v` and tcpdump show them: C0 controls (tab, CR, LF, ESC, BEL and NUL
/// included) as `^@`…`^_`, DEL as `^?`, and every byte of a C1 control (U+0080–U+009F, such
/// as U+009B, the one-character CSI), of a Unicode control that reorders or hides text
/// (bidirectional overrides and isolates, zero-width space, line and paragraph
/// separators, the byte-order mark) and of invalid UTF-8 as `M-` followed by the byte's low
/// seven bits shown the same way (so U+009B is `M-BM-^[`). Valid UTF-8 letters, symbols and
/// spaces stay as they are.
///
/// The output holds only printable ASCII and kept UTF-8, so escaping is idempotent.
public enum TerminalText {
    /// The most bytes one input byte becomes (`M-^[`).
    public static let maxExpansion = 4

    /// Whether every byte is printable ASCII (0x20–0x7E): the common case, checked eight
    /// bytes at a time, which needs no escaping at all.
    @inlinable
    public static func isPlain(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        isPrintableASCII(u, except: 0x7F, 0x7F)
    }

    /// Whether every byte is printable ASCII other than `"` and `\`: the text of a JSON
    /// string that needs no escaping (nor any for a terminal), eight bytes at a time.
    @inlinable
    public static func isPlainJSON(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        isPrintableASCII(u, except: 0x22, 0x5C)
    }

    /// Whether every byte is in 0x20–0x7E and neither `a` nor `b` (pass 0x7F, outside that
    /// range already, for none), eight bytes at a time. Inlined into each caller, so the
    /// excepted bytes are constants there (`isPlain`'s repeated 0x7F tests fold into one).
    @inlinable @inline(__always)
    public static func isPrintableASCII(_ u: UnsafeBufferPointer<UInt8>, except a: UInt8, _ b: UInt8) -> Bool {
        guard let base = u.baseAddress else { return true }
        let n = u.count
        var i = 0
        if n >= 8 {
            while i &+ 8 <= n {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if !isPrintableASCII(word: w, except: a, b) { return false }
                i &+= 8
            }
            if i == n { return true }
            // The last bytes as the word ending there (overlapping bytes already seen).
            let last = UnsafeRawPointer(base + (n &- 8)).loadUnaligned(as: UInt64.self)
            return isPrintableASCII(word: last, except: a, b)
        }
        while i < n {
            let c = base[i]
            if c < 0x20 || c >= 0x7F || c == a || c == b { return false }
            i &+= 1
        }
        return true
    }

    /// Whether each of the eight bytes of `w` is in 0x20–0x7E and neither `a` nor `b`: the
    /// word test behind every eight-bytes-at-a-time printable check (`Span.isPrintableASCII`
    /// too). A byte ≥ 0x80, a byte < 0x20 (subtracting 0x20 borrows into its high bit), a 0x7F
    /// or one of the excepted bytes sets a high bit; a borrow can only mark bytes after a
    /// true match, so the test is exact as an "any".
    @inlinable @inline(__always)
    public static func isPrintableASCII(word w: UInt64, except a: UInt8, _ b: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func matches(_ w: UInt64, _ c: UInt8) -> UInt64 {
            let x = w ^ (UInt64(c) &* ones)
            return (x &- ones) & ~x
        }
        let below = (w &- 0x20 &* ones) & ~w
        let found = matches(w, 0x7F) | matches(w, a) | matches(w, b)
        return (w | below | found) & highs == 0
    }

    /// Whether a scalar decoded from valid UTF-8 is shown escaped: C1 controls and the
    /// invisible controls that reorder or hide the text around them (direction marks,
    /// embeddings, overrides and isolates, zero-width space, line and paragraph separators).
    /// The zero-width joiners U+200C/U+200D stay: scripts and emoji sequences need them.
    @inlinable
    public static func isHidden(_ v: UInt32) -> Bool {
        switch v {
        case 0x80...0x9F: true
        case 0x061C, 0x180E: true
        case 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060...0x2069: true
        case 0xFEFF, 0xFFF9...0xFFFB: true
        default: false
        }
    }

    /// Calls `body` with each run of bytes to copy as they are, and `escape` with each byte to
    /// show escaped, in order.
    @inlinable
    static func scan(
        _ u: UnsafeBufferPointer<UInt8>, copy body: (UnsafeBufferPointer<UInt8>) -> Void, escape: (UInt8) -> Void
    ) {
        let n = u.count
        var runStart = 0
        var i = 0
        func flush(_ end: Int) {
            if end > runStart { body(UnsafeBufferPointer(rebasing: u[runStart..<end])) }
        }
        while i < n {
            let b = u[i]
            if b >= 0x20 && b < 0x7F {
                i &+= 1
                continue
            }
            if b < 0x80 {
                flush(i)
                escape(b)
                i &+= 1
                runStart = i
                continue
            }
            // A multi-byte sequence: its length and scalar when it is valid UTF-8 (shortest
            // form, no surrogates, at most U+10FFFF), else nil.
            let len = sequenceLength(u, at: i)
            if let (length, scalar) = len, !isHidden(scalar) {
                i &+= length
                continue
            }
            flush(i)
            let count = len?.0 ?? 1
            for k in i..<(i &+ count) { escape(u[k]) }
            i &+= count
            runStart = i
        }
        flush(n)
    }

    /// The length and value of the valid UTF-8 sequence starting at `i` (its first byte is
    /// ≥ 0x80), or nil.
    @inlinable
    static func sequenceLength(_ u: UnsafeBufferPointer<UInt8>, at i: Int) -> (Int, UInt32)? {
        let b0 = u[i]
        let n = u.count
        func cont(_ k: Int) -> UInt32? {
            guard k < n, u[k] & 0xC0 == 0x80 else { return nil }
            return UInt32(u[k] & 0x3F)
        }
        switch b0 {
        case 0xC2...0xDF:
            guard let c1 = cont(i &+ 1) else { return nil }
            return (2, UInt32(b0 & 0x1F) << 6 | c1)
        case 0xE0...0xEF:
            guard let c1 = cont(i &+ 1), let c2 = cont(i &+ 2) else { return nil }
            let v = UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2
            guard v >= 0x800, !(0xD800...0xDFFF).contains(v) else { return nil }
            return (3, v)
        case 0xF0...0xF4:
            guard let c1 = cont(i &+ 1), let c2 = cont(i &+ 2), let c3 = cont(i &+ 3) else { return nil }
            let v = UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3
            guard v >= 0x10000, v <= 0x10FFFF else { return nil }
            return (4, v)
        default:
            return nil
        }
    }

    /// The `cat -v` form of one byte that is escaped (1 to 4 bytes).
    @inlinable
    static func forEachEscapeByte(_ b: UInt8, _ put: (UInt8) -> Void) {
        var low = b
        if b >= 0x80 {
            put(0x4D)  // M
            put(0x2D)  // -
            low = b & 0x7F
        }
        if low < 0x20 {
            put(0x5E)  // ^
            put(low | 0x40)
        } else if low == 0x7F {
            put(0x5E)
            put(0x3F)  // ?
        } else {
            put(low)
        }
    }

    /// The length of the escaped form.
    public static func escapedCount(_ u: UnsafeBufferPointer<UInt8>) -> Int {
        if isPlain(u) { return u.count }
        var total = 0
        scan(u, copy: { total &+= $0.count }, escape: { b in forEachEscapeByte(b) { _ in total &+= 1 } })
        return total
    }

    /// Appends the escaped form of `u` to `out`.
    public static func append(_ u: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if isPlain(u) {
            out.append(contentsOf: u)
            return
        }
        scan(u, copy: { out.append(contentsOf: $0) }, escape: { b in forEachEscapeByte(b) { out.append($0) } })
    }

    /// The escaped form of a string (the string itself when nothing needs escaping).
    public static func escaped(_ s: String) -> String {
        var copy = s
        let out: [UInt8]? = copy.withUTF8 { u in
            if isPlain(u) { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(u.count + 16)
            append(u, to: &out)
            return out
        }
        return out.map { String(decoding: $0, as: UTF8.self) } ?? s
    }

    /// Multi-line text (a usage message): each line escaped, line feeds kept.
    public static func escapedLines(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    /// Whether `u` is already safe to show (what escaping produces): no control byte, no
    /// hidden control scalar, valid UTF-8. The fuzz targets and tests check output with it.
    public static func isSafe(_ u: UnsafeBufferPointer<UInt8>, allowingNewlines: Bool = true) -> Bool {
        var safe = true
        scan(u, copy: { _ in }, escape: { b in if !(allowingNewlines && b == 0x0A) { safe = false } })
        return safe
    }
}

extension OutputSpan where Element == UInt8 {
    /// `u` escaped for a terminal (see `TerminalText`); the caller sizes the span with
    /// `TerminalText.escapedCount`.
    public mutating func put(terminalSafe u: UnsafeBufferPointer<UInt8>) {
        if TerminalText.isPlain(u) {
            put(u)
            return
        }
        TerminalText.scan(
            u, copy: { put($0) },
            escape: { b in TerminalText.forEachEscapeByte(b) { put($0) } })
    }

    /// A string escaped for a terminal.
    public mutating func put(terminalSafe s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { put(terminalSafe: $0) }
        if done == nil {
            var copy = s
            copy.withUTF8 { put(terminalSafe: $0) }
        }
    }
}

extension String {
    /// The length of the string's UTF-8 once escaped for a terminal.
    public var terminalSafeCount: Int {
        if let n = utf8.withContiguousStorageIfAvailable({ TerminalText.escapedCount($0) }) { return n }
        var copy = self
        return copy.withUTF8 { TerminalText.escapedCount($0) }
    }
}
