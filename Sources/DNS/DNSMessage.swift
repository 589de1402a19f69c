import WireFormat

/// A DNS message as mDNS uses it (RFC 1035 §4.1, RFC 6762 §18), decoded without trusting
/// any count or length: names stay in the payload (a `DNSName` is an offset, walked on
/// demand), RDATA is decoded only inside its RDLENGTH, and every problem is recorded as an
/// anomaly with its byte offset. Decoding never traps and never allocates per field: one
/// array per section.
public struct DNSMessage: Sendable {
    public let payload: [UInt8]
    public private(set) var header = DNSHeader()
    public private(set) var questions: [DNSQuestion] = []
    public private(set) var answers: [ResourceRecord] = []
    public private(set) var authorities: [ResourceRecord] = []
    public private(set) var additionals: [ResourceRecord] = []
    public private(set) var anomalies: [DNSAnomaly] = []
    /// Where decoding stopped (the whole payload when it completed).
    public private(set) var decodedLength = 0
    /// Whether every counted question and record was decoded.
    public private(set) var isComplete = false

    public init(parsing payload: [UInt8]) {
        self.payload = payload
        parse()
    }

    mutating func note(_ kind: DNSAnomaly.Kind, _ offset: Int, _ section: DNSSection? = nil, _ index: Int = 0) {
        if anomalies.count < 64 {
            anomalies.append(DNSAnomaly(kind: kind, offset: offset, section: section, index: index))
        }
    }

    private mutating func parse() {
        let p = payload
        let b = p.span
        guard p.count >= 12, let id = b.u16(at: 0), let flags = b.u16(at: 2), let qd = b.u16(at: 4),
            let an = b.u16(at: 6), let ns = b.u16(at: 8), let ar = b.u16(at: 10)
        else {
            note(.shortHeader, 0)
            return
        }
        header = DNSHeader(id: id, flags: flags, qdcount: qd, ancount: an, nscount: ns, arcount: ar)
        var o = 12
        // Capacity from the bytes that remain, never from the counts (a question takes at
        // least 5 bytes, a record at least 11).
        questions.reserveCapacity(min(Int(qd), (p.count - o) / 5))
        for i in 0..<Int(qd) {
            switch DNSNameReader.read(p, at: o) {
            case .failure(let a):
                note(a.kind, a.offset, .question, i)
                decodedLength = o
                return
            case .success(let r):
                for a in r.anomalies { note(a.kind, a.offset, .question, i) }
                guard let t = b.u16(at: r.end), let c = b.u16(at: r.end + 2) else {
                    note(.countsBeyondData, r.end, .question, i)
                    decodedLength = o
                    return
                }
                questions.append(DNSQuestion(name: r.name, type: RecordType(rawValue: t), rawClass: c, offset: o))
                o = r.end + 4
            }
        }
        for (section, count) in [(DNSSection.answer, an), (.authority, ns), (.additional, ar)] {
            var list: [ResourceRecord] = []
            list.reserveCapacity(min(Int(count), max(0, p.count - o) / 11))
            for i in 0..<Int(count) {
                guard let (rr, next) = parseRecord(at: o, section: section, index: i) else {
                    store(list, section)
                    decodedLength = o
                    return
                }
                list.append(rr)
                o = next
            }
            store(list, section)
        }
        decodedLength = o
        isComplete = true
        if o < p.count { note(.trailingBytes, o) }
    }

    private mutating func store(_ list: [ResourceRecord], _ section: DNSSection) {
        switch section {
        case .answer: answers = list
        case .authority: authorities = list
        case .additional: additionals = list
        case .question: break
        }
    }

