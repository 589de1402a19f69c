import WireFormat

/// Typed views over RDATA and DNS-SD names, computed on demand from the payload.
extension DNSMessage {
    /// Calls `body` with the byte range of each character-string of a TXT (or HINFO) record,
    /// in order; stops at a string that runs past the RDATA, or when `body` returns false.
    @inlinable
    public func forEachCharacterStringRange(_ rr: ResourceRecord, _ body: (Range<Int>) -> Bool) {
        var o = rr.rdata.lowerBound
        let end = rr.rdata.upperBound
        while o < end {
            let l = Int(payload[o])
            guard o + 1 + l <= end else { return }
            if !body((o + 1)..<(o + 1 + l)) { return }
            o += 1 + l
        }
    }

    /// The character-strings of a TXT (or HINFO) record, as slices of the payload.
    public func characterStrings(_ rr: ResourceRecord) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        forEachCharacterStringRange(rr) { r in
            out.append(payload[r])
            return true
        }
        return out
    }

    /// Calls `body` with each character-string of a TXT (or HINFO) record, without building
    /// an array; `body` returns false to stop early.
    @inlinable
    public func forEachCharacterString(_ rr: ResourceRecord, _ body: (ArraySlice<UInt8>) -> Bool) {
        forEachCharacterStringRange(rr) { body(payload[$0]) }
    }

    /// Calls `body` with the byte ranges of each TXT string and of its key (up to the first
    /// `=`, RFC 6763 §6.4), as plain index ranges: no slices, no reference counting.
    @inlinable
    public func forEachTXTKey(_ rr: ResourceRecord, _ body: (_ string: Range<Int>, _ key: Range<Int>) -> Bool) {
        forEachCharacterStringRange(rr) { string in
            var k = string.lowerBound
            while k < string.upperBound && payload[k] != 0x3D { k += 1 }
            return body(string, string.lowerBound..<k)
        }
    }

    /// Calls `body` with each window of an NSEC type bitmap (RFC 4034 §4.1.2): its number and
    /// the range of its bitmap bytes, in order; stops at a malformed window, or when `body`
    /// returns false.
    func forEachNSECWindow(_ bitmap: Range<Int>, _ body: (_ window: Int, _ bits: Range<Int>) -> Bool) {
        var o = bitmap.lowerBound
        while o + 2 <= bitmap.upperBound {
            let window = Int(payload[o])
            let len = Int(payload[o + 1])
            guard len >= 1, len <= 32, o + 2 + len <= bitmap.upperBound else { return }
            if !body(window, (o + 2)..<(o + 2 + len)) { return }
            o += 2 + len
        }
    }

    /// Whether an NSEC bitmap lists `type`, without building the type list (the first window
    /// with the type's number decides).
    public func nsecHas(_ bitmap: Range<Int>, _ type: RecordType) -> Bool {
        let window = Int(type.rawValue >> 8)
        let bit = Int(type.rawValue & 0xFF)
        var listed = false
        forEachNSECWindow(bitmap) { w, bits in
            guard w == window else { return true }
            listed = bit / 8 < bits.count && payload[bits.lowerBound + bit / 8] & (0x80 >> UInt8(bit % 8)) != 0
            return false
        }
        return listed
    }

    /// Whether an NSEC bitmap lists any type above 255 (a window other than 0), without
    /// building the type list.
    public func nsecHasTypeAbove255(_ bitmap: Range<Int>) -> Bool {
        var above = false
        forEachNSECWindow(bitmap) { window, bits in
            if window > 0, bits.contains(where: { payload[$0] != 0 }) { above = true }
            return !above
        }
        return above
    }

    /// Types listed in an NSEC bitmap (RFC 4034 §4.1.2).
    public func nsecTypes(_ bitmap: Range<Int>) -> [RecordType] {
        var out: [RecordType] = []
        forEachNSECWindow(bitmap) { window, bits in
            for k in bits {
                let byte = payload[k]
                for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                    out.append(RecordType(rawValue: UInt16(window * 256 + (k - bits.lowerBound) * 8 + bit)))
                }
            }
            return true
        }
        return out
    }

    /// EDNS options of an OPT record: (code, data slice).
    public func ednsOptions(_ rr: ResourceRecord) -> [(code: UInt16, data: ArraySlice<UInt8>)] {
        var out: [(UInt16, ArraySlice<UInt8>)] = []
        var o = rr.rdata.lowerBound
        let b = payload.span
        while o + 4 <= rr.rdata.upperBound, let code = b.u16(at: o), let len = b.u16(at: o + 2),
            o + 4 + Int(len) <= rr.rdata.upperBound
        {
            out.append((code, payload[(o + 4)..<(o + 4 + Int(len))]))
            o += 4 + Int(len)
        }
        return out
    }
}

