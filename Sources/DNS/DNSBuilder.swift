/// Builds DNS messages for rule examples and tests, one field at a time, without
/// compression (tests that need pointers write those bytes by hand).
public struct DNSBuilder: Sendable {
    public var id: UInt16
    public var flags: UInt16
    private var sections: [[[UInt8]]] = [[], [], [], []]
    /// Overrides the counts written in the header (for lying-count tests).
    public var counts: [UInt16]? = nil

    public enum Section: Int, Sendable {
        case question = 0
        case answer, authority, additional
    }

    /// `flags` defaults to an authoritative response (0x8400).
    public init(id: UInt16 = 0, flags: UInt16 = 0x8400) {
        self.id = id
        self.flags = flags
    }

    public static func query(id: UInt16 = 0) -> DNSBuilder { DNSBuilder(id: id, flags: 0) }

    /// Wire form of a dotted name (`"a.b.local"`; `""` or `"."` is the root). A label given
    /// as `\u{..}` bytes is written as its UTF-8.
    public static func name(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        for label in text.split(separator: ".", omittingEmptySubsequences: true) {
            let b = Array(label.utf8)
            out.append(UInt8(truncatingIfNeeded: b.count))
            out += b
        }
        out.append(0)
        return out
    }

    public static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    public static func u32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    @discardableResult
    public mutating func question(_ name: String, _ type: UInt16, qu: Bool = false, qclass: UInt16 = 1) -> DNSBuilder {
        sections[0].append(Self.name(name) + Self.u16(type) + Self.u16(qclass | (qu ? 0x8000 : 0)))
        return self
    }

    @discardableResult
    public mutating func record(
        _ section: Section = .answer, _ name: String, _ type: UInt16, flush: Bool = false, ttl: UInt32 = 120,
        rrclass: UInt16 = 1, rdata: [UInt8]
    ) -> DNSBuilder {
        let cls = rrclass | (flush ? 0x8000 : 0)
        sections[section.rawValue].append(
            Self.name(name) + Self.u16(type) + Self.u16(cls) + Self.u32(ttl)
                + Self.u16(UInt16(truncatingIfNeeded: rdata.count)) + rdata)
        return self
    }

    /// Appends raw bytes as one entry of a section (counted like a record).
    public mutating func raw(_ section: Section, _ bytes: [UInt8]) {
        sections[section.rawValue].append(bytes)
    }

    public var bytes: [UInt8] {
        let c = counts ?? sections.map { UInt16(truncatingIfNeeded: $0.count) }
        var out = Self.u16(id) + Self.u16(flags)
        for v in c { out += Self.u16(v) }
        for s in sections { for e in s { out += e } }
        return out
    }

    // MARK: RDATA

    public static func a(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0) ?? 0 } }
    public static func aaaa(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { u16($0) } }
    public static func srv(_ port: UInt16, _ target: String, priority: UInt16 = 0, weight: UInt16 = 0) -> [UInt8] {
        u16(priority) + u16(weight) + u16(port) + name(target)
    }
    public static func txt(_ strings: [String]) -> [UInt8] {
        strings.flatMap { s -> [UInt8] in
            let b = Array(s.utf8)
            return [UInt8(truncatingIfNeeded: b.count)] + b
        }
    }
    /// Restricted-form NSEC: next name and a window-0 bitmap of the given types (all < 256).
    public static func nsec(_ next: String, _ types: [UInt16]) -> [UInt8] {
        let maxType = types.max() ?? 0
        var bitmap = [UInt8](repeating: 0, count: Int(maxType / 8) + 1)
        for t in types where t < 256 { bitmap[Int(t / 8)] |= 0x80 >> UInt8(t % 8) }
        return name(next) + [0, UInt8(bitmap.count)] + bitmap
    }
}
