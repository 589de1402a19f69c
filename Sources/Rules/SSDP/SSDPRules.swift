import Findings
import NetLayers
import SSDP
import WireFormat

/// The stateless SSDP rules: one check per catalog entry, in catalog order.
public enum SSDPRules {
    typealias C = SSDPCatalog

    /// Headers that appear at most once (SSDP-008).
    static let singleValued: [SSDPHeaderName] = [
        .host, .man, .mx, .st, .nt, .nts, .usn, .location, .server, .userAgent, .ext, .cacheControl, .date, .bootID,
        .configID, .nextBootID, .searchPort, .tcpPort, .cpfn, .cpuuid, .secureLocation,
    ]
    // Names UDA and HTTP define are exactly `SSDPHeaderName.known` (header code ≠ 0); SSDP-011
    // leaves those alone.

    // Header lists the rules check, built once (an array literal in a rule would be
    // allocated for every message).
    // UDA 1.1 adds BOOTID and CONFIGID to what responses, alive and byebye must carry.
    static let bootAndConfig: [SSDPHeaderName] = [.bootID, .configID]
    static let responseRequired: [SSDPHeaderName] = [.cacheControl, .ext, .location, .server, .st, .usn]
    static let responseRequired11 = responseRequired + bootAndConfig
    static let aliveRequired: [SSDPHeaderName] = [.host, .cacheControl, .location, .nt, .nts, .server, .usn]
    static let aliveRequired11 = aliveRequired + bootAndConfig
    static let byebyeRequired: [SSDPHeaderName] = [.host, .nt, .nts, .usn]
    static let byebyeRequired11 = byebyeRequired + bootAndConfig
    static let searchRequired: [SSDPHeaderName] = [.host, .man, .st]
    static let updateRequired: [SSDPHeaderName] = [.host, .location, .nt, .nts, .usn, .bootID, .configID, .nextBootID]
    static let usnNTST: [SSDPHeaderName] = [.usn, .nt, .st]
    static let typeFields: [SSDPHeaderName] = [.nt, .st]
    static let bootFields: [SSDPHeaderName] = [.bootID, .configID, .nextBootID]
    static let portFields: [SSDPHeaderName] = [.searchPort, .tcpPort]
    static let notInResponses: [SSDPHeaderName] = [.man, .mx, .nt, .nts, .host]
    static let notInByebye: [SSDPHeaderName] = [.cacheControl, .location, .server]

    static func missing(_ m: SSDPMessage, _ names: [SSDPHeaderName]) -> [String] {
        names.filter { !m.has($0) }.map(\.text)
    }

