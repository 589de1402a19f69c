import WireFormat

/// A domain name inside a message: the offset where it starts. Its labels are walked on
/// demand through compression pointers that `DNSNameReader` has already validated, so a
/// name costs no allocation until it is printed.
public struct DNSName: Sendable, Hashable {
    /// Where the name starts and its wire length, kept narrow: every question, record and
    /// name-carrying RDATA holds a name, and decodings are cached by the thousand. A payload
    /// is one UDP datagram (at most 65,535 bytes) and `DNSNameReader` ends a name at 255
    /// octets, so both fit; a larger value would clamp, never trap.
    @usableFromInline let start: UInt32
    @usableFromInline let wire: UInt8
    /// Whether the name used a compression pointer.
    public let compressed: Bool

    @inlinable public var offset: Int { Int(start) }
    /// Octets of the expanded name in wire form (length bytes and the final zero included).
    @inlinable public var wireLength: Int { Int(wire) }

    init(offset: Int, wireLength: Int, compressed: Bool) {
        start = UInt32(clamping: offset)
        wire = UInt8(clamping: wireLength)
        self.compressed = compressed
    }

    /// Calls `body` with each label (as a slice of `payload`), in order.
    @inlinable
    public func forEachLabel(in payload: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        forEachLabelRange(in: payload) { body(payload[$0]) }
    }

    /// Calls `body` with the range in `payload` of each label, in order (no slices, so no
    /// reference counting).
    @inlinable
    public func forEachLabelRange(in payload: [UInt8], _ body: (Range<Int>) -> Void) {
        let p = payload.span
        var cursor = LabelCursor(start: offset)
        while let r = cursor.next(in: p) { body(r) }
    }

    /// The range in `payload` of the first label (nil for the root). Walking on from a label
    /// always yields the same labels, so two names of one message whose first labels start at
    /// the same place are the same name.
    @inlinable
    public func firstLabelRange(in payload: [UInt8]) -> Range<Int>? {
        var cursor = LabelCursor(start: offset)
        return cursor.next(in: payload.span)
    }

    /// ASCII-case-insensitive comparison with another name (RFC 4343), possibly of another
    /// message. Walks both names label by label without allocating.
    public func equals(_ other: DNSName, in a: [UInt8], _ b: [UInt8]) -> Bool {
        equals(other, a.span, b.span, samePayload: false)
    }

    /// The same comparison for two names of one message. Names there mostly share their
    /// labels through compression pointers: once both walks stand on the same label, the
    /// rest is the same, so most comparisons end after the first pointer.
    public func equals(_ other: DNSName, in payload: [UInt8]) -> Bool {
        offset == other.offset || equals(other, payload.span, payload.span, samePayload: true)
    }

    private func equals(_ other: DNSName, _ a: Span<UInt8>, _ b: Span<UInt8>, samePayload: Bool) -> Bool {
        if wireLength != other.wireLength { return false }
        var x = LabelCursor(start: offset)
        var y = LabelCursor(start: other.offset)
        while true {
            switch (x.next(in: a), y.next(in: b)) {
            case (nil, nil): return true
            case (let l?, let r?):
                if samePayload && l.lowerBound == r.lowerBound { return true }
                guard l.count == r.count else { return false }
                var i = l.lowerBound
                var j = r.lowerBound
                while i < l.upperBound {
                    if ASCII.lower(a[i]) != ASCII.lower(b[j]) { return false }
                    i += 1
                    j += 1
                }
            default: return false
            }
        }
    }

    /// Presentation form with a trailing dot (CONTRACT.md): `.` inside a label is `\.`, a
    /// backslash `\\`, other bytes outside printable ASCII `\DDD` unless the label is UTF-8.
    public func presentation(in payload: [UInt8]) -> String {
        // Most names need no escape: their text is their labels and a dot after each, and the
        // string is made at that length (a short one inline). Otherwise at the bound of
        // `appendPresentation`.
        var length = 0
        var plain = true
        payload.withUnsafeBufferPointer { buf in
            forEachLabelRange(in: payload) { r in
                length &+= r.count &+ 1
                if plain, !DNSText.isPlainLabel(UnsafeBufferPointer(rebasing: buf[r])) { plain = false }
            }
        }
        return String(utf8Bound: plain ? Swift.max(length, 1) : escapedBound) { putPresentation(in: payload, to: &$0) }
    }

