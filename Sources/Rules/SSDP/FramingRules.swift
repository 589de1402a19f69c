import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-0xx: message framing and common field syntax.

/// SSDP-001: A message fits in one UDP datagram, ideally 512 bytes or less.
struct MessageSizeRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-001", "message-size", .warning, "A message fits in one UDP datagram, ideally 512 bytes or less",
        spec: "UDA 2.0 §1.2.2; UDA 1.1 §1.2.2",
        "Each discovery message must fit in a single UDP packet. IP-fragmented SSDP is reported as a warning; payloads over 512 bytes as info, because some stacks accept only about 512-byte datagrams.",
        interop: "gssdp drops datagrams of 64 KiB or more", example: "a 1600-byte NOTIFY sent in two IPv4 fragments",
        lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11), fragments: [1, 2])], severity: .warning)],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        if i.datagram.wasFragmented {
            out.report(
                Self.descriptor, severity: .warning,
                "the message was IP-fragmented (\(i.datagram.fragmentFrames.count) fragments); it must fit in one UDP packet"
            )
        } else if i.datagram.udpPayloadLength > 512 {
            out.report(
                Self.descriptor, severity: .info,
                "\(i.datagram.udpPayloadLength)-byte payload; some stacks accept only about 512-byte SSDP datagrams")
        }
    }
}

/// SSDP-002: The start line is NOTIFY * HTTP/1.1, M-SEARCH * HTTP/1.1 or HTTP/1.1 200 OK.
struct StartLineRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-002", "start-line", .error, "The start line is NOTIFY * HTTP/1.1, M-SEARCH * HTTP/1.1 or HTTP/1.1 200 OK",
        spec: "UDA 1.1/2.0 §1.1.1",
        "Any other first line on UDP 1900 is not SSDP. Status lines are judged by SSDP-004 alone.",
        interop: "miniupnpd, minissdpd, pupnp and async_upnp_client drop other start lines",
        example: "SUBSCRIBE * HTTP/1.1")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp("SUBSCRIBE * HTTP/1.1", alive11))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let m = i.message
        guard m.kind != .response else { return }
        let line = m.startLine
        if !(line.equals("NOTIFY * HTTP/1.1") || line.equals("M-SEARCH * HTTP/1.1")) {
            out.report(
                Self.descriptor,
                "start line \"\(SSDPText.show(line))\" is not NOTIFY * HTTP/1.1, M-SEARCH * HTTP/1.1 or HTTP/1.1 200 OK"
            )
        }
    }
}

/// SSDP-003: Method in upper case, Request-URI `*`, version HTTP/1.1.
struct RequestLineFormRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-003", "request-line-form", .error, "Method in upper case, Request-URI `*`, version HTTP/1.1",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2; RFC 2616 §5.1.1",
        "Methods are case-sensitive, the Request-URI of SSDP requests is `*`, and the version is HTTP/1.1.",
        interop: "pupnp and async_upnp_client drop it; gssdp accepts lower-case methods", example: "m-search * HTTP/1.1"
    )
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp("m-search * HTTP/1.1", search11), sport: 50000)])],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
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
        if !problems.isEmpty { out.report(Self.descriptor, problems.joined(separator: "; ")) }
    }
}

/// SSDP-004: A search response is HTTP/1.1 200 OK.
struct Status200OKRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-004", "status-200-ok", .error, "A search response is HTTP/1.1 200 OK",
        spec: "UDA 1.1/2.0 §1.1.1, §1.3.3",
        "A search response has status 200 (error otherwise) and reason phrase OK (warning otherwise); SSDP has no error responses.",
        interop: "pupnp treats any status but 200 as a bad reply; async_upnp_client also requires the reason `OK`",
        example: "HTTP/1.1 412 Precondition Failed", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp("HTTP/1.1 404 Not Found", response11))], severity: .error)],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let m = i.message
        guard m.kind == .response else { return }
        let t = m.startTokens
        let version = t.first ?? []
        let status = t.count > 1 ? t[1] : []
        let reason = t.count > 2 ? t[2] : []
        if !version.equals("HTTP/1.1") {
            out.report(Self.descriptor, severity: .error, "response version is \(SSDPText.show(version)), not HTTP/1.1")
        } else if !status.equals("200") {
            out.report(
                Self.descriptor, severity: .error,
                "status \(SSDPText.show(status)) \(SSDPText.show(reason)) on SSDP; UDA has no error responses (receivers must stay silent)"
            )
        } else if !reason.equals("OK") {
            out.report(Self.descriptor, severity: .warning, "reason phrase is \"\(SSDPText.show(reason))\", not OK")
        }
    }
}

