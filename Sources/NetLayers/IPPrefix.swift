import WireFormat

/// An IPv4 or IPv6 subnet: an address and a prefix length, the bits past the prefix zero.
public struct IPPrefix: Hashable, Sendable, CustomStringConvertible {
    /// The network address (host bits cleared).
    public let address: IPAddress
    /// 0–32 for IPv4, 0–128 for IPv6.
    public let length: Int

    /// The subnet of `length` bits that holds `address` (host bits are cleared; a length
    /// past the family's bits is taken as all of them).
    public init(_ address: IPAddress, length: Int) {
        let bits = address.isIPv6 ? 128 : 32
        let n = min(max(length, 0), bits)
        self.length = n
        self.address = Self.masked(address, n)
    }

    /// The subnet of an interface address and its netmask (as libpcap lists them): the
    /// length is the netmask's leading one bits. nil when the two are not of one family.
    public init?(address: IPAddress, netmask: IPAddress) {
        switch (address, netmask) {
        case (.v4, .v4(let m)): self.init(address, length: (~m).leadingZeroBitCount)
        case (.v6, .v6(let hi, let lo)):
            self.init(address, length: hi == .max ? 64 + (~lo).leadingZeroBitCount : (~hi).leadingZeroBitCount)
        default: return nil
        }
    }

    /// Whether `a` is in the subnet (never for an address of the other family).
    public func contains(_ a: IPAddress) -> Bool {
        guard a.isIPv6 == address.isIPv6 else { return false }
        return Self.masked(a, length) == address
    }

    public var description: String { "\(address)/\(length)" }

    private static func masked(_ a: IPAddress, _ n: Int) -> IPAddress {
        switch a {
        case .v4(let v):
            return .v4(n == 0 ? 0 : v & ~(UInt32.max >> UInt32(n)))
        case .v6(let hi, let lo):
            let hiMask: UInt64 = n >= 64 ? .max : (n == 0 ? 0 : ~(UInt64.max >> UInt64(n)))
            let loMask: UInt64 = n <= 64 ? 0 : (n >= 128 ? .max : ~(UInt64.max >> UInt64(n - 64)))
            return .v6(hi & hiMask, lo & loMask)
        }
    }

    /// Why a text is not a subnet.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Parses `ADDRESS/LENGTH` (`10.98.1.0/24`, `fd00:98::/64`); host bits may be set, as an
    /// interface's address is written (`10.98.1.5/24` is `10.98.1.0/24`). The error says
    /// what is wrong, quoting at most the first 64 characters of the text, escaped for a
    /// terminal.
    public static func parse(_ text: String) -> Result<IPPrefix, ParseError> {
        let shown = quoted(text)
        func failure(_ why: String) -> Result<IPPrefix, ParseError> {
            .failure(ParseError(description: "'\(shown)' is not a subnet: \(why)"))
        }
        let bytes = Array(text.utf8.prefix(128))
        guard bytes.count == text.utf8.count else { return failure("too long") }
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else {
            return failure("give ADDRESS/LENGTH, e.g. 192.168.1.0/24 or fd00::/64")
        }
        let addressText = bytes[..<slash]
        let lengthText = bytes[(slash + 1)...]
        guard !addressText.contains(UInt8(ascii: "%")), let address = IPAddress(text: addressText) else {
            return failure("the address is not an IPv4 or IPv6 address")
        }
        let bits = address.isIPv6 ? 128 : 32
        guard !lengthText.isEmpty, lengthText.count <= 3, lengthText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return failure("the prefix length is not a number from 0 to \(bits)")
        }
        let length = lengthText.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard length <= bits else { return failure("the prefix length is not a number from 0 to \(bits)") }
        return .success(IPPrefix(address, length: length))
    }

    /// At most the first 64 characters of `text`, escaped for a terminal.
    private static func quoted(_ text: String) -> String {
        TerminalText.escaped(text.count > 64 ? String(text.prefix(64)) + "…" : text)
    }

    /// Parses `[NAME=]ADDRESS/LENGTH` (`--subnet`'s value): the segment name (empty when not
    /// given) and the subnet.
    public static func parse(named text: String) -> Result<(segment: String, prefix: IPPrefix), ParseError> {
        guard let eq = text.firstIndex(of: "=") else { return parse(text).map { ("", $0) } }
        let name = String(text[..<eq])
        guard !name.isEmpty else {
            return .failure(ParseError(description: "'\(quoted(text))': the segment name before '=' is empty"))
        }
        return parse(String(text[text.index(after: eq)...])).map { (name, $0) }
    }
}

/// The subnets known to be on one link (from the command line or the capture interface):
/// what MDNS-407 and MDNS-310 judge addresses by. Empty when none is known.
public struct LinkSubnets: Sendable, Hashable {
    public private(set) var prefixes: [IPPrefix] = []

    /// Prefixes a link keeps at most (more are not added).
    public static let maxPrefixes = 64

    public init() {}

    public init(_ prefixes: [IPPrefix]) {
        for p in prefixes { add(p) }
    }

    public var isEmpty: Bool { prefixes.isEmpty }

    /// Adds `p` unless it is already there or the list is full; false when it was full.
    @discardableResult
    public mutating func add(_ p: IPPrefix) -> Bool {
        if prefixes.contains(p) { return true }
        guard prefixes.count < Self.maxPrefixes else { return false }
        prefixes.append(p)
        return true
    }

    /// Whether a subnet of `a`'s family is known: only then can `a` be judged off-link.
    public func knowsFamily(of a: IPAddress) -> Bool { prefixes.contains { $0.address.isIPv6 == a.isIPv6 } }

    /// Whether `a` is in one of the subnets, or is link-local (fe80::/10, 169.254/16: on every
    /// link by definition).
    public func isOnLink(_ a: IPAddress) -> Bool { a.isLinkLocal || prefixes.contains { $0.contains(a) } }

    /// `10.98.1.0/24, fd00::/64`.
    public var description: String { prefixes.map(\.description).joined(separator: ", ") }
}