    /// The presentation form appended as UTF-8 bytes (no intermediate strings).
    public func appendPresentation(in payload: [UInt8], to out: inout [UInt8]) {
        out.append(addingCapacity: escapedBound) { putPresentation(in: payload, to: &$0) }
    }

    /// Room for the presentation of any name of this wire length: each wire octet becomes at
    /// most four (`\DDD`), and a length octet at most the dot after its label.
    private var escapedBound: Int { 4 &* wireLength &+ 1 }

    /// The presentation form, into a span with room for it. Labels are read through the
    /// payload's buffer (a slice per label would retain it).
    private func putPresentation(in payload: [UInt8], to span: inout OutputSpan<UInt8>) {
        payload.withUnsafeBufferPointer { buf in
            var any = false
            forEachLabelRange(in: payload) { r in
                any = true
                DNSText.putEscapedLabel(UnsafeBufferPointer(rebasing: buf[r]), to: &span)
                span.put(0x2E)
            }
            if !any { span.put(0x2E) }
        }
    }

    /// The name's identity for counting distinct names (`ASCII.addToKey` over its labels,
    /// each followed by a dot; no string built).
    public func key(in payload: [UInt8]) -> UInt64 {
        var h = ASCII.keySeed
        payload.withUnsafeBufferPointer { buf in
            forEachLabelRange(in: payload) { r in
                ASCII.addToKey(buf[r], &h)
                h ^= 0x2E
            }
        }
        return h
    }
}

/// Walks the labels of a validated name, yielding each label's byte range; no allocation.
/// Follows the reader's invariant (each pointer target below the previous), so it ends.
@usableFromInline
struct LabelCursor {
    @usableFromInline var pos: Int
    @usableFromInline var lowest: Int

    @inlinable
    init(start: Int) {
        pos = start
        lowest = start
    }

    @inlinable
    mutating func next(in payload: Span<UInt8>) -> Range<Int>? {
        while pos < payload.count {
            let l = payload[pos]
            if l == 0 { return nil }
            if l & 0xC0 == 0xC0 {
                guard pos + 1 < payload.count else { return nil }
                let target = Int(l & 0x3F) << 8 | Int(payload[pos + 1])
                // The reader's invariant: each target strictly below the last; ends any walk.
                guard target < lowest else { return nil }
                lowest = target
                pos = target
                continue
            }
            guard l & 0xC0 == 0, pos + 1 + Int(l) <= payload.count else { return nil }
            let r = (pos + 1)..<(pos + 1 + Int(l))
            pos = r.upperBound
            return r
        }
        return nil
    }
}

public enum DNSText {
    /// Whether a label is its own presentation text (no byte needs an escape).
    static func isPlainLabel(_ label: UnsafeBufferPointer<UInt8>) -> Bool {
        TerminalText.isPrintableASCII(label, except: 0x2E, 0x5C)
    }

    /// A label as presentation text, into a span with room for four bytes per octet of the
    /// label: `.` and `\` escaped with a backslash; control bytes, DEL and (unless the label
    /// is valid UTF-8) bytes above 0x7F as `\DDD`.
    static func putEscapedLabel(_ label: UnsafeBufferPointer<UInt8>, to out: inout OutputSpan<UInt8>) {
        // Most labels need no escape: copy them whole instead of byte by byte.
        if isPlainLabel(label) {
            out.put(label)
            return
        }
        var utf8State = 0  // 0 unknown, 1 valid, 2 invalid
        for b in label {
            if b == 0x2E || b == 0x5C {
                out.put(0x5C)
                out.put(b)
            } else if b < 0x20 || b == 0x7F {
                out.put(decimalEscape: b)
            } else if b >= 0x80 {
                if utf8State == 0 { utf8State = ASCII.isValidUTF8(label) ? 1 : 2 }
                if utf8State == 1 { out.put(b) } else { out.put(decimalEscape: b) }
            } else {
                out.put(b)
            }
        }
    }