/// SSDP-005: Every line ends with CRLF.
struct CRLFLineEndingsRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-005", "crlf-line-endings", .error, "Every line ends with CRLF",
        spec: "UDA 1.1/2.0 §1.1; RFC 2616 §2.2, §4.1",
        "Bare LF or bare CR line endings are a violation even though many receivers tolerate them.",
        interop: "gssdp and miniupnpd silently drop messages with bare LF; minissdpd and async_upnp_client accept them",
        example: "NOTIFY * HTTP/1.1\\nHOST: 239.255.255.250:1900\\n…")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11, eol: "\n"))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        for a in i.message.anomalies where a.kind == .bareLF || a.kind == .bareCR {
            out.report(
                Self.descriptor,
                "line ending at offset \(a.offset) is a bare \(a.kind == .bareLF ? "LF" : "CR"), not CRLF",
                field: "offset \(a.offset)")
            break
        }
    }
}

/// SSDP-006: The header block ends with an empty line and nothing precedes the start line.
struct HeaderBlockTerminatedRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-006", "header-block-terminated", .error,
        "The header block ends with an empty line and nothing precedes the start line",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2; RFC 2616 §4.1",
        "A message needs the CRLF CRLF that ends its headers, and no empty line before the start line.",
        interop: "gssdp drops messages without \\r\\n\\r\\n",
        example: "a datagram ending right after its last header line")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11, end: false))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        for a in i.message.anomalies {
            if a.kind == .missingBlankLine, !i.datagram.isTruncated {
                out.report(Self.descriptor, "the header block is not terminated by an empty line (CRLF CRLF)")
            } else if a.kind == .leadingEmptyLine {
                out.report(Self.descriptor, "an empty line precedes the start line")
            }
        }
    }
}

/// SSDP-007: Header lines are `token ":" value` with no space before the colon.
struct HeaderSyntaxRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-007", "header-syntax", .error, "Header lines are `token \":\" value` with no space before the colon",
        spec: "UDA 1.1/2.0 §1.1.2; RFC 2616 §4.2",
        "Field names are tokens (no spaces or separators) followed directly by a colon. Case differences are never reported: names are case-insensitive.",
        interop:
            "Wireshark flags illegal header names; miniupnpd finds ST/MX/MAN only without space before the colon; async_upnp_client drops the packet",
        example: "HOST : 239.255.255.250:1900")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.renaming("HOST", to: "HOST ")))])],
        nonTriggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.renaming("HOST", to: "host").renaming("NTS", to: "nts")))])
        ])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        for h in i.message.headers where h.missingColon || h.spaceBeforeColon || !h.nameIsToken {
            if h.missingColon {
                out.report(
                    Self.descriptor, "header line \"\(SSDPText.show(i.message.name(of: h)))\" has no colon",
                    field: "offset \(h.offset)")
            } else if h.spaceBeforeColon {
                out.report(
                    Self.descriptor,
                    "whitespace between header name \(SSDPText.show(i.message.name(of: h))) and its colon",
                    field: "offset \(h.offset)")
            } else {
                out.report(
                    Self.descriptor, "header name \"\(SSDPText.show(i.message.name(of: h)))\" is not an HTTP token",
                    field: "offset \(h.offset)")
            }
        }
    }
}

/// SSDP-008: A single-valued header appears at most once.
struct DuplicateHeaderRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-008", "duplicate-header", .error, "A single-valued header appears at most once",
        spec: "RFC 2616 §4.2 via UDA 1.1/2.0 §1.1.2",
        "HOST, MAN, MX, ST, NT, NTS, USN, LOCATION, SERVER, USER-AGENT, EXT, CACHE-CONTROL, DATE and the *.UPNP.ORG fields may appear only once; receivers pick different copies.",
        example: "two LOCATION lines")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.adding("LOCATION", "http://192.168.1.20:8200/other.xml")))])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        // Every single-valued name is known: most messages repeat none, and are done here.
        guard i.message.repeatsAKnownName else { return }
        for name in SSDPRuleSupport.singleValued where i.message.count(name) > 1 {
            out.report(Self.descriptor, "\(name.text) appears \(i.message.count(name)) times", field: name.text)
        }
    }
}