    public static let all: [SSDPRule] = [
        SSDPRule(C.datagramSize) { i, out in
            if i.datagram.wasFragmented {
                out.report(C.datagramSize, severity: .warning,
                    "the message was IP-fragmented (\(i.datagram.fragmentFrames.count) fragments); it must fit in one UDP packet")
            } else if i.datagram.udpPayloadLength > 512 {
                out.report(C.datagramSize, severity: .info,
                    "\(i.datagram.udpPayloadLength)-byte payload; some stacks accept only about 512-byte SSDP datagrams")
            }
        },
        SSDPRule(C.startLine) { i, out in
            let m = i.message
            guard m.kind != .response else { return }
            let line = m.startLine
            if !(line.equals("NOTIFY * HTTP/1.1") || line.equals("M-SEARCH * HTTP/1.1")) {
                out.report(C.startLine, "start line \"\(SSDPText.show(line))\" is not NOTIFY * HTTP/1.1, M-SEARCH * HTTP/1.1 or HTTP/1.1 200 OK")
            }
        },
        SSDPRule(C.requestLine) { i, out in
            let m = i.message
            guard m.kind == .mSearch || m.kind == .notify, m.startTokens.count == 3 else { return }
            let method = m.startTokens[0]
            var problems: [String] = []
            if !(method.equals("M-SEARCH") || method.equals("NOTIFY")) {
                problems.append("method \"\(SSDPText.show(method))\" is not upper case")
            }
            if !m.startTokens[1].equals("*") {
                problems.append("Request-URI is \"\(SSDPText.show(m.startTokens[1]))\", not *")
            }
            if !m.startTokens[2].equals("HTTP/1.1") {
                problems.append("version is \(SSDPText.show(m.startTokens[2])), not HTTP/1.1")
            }
            if !problems.isEmpty { out.report(C.requestLine, problems.joined(separator: "; ")) }
        },
        SSDPRule(C.statusLine) { i, out in
            let m = i.message
            guard m.kind == .response else { return }
            let t = m.startTokens
            let version = t.first ?? []
            let status = t.count > 1 ? t[1] : []
            let reason = t.count > 2 ? t[2] : []
            if !version.equals("HTTP/1.1") {
                out.report(C.statusLine, severity: .error, "response version is \(SSDPText.show(version)), not HTTP/1.1")
            } else if !status.equals("200") {
                out.report(C.statusLine, severity: .error,
                    "status \(SSDPText.show(status)) \(SSDPText.show(reason)) on SSDP; UDA has no error responses (receivers must stay silent)")
            } else if !reason.equals("OK") {
                out.report(C.statusLine, severity: .warning, "reason phrase is \"\(SSDPText.show(reason))\", not OK")
            }
        },
        SSDPRule(C.lineEndings) { i, out in
            for a in i.message.anomalies where a.kind == .bareLF || a.kind == .bareCR {
                out.report(C.lineEndings,
                    "line ending at offset \(a.offset) is a bare \(a.kind == .bareLF ? "LF" : "CR"), not CRLF",
                    field: "offset \(a.offset)")
                break
            }
        },
        SSDPRule(C.blankLine) { i, out in
            for a in i.message.anomalies {
                if a.kind == .missingBlankLine, !i.datagram.isTruncated {
                    out.report(C.blankLine, "the header block is not terminated by an empty line (CRLF CRLF)")
                } else if a.kind == .leadingEmptyLine {
                    out.report(C.blankLine, "an empty line precedes the start line")
                }
            }
        },
        SSDPRule(C.headerSyntax) { i, out in
            for h in i.message.headers where h.missingColon || h.spaceBeforeColon || !h.nameIsToken {
                if h.missingColon {
                    out.report(C.headerSyntax, "header line \"\(SSDPText.show(i.message.name(of: h)))\" has no colon", field: "offset \(h.offset)")
                } else if h.spaceBeforeColon {
                    out.report(C.headerSyntax, "whitespace between header name \(SSDPText.show(i.message.name(of: h))) and its colon", field: "offset \(h.offset)")
                } else {
                    out.report(C.headerSyntax, "header name \"\(SSDPText.show(i.message.name(of: h)))\" is not an HTTP token", field: "offset \(h.offset)")
                }
            }
        },
        SSDPRule(C.duplicateHeader) { i, out in
            for name in singleValued where i.message.count(name) > 1 {
                out.report(C.duplicateHeader, "\(name.text) appears \(i.message.count(name)) times", field: name.text)
            }
        },
        SSDPRule(C.headerValueBytes) { i, out in
            for a in i.message.anomalies {
                switch a.kind {
                case .controlCharacter: out.report(C.headerValueBytes, severity: .warning, "a header value contains a control character", field: "offset \(a.offset)")
                case .obsoleteLineFolding: out.report(C.headerValueBytes, severity: .warning, "obsolete line folding (a line starting with whitespace)", field: "offset \(a.offset)")
                case .invalidUTF8: out.report(C.headerValueBytes, severity: .warning, "a header value is not valid UTF-8", field: "offset \(a.offset)")
                case .nonASCII: out.report(C.headerValueBytes, severity: .info, "a header value contains non-ASCII (valid UTF-8) characters", field: "offset \(a.offset)")
                default: break
                }
            }
        },
        SSDPRule(C.body) { i, out in
            let m = i.message
            if !m.body.isEmpty {
                out.report(C.body, "\(m.body.count) byte(s) of body after the header block")
            } else if let cl = m.value(.contentLength), !cl.equals("0") {
                out.report(C.body, "Content-Length is \(SSDPText.show(cl)), not 0")
            }
        },
        SSDPRule(C.vendorHeaders) { i, out in
            // One finding per message and severity, naming every such header (a Sonos
            // NOTIFY carries five; one line each would bury everything else).
            let otherNames = NameList(i, legacy: false)
            if otherNames.count > 0 {
                out.report(C.vendorHeaders, severity: .warning,
                    otherNames.sentence("not defined by UDA and not vendor-qualified (name.domain)"), field: otherNames.field)
            }
            let legacyNames = NameList(i, legacy: true)
            if legacyNames.count > 0 {
                out.report(C.vendorHeaders, severity: .info,
                    legacyNames.sentence("not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)"),
                    field: legacyNames.field)
            }
        },
        SSDPRule(C.multicastGroup) { i, out in
            let m = i.message
            let d = i.datagram
            guard m.kind == .notify || (m.kind == .mSearch && d.dst.isMulticast) else { return }
            if m.kind == .notify && !d.dst.isMulticast {
                out.report(C.multicastGroup, "NOTIFY sent to \(d.dst.isBroadcast ? "broadcast" : "unicast") \(d.dst), not an SSDP group")
                return
            }
            let isGroup = d.dst == .ssdpIPv4 || d.dst == .ssdpIPv6LinkLocal || d.dst == .ssdpIPv6SiteLocal
            var otherScope = false
            if case .v6(let hi, let lo) = d.dst, lo == 0xC, hi & 0xFFF0_FFFF_FFFF_FFFF == 0xFF00_0000_0000_0000 { otherScope = true }
            if !isGroup && !otherScope {
                out.report(C.multicastGroup, "sent to \(d.dst), not 239.255.255.250, FF02::C or FF05::C")
            } else if otherScope && !isGroup {
                out.report(C.multicastGroup, severity: .info, "sent to \(d.dst), an SSDP group scope UDA does not name")
            }
            if d.dstPort != 1900 {
                out.report(C.multicastGroup, "sent to port \(d.dstPort), not 1900")
            }
        },
        SSDPRule(C.hostHeader) { i, out in
            let m = i.message
            let d = i.datagram
            guard m.kind == .notify || m.kind == .mSearch else { return }
            guard let host = m.value(.host) else {
                out.report(C.hostHeader, severity: i.atLeast11 ? .error : .warning, "no HOST header")
                return
            }
            if !d.dst.isMulticast {
                if m.kind == .mSearch, let addr = SSDPAddressing.hostAddress(host), addr.isMulticast {
                    out.report(C.hostHeader, severity: .warning, "unicast M-SEARCH with HOST naming the multicast group \(SSDPText.show(host))")
                }
                return
            }
            guard let (addr, port, bracketsOK) = SSDPAddressing.parseHost(host) else {
                out.report(C.hostHeader, "HOST \"\(SSDPText.show(host))\" is not address:port")
                return
            }
            if !bracketsOK {
                out.report(C.hostHeader, "IPv6 literal in HOST \"\(SSDPText.show(host))\" is not in brackets")
            } else if addr != d.dst {
                out.report(C.hostHeader, "HOST \(SSDPText.show(host)) does not match the destination \(d.dst)")
            } else if port == nil {
                out.report(C.hostHeader, severity: .warning, "HOST \(SSDPText.show(host)) has no port (receivers assume 1900; pupnp drops it)")
            } else if let p = port, p != d.dstPort {
                out.report(C.hostHeader, "HOST port \(p) differs from the destination port \(d.dstPort)")
            }
        },
        SSDPRule(C.ipTTL) { i, out in
            let d = i.datagram
            guard d.dst.isMulticast, !d.isIPv6, i.kind == .notify || i.kind == .mSearch else { return }
            let limit: UInt8 = i.atLeast11 ? 2 : 4
            if d.hopLimit > limit {
                out.report(C.ipTTL, "multicast with IP TTL \(d.hopLimit); UDA \(i.atLeast11 ? "1.1+" : "1.0") default is \(limit)")
            }
        },
        SSDPRule(C.ipv6Scope) { i, out in
            let d = i.datagram
            guard d.isIPv6, let scope = d.dst.ipv6MulticastScope, d.dst.isMulticast else { return }
            let loc = i.message.value(.location).flatMap { SSDPAddressing.urlHost($0)?.address }
            if scope == 2 {
                if !d.src.isLinkLocal { out.report(C.ipv6Scope, "message to FF02::C from non-link-local source \(d.src)") }
                if let l = loc, l.isIPv6, !l.isLinkLocal { out.report(C.ipv6Scope, "LOCATION literal \(l) is not link-local on a message to FF02::C") }
            } else if scope == 5 {
                if d.src.isLinkLocal { out.report(C.ipv6Scope, "message to FF05::C from link-local source \(d.src)") }
                if let l = loc, l.isLinkLocal { out.report(C.ipv6Scope, "LOCATION literal \(l) is link-local on a message to FF05::C") }
            }
        },
        SSDPRule(C.uuidFormat) { i, out in
            guard i.atLeast11 else { return }
            for name in usnNTST {
                guard let v = i.message.value(name), let u = SSDPSyntax.uuid(inUSN: v) else { continue }
                if !SSDPSyntax.isCanonicalUUID(u) {
                    out.report(C.uuidFormat, "\(name.text) uuid \"\(SSDPText.show(u))\" is not an 8-4-4-4-12 hexadecimal UUID", field: name.text)
                }
            }
        },
        SSDPRule(C.usnForm) { i, out in
            let m = i.message
            guard let usn = m.value(.usn) else { return }
            guard let uuid = SSDPSyntax.uuid(inUSN: usn), !uuid.isEmpty else {
                out.report(C.usnForm, "USN \"\(SSDPText.show(usn))\" does not start with uuid:")
                return
            }
            let target: ArraySlice<UInt8>?
            let targetName: String
            if m.kind == .notify {
                target = m.value(.nt)
                targetName = "NT"
            } else if m.kind == .response {
                target = m.value(.st)
                targetName = "ST"
            } else {
                return
            }
            guard let t = target, !t.equals("ssdp:all") else { return }
            let suffix = SSDPSyntax.suffix(ofUSN: usn)
            if SSDPSyntax.hasPrefix(t, "uuid:", caseInsensitive: true) {
                if suffix != nil || !t.elementsEqual(usn) {
                    out.report(C.usnForm, "\(targetName) \(SSDPText.show(t)) needs USN exactly \(SSDPText.show(t)), got \(SSDPText.show(usn))")
                }
            } else if suffix.map({ !$0.elementsEqual(t) }) ?? true {
                out.report(C.usnForm, "USN \(SSDPText.show(usn)) does not end in ::\(SSDPText.show(t)) as \(targetName) requires")
            }
        },
        SSDPRule(C.urnForm) { i, out in
            for name in typeFields {
                guard let v = i.message.value(name), SSDPSyntax.hasPrefix(v, "urn:") else { continue }
                guard let urn = SSDPSyntax.parseURN(v) else {
                    out.report(C.urnForm, "\(name.text) \(SSDPText.show(v)) is not urn:<domain>:device|service:<type>:<version>", field: name.text)
                    continue
                }
                if ASCII.parseDecimal(urn.version).map({ $0 == 0 }) ?? true {
                    out.report(C.urnForm, "\(name.text) version \"\(SSDPText.show(urn.version))\" is not a positive integer", field: name.text)
                } else if urn.domain.contains(0x2E) {
                    out.report(C.urnForm, "\(name.text) domain \(SSDPText.show(urn.domain)) contains dots (UDA replaces them with hyphens)", field: name.text)
                } else if urn.type.count > 64 || urn.type.isEmpty {
                    out.report(C.urnForm, "\(name.text) type name is \(urn.type.count) characters (1–64)", field: name.text)
                }
            }
        },
        SSDPRule(C.productTokens) { i, out in
            guard let claimed = i.claimedVersion, claimed >= .v1_1 else { return }
            let field: SSDPHeaderName = i.kind == .mSearch ? .userAgent : .server
            guard let v = i.message.value(field) else { return }
            if let problem = SSDPAddressing.productTokenProblem(v) {
                out.report(C.productTokens, "\(field.text) \"\(SSDPText.show(v))\": \(problem)", field: field.text)
            }
        },
        SSDPRule(C.location) { i, out in
            guard let v = i.message.value(.location) else { return }
            guard let host = SSDPAddressing.urlHost(v) else {
                out.report(C.location, "LOCATION \"\(SSDPText.show(v))\" is not an absolute http(s) URL")
                return
            }
            if !host.bracketsOK {
                out.report(C.location, "IPv6 literal in LOCATION \(SSDPText.show(v)) is not in brackets")
            } else if let a = host.address {
                if a.isLoopback || a.isUnspecified {
                    out.report(C.location, "LOCATION points to \(a), which no other host can reach")
                } else if case .v4 = a, a.isLinkLocal {
                    out.report(C.location, severity: .info, "LOCATION uses Auto-IP address \(a) (async_upnp_client ignores it)")
                }
            }
        },
        SSDPRule(C.cacheControl) { i, out in
            guard let v = i.message.value(.cacheControl) else { return }
            guard let age = SSDPSyntax.maxAge(in: v) else {
                out.report(C.cacheControl, "CACHE-CONTROL \"\(SSDPText.show(v))\" has no max-age=<seconds>")
                return
            }
            _ = age
            var directives = 0
            ASCII.forEachPiece(of: v, separatedBy: 0x2C) { _ in
                directives += 1
                return directives < 2
            }
            if directives > 1 {
                out.report(C.cacheControl, severity: i.atLeast11 ? .error : .warning,
                    "CACHE-CONTROL \"\(SSDPText.show(v))\" has directives besides max-age")
            } else if v.contains(0x20) || v.contains(0x22) {
                out.report(C.cacheControl, severity: .info, "CACHE-CONTROL \"\(SSDPText.show(v))\" is not exactly max-age=N")
            }
        },
        SSDPRule(C.maxAge) { i, out in
            guard let age = i.message.maxAge else { return }
            if age == 0 {
                out.report(C.maxAge, severity: .error, "max-age=0: the advertisement expires immediately")
            } else if age < 1800 {
                out.report(C.maxAge, severity: .warning, "max-age=\(age) is below the 1800 s UDA asks for")
            }
        },
        SSDPRule(C.numericFields) { i, out in
            let m = i.message
            for name in bootFields {
                guard let v = m.value(name) else { continue }
                if let n = ASCII.parseDecimal(v), n <= 2_147_483_647, !(v.count > 1 && v.first == 0x30) {
                    if name == .configID, n > 16_777_215 {
                        out.report(C.numericFields, "CONFIGID.UPNP.ORG \(n) is in the reserved range above 16777215", field: name.text)
                    }
                } else {
                    out.report(C.numericFields, "\(name.text) \"\(SSDPText.show(v))\" is not a decimal 0–2147483647 without leading zeros", field: name.text)
                }
            }
            for name in portFields {
                guard let v = m.value(name) else { continue }
                if let n = ASCII.parseDecimal(v), n >= 49152, n <= 65535, v.first != 0x30 { continue }
                out.report(C.numericFields, "\(name.text) \"\(SSDPText.show(v))\" is not a port in 49152–65535", field: name.text)
            }
        },
        SSDPRule(C.searchHeaders) { i, out in
            guard i.kind == .mSearch, i.isMulticast else { return }
            let miss = missing(i.message, searchRequired)
            if !miss.isEmpty { out.report(C.searchHeaders, "multicast M-SEARCH without \(miss.joined(separator: ", "))") }
        },
        SSDPRule(C.man) { i, out in
            guard i.kind == .mSearch, let v = i.message.value(.man) else { return }
            if !v.equals("\"ssdp:discover\"") {
                out.report(C.man, "MAN is \(SSDPText.show(v)), not \"ssdp:discover\" (with the quotes)")
            }
        },
        SSDPRule(C.mxPresent) { i, out in
            if i.kind == .mSearch, i.isMulticast, !i.message.has(.mx) {
                out.report(C.mxPresent, "multicast M-SEARCH without MX: devices must ignore it")
            }
        },
        SSDPRule(C.mxRange) { i, out in
            guard i.kind == .mSearch, let v = i.message.value(.mx) else { return }
            guard let mx = ASCII.parseDecimal(v), mx >= 1 else {
                out.report(C.mxRange, severity: .error, "MX \"\(SSDPText.show(v))\" is not an integer of at least 1")
                return
            }
            if i.atLeast11 && mx > 5 {
                out.report(C.mxRange, severity: .warning,
                    "MX=\(mx) from a UPnP \(i.version) control point; devices treat it as 5, so waiting longer only delays discovery")
            } else if !i.atLeast11 && mx > 120 {
                out.report(C.mxRange, severity: .warning, "MX=\(mx) is above UDA 1.0's 120")
            }
        },
        SSDPRule(C.unicastSearch) { i, out in
            guard i.kind == .mSearch, !i.isMulticast else { return }
            let m = i.message
            let miss = missing(m, searchRequired)
            if !miss.isEmpty { out.report(C.unicastSearch, severity: .error, "unicast M-SEARCH without \(miss.joined(separator: ", "))") }
            if let host = m.value(.host), let a = SSDPAddressing.hostAddress(host), a.isMulticast {
                out.report(C.unicastSearch, severity: .warning, "unicast M-SEARCH to \(i.datagram.dst) with HOST \(SSDPText.show(host)) (the multicast group)")
            }
            if m.has(.mx) { out.report(C.unicastSearch, severity: .info, "MX is not part of a unicast M-SEARCH") }
        },
        SSDPRule(C.stForm) { i, out in
            guard i.kind == .mSearch, let st = i.message.value(.st) else { return }
            switch SSDPAddressing.targetForm(st) {
            case .valid: break
            case .empty: out.report(C.stForm, severity: .error, "ST is empty")
            case .list: out.report(C.stForm, severity: .error, "ST \"\(SSDPText.show(st))\" is more than one target")
            case .vendor: out.report(C.stForm, severity: .warning, "ST \(SSDPText.show(st)) is a vendor target, not a UPnP search target")
            case .invalid: out.report(C.stForm, severity: .error, "ST \(SSDPText.show(st)) is not ssdp:all, upnp:rootdevice, uuid:… or a URN")
            }
        },
        SSDPRule(C.userAgent) { i, out in
            guard i.kind == .mSearch, let v = i.message.value(.userAgent) else { return }
            if UPnPVersion.find(in: v) == nil {
                out.report(C.userAgent, "USER-AGENT \"\(SSDPText.show(v))\" names no UPnP/x.y version")
            }
        },
        SSDPRule(C.cpfn) { i, out in
            guard i.kind == .mSearch, let claimed = i.claimedVersion, claimed >= .v2_0 else { return }
            if i.isMulticast && !i.message.has(.cpfn) {
                out.report(C.cpfn, "UPnP/2.0 multicast M-SEARCH without CPFN.UPNP.ORG")
            }
            if let u = i.message.value(.cpuuid) {
                if !(SSDPSyntax.uuid(inUSN: u).map(SSDPSyntax.isCanonicalUUID) ?? false) {
                    out.report(C.cpfn, "CPUUID.UPNP.ORG \(SSDPText.show(u)) is not uuid:<UUID>")
                }
            }
        },
        SSDPRule(C.responseHeaders) { i, out in
            guard i.kind == .response else { return }
            let miss = missing(i.message, i.atLeast11 ? responseRequired11 : responseRequired)
            if !miss.isEmpty { out.report(C.responseHeaders, "search response without \(miss.joined(separator: ", "))") }
        },
        SSDPRule(C.ext) { i, out in
            guard i.kind == .response, let v = i.message.value(.ext), !v.isEmpty else { return }
            out.report(C.ext, "EXT has the value \"\(SSDPText.show(v))\"; it must be empty")
        },
        SSDPRule(C.date) { i, out in
            guard let v = i.message.value(.date) else { return }
            if !SSDPAddressing.isRFC1123Date(v) {
                out.report(C.date, "DATE \"\(SSDPText.show(v))\" is not an RFC 1123 date in GMT")
            }
        },
        SSDPRule(C.stUSN) { i, out in
            guard i.kind == .response, let st = i.message.value(.st) else { return }
            if st.equals("ssdp:all") {
                out.report(C.stUSN, "a response carries ST: ssdp:all; it must name what matched")
            }
        },
        SSDPRule(C.responseUnicast) { i, out in
            guard i.kind == .response else { return }
            if i.isMulticast {
                out.report(C.responseUnicast, severity: .error, "search response sent to multicast \(i.datagram.dst)")
            } else if i.datagram.srcPort != 1900 {
                out.report(C.responseUnicast, severity: .info, "search response from port \(i.datagram.srcPort), not 1900 (firewall helpers key on 1900)")
            }
        },
        SSDPRule(C.responseExtraHeaders) { i, out in
            guard i.kind == .response else { return }
            let present = notInResponses.filter { i.message.has($0) }.map(\.text)
            if !present.isEmpty {
                out.report(C.responseExtraHeaders, "search response carries request/notify headers \(present.joined(separator: ", "))")
            }
        },
        SSDPRule(C.aliveHeaders) { i, out in
            guard i.message.notificationSubtype == .alive else { return }
            let miss = missing(i.message, i.atLeast11 ? aliveRequired11 : aliveRequired)
            if !miss.isEmpty { out.report(C.aliveHeaders, "ssdp:alive without \(miss.joined(separator: ", "))") }
            if let s = i.message.value(.secureLocation), !SSDPSyntax.hasPrefix(s, "https://", caseInsensitive: true) {
                out.report(C.aliveHeaders, "SECURELOCATION.UPNP.ORG \(SSDPText.show(s)) is not an https URL")
            }
        },
        SSDPRule(C.nts) { i, out in
            guard i.kind == .notify else { return }
            guard let v = i.message.value(.nts) else {
                out.report(C.nts, "NOTIFY without NTS")
                return
            }
            if i.message.notificationSubtype == .other {
                out.report(C.nts, "NTS \"\(SSDPText.show(v))\" is not ssdp:alive, ssdp:byebye or ssdp:update")
            }
        },
        SSDPRule(C.ntForm) { i, out in
            guard i.kind == .notify, let nt = i.message.value(.nt) else { return }
            switch SSDPAddressing.targetForm(nt) {
            case .valid:
                if nt.equals("ssdp:all") { out.report(C.ntForm, "NT: ssdp:all is a search target, not a notification type") }
            case .empty: out.report(C.ntForm, "NT is empty")
            default: out.report(C.ntForm, "NT \(SSDPText.show(nt)) is not upnp:rootdevice, uuid:… or a device/service URN")
            }
        },
        SSDPRule(C.notifyMulticast) { i, out in
            if i.kind == .notify, !i.isMulticast {
                out.report(C.notifyMulticast, "NOTIFY sent to \(i.datagram.dst); notifications are multicast")
            }
        },
        SSDPRule(C.byebyeHeaders) { i, out in
            guard i.message.notificationSubtype == .byebye else { return }
            let miss = missing(i.message, i.atLeast11 ? byebyeRequired11 : byebyeRequired)
            if !miss.isEmpty { out.report(C.byebyeHeaders, severity: .error, "ssdp:byebye without \(miss.joined(separator: ", "))") }
            let extra = notInByebye.filter { i.message.has($0) }.map(\.text)
            if !extra.isEmpty { out.report(C.byebyeHeaders, severity: .info, "ssdp:byebye carries \(extra.joined(separator: ", "))") }
        },
        SSDPRule(C.updateHeaders) { i, out in
            guard i.message.notificationSubtype == .update else { return }
            let miss = missing(i.message, updateRequired)
            if !miss.isEmpty { out.report(C.updateHeaders, "ssdp:update without \(miss.joined(separator: ", "))") }
        },
        SSDPRule(C.nextBootID) { i, out in
            guard i.message.notificationSubtype == .update,
                let b = i.message.value(.bootID).flatMap({ ASCII.parseDecimal($0) }),
                let n = i.message.value(.nextBootID).flatMap({ ASCII.parseDecimal($0) })
            else { return }
            if n <= b { out.report(C.nextBootID, "NEXTBOOTID.UPNP.ORG \(n) is not greater than BOOTID.UPNP.ORG \(b)") }
        },
    ]
}

