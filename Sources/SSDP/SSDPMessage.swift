import WireFormat

/// One SSDP datagram, decoded leniently: whatever the framing, the start line and every
/// header line are kept (as byte ranges of `payload`, no copies), and each framing problem
/// is recorded as an anomaly for the rules to judge (UDA 1.1/2.0 §1.1; RFC 2616 §4.1).
public struct SSDPMessage: Sendable {
    public enum Kind: String, Sendable {
        case mSearch = "m-search"
        case notify
        case response
        case other
    }

    /// One header line, as ranges of the payload (`SSDPMessage.name(of:)` and `value(of:)`
    /// give the bytes). Plain values: the header list is built, copied and freed without
    /// reference counting, where two slices per header each held the payload.
    public struct Header: Sendable {
        /// Field name exactly as received (before the colon, without trailing whitespace).
        public var nameRange: Range<Int>
        /// Field value with surrounding whitespace removed.
        public var valueRange: Range<Int>
        /// Offset of the line in the payload.
        public var offset: Int
        /// Whitespace between the name and the colon (RFC 9110 forbids it).
        public var spaceBeforeColon: Bool
        /// A line without a colon: `name` holds the whole line, `value` is empty.
        public var missingColon: Bool
        /// `SSDPHeaderName.code` of the name (0: not a known name, or no colon).
        public var code: UInt8 = 0
        /// The name is an HTTP token (non-empty, token characters only); false without a colon.
        public var nameIsToken = false
    }

