import WireFormat

extension SSDPMessage {
    /// How an SSDP message splits into lines, start-line tokens, and header names and values:
    /// the rules shared by the full decoding (`SSDPMessage`) and the start-line check
    /// (`kind(ofStartLineIn:_:)`). Ranges are of the whole buffer the span reads (a payload
    /// array, or a frame holding the payload).
    enum Lines {
        enum Terminator { case crlf, bareLF, bareCR, none }

        /// The line starting at `i`: where its text ends, where the next line starts, and
        /// what ended it (CRLF, a bare LF or CR, or the end of the message).
        static func next(_ sp: Span<UInt8>, from i: Int, end n: Int) -> (end: Int, next: Int, terminator: Terminator) {
            let j = sp.firstIndex(of: 0x0A, or: 0x0D, in: i..<n)
            guard j < n else { return (j, j, .none) }
            if sp[j] == 0x0D {
                if j + 1 < n, sp[j + 1] == 0x0A { return (j, j + 2, .crlf) }
                return (j, j + 1, .bareCR)
            }
            return (j, j + 1, .bareLF)
        }

        /// A header line that starts with whitespace continues the previous one (obsolete
        /// line folding, RFC 9110 §5.5).
        static func isFolded(_ sp: Span<UInt8>, _ i: Int) -> Bool { sp[i] == 0x20 || sp[i] == 0x09 }

        static func trimEnd(_ sp: Span<UInt8>, _ r: Range<Int>) -> Range<Int> {
            var e = r.upperBound
            while e > r.lowerBound, sp[e - 1] == 0x20 || sp[e - 1] == 0x09 { e -= 1 }
            return r.lowerBound..<e
        }

        static func trim(_ sp: Span<UInt8>, _ r: Range<Int>) -> Range<Int> {
            var b = r.lowerBound
            while b < r.upperBound, sp[b] == 0x20 || sp[b] == 0x09 { b += 1 }
            return trimEnd(sp, b..<r.upperBound)
        }

        /// A header line's name (before the colon, trailing whitespace removed) and value
        /// (surrounding whitespace removed); without a colon, `colon` is the line's end.
        static func split(_ sp: Span<UInt8>, _ line: Range<Int>) -> (name: Range<Int>, colon: Int, value: Range<Int>) {
            let colon = sp.firstIndex(of: 0x3A, in: line)
            guard colon < line.upperBound else { return (line, line.upperBound, line.upperBound..<line.upperBound) }
            return (trimEnd(sp, line.lowerBound..<colon), colon, trim(sp, (colon + 1)..<line.upperBound))
        }

        /// Method, Request-URI and version of a request, or version, status and reason of a
        /// response: the line split on single spaces into at most 3 tokens (the reason
        /// phrase may contain spaces).
        struct StartTokens {
            var count = 0
            var first = 0..<0
            var second = 0..<0
            var third = 0..<0
        }

        static func startTokens(_ sp: Span<UInt8>, _ line: Range<Int>) -> StartTokens {
            var t = StartTokens()
            var k = line.lowerBound
            while k < line.upperBound, t.count < 2 {
                var e = k
                while e < line.upperBound, sp[e] != 0x20 { e += 1 }
                if t.count == 0 { t.first = k..<e } else { t.second = k..<e }
                t.count += 1
                k = e < line.upperBound ? e + 1 : e
            }
            if k < line.upperBound || (t.count == 2 && k == line.upperBound && sp[line.upperBound - 1] == 0x20) {
                t.third = k..<line.upperBound
                t.count += 1
            }
            return t
        }

        /// The message kind its start line gives, and whether that line looks like HTTP at all.
        static func kind(_ p: [UInt8], _ t: StartTokens, _ line: Range<Int>) -> (Kind, looksLikeHTTP: Bool) {
            let first = t.count > 0 ? t.first : line.lowerBound..<line.lowerBound
            // `HTTP/` as a prefix of the first token (a status line).
            if ASCII.equalsIgnoringCase(p, first.lowerBound..<min(first.upperBound, first.lowerBound + 5), "HTTP/") {
                return (.response, true)
            }
            guard t.count == 3,
                ASCII.equalsIgnoringCase(
                    p, t.third.lowerBound..<min(t.third.upperBound, t.third.lowerBound + 5), "HTTP/")
            else { return (.other, false) }
            if ASCII.equalsIgnoringCase(p, first, "M-SEARCH") { return (.mSearch, true) }
            if ASCII.equalsIgnoringCase(p, first, "NOTIFY") { return (.notify, true) }
            return (.other, true)
        }
    }
}

extension SSDPMessage {
    /// What the message at `range` of `bytes` is, from its start line alone (as a whole
    /// decoding's `kind` says), without decoding the rest: no allocation. For the reading
    /// thread's multicast stage, which only needs to know whether a datagram queries,
    /// announces or answers.
    public static func kind(ofStartLineIn bytes: [UInt8], _ range: Range<Int>) -> Kind {
        let sp = bytes.span
        let n = min(range.upperBound, sp.count)
        var i = min(range.lowerBound, n)
        while i < n, sp[i] == 0x0D || sp[i] == 0x0A { i += 1 }
        guard i < n else { return .other }
        let j = Lines.next(sp, from: i, end: n).end
        guard j != i else { return .other }
        return Lines.kind(bytes, Lines.startTokens(sp, i..<j), i..<j).0
    }
}