/// SSDP-009: Header values carry no control characters and no invalid UTF-8; no line folding.
struct HeaderValueCharactersRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-009", "header-value-characters", .warning,
        "Header values carry no control characters and no invalid UTF-8; no line folding",
        spec: "RFC 2616 §2.2, §4.2; UDA 1.1/2.0 §1.1.2",
        "Control characters (HTAB excepted), obsolete line folding and bytes that are not valid UTF-8 are warnings; valid non-ASCII UTF-8 is info.",
        example: "SERVER: Linux\\x01 UPnP/1.0 x/1", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [multicast(ssdp(notifyLine, alive11.setting("SERVER", "Linux/6.1\u{1} UPnP/1.1 test/1.0")))],
                severity: .warning)
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        for a in i.message.anomalies {
            switch a.kind {
            case .controlCharacter:
                out.report(
                    Self.descriptor, severity: .warning, "a header value contains a control character",
                    field: "offset \(a.offset)")
            case .obsoleteLineFolding:
                out.report(
                    Self.descriptor, severity: .warning, "obsolete line folding (a line starting with whitespace)",
                    field: "offset \(a.offset)")
            case .invalidUTF8:
                out.report(
                    Self.descriptor, severity: .warning, "a header value is not valid UTF-8",
                    field: "offset \(a.offset)")
            case .nonASCII:
                out.report(
                    Self.descriptor, severity: .info, "a header value contains non-ASCII (valid UTF-8) characters",
                    field: "offset \(a.offset)")
            default: break
            }
        }
    }
}

/// SSDP-010: SSDP messages carry no body.
struct NoBodyRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-010", "no-body", .warning, "SSDP messages carry no body",
        spec: "UDA 1.1/2.0 §1.1, §1.2.2, §1.3.2",
        "Bytes after the blank line, or a Content-Length other than 0, are a body; receivers may ignore it.",
        example: "a NOTIFY followed by an XML document")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11, body: "<root/>"))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let m = i.message
        if !m.body.isEmpty {
            out.report(Self.descriptor, "\(m.body.count) byte(s) of body after the header block")
        } else if let cl = m.value(.contentLength), !cl.equals("0") {
            out.report(Self.descriptor, "Content-Length is \(SSDPText.show(cl)), not 0")
        }
    }
}

/// SSDP-011: Headers UDA does not define use `token.domain` names.
struct VendorHeaderNamesRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-011", "vendor-header-names", .warning, "Headers UDA does not define use `token.domain` names",
        spec: "UDA 1.1/2.0 §1.1.3",
        "Vendor headers are qualified with a domain (`myheader.example.com`). Legacy `OPT`, `NLS` and `X-…` headers are common and reported as info.",
        example: "Powerstate: 1", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.adding("Powerstate", "1")))], severity: .warning)],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11.adding("powerstate.example.com", "1")))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        // One finding per message and severity, naming every such header (a Sonos
        // NOTIFY carries five; one line each would bury everything else).
        let names = NameList(i)
        if names.count(.other) > 0 {
            out.report(
                Self.descriptor, severity: .warning,
                names.sentence(.other, "not defined by UDA and not vendor-qualified (name.domain)"),
                field: names.field(.other))
        }
        if names.count(.legacy) > 0 {
            out.report(
                Self.descriptor, severity: .info,
                names.sentence(
                    .legacy,
                    "not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)"),
                field: names.field(.legacy))
        }
    }
}

/// SSDP-012: NOTIFY and multicast M-SEARCH go to an SSDP group on port 1900.
struct SSDPMulticastGroupRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-012", "ssdp-multicast-group", .error, "NOTIFY and multicast M-SEARCH go to an SSDP group on port 1900",
        spec: "UDA 1.1/2.0 §1, §1.2.2, §1.3.2; Annex A",
        "The groups are 239.255.255.250, FF02::C and FF05::C, port 1900. Other FF0x::C scopes are info. A NOTIFY sent to no group at all (unicast or broadcast) is SSDP-304's finding, not this one's.",
        interop: "gssdp, miniupnpd and minissdpd ignore traffic outside their groups and LAN",
        example: "NOTIFY to 255.255.255.255:1900", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11), dst: "239.255.255.251")])],
        nonTriggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11))]),
            // One defect, one finding: a unicast NOTIFY is SSDP-304's.
            RuleExample([multicast(ssdp(notifyLine, alive11), dst: "192.168.1.10")]),
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        let m = i.message
        let d = i.datagram
        guard d.dst.isMulticast, m.kind == .notify || m.kind == .mSearch else { return }
        let isGroup = d.dst == .ssdpIPv4 || d.dst == .ssdpIPv6LinkLocal || d.dst == .ssdpIPv6SiteLocal
        var otherScope = false
        if case .v6(let hi, let lo) = d.dst, lo == 0xC, hi & 0xFFF0_FFFF_FFFF_FFFF == 0xFF00_0000_0000_0000 {
            otherScope = true
        }
        if !isGroup && !otherScope {
            out.report(Self.descriptor, "sent to \(d.dst), not 239.255.255.250, FF02::C or FF05::C")
        } else if otherScope && !isGroup {
            out.report(Self.descriptor, severity: .info, "sent to \(d.dst), an SSDP group scope UDA does not name")
        }
        if d.dstPort != 1900 {
            out.report(Self.descriptor, "sent to port \(d.dstPort), not 1900")
        }
    }
}