    public struct Anomaly: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case bareLF = "bare-lf"
            case bareCR = "bare-cr"
            case leadingEmptyLine = "leading-empty-line"
            case missingBlankLine = "missing-blank-line"
            case headerWithoutColon = "header-without-colon"
            case spaceBeforeColon = "space-before-colon"
            case invalidNameCharacter = "invalid-name-character"
            case obsoleteLineFolding = "obsolete-line-folding"
            case controlCharacter = "control-character"
            case invalidUTF8 = "invalid-utf8"
            case nonASCII = "non-ascii"
            case body
            case tooManyHeaders = "too-many-headers"
        }
        public var kind: Kind
        public var offset: Int
    }

    public let payload: [UInt8]
    public private(set) var kind: Kind = .other
    public private(set) var startLine: ArraySlice<UInt8> = []
    /// Method, Request-URI and version of a request, or version, status and reason of a
    /// response (raw tokens of the start line).
    public private(set) var startTokens: [ArraySlice<UInt8>] = []
    public private(set) var headers: [Header] = []
    /// For each known header code, 1 + the index of the first header with that code (0: none),
    /// so a lookup neither scans nor copies the headers it passes.
    private var firstByCode = SIMD32<UInt8>(repeating: 0)
    /// For each known header code, how many headers have it (255: that many or more).
    private var countByCode = SIMD32<UInt8>(repeating: 0)
    /// Whether some known name is on more than one header: when not, `count` is at most 1
    /// for every known name.
    public private(set) var repeatsAKnownName = false
    public private(set) var anomalies: [Anomaly] = []
    /// Bytes after the blank line that ends the header block.
    public private(set) var body: ArraySlice<UInt8> = []
    /// Whether the message starts like HTTP at all (a request line with a version, or a
    /// status line): used to tell SSDP attempts from unrelated payloads.
    public private(set) var looksLikeHTTP = false

    public static let maxHeaders = 256

    public init(parsing payload: [UInt8]) {
        self.payload = payload
        parse()
    }

    private mutating func note(_ k: Anomaly.Kind, _ offset: Int) {
        if !anomalies.contains(where: { $0.kind == k }) { anomalies.append(Anomaly(kind: k, offset: offset)) }
    }

    private mutating func parse() {
        let p = payload
        // Scanning reads through a span (bounds-checked, no reference counting); slices of
        // `payload` are made only for what is kept.
        let sp = p.span
        let n = sp.count
        // One allocation for the header list (instead of regrowing 1, 2, 4, 8, 16): a line
        // takes at least 2 bytes, real messages carry 5 to 20 headers.
        headers.reserveCapacity(min(16, n / 2 + 1))
        var i = 0
        // Leading empty lines (RFC 2616 §4.1 tolerates them; UDA does not).
        while i < n, sp[i] == 0x0D || sp[i] == 0x0A {
            note(.leadingEmptyLine, i)
            i += 1
        }
        var sawBlank = false
        var lineIndex = 0
        while i < n {
            let line = Lines.next(sp, from: i, end: n)
            switch line.terminator {
            case .bareCR: note(.bareCR, line.end)
            case .bareLF: note(.bareLF, line.end)
            case .crlf, .none: break
            }
            let j = line.end
            if j == i {
                sawBlank = true
                i = line.next
                break
            }
            if lineIndex == 0 {
                startLine = p[i..<j]
                parseStartLine(sp, i..<j)
            } else if Lines.isFolded(sp, i) {
                note(.obsoleteLineFolding, i)
                if var last = headers.popLast() {
                    // Keep the folded text as part of the previous value (its range grows), or
                    // of the previous line when it had no colon (it has no value).
                    let end = Lines.trimEnd(sp, i..<j).upperBound
                    if last.missingColon {
                        last.nameRange = last.nameRange.lowerBound..<end
                        last.valueRange = end..<end
                    } else {
                        last.valueRange = last.valueRange.lowerBound..<end
                    }
                    headers.append(last)
                }
            } else if headers.count >= Self.maxHeaders {
                note(.tooManyHeaders, i)
            } else {
                let h = parseHeader(p, sp, i..<j)
                let code = Int(h.code)
                if code != 0, code < 32 {
                    if firstByCode[code] == 0, headers.count < 255 { firstByCode[code] = UInt8(headers.count + 1) }
                    if countByCode[code] < 255 { countByCode[code] += 1 }
                    if countByCode[code] > 1 { repeatsAKnownName = true }
                }
                headers.append(h)
            }
            lineIndex += 1
            i = line.next
        }
        if !sawBlank { note(.missingBlankLine, n) }
        if sawBlank, i < n {
            body = p[i..<n]
            // Trailing NULs or whitespace only are common padding; still a body.
            note(.body, i)
        }
        notificationSubtype = subtype()
    }

    private mutating func parseStartLine(_ sp: Span<UInt8>, _ line: Range<Int>) {
        let p = payload
        let t = Lines.startTokens(sp, line)
        var tokens: [ArraySlice<UInt8>] = []
        tokens.reserveCapacity(t.count)
        if t.count > 0 { tokens.append(p[t.first]) }
        if t.count > 1 { tokens.append(p[t.second]) }
        if t.count > 2 { tokens.append(p[t.third]) }
        startTokens = tokens
        (kind, looksLikeHTTP) = Lines.kind(p, t, line)
    }

    private mutating func parseHeader(_ p: [UInt8], _ sp: Span<UInt8>, _ line: Range<Int>) -> Header {
        let offset = line.lowerBound
        let (name, colon, value) = Lines.split(sp, line)
        guard colon < line.upperBound else {
            note(.headerWithoutColon, offset)
            return Header(
                nameRange: line, valueRange: line.upperBound..<line.upperBound, offset: offset, spaceBeforeColon: false,
                missingColon: true)
        }
        let spaceBefore = name.upperBound != colon
        if spaceBefore { note(.spaceBeforeColon, offset) }
        var token = !name.isEmpty
        for k in name where !SSDPSyntax.isTokenByte(sp[k]) {
            note(.invalidNameCharacter, offset)
            token = false
            break
        }
        var nonASCII = false
        // Byte by byte only when a word holds something other than printable ASCII.
        if !sp.isPrintableASCII(value) {
            for k in value {
                let b = sp[k]
                if (b < 0x20 && b != 0x09) || b == 0x7F {
                    note(.controlCharacter, offset)
                } else if b >= 0x80 {
                    nonASCII = true
                }
            }
        }
        if nonASCII {
            note(ASCII.isValidUTF8(p[value]) ? .nonASCII : .invalidUTF8, offset)
        }
        return Header(
            nameRange: name, valueRange: value, offset: offset, spaceBeforeColon: spaceBefore, missingColon: false,
            code: SSDPHeaderName.code(in: p, name), nameIsToken: token)
    }

    // MARK: - Lookups (case-insensitive on bytes, no allocation)

    /// A header's name as received (a header of another message gets at most this
    /// payload's bytes, never a trap).
    public func name(of h: Header) -> ArraySlice<UInt8> { payload[h.nameRange.clamped(to: payload.indices)] }

    /// A header's value, surrounding whitespace removed.
    public func value(of h: Header) -> ArraySlice<UInt8> { payload[h.valueRange.clamped(to: payload.indices)] }

    /// The first header with this name (compared ASCII-case-insensitively).
    public func first(_ name: SSDPHeaderName) -> Header? {
        firstIndex(name).map { headers[$0] }
    }

    /// Index in `headers` of the first header with this name.
    public func firstIndex(_ name: SSDPHeaderName) -> Int? {
        let code = Int(name.code)
        if code != 0, code < 32 {
            let k = Int(firstByCode[code])
            if k != 0 { return k - 1 }
            // Past the 255th header the table has no room: scan.
            guard headers.count > 255 else { return nil }
        }
        for k in headers.indices where header(k, is: name) { return k }
        return nil
    }

    /// Whether `headers[k]` has this name: by code for a known name, else by its bytes
    /// (ASCII case-insensitively); a line without a colon has no name.
    private func header(_ k: Int, is name: SSDPHeaderName) -> Bool {
        let h = headers[k]
        if h.missingColon { return false }
        return name.code != 0 ? h.code == name.code : ASCII.equalsIgnoringCase(payload[h.nameRange], name.bytes)
    }

    public func value(_ name: SSDPHeaderName) -> ArraySlice<UInt8>? {
        firstIndex(name).map { value(of: headers[$0]) }
    }

    public func count(_ name: SSDPHeaderName) -> Int {
        let code = Int(name.code)
        if code != 0, code < 32, countByCode[code] < 255 { return Int(countByCode[code]) }
        var n = 0
        for k in headers.indices where header(k, is: name) { n += 1 }
        return n
    }

    public func has(_ name: SSDPHeaderName) -> Bool { firstIndex(name) != nil }

    // MARK: - Typed views

    /// NTS value as a sub-kind of NOTIFY.
    public enum NotificationSubtype: Sendable { case alive, byebye, update, other }

    /// The NTS value as a sub-kind of a NOTIFY (nil for other kinds), read once while
    /// decoding: most rules ask it first.
    public private(set) var notificationSubtype: NotificationSubtype?

    private func subtype() -> NotificationSubtype? {
        guard kind == .notify else { return nil }
        guard let v = value(.nts) else { return .other }
        if v.equals("ssdp:alive") { return .alive }
        if v.equals("ssdp:byebye") { return .byebye }
        if v.equals("ssdp:update") { return .update }
        return .other
    }

    /// MX as an integer when it is a plain decimal number.
    public var mx: UInt64? { value(.mx).flatMap { ASCII.parseDecimal($0) } }

    /// `max-age` from CACHE-CONTROL (tolerating spaces around `=`), nil when absent or not a
    /// number.
    public var maxAge: UInt64? {
        guard let v = value(.cacheControl) else { return nil }
        return SSDPSyntax.maxAge(in: v)
    }

    /// The UPnP version claimed by SERVER (or USER-AGENT for M-SEARCH): `UPnP/x.y` token.
    public var claimedUPnPVersion: UPnPVersion? {
        let field: SSDPHeaderName = kind == .mSearch ? .userAgent : .server
        guard let v = value(field) else { return nil }
        return UPnPVersion.find(in: v)
    }

    /// The UUID part of USN (`uuid:<this>` up to `::`), nil when USN does not start with `uuid:`.
    public var usnUUID: ArraySlice<UInt8>? {
        guard let usn = value(.usn) else { return nil }
        return SSDPSyntax.uuid(inUSN: usn)
    }

    /// The part of USN after `::`, nil when there is none.
    public var usnType: ArraySlice<UInt8>? {
        guard let usn = value(.usn) else { return nil }
        return SSDPSyntax.suffix(ofUSN: usn)
    }

    /// Status code of a response, when the start line has a 3-digit code.
    public var statusCode: UInt64? {
        guard kind == .response, startTokens.count >= 2 else { return nil }
        return ASCII.parseDecimal(startTokens[1])
    }
}