/// EDNS0 Owner option (code 4, draft-cheshire-edns0-owner-option): version, sequence,
/// primary MAC, and optionally wake-up MAC and password.
public struct EDNSOwnerOption: Sendable {
    public var version: UInt8
    public var sequence: UInt8
    public var primaryMAC: ArraySlice<UInt8>
    public var wakeupMAC: ArraySlice<UInt8>?
    public var password: ArraySlice<UInt8>?

    public init?(_ d: ArraySlice<UInt8>) {
        guard d.count >= 8 else { return nil }
        let s = d.startIndex
        version = d[s]
        sequence = d[s + 1]
        primaryMAC = d[(s + 2)..<(s + 8)]
        wakeupMAC = d.count >= 14 ? d[(s + 8)..<(s + 14)] : nil
        password = d.count > 14 ? d[(s + 14)..<d.endIndex] : nil
    }
}

/// DNS-SD structure of a name (RFC 6763 §4.1, §7.1, §9).
public struct DNSSDName: Sendable {
    public enum Kind: Sendable, Equatable {
        /// `_services._dns-sd._udp.<domain>`
        case serviceEnumeration
        /// `<_service>._tcp|_udp.<domain>` (a browse name)
        case serviceType
        /// `<sub>._sub.<_service>._tcp|_udp.<domain>`
        case subtype
        /// `<Instance>.<_service>._tcp|_udp.<domain>`
        case instance
        case other
    }
    public var kind: Kind
    /// The index in a byte: a name has at most 127 labels (255 octets), and every record's
    /// decoded facts hold one of these.
    private var serviceLabel: UInt8?
    /// Index of the `_service` label (the one before `_tcp`/`_udp`), when there is one.
    public var serviceLabelIndex: Int? { serviceLabel.map(Int.init) }

    public init(kind: Kind, serviceLabelIndex: Int?) {
        self.kind = kind
        serviceLabel = serviceLabelIndex.map { UInt8(clamping: $0) }
    }

    /// Classifies a name given as label ranges of one payload (no slices). A static function
    /// rather than an initialiser: an initialiser takes its arguments owned, so each call
    /// retained both arrays; a function borrows them.
    public static func classify(payload: [UInt8], labels r: [Range<Int>]) -> DNSSDName {
        let n = r.count
        func eq(_ i: Int, _ s: StaticString) -> Bool { ASCII.equalsIgnoringCase(payload, r[i], s) }
        func first(_ i: Int) -> UInt8? { r[i].isEmpty ? nil : payload[r[i].lowerBound] }
        // Find the protocol label `_tcp`/`_udp` nearest the start that follows a `_` label.
        var proto: Int? = nil
        for i in 0..<n where i > 0 && (eq(i, "_tcp") || eq(i, "_udp")) && first(i - 1) == 0x5F {
            proto = i
            break
        }
        guard let p = proto else { return DNSSDName(kind: .other, serviceLabelIndex: nil) }
        if p == 2, eq(0, "_services"), eq(1, "_dns-sd"), eq(2, "_udp") {
            return DNSSDName(kind: .serviceEnumeration, serviceLabelIndex: p - 1)
        } else if p == 1 {
            return DNSSDName(kind: .serviceType, serviceLabelIndex: p - 1)
        } else if p >= 3, eq(p - 2, "_sub") {
            return DNSSDName(kind: .subtype, serviceLabelIndex: p - 1)
        } else if p == 2 {
            return DNSSDName(kind: .instance, serviceLabelIndex: p - 1)
        } else {
            return DNSSDName(kind: .other, serviceLabelIndex: p - 1)
        }
    }
}

/// `key=value` of one TXT string (RFC 6763 §6.3–§6.5).
public struct TXTAttribute: Sendable {
    public var key: ArraySlice<UInt8>
    /// nil for a boolean attribute (no `=`), empty for `key=`.
    public var value: ArraySlice<UInt8>?
    public init(_ s: ArraySlice<UInt8>) {
        if let eq = s.firstIndex(of: 0x3D) {
            key = s[s.startIndex..<eq]
            value = s[(eq + 1)..<s.endIndex]
        } else {
            key = s
            value = nil
        }
    }
}
