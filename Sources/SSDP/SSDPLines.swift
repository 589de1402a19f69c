import WireFormat

extension SSDPMessage {
    /// How an SSDP message splits into lines, start-line tokens, and header names and values:
    /// the rules shared by the full decoding (`SSDPMessage`) and the key-header scan
    /// (`SSDPKeyHeaders`), which must find the same values. Ranges are of the whole buffer
    /// the span reads (a payload array, or a frame holding the payload).
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

/// The values of the headers that later messages depend on (SERVER, USER-AGENT, USN, NTS, MX,
/// ST, and for the session model NT, MAN, LOCATION, CACHE-CONTROL and the `*.UPNP.ORG`
/// numbers) and the message kind, found by the same rules as `SSDPMessage` (the first header of
/// each name, folded lines included, at most `SSDPMessage.maxHeaders` header lines) without
/// decoding the rest: no allocation. Ranges are of the buffer scanned.
public struct SSDPKeyHeaders {
    public private(set) var kind: SSDPMessage.Kind = .other
    public private(set) var server: Range<Int>? = nil
    public private(set) var userAgent: Range<Int>? = nil
    public private(set) var usn: Range<Int>? = nil
    public private(set) var nts: Range<Int>? = nil
    public private(set) var mx: Range<Int>? = nil
    public private(set) var st: Range<Int>? = nil
    public private(set) var nt: Range<Int>? = nil
    public private(set) var man: Range<Int>? = nil
    public private(set) var location: Range<Int>? = nil
    public private(set) var cacheControl: Range<Int>? = nil
    public private(set) var bootID: Range<Int>? = nil
    public private(set) var configID: Range<Int>? = nil
    public private(set) var nextBootID: Range<Int>? = nil
    public private(set) var searchPort: Range<Int>? = nil

    private enum Key {
        case server, userAgent, usn, nts, mx, st, nt, man, location, cacheControl, bootID, configID, nextBootID,
            searchPort
    }

    /// What the message at `range` of `bytes` is, from its start line alone (as `kind` of a
    /// whole scan says).
    public static func kind(_ bytes: [UInt8], _ range: Range<Int>) -> SSDPMessage.Kind {
        typealias Lines = SSDPMessage.Lines
        let sp = bytes.span
        let n = min(range.upperBound, sp.count)
        var i = min(range.lowerBound, n)
        while i < n, sp[i] == 0x0D || sp[i] == 0x0A { i += 1 }
        guard i < n else { return .other }
        let j = Lines.next(sp, from: i, end: n).end
        guard j != i else { return .other }
        return Lines.kind(bytes, Lines.startTokens(sp, i..<j), i..<j).0
    }

    /// Scans the message at `range` of `bytes`.
    public init(_ bytes: [UInt8], _ range: Range<Int>) {
        typealias Lines = SSDPMessage.Lines
        let sp = bytes.span
        let n = min(range.upperBound, sp.count)
        var i = min(range.lowerBound, n)
        while i < n, sp[i] == 0x0D || sp[i] == 0x0A { i += 1 }
        var lineIndex = 0
        var kept = 0
        // The header a folded line continues, when it is one whose value is kept here.
        var last: Key? = nil
        while i < n {
            if lineIndex == 0 || Lines.isFolded(sp, i) {
                let line = Lines.next(sp, from: i, end: n)
                let j = line.end
                if j == i { break }
                if lineIndex == 0 {
                    kind = Lines.kind(bytes, Lines.startTokens(sp, i..<j), i..<j).0
                } else if let key = last {
                    extend(key, to: Lines.trimEnd(sp, i..<j).upperBound)
                }
                lineIndex += 1
                i = line.next
                continue
            }
            // A header line: the colon and the line's end found in one pass (no line break
            // lies before the first of them).
            let c = sp.firstIndex(of: 0x3A, or: 0x0D, or: 0x0A, in: i..<n)
            let line = Lines.next(sp, from: c, end: n)
            if line.end == i { break }
            if kept < SSDPMessage.maxHeaders {
                kept += 1
                last = nil
                if c < line.end { last = keep(bytes, Lines.trimEnd(sp, i..<c), Lines.trim(sp, (c + 1)..<line.end)) }
            }
            lineIndex += 1
            i = line.next
        }
    }

    /// Keeps the value of the first header with one of the names needed; the key kept, if any.
    /// Compares the names needed by length rather than classifying every name with
    /// `SSDPHeaderName.code(in:)`, which also tries HOST, DATE, EXT and the rest, on the
    /// reading thread.
    private mutating func keep(_ bytes: [UInt8], _ name: Range<Int>, _ value: Range<Int>) -> Key? {
        func named(_ n: SSDPHeaderName) -> Bool { ASCII.equalsIgnoringCase(bytes, name, n.staticText) }
        switch name.count {
        case 2:
            if named(.mx) {
                if mx == nil {
                    mx = value
                    return .mx
                }
            } else if named(.st) {
                if st == nil {
                    st = value
                    return .st
                }
            } else if nt == nil, named(.nt) {
                nt = value
                return .nt
            }
        case 3:
            if named(.usn) {
                if usn == nil {
                    usn = value
                    return .usn
                }
            } else if named(.nts) {
                if nts == nil {
                    nts = value
                    return .nts
                }
            } else if man == nil, named(.man) {
                man = value
                return .man
            }
        case 6:
            if server == nil, named(.server) {
                server = value
                return .server
            }
        case 8:
            if location == nil, named(.location) {
                location = value
                return .location
            }
        case 10:
            if userAgent == nil, named(.userAgent) {
                userAgent = value
                return .userAgent
            }
        case 13:
            if cacheControl == nil, named(.cacheControl) {
                cacheControl = value
                return .cacheControl
            }
        case 15:
            if bootID == nil, named(.bootID) {
                bootID = value
                return .bootID
            }
        case 17:
            if configID == nil, named(.configID) {
                configID = value
                return .configID
            }
        case 19:
            if named(.nextBootID) {
                if nextBootID == nil {
                    nextBootID = value
                    return .nextBootID
                }
            } else if searchPort == nil, named(.searchPort) {
                searchPort = value
                return .searchPort
            }
        default:
            break
        }
        return nil
    }

    private mutating func extend(_ key: Key, to end: Int) {
        func grow(_ r: inout Range<Int>?) { if let v = r { r = v.lowerBound..<end } }
        switch key {
        case .server: grow(&server)
        case .userAgent: grow(&userAgent)
        case .usn: grow(&usn)
        case .nts: grow(&nts)
        case .mx: grow(&mx)
        case .st: grow(&st)
        case .nt: grow(&nt)
        case .man: grow(&man)
        case .location: grow(&location)
        case .cacheControl: grow(&cacheControl)
        case .bootID: grow(&bootID)
        case .configID: grow(&configID)
        case .nextBootID: grow(&nextBootID)
        case .searchPort: grow(&searchPort)
        }
    }
}