/// A UPnP Device Architecture version from a `UPnP/major.minor` product token.
public struct UPnPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    // The versions as UDA writes them.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v1_0 = UPnPVersion(major: 1, minor: 0)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v1_1 = UPnPVersion(major: 1, minor: 1)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v2_0 = UPnPVersion(major: 2, minor: 0)
    public static func < (a: UPnPVersion, b: UPnPVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }
    public var description: String { "\(major).\(minor)" }

    /// Finds `UPnP/x.y` (case-insensitive `upnp/`) anywhere in a SERVER/USER-AGENT value.
    public static func find(in value: ArraySlice<UInt8>) -> UPnPVersion? {
        var i = value.startIndex
        while i + 5 <= value.endIndex {
            if SSDPSyntax.hasPrefix(value[i..<(i + 5)], "upnp/", caseInsensitive: true) {
                var k = i + 5
                var major = 0
                var digits = 0
                while k < value.endIndex, ASCII.isDigit(value[k]), digits < 4 {
                    major = major * 10 + Int(value[k] - 0x30)
                    k += 1
                    digits += 1
                }
                guard digits > 0 else { return nil }
                var minor = 0
                if k < value.endIndex, value[k] == 0x2E {
                    k += 1
                    var md = 0
                    while k < value.endIndex, ASCII.isDigit(value[k]), md < 4 {
                        minor = minor * 10 + Int(value[k] - 0x30)
                        k += 1
                        md += 1
                    }
                }
                return UPnPVersion(major: major, minor: minor)
            }
            i += 1
        }
        return nil
    }
}

