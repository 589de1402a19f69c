import NetLayers
import SSDP
import WireFormat

/// Parsing of the address-bearing SSDP values (HOST, LOCATION) and of product tokens and
/// targets; byte-level, no allocation beyond the result.
enum SSDPAddressing {
    /// `HOST` as (address, port?, IPv6-bracketing correct); nil when not an address.
    static func parseHost(_ v: ArraySlice<UInt8>) -> (IPAddress, UInt16?, Bool)? {
        if v.first == 0x5B {  // [v6]:port
            guard let close = v.firstIndex(of: 0x5D), let a = IPAddress(text: v[(v.startIndex + 1)..<close]) else {
                return nil
            }
            let rest = v[(close + 1)...]
            if rest.isEmpty { return (a, nil, true) }
            guard rest.first == 0x3A, let p = ASCII.parseDecimal(rest.dropFirst()), p <= 65535 else { return nil }
            return (a, UInt16(p), true)
        }
        let colons = ASCII.count(0x3A, in: v)
        if colons > 1 {
            // Unbracketed IPv6, maybe with a trailing :port; report it as mis-bracketed.
            if let a = IPAddress(text: v) { return (a, nil, false) }
            if let last = v.lastIndex(of: 0x3A), let a = IPAddress(text: v[v.startIndex..<last]) {
                return (a, nil, false)
            }
            return nil
        }
        if colons == 1, let c = v.firstIndex(of: 0x3A) {
            guard let a = IPAddress(text: v[v.startIndex..<c]), let p = ASCII.parseDecimal(v[(c + 1)...]), p <= 65535
            else {
                return nil
            }
            return (a, UInt16(p), true)
        }
        guard let a = IPAddress(text: v) else { return nil }
        return (a, nil, true)
    }

    static func hostAddress(_ v: ArraySlice<UInt8>) -> IPAddress? { parseHost(v)?.0 }

    /// The host of an absolute http/https URL: address when it is a literal (nil for a
    /// name), and whether an IPv6 literal was bracketed. nil when not an absolute URL.
    static func urlHost(_ v: ArraySlice<UInt8>) -> (address: IPAddress?, bracketsOK: Bool)? {
        var rest: ArraySlice<UInt8>
        if SSDPSyntax.hasPrefix(v, "http://", caseInsensitive: true) {
            rest = v.dropFirst(7)
        } else if SSDPSyntax.hasPrefix(v, "https://", caseInsensitive: true) {
            rest = v.dropFirst(8)
        } else {
            return nil
        }
        if v.contains(0x20) { return nil }
        let end = rest.firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? rest.endIndex
        let authority = rest[rest.startIndex..<end]
        guard !authority.isEmpty else { return nil }
        if authority.first == 0x5B {
            guard let close = authority.firstIndex(of: 0x5D) else { return nil }
            return (IPAddress(text: authority[(authority.startIndex + 1)..<close]), true)
        }
        let colons = ASCII.count(0x3A, in: authority)
        if colons > 1 {
            if let a = IPAddress(text: authority) { return (a, false) }
            if let last = authority.lastIndex(of: 0x3A), let a = IPAddress(text: authority[authority.startIndex..<last])
            {
                return (a, false)
            }
            return nil
        }
        rest = authority
        if let c = authority.firstIndex(of: 0x3A) { rest = authority[authority.startIndex..<c] }
        return (IPAddress(text: rest), true)
    }

    /// Why a SERVER / USER-AGENT value is not `OS/version UPnP/x.y product/version`, or nil.
    /// Tokens are separated by runs of spaces; only the first three are read.
    static func productTokenProblem(_ v: ArraySlice<UInt8>) -> String? {
        if v.contains(0x2C) { return "product tokens are separated by commas, not spaces" }
        let none = v[v.startIndex..<v.startIndex]
        var tokens = (none, none, none)
        var count = 0
        ASCII.forEachPiece(of: v, separatedBy: 0x20) { t in
            switch count {
            case 0: tokens.0 = t
            case 1: tokens.1 = t
            default: tokens.2 = t
            }
            count += 1
            return count < 3
        }
        guard count == 3 else { return "fewer than three product tokens (OS/version UPnP/x.y product/version)" }
        guard SSDPSyntax.hasPrefix(tokens.1, "UPnP/", caseInsensitive: false) else {
            return "the second product token is \(SSDPText.show(tokens.1)), not UPnP/x.y"
        }
        let ver = tokens.1.dropFirst(5)
        guard let dot = ver.firstIndex(of: 0x2E), ASCII.parseDecimal(ver[..<dot]) != nil,
            ASCII.parseDecimal(ver[(dot + 1)...]) != nil
        else {
            return "UPnP version \(SSDPText.show(ver)) is not major.minor"
        }
        for t in [tokens.0, tokens.1, tokens.2] where !isProductToken(t) {
            return "\(SSDPText.show(t)) is not token[/version]"
        }
        return nil
    }

    /// `token` or `token/token`.
    private static func isProductToken(_ t: ArraySlice<UInt8>) -> Bool {
        guard let slash = t.firstIndex(of: 0x2F) else { return SSDPSyntax.isToken(t) }
        let version = t[(slash + 1)...]
        return SSDPSyntax.isToken(t[..<slash]) && SSDPSyntax.isToken(version)
    }

    enum TargetForm { case valid, empty, list, vendor, invalid }

    /// ST / NT forms (SSDP-106, SSDP-303).
    static func targetForm(_ v: ArraySlice<UInt8>) -> TargetForm {
        if v.isEmpty { return .empty }
        if v.contains(where: { $0 == 0x20 || $0 == 0x2C }) { return .list }
        if v.equals("ssdp:all") || v.equals("upnp:rootdevice") { return .valid }
        if SSDPSyntax.hasPrefix(v, "uuid:") { return v.count > 5 ? .valid : .invalid }
        if SSDPSyntax.hasPrefix(v, "urn:") { return SSDPSyntax.parseURN(v) != nil ? .valid : .invalid }
        if SSDPSyntax.hasPrefix(v, "ssdp:") || SSDPSyntax.hasPrefix(v, "upnp:") { return .invalid }
        return v.contains(0x3A) ? .vendor : .invalid
    }

    static let days: [StaticString] = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
    static let months: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func isRFC1123Date(_ v: ArraySlice<UInt8>) -> Bool {
        // Six space-separated pieces, checked as they come.
        var n = 0
        var ok = true
        ASCII.forEachPiece(of: v, separatedBy: 0x20) { p in
            switch n {
            case 0: ok = days.contains { p.equals($0) }
            case 1: ok = p.count == 2 && p.allSatisfy(ASCII.isDigit)
            case 2: ok = months.contains { p.equals($0) }
            case 3: ok = p.count == 4 && p.allSatisfy(ASCII.isDigit)
            case 4: ok = p.count == 8
            case 5: ok = p.equals("GMT")
            default: ok = false
            }
            n += 1
            return ok
        }
        return ok && n == 6
    }
}
