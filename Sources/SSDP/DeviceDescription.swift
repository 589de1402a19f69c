/// A small, bounded XML reader for UPnP device descriptions (UDA 2.0 §2.3), and the view of
/// a description that the SSDP-6xx rules check. Pure Swift: no Foundation, no entity
/// expansion beyond XML's five predefined entities and character references, and explicit
/// limits on depth and element count, because the bytes come from a device on the LAN.
public struct XMLElement: Sendable, Hashable {
    /// The local name (any `prefix:` dropped: UPnP uses the default namespace).
    public var name: String
    public var children: [XMLElement]
    /// The element's own character data, entities resolved, surrounding whitespace trimmed.
    public var text: String

    public init(name: String, children: [XMLElement] = [], text: String = "") {
        self.name = name
        self.children = children
        self.text = text
    }

    /// The first child element called `name`.
    public func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }
    /// Every child element called `name`.
    public func all(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }
}

/// Why a document is not well-formed XML: what, and the byte offset where it showed.
public struct XMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var offset: Int
    public var description: String { "\(reason) at byte \(offset)" }
}

/// Parses one XML document into its root element.
public enum XMLReader {
    public static let maxDepth = 32
    public static let maxElements = 4096

    public static func parse(_ bytes: [UInt8]) throws(XMLError) -> XMLElement {
        var p = Parser(b: bytes)
        return try p.document()
    }

    private struct Parser {
        let b: [UInt8]
        var i = 0
        var elements = 0

        init(b: [UInt8]) { self.b = b }

        func fail(_ reason: String) -> XMLError { XMLError(reason: reason, offset: i) }

        func peek(_ s: String) -> Bool {
            var k = i
            for c in s.utf8 {
                guard k < b.count, b[k] == c else { return false }
                k += 1
            }
            return true
        }

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        }

        /// Skips past the next `end`; false when the document ends first.
        mutating func skip(past end: String) -> Bool {
            let e = Array(end.utf8)
            while i < b.count {
                if b[i] == e[0] && peek(end) {
                    i += e.count
                    return true
                }
                i += 1
            }
            return false
        }

        /// Comments, processing instructions and a DOCTYPE (skipped, never expanded).
        mutating func misc() throws(XMLError) -> Bool {
            if peek("<!--") {
                guard skip(past: "-->") else { throw fail("unterminated comment") }
                return true
            }
            if peek("<?") {
                guard skip(past: "?>") else { throw fail("unterminated processing instruction") }
                return true
            }
            if peek("<!DOCTYPE") {
                // No internal subset is read: entities it declares are not expanded.
                var depth = 0
                while i < b.count {
                    if b[i] == UInt8(ascii: "[") { depth += 1 }
                    if b[i] == UInt8(ascii: "]") { depth -= 1 }
                    if b[i] == UInt8(ascii: ">") && depth <= 0 {
                        i += 1
                        return true
                    }
                    i += 1
                }
                throw fail("unterminated DOCTYPE")
            }
            return false
        }

        mutating func document() throws(XMLError) -> XMLElement {
            // A UTF-8 byte order mark is allowed.
            if peek("\u{FEFF}") { i += 3 }
            skipSpace()
            while try misc() { skipSpace() }
            guard i < b.count, b[i] == UInt8(ascii: "<") else { throw fail("no root element") }
            let root = try element(depth: 1)
            skipSpace()
            while try misc() { skipSpace() }
            guard i == b.count else { throw fail("content after the root element") }
            return root
        }