/// The header names of one SSDP-011 finding: headers that UDA and HTTP do not define and
/// that are not vendor-qualified, in one of the two forms the rule tells apart. The texts
/// (the sentence's `a, b` and the field's `a,b`) are written at their exact length, one
/// allocation each; no list of names is kept, only which headers they are.
struct NameList {
    /// The message's header list and payload (not the message: a copy retains each of its
    /// arrays).
    private let headers: [SSDPMessage.Header]
    private let payload: [UInt8]
    /// Which headers are listed, one bit each (a message keeps at most
    /// `SSDPMessage.maxHeaders` = 256).
    private var listed = InlineArray<4, UInt64>(repeating: 0)
    private(set) var count = 0
    /// Bytes of the names as shown.
    private var length = 0

    init(_ input: SSDPInput, legacy: Bool) {
        headers = input.message.headers
        payload = input.message.payload
        for k in headers.indices where k < 256 && !headers[k].missingColon && headers[k].code == 0 {
            let r = headers[k].nameRange
            guard Self.isLegacyForm(payload, r) == legacy else { continue }
            listed[k >> 6] |= 1 << UInt64(k & 63)
            count += 1
            let plain = payload.withUnsafeBufferPointer { SSDPText.isPlain(UnsafeBufferPointer(rebasing: $0[r]), limit: 120) }
            length += plain ? r.count : SSDPText.show(payload[r]).utf8.count
        }
    }