/// A header name compared case-insensitively (swift-http-types' `HTTPField.Name` idea).
/// A header name DiscoScope knows. Names live in static memory (no reference counting) and
/// carry a small code: each received header is classified once while parsing, so lookups
/// compare codes instead of bytes.
public struct SSDPHeaderName: Sendable, Hashable {
    public let staticText: StaticString
    /// 1-based index into `known`; 0 for a name outside the table.
    public let code: UInt8

    init(_ text: StaticString, code: UInt8) {
        self.staticText = text
        self.code = code
    }

    public init(_ text: StaticString) {
        self.staticText = text
        let b = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        self.code = Self.code(of: b)
    }

    @inlinable
    public var bytes: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: staticText.utf8Start, count: staticText.utf8CodeUnitCount)
    }
    public var text: String { staticText.description }

    public static func == (a: Self, b: Self) -> Bool { a.bytes.elementsEqual(b.bytes) }
    public func hash(into h: inout Hasher) {
        h.combine(bytes.count)
        for x in bytes { h.combine(x) }
    }

    public static let host = SSDPHeaderName("HOST", code: 1)
    public static let man = SSDPHeaderName("MAN", code: 2)
    public static let mx = SSDPHeaderName("MX", code: 3)
    public static let st = SSDPHeaderName("ST", code: 4)
    public static let nt = SSDPHeaderName("NT", code: 5)
    public static let nts = SSDPHeaderName("NTS", code: 6)
    public static let usn = SSDPHeaderName("USN", code: 7)
    public static let location = SSDPHeaderName("LOCATION", code: 8)
    public static let cacheControl = SSDPHeaderName("CACHE-CONTROL", code: 9)
    public static let server = SSDPHeaderName("SERVER", code: 10)
    public static let userAgent = SSDPHeaderName("USER-AGENT", code: 11)
    public static let ext = SSDPHeaderName("EXT", code: 12)
    public static let date = SSDPHeaderName("DATE", code: 13)
    public static let contentLength = SSDPHeaderName("CONTENT-LENGTH", code: 14)
    public static let bootID = SSDPHeaderName("BOOTID.UPNP.ORG", code: 15)
    public static let configID = SSDPHeaderName("CONFIGID.UPNP.ORG", code: 16)
    public static let nextBootID = SSDPHeaderName("NEXTBOOTID.UPNP.ORG", code: 17)
    public static let searchPort = SSDPHeaderName("SEARCHPORT.UPNP.ORG", code: 18)
    public static let tcpPort = SSDPHeaderName("TCPPORT.UPNP.ORG", code: 19)
    public static let cpfn = SSDPHeaderName("CPFN.UPNP.ORG", code: 20)
    public static let cpuuid = SSDPHeaderName("CPUUID.UPNP.ORG", code: 21)
    public static let secureLocation = SSDPHeaderName("SECURELOCATION.UPNP.ORG", code: 22)
    public static let al = SSDPHeaderName("AL", code: 23)
    public static let expires = SSDPHeaderName("EXPIRES", code: 24)
    public static let contentType = SSDPHeaderName("CONTENT-TYPE", code: 25)
    public static let connection = SSDPHeaderName("CONNECTION", code: 26)
    /// DIAL 2.1's Wake-on-LAN header (PROF-508).
    public static let wakeup = SSDPHeaderName("WAKEUP", code: 27)

    /// Every name with a code, in code order.
    public static let known: [SSDPHeaderName] = [
        .host, .man, .mx, .st, .nt, .nts, .usn, .location, .cacheControl, .server, .userAgent, .ext, .date,
        .contentLength, .bootID, .configID, .nextBootID, .searchPort, .tcpPort, .cpfn, .cpuuid, .secureLocation, .al,
        .expires, .contentType, .connection, .wakeup,
    ]

    /// For each name length below 32 and first letter (its low five bits, case folded), the
    /// codes of the known names that could match (bit `code`): most received names have one
    /// candidate or none, and only candidates are compared.
    static let candidates: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 32 * 32)
        for k in known where k.bytes.count < 32 && k.code < 32 {
            t[k.bytes.count * 32 + Int(k.bytes[0] & 31)] |= 1 << UInt32(k.code)
        }
        return t
    }()

    /// The known names' text by code − 1 (plain values: reading one retains nothing).
    static let knownTexts: [StaticString] = known.map(\.staticText)

    /// The code of a received name (ASCII case-insensitive), 0 when unknown.
    public static func code<C: Collection>(of name: C) -> UInt8 where C.Element == UInt8 {
        let bytes = Array(name)
        return code(in: bytes, 0..<bytes.count)
    }

    /// The code of the name at `range` of `bytes`. Only the known names of the same length
    /// and first letter are compared (at most two).
    public static func code(in bytes: [UInt8], _ range: Range<Int>) -> UInt8 {
        let n = range.count
        guard n > 0, n < 32, range.lowerBound >= 0, range.upperBound <= bytes.count else { return 0 }
        var candidates = Self.candidates[n * 32 + Int(bytes[range.lowerBound] & 31)]
        while candidates != 0 {
            let c = candidates.trailingZeroBitCount
            if c >= 1, c <= knownTexts.count, ASCII.equalsIgnoringCase(bytes, range, knownTexts[c - 1]) {
                return UInt8(c)
            }
            candidates &= candidates &- 1
        }
        return 0
    }
}