    private mutating func parseRecord(at o: Int, section: DNSSection, index i: Int) -> (ResourceRecord, Int)? {
        let p = payload
        let b = p.span
        let name: DNSName
        let fixed: Int
        switch DNSNameReader.read(p, at: o) {
        case .failure(let a):
            note(a.kind, a.offset, section, i)
            return nil
        case .success(let r):
            for a in r.anomalies { note(a.kind, a.offset, section, i) }
            name = r.name
            fixed = r.end
        }
        guard let t = b.u16(at: fixed), let c = b.u16(at: fixed + 2), let ttl = b.u32(at: fixed + 4),
            let rdlen16 = b.u16(at: fixed + 8)
        else {
            note(.countsBeyondData, fixed, section, i)
            return nil
        }
        let start = fixed + 10
        let rdlen = Int(rdlen16)
        guard start + rdlen <= p.count else {
            note(.rdlengthOverrun, fixed + 8, section, i)
            return nil
        }
        let type = RecordType(rawValue: t)
        var rr = ResourceRecord(
            name: name, type: type, rawClass: c, ttl: ttl, rdata: start..<(start + rdlen), offset: o, value: .unknown)
        rr.value = decodeRData(type, start, start + rdlen, section, i)
        return (rr, start + rdlen)
    }

    /// Typed RDATA inside exactly [start, end); a mismatch is `.rdataLength` (MDNS-010).
    private mutating func decodeRData(_ type: RecordType, _ start: Int, _ end: Int, _ s: DNSSection, _ i: Int) -> RData
    {
        let p = payload
        let b = p.span
        let len = end - start
        func mismatch() -> RData {
            note(.rdataLength, start, s, i)
            return .unknown
        }
        func name(at o: Int) -> (DNSName, Int)? {
            switch DNSNameReader.read(p, at: o, limit: end) {
            case .failure(let a):
                note(a.kind == .countsBeyondData ? .rdataLength : a.kind, a.offset, s, i)
                return nil
            case .success(let r):
                for a in r.anomalies { note(a.kind, a.offset, s, i) }
                return (r.name, r.end)
            }
        }
        switch type {
        case .a:
            guard len == 4, let v = b.u32(at: start) else { return mismatch() }
            return .a(v)
        case .aaaa:
            guard len == 16, let bytes = Optional(p[start..<end]) else { return mismatch() }
            var hi: UInt64 = 0
            var lo: UInt64 = 0
            for (k, x) in bytes.enumerated() {
                if k < 8 { hi = hi << 8 | UInt64(x) } else { lo = lo << 8 | UInt64(x) }
            }
            return .aaaa(hi, lo)
        case .ptr, .cname, .ns:
            guard let (n, e) = name(at: start) else { return .unknown }
            guard e == end else { return mismatch() }
            return .name(n)
        case .srv:
            guard len >= 7, let pr = b.u16(at: start), let w = b.u16(at: start + 2), let port = b.u16(at: start + 4),
                let (n, e) = name(at: start + 6)
            else { return len < 7 ? mismatch() : .unknown }
            guard e == end else { return mismatch() }
            return .srv(priority: pr, weight: w, port: port, target: n)
        case .txt:
            var o = start
            while o < end {
                let l = Int(p[o])
                guard o + 1 + l <= end else { return mismatch() }
                o += 1 + l
            }
            return .txt
        case .hinfo:
            guard len >= 2 else { return mismatch() }
            let l1 = Int(p[start])
            guard start + 1 + l1 < end else { return mismatch() }
            let l2 = Int(p[start + 1 + l1])
            guard start + 2 + l1 + l2 == end else { return mismatch() }
            return .hinfo
        case .nsec:
            guard let (n, e) = name(at: start) else { return .unknown }
            var o = e
            var lastWindow = -1
            while o < end {
                guard o + 2 <= end else {
                    note(.nsecBitmap, o, s, i)
                    return .nsec(next: n, bitmap: e..<end)
                }
                let window = Int(p[o])
                let blen = Int(p[o + 1])
                guard blen >= 1, blen <= 32, o + 2 + blen <= end else {
                    note(.nsecBitmap, o, s, i)
                    return .nsec(next: n, bitmap: e..<end)
                }
                // Windows strictly increasing, and no trailing zero octet (RFC 4034 §4.1.2).
                if window <= lastWindow || p[o + 1 + blen] == 0 { note(.nsecBitmap, o, s, i) }
                lastWindow = window
                o += 2 + blen
            }
            return .nsec(next: n, bitmap: e..<end)
        case .opt:
            var o = start
            while o < end {
                guard o + 4 <= end, let code = b.u16(at: o), let olen = b.u16(at: o + 2), o + 4 + Int(olen) <= end
                else {
                    note(.optionLength, o, s, i)
                    return .opt
                }
                if code == 4, ![8, 14, 18, 20].contains(Int(olen)) || p[o + 4] != 0 {
                    note(.ownerOption, o, s, i)
                }
                o += 4 + Int(olen)
            }
            return .opt
        case RecordType(rawValue: 64), RecordType(rawValue: 65):  // SVCB, HTTPS: priority + target
            if len > 2 { noteCompressedName(at: start + 2, end: end, s, i) }
            return .unknown
        case RecordType(rawValue: 35):  // NAPTR: order, preference, 3 strings, replacement
            var o = start + 4
            for _ in 0..<3 where o < end { o += 1 + Int(p[o]) }
            if o < end { noteCompressedName(at: o, end: end, s, i) }
            return .unknown
        default:
            return .unknown
        }
    }

