/// The one error a wire decoder throws: a code and the absolute byte offset where decoding
/// stopped. `detail` is human context only and takes no part in `==` or hashing, so tests
/// compare kinds and places, never message text (swift-asn1 style).
public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Fewer bytes remain than the field needs.
        public static let truncated = Code(rawValue: "truncated")
        /// A field holds a value the format does not allow.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// A length field points outside its container.
        public static let lengthOutOfBounds = Code(rawValue: "length-out-of-bounds")
    }

    public var code: Code
    public var offset: Int
    public var detail: String

    public init(_ code: Code, at offset: Int, _ detail: String = "") {
        self.code = code
        self.offset = offset
        self.detail = detail
    }

    public static func == (lhs: DecodeError, rhs: DecodeError) -> Bool {
        lhs.code == rhs.code && lhs.offset == rhs.offset
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(offset)
    }

    public var description: String {
        detail.isEmpty ? "\(code) at offset \(offset)" : "\(code) at offset \(offset): \(detail)"
    }
}