/// Byte-level syntax helpers (RFC 2616/9110 tokens, UUIDs, URNs), no allocation.
public enum SSDPSyntax {
    /// RFC 9110 tchar: digits, letters and ``!#$%&'*+-.^_`|~``, as a bit set over ASCII
    /// (bytes 0–63 and 64–127).
    @usableFromInline static let tokenBitsLow: UInt64 = 0x03FF_6CFA_0000_0000
    @usableFromInline static let tokenBitsHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    @inlinable
    public static func isTokenByte(_ b: UInt8) -> Bool {
        b < 64 ? (tokenBitsLow >> UInt64(b)) & 1 != 0 : b < 128 && (tokenBitsHigh >> UInt64(b &- 64)) & 1 != 0
    }

    @inlinable
    public static func isToken<C: Collection>(_ s: C) -> Bool where C.Element == UInt8 {
        !s.isEmpty && s.allSatisfy(isTokenByte)
    }

    @inlinable
    public static func hasPrefix(_ s: ArraySlice<UInt8>, _ p: StaticString, caseInsensitive: Bool = false) -> Bool {
        let pb = UnsafeBufferPointer(start: p.utf8Start, count: p.utf8CodeUnitCount)
        guard s.count >= pb.count else { return false }
        var i = s.startIndex
        for b in pb {
            let x = s[i]
            if caseInsensitive ? ASCII.lower(x) != ASCII.lower(b) : x != b { return false }
            i += 1
        }
        return true
    }