    /// MDNS-015: a compression pointer in a name of a type whose names are not compressed.
    private mutating func noteCompressedName(at o: Int, end: Int, _ s: DNSSection, _ i: Int) {
        var k = o
        while k < end {
            let l = payload[k]
            if l & 0xC0 == 0xC0 {
                note(.compressedRDataName, k, s, i)
                return
            }
            if l == 0 { return }
            k += 1 + Int(l & 0x3F)
        }
    }

    /// All records of the three record sections with their section.
    public var records: [(DNSSection, ResourceRecord)] {
        answers.map { (.answer, $0) } + authorities.map { (.authority, $0) } + additionals.map { (.additional, $0) }
    }
}

public enum DNSSection: String, Sendable, Hashable {
    case question = "questions"
    case answer = "answers"
    case authority = "authorities"
    case additional = "additionals"

    /// The name of one record of the section, as `-v` labels it (`authority`, not the plural).
    public var singular: String {
        switch self {
        case .question: "question"
        case .answer: "answer"
        case .authority: "authority"
        case .additional: "additional"
        }
    }
}

/// Header and flags (RFC 1035 §4.1.1).
public struct DNSHeader: Sendable, Hashable {
    public var id: UInt16 = 0
    public var flags: UInt16 = 0
    public var qdcount: UInt16 = 0
    public var ancount: UInt16 = 0
    public var nscount: UInt16 = 0
    public var arcount: UInt16 = 0

    public var qr: Bool { flags & 0x8000 != 0 }
    public var opcode: UInt8 { UInt8((flags >> 11) & 0xF) }
    public var aa: Bool { flags & 0x0400 != 0 }
    public var tc: Bool { flags & 0x0200 != 0 }
    public var rd: Bool { flags & 0x0100 != 0 }
    public var ra: Bool { flags & 0x0080 != 0 }
    public var z: Bool { flags & 0x0040 != 0 }
    public var ad: Bool { flags & 0x0020 != 0 }
    public var cd: Bool { flags & 0x0010 != 0 }
    public var rcode: UInt8 { UInt8(flags & 0xF) }
}

public struct DNSQuestion: Sendable {
    public var name: DNSName
    public var type: RecordType
    public var rawClass: UInt16
    public var offset: Int
    /// The QU bit (RFC 6762 §5.4, §18.12).
    public var unicastResponse: Bool { rawClass & 0x8000 != 0 }
    public var qclass: UInt16 { rawClass & 0x7FFF }
}

public struct ResourceRecord: Sendable {
    public var name: DNSName
    public var type: RecordType
    public var rawClass: UInt16
    public var ttl: UInt32
    /// Offsets kept in 32 bits, as `DNSName` keeps its own (a payload is one datagram).
    @usableFromInline var rdataStart: UInt32
    @usableFromInline var rdataEnd: UInt32
    @usableFromInline var start: UInt32
    public var value: RData
    /// RDATA range in the payload.
    @inlinable public var rdata: Range<Int> { Int(rdataStart)..<Int(rdataEnd) }
    /// Where the record starts in the payload.
    @inlinable public var offset: Int { Int(start) }