        static func isNameByte(_ c: UInt8) -> Bool {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: ":"), 0x80...0xFF:
                true
            default: false
            }
        }

        mutating func name() throws(XMLError) -> String {
            let start = i
            while i < b.count, Self.isNameByte(b[i]) { i += 1 }
            guard i > start else { throw fail("expected a name") }
            let first = b[start]
            guard
                !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) && first != UInt8(ascii: "-")
                    && first != UInt8(ascii: ".")
            else { throw fail("a name cannot start with \(Character(Unicode.Scalar(first)))") }
            return String(decoding: b[start..<i], as: UTF8.self)
        }

        /// `<name attr="v" …>` … `</name>`, at `i` on the `<`.
        mutating func element(depth: Int) throws(XMLError) -> XMLElement {
            guard depth <= XMLReader.maxDepth else { throw fail("elements nested deeper than \(XMLReader.maxDepth)") }
            elements += 1
            guard elements <= XMLReader.maxElements else { throw fail("more than \(XMLReader.maxElements) elements") }
            i += 1
            let qname = try name()
            var seen: Set<String> = []
            while true {
                let before = i
                skipSpace()
                guard i < b.count else { throw fail("unterminated start tag <\(qname)>") }
                if b[i] == UInt8(ascii: "/") {
                    guard peek("/>") else { throw fail("expected /> in <\(qname)>") }
                    i += 2
                    return XMLElement(name: Self.local(qname))
                }
                if b[i] == UInt8(ascii: ">") {
                    i += 1
                    break
                }
                guard i > before else { throw fail("expected whitespace before an attribute in <\(qname)>") }
                let attr = try name()
                guard seen.insert(attr).inserted else { throw fail("attribute \(attr) repeated") }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "=") else { throw fail("expected = after attribute \(attr)") }
                i += 1
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
                    throw fail("attribute \(attr) value is not quoted")
                }
                let quote = b[i]
                i += 1
                while i < b.count, b[i] != quote {
                    guard b[i] != UInt8(ascii: "<") else { throw fail("< inside attribute \(attr)") }
                    i += 1
                }
                guard i < b.count else { throw fail("unterminated attribute \(attr)") }
                i += 1
            }
            var children: [XMLElement] = []
            var text: [UInt8] = []
            while true {
                guard i < b.count else { throw fail("<\(qname)> is never closed") }
                let c = b[i]
                if c == UInt8(ascii: "<") {
                    if peek("</") {
                        i += 2
                        let end = try name()
                        guard end == qname else { throw fail("</\(end)> closes <\(qname)>") }
                        skipSpace()
                        guard i < b.count, b[i] == UInt8(ascii: ">") else { throw fail("expected > after </\(end)") }
                        i += 1
                        break
                    }
                    if peek("<![CDATA[") {
                        i += 9
                        let start = i
                        guard skip(past: "]]>") else { throw fail("unterminated CDATA section") }
                        text += b[start..<(i - 3)]
                        continue
                    }
                    if try misc() { continue }
                    children.append(try element(depth: depth + 1))
                } else if c == UInt8(ascii: "&") {
                    text += try reference()
                } else {
                    text.append(c)
                    i += 1
                }
            }
            guard let decoded = String(validating: text, as: UTF8.self) else {
                throw fail("character data of <\(qname)> is not UTF-8")
            }
            return XMLElement(name: Self.local(qname), children: children, text: Self.trimmed(decoded))
        }

        /// `&lt;` and the other predefined entities, `&#NN;`, `&#xHH;`.
        mutating func reference() throws(XMLError) -> [UInt8] {
            let start = i
            i += 1
            while i < b.count, b[i] != UInt8(ascii: ";"), i - start < 12 { i += 1 }
            guard i < b.count, b[i] == UInt8(ascii: ";") else {
                i = start
                throw fail("& not followed by an entity reference")
            }
            let body = String(decoding: b[(start + 1)..<i], as: UTF8.self)
            i += 1
            switch body {
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "amp": return [UInt8(ascii: "&")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default: break
            }
            var value: UInt32? = nil
            if body.hasPrefix("#x") {
                value = UInt32(body.dropFirst(2), radix: 16)
            } else if body.hasPrefix("#") {
                value = UInt32(body.dropFirst(1), radix: 10)
            }
            guard let v = value, let scalar = Unicode.Scalar(v), v != 0 else {
                i = start
                throw fail("unknown entity &\(body);")
            }
            return Array(String(Character(scalar)).utf8)
        }

        static func local(_ qname: String) -> String {
            if let colon = qname.lastIndex(of: ":") { return String(qname[qname.index(after: colon)...]) }
            return qname
        }

        static func trimmed(_ s: String) -> String {
            let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            guard let first = s.firstIndex(where: { !isSpace($0) }), let last = s.lastIndex(where: { !isSpace($0) })
            else { return "" }
            return String(s[first...last])
        }
    }
}

/// The parts of a UPnP device description (UDA 2.0 §2.3) that discovery depends on.
public struct DeviceDescription: Sendable, Hashable {
    public struct Service: Sendable, Hashable {
        public var serviceType: String
        public var serviceID: String
        public var scpdURL: String?
        public var controlURL: String?
        public var eventSubURL: String?
    }
    public struct Device: Sendable, Hashable {
        public var deviceType: String
        public var udn: String
        public var friendlyName: String
        /// `presentationURL` as written (nil when absent).
        public var presentationURL: String? = nil
        public var services: [Service]
        /// Embedded devices, depth-first after this one in `DeviceDescription.devices`.
        public var embedded: [Device]
    }