    /// Whether an unknown header name (`p[r]`) is in the legacy form (`X-…`, `OPT`, `NLS`,
    /// `…-NLS`); nil for a vendor-qualified one (`name.domain`), which the rule leaves alone.
    static func isLegacyForm(_ p: [UInt8], _ r: Range<Int>) -> Bool? {
        for k in r where p[k] == 0x2E { return nil }  // token.domain
        return r.count >= 2 && ASCII.equalsIgnoringCase(p, r.lowerBound..<(r.lowerBound + 2), "X-")
            || ASCII.equalsIgnoringCase(p, r, "OPT")
            || r.count > 3 && ASCII.equalsIgnoringCase(p, (r.upperBound - 4)..<r.upperBound, "-NLS")
            || ASCII.equalsIgnoringCase(p, r, "NLS")
    }

    /// `header A is <rest>` or `headers A, B are <rest>`.
    func sentence(_ rest: StaticString) -> String {
        let head: StaticString = count == 1 ? "header " : "headers "
        let verb: StaticString = count == 1 ? " is " : " are "
        let total = head.utf8CodeUnitCount + length + 2 * max(count - 1, 0) + verb.utf8CodeUnitCount + rest.utf8CodeUnitCount
        return write(capacity: total, head: head, separator: ", ", tail: verb, rest)
    }

    /// `A,B`.
    var field: String { write(capacity: length + max(count - 1, 0), head: "", separator: ",", tail: "", "") }

    private func write(
        capacity: Int, head: StaticString, separator: StaticString, tail: StaticString, _ rest: StaticString
    ) -> String {
        String(unsafeUninitializedCapacity: capacity) { buf in
            // The WireFormat writers drop what would pass the end of the buffer, never trap.
            var w = OutputSpan(buffer: buf, initializedCount: 0)
            w.put(head)
            payload.withUnsafeBufferPointer { p in
                var first = true
                for k in headers.indices where k < 256 && listed[k >> 6] & (1 << UInt64(k & 63)) != 0 {
                    if !first { w.put(separator) }
                    first = false
                    let r = headers[k].nameRange
                    let name = UnsafeBufferPointer(rebasing: p[r])
                    if SSDPText.isPlain(name, limit: 120) {
                        w.put(name)
                    } else {
                        w.put(SSDPText.show(payload[r]))
                    }
                }
            }
            w.put(tail)
            w.put(rest)
            return w.finalize(for: buf)
        }
    }
}