/// SSDP-013: HOST names the group and port the message was sent to.
struct HostHeaderRule: DatagramRule {
    /// Judges a missing HOST.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-013", "host-header", .error, "HOST names the group and port the message was sent to",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.3, §1.2.4, §1.3.2; UDA 1.0 §1.1.2",
        "NOTIFY and M-SEARCH carry HOST (SHOULD under 1.0). In multicast messages it equals the destination group and port, IPv6 literals in brackets; a missing port is a warning. A NOTIFY's HOST names port 1900 even when the NOTIFY was sent unicast (as a search answer, say): there only its form and port are judged, since a unicast NOTIFY is SSDP-304's finding and its HOST is not compared with the destination.",
        interop:
            "pupnp accepts only the exact strings 239.255.255.250:1900 and [FF02::C]/[FF05::C]:1900, so it drops HOST without a port; HUPnP requires the IPv4 group even in unicast searches",
        example: "HOST: 239.255.255.250", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.setting("HOST", "239.255.255.250")))], severity: .warning),
            // A NOTIFY sent unicast (ssdpy's search answers) still names port 1900.
            RuleExample(
                [multicast(ssdp(notifyLine, alive11.setting("HOST", "239.255.255.250")), dst: "192.168.1.10")],
                severity: .warning),
            RuleExample([
                multicast(ssdp(notifyLine, alive11.setting("HOST", "239.255.255.250:50000")), dst: "192.168.1.10")
            ]),
        ],
        nonTriggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11))]),
            // Near miss: a unicast NOTIFY whose HOST is the group and port 1900 (where it went
            // is SSDP-304's finding), and one naming the unicast address with port 1900.
            RuleExample([multicast(ssdp(notifyLine, alive11), dst: "192.168.1.10")]),
            RuleExample([multicast(ssdp(notifyLine, alive11.setting("HOST", "192.168.1.10:1900")), dst: "192.168.1.10")]
            ),
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        let m = i.message
        let d = i.datagram
        guard m.kind == .notify || m.kind == .mSearch else { return }
        guard let host = m.value(.host) else {
            out.report(Self.descriptor, severity: i.atLeast11 ? .error : .warning, "no HOST header")
            return
        }
        if !d.dst.isMulticast {
            if m.kind == .notify {
                unicastNotify(host, into: &out)
                return
            }
            if m.kind == .mSearch, let addr = SSDPAddressing.hostAddress(host), addr.isMulticast {
                out.report(
                    Self.descriptor, severity: .warning,
                    "unicast M-SEARCH with HOST naming the multicast group \(SSDPText.show(host))")
            }
            return
        }
        guard let (addr, port, bracketsOK) = SSDPAddressing.parseHost(host) else {
            out.report(Self.descriptor, "HOST \"\(SSDPText.show(host))\" is not address:port")
            return
        }
        if !bracketsOK {
            out.report(Self.descriptor, "IPv6 literal in HOST \"\(SSDPText.show(host))\" is not in brackets")
        } else if addr != d.dst {
            out.report(Self.descriptor, "HOST \(SSDPText.show(host)) does not match the destination \(d.dst)")
        } else if port == nil {
            out.report(
                Self.descriptor, severity: .warning,
                "HOST \(SSDPText.show(host)) has no port (receivers assume 1900; pupnp drops it)")
        } else if let p = port, p != d.dstPort {
            out.report(Self.descriptor, "HOST port \(p) differs from the destination port \(d.dstPort)")
        }
    }

    /// A NOTIFY sent unicast: HOST still names port 1900 (UDA: `HOST: 239.255.255.250:1900`).
    /// The address is not judged: that the NOTIFY went to no group is SSDP-304's.
    private static func unicastNotify(_ host: ArraySlice<UInt8>, into out: inout FindingSink) {
        guard let (_, port, bracketsOK) = SSDPAddressing.parseHost(host) else {
            out.report(Self.descriptor, "HOST \"\(SSDPText.show(host))\" is not address:port")
            return
        }
        if !bracketsOK {
            out.report(Self.descriptor, "IPv6 literal in HOST \"\(SSDPText.show(host))\" is not in brackets")
        } else if let p = port {
            if p != 1900 { out.report(Self.descriptor, "HOST port \(p) in a NOTIFY is not 1900") }
        } else {
            out.report(
                Self.descriptor, severity: .warning,
                "HOST \(SSDPText.show(host)) of this NOTIFY has no port; a NOTIFY's HOST is the group with port 1900 (receivers assume 1900; pupnp drops it)"
            )
        }
    }
}