    /// A character-string (TXT, HINFO) as text: UTF-8 as is, else `\DDD` escapes.
    public static func characterString(_ s: ArraySlice<UInt8>) -> String {
        if ASCII.isValidUTF8(s) { return String(decoding: s, as: UTF8.self) }
        var bytes: [UInt8] = []
        appendCharacterString(s, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func appendCharacterString(_ s: ArraySlice<UInt8>, to out: inout [UInt8]) {
        if ASCII.isValidUTF8(s) {
            out.append(contentsOf: s)
            return
        }
        for b in s {
            if b >= 0x20 && b < 0x7F && b != 0x5C { out.append(b) } else { out.append(decimalEscape: b) }
        }
    }
}

/// Reads a name at an offset, enforcing RFC 1035 §2.3.4 and §4.1.4: labels ≤ 63 octets,
/// label types 00 or 11 only, names ≤ 255 octets, and compression pointers that point into
/// the message body (≥ 12), strictly before the pointer, each later target below the
/// previous one. That last rule alone ends loops, without a counter.
public enum DNSNameReader {
    public struct Read: Sendable {
        public var name: DNSName
        /// Offset just after the name where it was found (after the first pointer).
        public var end: Int
        /// Non-fatal observations (pointer to pointer).
        public var anomalies: [DNSAnomaly]
    }

    public enum Outcome: Sendable {
        case success(Read)
        case failure(DNSAnomaly)
    }

    /// `limit`: the in-place part of the name must end by `limit` (RDATA end).
    public static func read(_ p: [UInt8], at start: Int, limit: Int? = nil) -> Outcome {
        let bound = min(limit ?? p.count, p.count)
        var pos = start
        var end: Int? = nil
        var lowest = start  // targets must stay strictly below this
        var wire = 0
        var compressed = false
        var notes: [DNSAnomaly] = []
        while true {
            let inPlace = end == nil
            guard pos < (inPlace ? bound : p.count) else {
                return .failure(DNSAnomaly(kind: .countsBeyondData, offset: pos, section: nil, index: 0))
            }
            let l = p[pos]
            if l == 0 {
                wire += 1
                if wire > 255 { return .failure(DNSAnomaly(kind: .nameTooLong, offset: start, section: nil, index: 0)) }
                let name = DNSName(offset: start, wireLength: wire, compressed: compressed)
                return .success(Read(name: name, end: end ?? pos + 1, anomalies: notes))
            }
            switch l & 0xC0 {
            case 0xC0:
                guard pos + 1 < (inPlace ? bound : p.count) else {
                    return .failure(DNSAnomaly(kind: .countsBeyondData, offset: pos, section: nil, index: 0))
                }
                let target = Int(l & 0x3F) << 8 | Int(p[pos + 1])
                guard target >= 12, target < pos else {
                    return .failure(DNSAnomaly(kind: .badPointer, offset: pos, section: nil, index: 0))
                }
                // Backwards, but not below the previous target: it re-enters labels already
                // read, which would loop.
                guard target < lowest else {
                    return .failure(DNSAnomaly(kind: .pointerLoop, offset: pos, section: nil, index: 0))
                }
                if p[target] & 0xC0 == 0xC0 {
                    notes.append(DNSAnomaly(kind: .pointerToPointer, offset: pos, section: nil, index: 0))
                }
                if end == nil { end = pos + 2 }
                compressed = true
                lowest = target
                pos = target
            case 0x00:
                let n = Int(l)
                guard pos + 1 + n <= (inPlace ? bound : p.count) else {
                    return .failure(DNSAnomaly(kind: .countsBeyondData, offset: pos, section: nil, index: 0))
                }
                wire += 1 + n
                if wire > 255 { return .failure(DNSAnomaly(kind: .nameTooLong, offset: start, section: nil, index: 0)) }
                pos += 1 + n
            default:
                return .failure(DNSAnomaly(kind: .labelType, offset: pos, section: nil, index: 0))
            }
        }
    }
}