    init(name: DNSName, type: RecordType, rawClass: UInt16, ttl: UInt32, rdata: Range<Int>, offset: Int, value: RData) {
        self.name = name
        self.type = type
        self.rawClass = rawClass
        self.ttl = ttl
        rdataStart = UInt32(clamping: rdata.lowerBound)
        rdataEnd = UInt32(clamping: rdata.upperBound)
        start = UInt32(clamping: offset)
        self.value = value
    }
    /// The cache-flush bit (RFC 6762 §10.2, §18.13); OPT's CLASS is a payload size.
    public var cacheFlush: Bool { type != .opt && rawClass & 0x8000 != 0 }
    public var rrclass: UInt16 { type == .opt ? rawClass : rawClass & 0x7FFF }
}

/// Typed RDATA; byte-carrying kinds keep only ranges into the payload.
public enum RData: Sendable {
    case a(UInt32)
    case aaaa(UInt64, UInt64)
    /// PTR, CNAME, NS target.
    case name(DNSName)
    case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
    /// Character-strings fill RDATA exactly; read them with `DNSMessage.txtStrings`.
    case txt
    case hinfo
    case nsec(next: DNSName, bitmap: Range<Int>)
    case opt
    /// Unknown types, and known types whose RDATA did not decode.
    case unknown
}

/// Record and query types: an open set (IANA keeps assigning).
public struct RecordType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let a = Self(rawValue: 1), ns = Self(rawValue: 2), cname = Self(rawValue: 5)
    public static let ptr = Self(rawValue: 12), hinfo = Self(rawValue: 13), txt = Self(rawValue: 16)
    public static let aaaa = Self(rawValue: 28), srv = Self(rawValue: 33), opt = Self(rawValue: 41)
    public static let nsec = Self(rawValue: 47), any = Self(rawValue: 255)

    /// The mnemonic of a type that has one (a switch: no table lookup, no string).
    public var mnemonic: StaticString? {
        switch rawValue {
        case 1: "A"
        case 2: "NS"
        case 5: "CNAME"
        case 6: "SOA"
        case 12: "PTR"
        case 13: "HINFO"
        case 15: "MX"
        case 16: "TXT"
        case 28: "AAAA"
        case 33: "SRV"
        case 35: "NAPTR"
        case 41: "OPT"
        case 47: "NSEC"
        case 50: "NSEC3"
        case 64: "SVCB"
        case 65: "HTTPS"
        case 251: "IXFR"
        case 252: "AXFR"
        case 253: "MAILB"
        case 254: "MAILA"
        case 255: "ANY"
        default: nil
        }
    }

    /// Mnemonic, or `TYPE<n>` (RFC 3597).
    public var description: String { mnemonic.map { $0.description } ?? "TYPE\(rawValue)" }

    /// `description` appended as bytes.
    public func append(to out: inout [UInt8]) {
        if let m = mnemonic {
            out.append(m)
        } else {
            out.append("TYPE")
            out.append(decimal: Int(rawValue))
        }
    }
}

/// Something noticed while decoding, for the rules to judge.
public struct DNSAnomaly: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case shortHeader = "short-header"  // MDNS-001
        case countsBeyondData = "counts-beyond-data"  // MDNS-002
        case trailingBytes = "trailing-bytes"  // MDNS-003
        case labelType = "label-type"  // MDNS-004
        case nameTooLong = "name-too-long"  // MDNS-005
        case badPointer = "bad-pointer"  // MDNS-006
        case pointerLoop = "pointer-loop"  // MDNS-007
        case pointerToPointer = "pointer-to-pointer"  // MDNS-007 (info)
        case rdlengthOverrun = "rdlength-overrun"  // MDNS-009
        case rdataLength = "rdata-length"  // MDNS-010
        case optionLength = "option-length"  // MDNS-014
        case ownerOption = "owner-option"  // MDNS-014
        case compressedRDataName = "compressed-rdata-name"  // MDNS-015
        case nsecBitmap = "nsec-bitmap"  // MDNS-016
    }
    public var kind: Kind
    public var offset: Int
    public var section: DNSSection?
    public var index: Int
}