/// SSDP-014: Multicast IPv4 TTL defaults to 2 (4 under UDA 1.0).
struct MulticastTTLRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-014", "multicast-ttl", .warning, "Multicast IPv4 TTL defaults to 2 (4 under UDA 1.0)",
        spec: "UDA 1.0 §1; UDA 1.1 §1.2.2, §1.3.2; UDA 2.0 §1",
        "A larger TTL lets discovery traffic leak across routers.",
        interop: "miniupnpd sends TTL 2; no receiver checks it", example: "NOTIFY with IPv4 TTL 64")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11), ttl: 64)])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11), ttl: 1)])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        let d = i.datagram
        guard d.dst.isMulticast, !d.isIPv6, i.kind == .notify || i.kind == .mSearch else { return }
        let limit: UInt8 = i.atLeast11 ? 2 : 4
        if d.hopLimit > limit {
            out.report(
                Self.descriptor,
                "multicast with IP TTL \(d.hopLimit); UDA \(i.atLeast11 ? "1.1+" : "1.0") default is \(limit)")
        }
    }
}

/// SSDP-015: IPv6 source and LOCATION scope match the group scope.
struct IPv6SourceScopeRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-015", "ipv6-source-scope", .error, "IPv6 source and LOCATION scope match the group scope",
        spec: "UDA 2.0 Annex A §A.2.3",
        "To FF02::C the source and LOCATION literal are link-local; to FF05::C they are ULA or global.",
        example: "fe80:: source sending to FF05::C")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("HOST", "[FF05::C]:1900").setting("LOCATION", "http://[fd00::20]:8200/d.xml")),
                    src: "fe80::20", dst: "ff05::c")
            ])
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("HOST", "[FF05::C]:1900").setting("LOCATION", "http://[fd00::20]:8200/d.xml")),
                    src: "fd00::20", dst: "ff05::c")
            ])
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        let d = i.datagram
        guard d.isIPv6, let scope = d.dst.ipv6MulticastScope, d.dst.isMulticast else { return }
        let loc = i.message.value(.location).flatMap { SSDPAddressing.urlHost($0)?.address }
        if scope == 2 {
            if !d.src.isLinkLocal {
                out.report(Self.descriptor, "message to FF02::C from non-link-local source \(d.src)")
            }
            if let l = loc, l.isIPv6, !l.isLinkLocal {
                out.report(Self.descriptor, "LOCATION literal \(l) is not link-local on a message to FF02::C")
            }
        } else if scope == 5 {
            if d.src.isLinkLocal { out.report(Self.descriptor, "message to FF05::C from link-local source \(d.src)") }
            if let l = loc, l.isLinkLocal {
                out.report(Self.descriptor, "LOCATION literal \(l) is link-local on a message to FF05::C")
            }
        }
    }
}