    public static func uuid(inUSN usn: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard hasPrefix(usn, "uuid:", caseInsensitive: true) else { return nil }
        let rest = usn.dropFirst(5)
        if let r = firstDoubleColon(rest) { return rest[rest.startIndex..<r] }
        return rest
    }

    /// `uuid(inUSN:)` and `suffix(ofUSN:)` of one USN, from one scan for its first `::`.
    public static func split(usn: ArraySlice<UInt8>) -> (uuid: ArraySlice<UInt8>?, type: ArraySlice<UInt8>?) {
        let d = firstDoubleColon(usn)
        let type = d.map { usn[($0 + 2)..<usn.endIndex] }
        guard hasPrefix(usn, "uuid:", caseInsensitive: true) else { return (nil, type) }
        let rest = usn.dropFirst(5)
        guard let d else { return (rest, type) }
        // The USN's first `::` is its rest's first unless it is the one of `uuid::`.
        return (d >= rest.startIndex ? rest[rest.startIndex..<d] : uuid(inUSN: usn), type)
    }

    public static func suffix(ofUSN usn: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let r = firstDoubleColon(usn) else { return nil }
        return usn[(r + 2)..<usn.endIndex]
    }

    static func firstDoubleColon(_ s: ArraySlice<UInt8>) -> Int? {
        var i = s.startIndex
        while i + 1 < s.endIndex {
            if s[i] == 0x3A && s[i + 1] == 0x3A { return i }
            i += 1
        }
        return nil
    }

    /// 8-4-4-4-12 hexadecimal UUID.
    public static func isCanonicalUUID(_ s: ArraySlice<UInt8>) -> Bool {
        guard s.count == 36 else { return false }
        for (k, b) in s.enumerated() {
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if b != 0x2D { return false }
            } else if !ASCII.isHexDigit(b) {
                return false
            }
        }
        return true
    }

    public enum URNKind: Sendable { case device, service }

    /// `urn:<domain>:device|service:<type>:<ver>` → (kind, domain, type, version) when well
    /// formed; nil otherwise.
    public static func parseURN(_ s: ArraySlice<UInt8>) -> (
        kind: URNKind, domain: ArraySlice<UInt8>, type: ArraySlice<UInt8>, version: ArraySlice<UInt8>
    )? {
        guard hasPrefix(s, "urn:") else { return nil }
        // Exactly five colon-separated parts: urn, domain, device|service, type, version.
        var colons: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var n = 0
        for i in s.indices where s[i] == 0x3A {
            switch n {
            case 0: colons.0 = i
            case 1: colons.1 = i
            case 2: colons.2 = i
            case 3: colons.3 = i
            default: return nil
            }
            n += 1
        }
        guard n == 4 else { return nil }
        let kindPart = s[(colons.1 + 1)..<colons.2]
        let kind: URNKind
        if kindPart.equals("device") {
            kind = .device
        } else if kindPart.equals("service") {
            kind = .service
        } else {
            return nil
        }
        return (kind, s[(colons.0 + 1)..<colons.1], s[(colons.2 + 1)..<colons.3], s[(colons.3 + 1)..<s.endIndex])
    }

    /// `max-age = N` inside a CACHE-CONTROL value (directive names case-insensitive).
    public static func maxAge(in v: ArraySlice<UInt8>) -> UInt64? {
        var age: UInt64? = nil
        ASCII.forEachPiece(of: v, separatedBy: 0x2C) { directive in
            var d = directive
            while let f = d.first, f == 0x20 || f == 0x09 { d = d.dropFirst() }
            guard hasPrefix(d, "max-age", caseInsensitive: true) else { return true }
            var rest = d.dropFirst(7)
            while let f = rest.first, f == 0x20 || f == 0x09 { rest = rest.dropFirst() }
            guard rest.first == 0x3D else { return false }
            rest = rest.dropFirst()
            while let f = rest.first, f == 0x20 || f == 0x09 || f == 0x22 { rest = rest.dropFirst() }
            while let l = rest.last, l == 0x20 || l == 0x09 || l == 0x22 { rest = rest.dropLast() }
            age = ASCII.parseDecimal(rest)
            return false
        }
        return age
    }
}