    /// The `<root>` element's own name, to check it is `root`.
    public var rootName: String
    public var urlBase: String?
    /// The root device, when `<root>` has a `<device>`.
    public var root: Device?

    /// Every device, the root first, then embedded devices depth-first.
    public var devices: [Device] {
        var out: [Device] = []
        func walk(_ d: Device) {
            out.append(d)
            for e in d.embedded { walk(e) }
        }
        if let root { walk(root) }
        return out
    }

    public init(_ root: XMLElement) {
        rootName = root.name
        urlBase = root.child("URLBase")?.text
        self.root = root.child("device").map { Self.device($0, depth: 0) }
    }

    public init(parsing bytes: [UInt8]) throws(XMLError) {
        self.init(try XMLReader.parse(bytes))
    }

    static func device(_ e: XMLElement, depth: Int) -> Device {
        let services = (e.child("serviceList")?.all("service") ?? []).map { s in
            Service(
                serviceType: s.child("serviceType")?.text ?? "", serviceID: s.child("serviceId")?.text ?? "",
                scpdURL: s.child("SCPDURL")?.text, controlURL: s.child("controlURL")?.text,
                eventSubURL: s.child("eventSubURL")?.text)
        }
        // The XML reader bounds the depth already; this keeps the recursion bounded on its own.
        let embedded =
            depth < XMLReader.maxDepth
            ? (e.child("deviceList")?.all("device") ?? []).map { device($0, depth: depth + 1) } : []
        return Device(
            deviceType: e.child("deviceType")?.text ?? "", udn: e.child("UDN")?.text ?? "",
            friendlyName: e.child("friendlyName")?.text ?? "", presentationURL: e.child("presentationURL")?.text,
            services: services, embedded: embedded)
    }
}

/// An `http://host[:port]/path` URL, and relative references resolved against it (RFC 3986
/// §5.2, the cases descriptions use: absolute, network-path, absolute-path, relative-path).
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// The host as written, IPv6 literals without brackets.
    public var host: String
    public var port: UInt16
    /// Path and query, starting with `/`.
    public var path: String

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "http://\(h)\(port == 80 ? "" : ":\(port)")\(path)"
    }

    public init?(_ text: String) {
        let t = text.trimmingSpaces
        guard t.lowercased().hasPrefix("http://") else { return nil }
        let rest = t.dropFirst(7)
        let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<slash]
        var p = String(rest[slash...])
        if let hash = p.firstIndex(of: "#") { p = String(p[..<hash]) }
        if p.isEmpty || p.first == "?" { p = "/" + p }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var hostPart = Substring(authority)
        var portPart: Substring? = nil
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                portPart = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        var port: UInt16 = 80
        if let portPart, !portPart.isEmpty {
            guard portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let v = UInt16(portPart), v > 0 else {
                return nil
            }
            port = v
        }
        host = String(hostPart).lowercased()
        self.port = port
        path = p
    }

    /// `reference` resolved against this URL; nil when it is empty or not an http URL.
    public func resolve(_ reference: String) -> HTTPURL? {
        let r = reference.trimmingSpaces
        guard !r.isEmpty else { return nil }
        if let colon = r.firstIndex(of: ":"), !r[..<colon].contains("/") {
            return HTTPURL(r)  // has a scheme
        }
        var base = self
        if r.hasPrefix("//") { return HTTPURL("http:" + r) }
        if r.hasPrefix("/") {
            base.path = r
            return base
        }
        var dir = path
        if let q = dir.firstIndex(of: "?") { dir = String(dir[..<q]) }
        if let last = dir.lastIndex(of: "/") { dir = String(dir[...last]) } else { dir = "/" }
        base.path = Self.removeDotSegments(dir + r)
        return base
    }

    static func removeDotSegments(_ p: String) -> String {
        var query = ""
        var path = p
        if let q = p.firstIndex(of: "?") {
            query = String(p[q...])
            path = String(p[..<q])
        }
        var out: [Substring] = []
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for (k, s) in parts.enumerated() {
            if s == "." { continue }
            if s == ".." {
                if out.count > 1 { out.removeLast() }
                continue
            }
            if s.isEmpty && k != 0 && k != parts.count - 1 { continue }
            out.append(s)
        }
        var joined = out.joined(separator: "/")
        if !joined.hasPrefix("/") { joined = "/" + joined }
        if (path.hasSuffix("/.") || path.hasSuffix("/..")) && !joined.hasSuffix("/") { joined += "/" }
        return joined + query
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