/// SSDP-016: uuid: values are 8-4-4-4-12 hexadecimal UUIDs (UPnP 1.1+).
struct UUIDFormatRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-016", "uuid-format", .error, "uuid: values are 8-4-4-4-12 hexadecimal UUIDs (UPnP 1.1+)",
        spec: "UDA 2.0 §1.1.4; UDA 1.1 §1.1.4",
        "Devices claiming UPnP/1.1 or later use canonical UUIDs; free-form UDA 1.0 UUIDs are not flagged.",
        example: "USN: uuid:upnp-InternetGatewayDevice-1_0-0090a2777777::upnp:rootdevice with UPnP/1.1")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("USN", "uuid:upnp-InternetGatewayDevice-1_0-0090a2777777::upnp:rootdevice")))
            ])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.atLeast11 else { return }
        for name in SSDPRuleSupport.usnNTST {
            guard let v = i.message.value(name), let u = SSDPSyntax.uuid(inUSN: v) else { continue }
            if !SSDPSyntax.isCanonicalUUID(u) {
                out.report(
                    Self.descriptor, "\(name.text) uuid \"\(SSDPText.show(u))\" is not an 8-4-4-4-12 hexadecimal UUID",
                    field: name.text)
            }
        }
    }
}

/// SSDP-017: USN is uuid:X or uuid:X::type and its suffix matches NT or ST.
struct USNMatchesNTRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-017", "usn-matches-nt", .error, "USN is uuid:X or uuid:X::type and its suffix matches NT or ST",
        spec: "UDA 1.1/2.0 §1.2.2 (Tables 1-1 to 1-3), §1.3.3; UDA 1.0 §1.1.2",
        "NT upnp:rootdevice pairs with USN uuid:X::upnp:rootdevice, NT uuid:X with USN uuid:X, NT <URN> with uuid:X::<URN>.",
        interop: "async_upnp_client ignores messages whose USN does not start with uuid:; no stack checks the suffix",
        example: "NT: upnp:rootdevice with USN: uuid:X")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.setting("USN", "uuid:\(exampleUUID)")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let m = i.message
        guard let usn = m.value(.usn) else { return }
        guard let uuid = SSDPSyntax.uuid(inUSN: usn), !uuid.isEmpty else {
            out.report(Self.descriptor, "USN \"\(SSDPText.show(usn))\" does not start with uuid:")
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
                out.report(
                    Self.descriptor,
                    "\(targetName) \(SSDPText.show(t)) needs USN exactly \(SSDPText.show(t)), got \(SSDPText.show(usn))"
                )
            }
        } else if suffix.map({ !$0.elementsEqual(t) }) ?? true {
            out.report(
                Self.descriptor,
                "USN \(SSDPText.show(usn)) does not end in ::\(SSDPText.show(t)) as \(targetName) requires")
        }
    }
}

/// SSDP-018: Device and service types are urn:domain:device|service:type:version.
struct URNFormRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-018", "urn-form", .error, "Device and service types are urn:domain:device|service:type:version",
        spec: "UDA 1.1/2.0 §1.2.2 NT, §1.3.2 ST",
        "The version is a positive decimal integer; dots in a vendor domain are replaced by hyphens (UDA 1.1 §1.2.2 NT: \"Period characters in the Vendor Domain Name MUST be replaced with hyphens in accordance with RFC 2141\"; UDA 2.0: \"shall\"). DiscoScope reads the domain microsoft.com as Microsoft's own types (urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1 and the like), which Windows Media Player and the Xbox look for by that exact string: reported as info, with that note, not as an error.",
        interop:
            "gssdp matches the whole urn: form with a regular expression; pupnp only looks for :device: or :service:",
        example: "urn:schemas-upnp-org:device:MediaServer", lowest: .info)
    /// The note for a version that is not a positive integer.
    static let versionInterop = "gssdp compares versions numerically; miniupnpd reads the version with atoi"
    /// The note for Microsoft's own types, whose domain keeps its dot.
    static let microsoftInterop =
        "Windows Media Player and the Xbox 360 look for exactly urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1 (Windows Media Player Sharing itself announces it so, and minidlna and gerbera copy it); the hyphenated urn:microsoft-com:… UDA asks for would not be found. Cling accepts it as a known Microsoft violation"
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("NT", "urn:schemas-upnp-org:device:MediaServer").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer")))
            ]),
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("NT", "urn:example.com:service:Lights:1").setting(
                            "USN", "uuid:\(exampleUUID)::urn:example.com:service:Lights:1")))
            ]),
            // Microsoft's own type, dot and all: info, with the note that clients require it.
            RuleExample(
                [
                    multicast(
                        ssdp(
                            notifyLine,
                            alive11.setting("NT", "urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1").setting(
                                "USN", "uuid:\(exampleUUID)::urn:microsoft.com:service:X_MS_MediaReceiverRegistrar:1")))
                ], severity: .info),
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(
                        notifyLine,
                        alive11.setting("NT", "urn:schemas-upnp-org:device:MediaServer:1").setting(
                            "USN", "uuid:\(exampleUUID)::urn:schemas-upnp-org:device:MediaServer:1")))
            ])
        ])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        for name in SSDPRuleSupport.typeFields {
            guard let v = i.message.value(name), SSDPSyntax.hasPrefix(v, "urn:") else { continue }
            guard let urn = SSDPSyntax.parseURN(v) else {
                out.report(
                    Self.descriptor,
                    "\(name.text) \(SSDPText.show(v)) is not urn:<domain>:device|service:<type>:<version>",
                    field: name.text)
                continue
            }
            if ASCII.parseDecimal(urn.version).map({ $0 == 0 }) ?? true {
                out.report(
                    Self.descriptor, "\(name.text) version \"\(SSDPText.show(urn.version))\" is not a positive integer",
                    field: name.text, interop: Self.versionInterop)
            } else if urn.domain.elementsEqual("microsoft.com".utf8) {
                out.report(
                    Self.descriptor, severity: .info,
                    "\(name.text) domain microsoft.com contains a dot (UDA replaces dots with hyphens), as Microsoft's own types do; clients require this spelling",
                    field: name.text, interop: Self.microsoftInterop)
            } else if urn.domain.contains(0x2E) {
                out.report(
                    Self.descriptor,
                    "\(name.text) domain \(SSDPText.show(urn.domain)) contains dots (UDA replaces them with hyphens)",
                    field: name.text)
            } else if urn.type.count > 64 || urn.type.isEmpty {
                out.report(
                    Self.descriptor, "\(name.text) type name is \(urn.type.count) characters (1–64)", field: name.text)
            }
        }
    }
}

/// SSDP-019: SERVER / USER-AGENT is `OS/version UPnP/x.y product/version` (UPnP 1.1+).
struct ServerProductTokensRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-019", "server-product-tokens", .error,
        "SERVER / USER-AGENT is `OS/version UPnP/x.y product/version` (UPnP 1.1+)",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2, §1.3.3; RFC 2616 §3.8",
        "Three space-separated product tokens, the second the UPnP version. Applies to messages claiming UPnP/1.1 or later.",
        interop: "HUPnP logs 'Invalid server tokens'; pupnp's own SERVER uses commas",
        example: "SERVER: Linux/5.4, UPnP/1.1, Portable SDK for UPnP devices/1.14.13")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.setting("SERVER", "Linux/5.4, UPnP/1.1, SDK/1.14")))])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard let claimed = i.claimedVersion, claimed >= .v1_1 else { return }
        let field: SSDPHeaderName = i.kind == .mSearch ? .userAgent : .server
        guard let v = i.message.value(field) else { return }
        if let problem = SSDPAddressing.productTokenProblem(v) {
            out.report(Self.descriptor, "\(field.text) \"\(SSDPText.show(v))\": \(problem)", field: field.text)
        }
    }
}

/// SSDP-020: LOCATION is one absolute URL to a reachable address.
struct LocationURLRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-020", "location-url", .error, "LOCATION is one absolute URL to a reachable address",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.3",
        "An absolute http(s) URL, not loopback or unspecified, IPv6 literal in brackets. A 169.254/16 host is legal (Auto-IP) but info.",
        interop:
            "async_upnp_client (Home Assistant) rejects loopback and 169.254 LOCATIONs; gssdp, pupnp and HUPnP need a LOCATION",
        example: "LOCATION: http://127.0.0.1:49152/desc.xml", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.setting("LOCATION", "http://127.0.0.1:8200/rootDesc.xml")))]
            )
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard let v = i.message.value(.location) else { return }
        guard let host = SSDPAddressing.urlHost(v) else {
            out.report(Self.descriptor, "LOCATION \"\(SSDPText.show(v))\" is not an absolute http(s) URL")
            return
        }
        if !host.bracketsOK {
            out.report(Self.descriptor, "IPv6 literal in LOCATION \(SSDPText.show(v)) is not in brackets")
        } else if let a = host.address {
            if a.isLoopback || a.isUnspecified {
                out.report(Self.descriptor, "LOCATION points to \(a), which no other host can reach")
            } else if case .v4 = a, a.isLinkLocal {
                out.report(
                    Self.descriptor, severity: .info,
                    "LOCATION uses Auto-IP address \(a) (async_upnp_client ignores it)")
            }
        }
    }
}

/// SSDP-021: CACHE-CONTROL is `max-age=<seconds>` and nothing else (UPnP 1.1+).
struct CacheControlMaxAgeRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-021", "cache-control-max-age", .error,
        "CACHE-CONTROL is `max-age=<seconds>` and nothing else (UPnP 1.1+)",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.3; UDA 1.0 §1.1.2",
        "The max-age directive with a non-negative decimal value; no other directive under 1.1/2.0. Spaces around `=` are info.",
        interop:
            "pupnp and HUPnP drop messages with other directives or without max-age; gssdp falls back to 1800 s, async_upnp_client to 900 s, minissdpd to 180 s",
        example: "CACHE-CONTROL: no-cache", lowest: .info)
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "no-cache")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard let v = i.message.value(.cacheControl) else { return }
        guard let age = SSDPSyntax.maxAge(in: v) else {
            out.report(Self.descriptor, "CACHE-CONTROL \"\(SSDPText.show(v))\" has no max-age=<seconds>")
            return
        }
        _ = age
        var directives = 0
        ASCII.forEachPiece(of: v, separatedBy: 0x2C) { _ in
            directives += 1
            return directives < 2
        }
        if directives > 1 {
            out.report(
                Self.descriptor, severity: i.atLeast11 ? .error : .warning,
                "CACHE-CONTROL \"\(SSDPText.show(v))\" has directives besides max-age")
        } else if v.contains(0x20) || v.contains(0x22) {
            out.report(
                Self.descriptor, severity: .info, "CACHE-CONTROL \"\(SSDPText.show(v))\" is not exactly max-age=N")
        }
    }
}

/// SSDP-022: max-age is at least 1800 seconds.
struct MaxAgeValueRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-022", "max-age-value", .error, "max-age is at least 1800 seconds",
        spec: "UDA 1.0 §1.1.2; UDA 1.1/2.0 §1.2.2",
        "Below 1800 s is a warning (advertisements expire early); 0 is an error.",
        interop: "pupnp drops max-age 0, the only value it rejects; HUPnP raises it to 5 s",
        example: "CACHE-CONTROL: max-age=0", lowest: .warning)
    /// The note for a positive max-age below 1800 s.
    static let shortInterop =
        "no common stack rejects it (HUPnP clamps to 5..86400): control points forget the device when max-age passes without a new announcement"
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "max-age=0")))], severity: .error)
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard let age = i.message.maxAge else { return }
        if age == 0 {
            out.report(Self.descriptor, severity: .error, "max-age=0: the advertisement expires immediately")
        } else if age < 1800 {
            out.report(
                Self.descriptor, severity: .warning, "max-age=\(age) is below the 1800 s UDA asks for",
                interop: Self.shortInterop)
        }
    }
}

/// SSDP-023: BOOTID/CONFIGID/NEXTBOOTID are 31-bit decimals; SEARCHPORT/TCPPORT in 49152–65535.
struct UPnPOrgNumbersRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-023", "upnp-org-numbers", .error,
        "BOOTID/CONFIGID/NEXTBOOTID are 31-bit decimals; SEARCHPORT/TCPPORT in 49152–65535",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.4; UDA 2.0 §1.3.2",
        "Decimal without leading zeros; CONFIGID above 16777215 is reserved.",
        interop: "gssdp ignores updates whose BOOTID does not parse; HUPnP rejects them for UPnP/1.1+",
        example: "BOOTID.UPNP.ORG: -1")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.setting("BOOTID.UPNP.ORG", "-1")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let m = i.message
        for name in SSDPRuleSupport.bootFields {
            guard let v = m.value(name) else { continue }
            if let n = ASCII.parseDecimal(v), n <= 2_147_483_647, !(v.count > 1 && v.first == 0x30) {
                if name == .configID, n > 16_777_215 {
                    out.report(
                        Self.descriptor, "CONFIGID.UPNP.ORG \(n) is in the reserved range above 16777215",
                        field: name.text)
                }
            } else {
                out.report(
                    Self.descriptor,
                    "\(name.text) \"\(SSDPText.show(v))\" is not a decimal 0–2147483647 without leading zeros",
                    field: name.text)
            }
        }
        for name in SSDPRuleSupport.portFields {
            guard let v = m.value(name) else { continue }
            if let n = ASCII.parseDecimal(v), n >= 49152, n <= 65535, v.first != 0x30 { continue }
            out.report(
                Self.descriptor, "\(name.text) \"\(SSDPText.show(v))\" is not a port in 49152–65535", field: name.text)
        }
    }
}
