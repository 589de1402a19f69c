import Findings

/// Descriptors of the SSDP rules (IDs from `shared/rules/ssdp.md`; wording ours). Interop
/// notes come from the receiver matrix in `shared/rules/interop.md`.
public enum SSDPCatalog {
    static func r(
        _ id: String, _ name: String, _ severity: Severity, _ title: String, spec: String, _ description: String,
        interop: String? = nil, example: String, scope: RuleScope = .stateless
    ) -> RuleDescriptor {
        RuleDescriptor(
            id: RuleID(rawValue: id), name: name, title: title, severity: severity, scope: scope, proto: .ssdp,
            spec: spec, description: description, interop: interop, example: example)
    }

    static let datagramSize = r("SSDP-001", "message-size", .warning, "A message fits in one UDP datagram, ideally 512 bytes or less",
        spec: "UDA 2.0 §1.2.2; UDA 1.1 §1.2.2",
        "Each discovery message must fit in a single UDP packet. IP-fragmented SSDP is reported as a warning; payloads over 512 bytes as info, because some stacks accept only about 512-byte datagrams.",
        interop: "gssdp drops datagrams of 64 KiB or more", example: "a 1600-byte NOTIFY sent in two IPv4 fragments")
    static let startLine = r("SSDP-002", "start-line", .error, "The start line is NOTIFY * HTTP/1.1, M-SEARCH * HTTP/1.1 or HTTP/1.1 200 OK",
        spec: "UDA 1.1/2.0 §1.1.1",
        "Any other first line on UDP 1900 is not SSDP. Status lines are judged by SSDP-004 alone.",
        interop: "miniupnpd, minissdpd, pupnp and async_upnp_client drop other start lines", example: "SUBSCRIBE * HTTP/1.1")
    static let requestLine = r("SSDP-003", "request-line-form", .error, "Method in upper case, Request-URI `*`, version HTTP/1.1",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2; RFC 2616 §5.1.1",
        "Methods are case-sensitive, the Request-URI of SSDP requests is `*`, and the version is HTTP/1.1.",
        interop: "pupnp and async_upnp_client drop it; gssdp accepts lower-case methods", example: "m-search * HTTP/1.1")
    static let statusLine = r("SSDP-004", "status-200-ok", .error, "A search response is HTTP/1.1 200 OK",
        spec: "UDA 1.1/2.0 §1.1.1, §1.3.3",
        "A search response has status 200 (error otherwise) and reason phrase OK (warning otherwise); SSDP has no error responses.",
        interop: "pupnp treats any status but 200 as a bad reply; async_upnp_client also requires the reason `OK`",
        example: "HTTP/1.1 412 Precondition Failed")
    static let lineEndings = r("SSDP-005", "crlf-line-endings", .error, "Every line ends with CRLF",
        spec: "UDA 1.1/2.0 §1.1; RFC 2616 §2.2, §4.1",
        "Bare LF or bare CR line endings are a violation even though many receivers tolerate them.",
        interop: "gssdp and miniupnpd silently drop messages with bare LF; minissdpd and async_upnp_client accept them",
        example: "NOTIFY * HTTP/1.1\\nHOST: 239.255.255.250:1900\\n…")
    static let blankLine = r("SSDP-006", "header-block-terminated", .error, "The header block ends with an empty line and nothing precedes the start line",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2; RFC 2616 §4.1",
        "A message needs the CRLF CRLF that ends its headers, and no empty line before the start line.",
        interop: "gssdp drops messages without \\r\\n\\r\\n", example: "a datagram ending right after its last header line")
    static let headerSyntax = r("SSDP-007", "header-syntax", .error, "Header lines are `token \":\" value` with no space before the colon",
        spec: "UDA 1.1/2.0 §1.1.2; RFC 2616 §4.2",
        "Field names are tokens (no spaces or separators) followed directly by a colon. Case differences are never reported: names are case-insensitive.",
        interop: "Wireshark flags illegal header names; miniupnpd finds ST/MX/MAN only without space before the colon; async_upnp_client drops the packet",
        example: "HOST : 239.255.255.250:1900")
    static let duplicateHeader = r("SSDP-008", "duplicate-header", .error, "A single-valued header appears at most once",
        spec: "RFC 2616 §4.2 via UDA 1.1/2.0 §1.1.2",
        "HOST, MAN, MX, ST, NT, NTS, USN, LOCATION, SERVER, USER-AGENT, EXT, CACHE-CONTROL, DATE and the *.UPNP.ORG fields may appear only once; receivers pick different copies.",
        example: "two LOCATION lines")
    static let headerValueBytes = r("SSDP-009", "header-value-characters", .warning, "Header values carry no control characters and no invalid UTF-8; no line folding",
        spec: "RFC 2616 §2.2, §4.2; UDA 1.1/2.0 §1.1.2",
        "Control characters (HTAB excepted), obsolete line folding and bytes that are not valid UTF-8 are warnings; valid non-ASCII UTF-8 is info.",
        example: "SERVER: Linux\\x01 UPnP/1.0 x/1")
    static let body = r("SSDP-010", "no-body", .warning, "SSDP messages carry no body",
        spec: "UDA 1.1/2.0 §1.1, §1.2.2, §1.3.2",
        "Bytes after the blank line, or a Content-Length other than 0, are a body; receivers may ignore it.",
        example: "a NOTIFY followed by an XML document")
    static let vendorHeaders = r("SSDP-011", "vendor-header-names", .warning, "Headers UDA does not define use `token.domain` names",
        spec: "UDA 1.1/2.0 §1.1.3",
        "Vendor headers are qualified with a domain (`myheader.example.com`). Legacy `OPT`, `NLS` and `X-…` headers are common and reported as info.",
        example: "Powerstate: 1")
    static let multicastGroup = r("SSDP-012", "ssdp-multicast-group", .error, "NOTIFY and multicast M-SEARCH go to an SSDP group on port 1900",
        spec: "UDA 1.1/2.0 §1, §1.2.2, §1.3.2; Annex A",
        "The groups are 239.255.255.250, FF02::C and FF05::C, port 1900. Other FF0x::C scopes are info.",
        interop: "gssdp, miniupnpd and minissdpd ignore traffic outside their groups and LAN",
        example: "NOTIFY to 255.255.255.255:1900")
    static let hostHeader = r("SSDP-013", "host-header", .error, "HOST names the group and port the message was sent to",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.3, §1.2.4, §1.3.2; UDA 1.0 §1.1.2",
        "NOTIFY and M-SEARCH carry HOST (SHOULD under 1.0). In multicast messages it equals the destination group and port, IPv6 literals in brackets; a missing port is a warning.",
        interop: "pupnp accepts only the exact strings 239.255.255.250:1900 and [FF02::C]/[FF05::C]:1900, so it drops HOST without a port; HUPnP requires the IPv4 group even in unicast searches",
        example: "HOST: 239.255.255.250")
    static let ipTTL = r("SSDP-014", "multicast-ttl", .warning, "Multicast IPv4 TTL defaults to 2 (4 under UDA 1.0)",
        spec: "UDA 1.0 §1; UDA 1.1 §1.2.2, §1.3.2; UDA 2.0 §1",
        "A larger TTL lets discovery traffic leak across routers.",
        interop: "miniupnpd sends TTL 2; no receiver checks it", example: "NOTIFY with IPv4 TTL 64")
    static let ipv6Scope = r("SSDP-015", "ipv6-source-scope", .error, "IPv6 source and LOCATION scope match the group scope",
        spec: "UDA 2.0 Annex A §A.2.3",
        "To FF02::C the source and LOCATION literal are link-local; to FF05::C they are ULA or global.",
        example: "fe80:: source sending to FF05::C")
    static let uuidFormat = r("SSDP-016", "uuid-format", .error, "uuid: values are 8-4-4-4-12 hexadecimal UUIDs (UPnP 1.1+)",
        spec: "UDA 2.0 §1.1.4; UDA 1.1 §1.1.4",
        "Devices claiming UPnP/1.1 or later use canonical UUIDs; free-form UDA 1.0 UUIDs are not flagged.",
        example: "USN: uuid:upnp-InternetGatewayDevice-1_0-0090a2777777::upnp:rootdevice with UPnP/1.1")
    static let usnForm = r("SSDP-017", "usn-matches-nt", .error, "USN is uuid:X or uuid:X::type and its suffix matches NT or ST",
        spec: "UDA 1.1/2.0 §1.2.2 (Tables 1-1 to 1-3), §1.3.3; UDA 1.0 §1.1.2",
        "NT upnp:rootdevice pairs with USN uuid:X::upnp:rootdevice, NT uuid:X with USN uuid:X, NT <URN> with uuid:X::<URN>.",
        interop: "async_upnp_client ignores messages whose USN does not start with uuid:; no stack checks the suffix",
        example: "NT: upnp:rootdevice with USN: uuid:X")
    static let urnForm = r("SSDP-018", "urn-form", .error, "Device and service types are urn:domain:device|service:type:version",
        spec: "UDA 1.1/2.0 §1.2.2 NT, §1.3.2 ST",
        "The version is a positive decimal integer; dots in a vendor domain are replaced by hyphens.",
        interop: "gssdp compares versions numerically; miniupnpd reads the version with atoi",
        example: "urn:schemas-upnp-org:device:MediaServer")
    static let productTokens = r("SSDP-019", "server-product-tokens", .error, "SERVER / USER-AGENT is `OS/version UPnP/x.y product/version` (UPnP 1.1+)",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.2, §1.3.3; RFC 2616 §3.8",
        "Three space-separated product tokens, the second the UPnP version. Applies to messages claiming UPnP/1.1 or later.",
        interop: "HUPnP logs 'Invalid server tokens'; pupnp's own SERVER uses commas",
        example: "SERVER: Linux/5.4, UPnP/1.1, Portable SDK for UPnP devices/1.14.13")
    static let location = r("SSDP-020", "location-url", .error, "LOCATION is one absolute URL to a reachable address",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.3",
        "An absolute http(s) URL, not loopback or unspecified, IPv6 literal in brackets. A 169.254/16 host is legal (Auto-IP) but info.",
        interop: "async_upnp_client (Home Assistant) rejects loopback and 169.254 LOCATIONs; gssdp, pupnp and HUPnP need a LOCATION",
        example: "LOCATION: http://127.0.0.1:49152/desc.xml")
    static let cacheControl = r("SSDP-021", "cache-control-max-age", .error, "CACHE-CONTROL is `max-age=<seconds>` and nothing else (UPnP 1.1+)",
        spec: "UDA 1.1/2.0 §1.2.2, §1.3.3; UDA 1.0 §1.1.2",
        "The max-age directive with a non-negative decimal value; no other directive under 1.1/2.0. Spaces around `=` are info.",
        interop: "pupnp and HUPnP drop messages with other directives or without max-age; gssdp falls back to 1800 s, async_upnp_client to 900 s, minissdpd to 180 s",
        example: "CACHE-CONTROL: no-cache")
    static let maxAge = r("SSDP-022", "max-age-value", .error, "max-age is at least 1800 seconds",
        spec: "UDA 1.0 §1.1.2; UDA 1.1/2.0 §1.2.2",
        "Below 1800 s is a warning (advertisements expire early); 0 is an error.",
        interop: "pupnp drops max-age 0; HUPnP clamps to 5..86400", example: "CACHE-CONTROL: max-age=0")
    static let numericFields = r("SSDP-023", "upnp-org-numbers", .error, "BOOTID/CONFIGID/NEXTBOOTID are 31-bit decimals; SEARCHPORT/TCPPORT in 49152–65535",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.4; UDA 2.0 §1.3.2",
        "Decimal without leading zeros; CONFIGID above 16777215 is reserved.",
        interop: "gssdp ignores updates whose BOOTID does not parse; HUPnP rejects them for UPnP/1.1+",
        example: "BOOTID.UPNP.ORG: -1")
    static let searchHeaders = r("SSDP-101", "msearch-required-headers", .error, "A multicast M-SEARCH has HOST, MAN, MX and ST",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "Missing MX is reported by SSDP-103.",
        interop: "gssdp and pupnp need ST, MX and MAN; miniupnpd needs ST", example: "M-SEARCH without ST")
    static let man = r("SSDP-102", "man-ssdp-discover", .error, "MAN is exactly \"ssdp:discover\" with the quotes",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "The value is case-sensitive and includes the double quotes.",
        interop: "gssdp (strcmp) and pupnp drop it; strict miniupnpd fails the UCTT case 'Man header empty or invalid'",
        example: "MAN: ssdp:discover")
    static let mxPresent = r("SSDP-103", "msearch-mx-present", .error, "A multicast M-SEARCH carries MX",
        spec: "UDA 1.1/2.0 §1.3.2, §1.3.3",
        "Devices must silently ignore a multicast search without MX.",
        interop: "gssdp, pupnp, HUPnP and strict miniupnpd drop it; async_upnp_client answers at once",
        example: "M-SEARCH to 239.255.255.250:1900 without MX")
    static let mxRange = r("SSDP-104", "mx-range", .error, "MX is an integer ≥ 1, at most 5 under UPnP 1.1+ (120 under 1.0)",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "Devices treat MX above 5 as 5 (UPnP 1.1+), so a larger value only delays the control point.",
        interop: "gssdp and pupnp do not cap MX and wait up to MX seconds; HUPnP clamps to 5; async_upnp_client uses min(5, MX)",
        example: "MX: 10 with USER-AGENT … UPnP/1.1 …")
    static let unicastSearch = r("SSDP-105", "unicast-msearch-form", .error, "A unicast M-SEARCH has HOST device:port, MAN and ST (no MX)",
        spec: "UDA 1.1/2.0 §1.3.2",
        "HOST names the device, not the multicast group (warning); MX is not part of the unicast form (info).",
        interop: "pupnp and HUPnP reject unicast searches through their HOST checks; gssdp and pupnp still require MX",
        example: "unicast M-SEARCH with HOST: 239.255.255.250:1900")
    static let stForm = r("SSDP-106", "st-form", .error, "ST is ssdp:all, upnp:rootdevice, uuid:…, or a device/service URN",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "A single search target; vendor non-URN targets are warnings.",
        interop: "async_upnp_client lower-cases ST before matching", example: "ST: ssdp:discover")
    static let userAgent = r("SSDP-107", "user-agent-tokens", .info, "USER-AGENT, when present, names the UPnP version",
        spec: "UDA 1.1/2.0 §1.3.2",
        "USER-AGENT is optional; when present it should follow the product-token format with a UPnP token.",
        example: "USER-AGENT: Google Chrome/87 Windows")
    static let cpfn = r("SSDP-108", "upnp2-cpfn", .error, "A UPnP 2.0 multicast M-SEARCH carries CPFN.UPNP.ORG",
        spec: "UDA 2.0 §1.3.2",
        "UDA 2.0 control points name themselves; CPUUID.UPNP.ORG, if present, is uuid:<UUID>.",
        example: "USER-AGENT … UPnP/2.0 … without CPFN.UPNP.ORG")
    static let responseHeaders = r("SSDP-201", "response-required-headers", .error, "A search response has CACHE-CONTROL, EXT, LOCATION, SERVER, ST and USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.2.3; UDA 1.1/2.0 §1.3.3",
        "Missing response headers make control points ignore the device.",
        interop: "pupnp requires LOCATION, USN, ST and max-age; HUPnP requires EXT, CACHE-CONTROL, USN and LOCATION",
        example: "a 200 OK without EXT")
    static let ext = r("SSDP-202", "ext-empty", .error, "EXT has no value",
        spec: "UDA 1.0 §1.2.3; UDA 1.1/2.0 §1.3.3",
        "EXT is a field name only.", interop: "HUPnP rejects responses whose EXT is not empty", example: "EXT: 1")
    static let date = r("SSDP-203", "date-rfc1123", .warning, "DATE is an RFC 1123 date in GMT",
        spec: "UDA 1.1/2.0 §1.3.3; RFC 2616 §3.3.1", "For example `Sun, 06 Nov 1994 08:49:37 GMT`.",
        example: "DATE: 2024-01-01 10:00")
    static let stUSN = r("SSDP-204", "response-st-matches-usn", .error, "Response ST and USN agree; ST is never ssdp:all",
        spec: "UDA 1.1/2.0 §1.3.3",
        "ST upnp:rootdevice goes with uuid:X::upnp:rootdevice, uuid:X with uuid:X, a URN with uuid:X::<URN>.",
        example: "ST: ssdp:all in a 200 OK")
    static let responseUnicast = r("SSDP-205", "response-unicast", .error, "A response is unicast to the searcher's IP and port",
        spec: "UDA 1.1/2.0 §1.3.3",
        "Never to a multicast group (error) nor to another port than the M-SEARCH came from (error). A source port other than 1900 is info: firewall helpers often key on 1900.",
        example: "HTTP/1.1 200 OK sent to 239.255.255.250:1900", scope: .stateful)
    static let responseExtraHeaders = r("SSDP-206", "response-request-headers", .info, "A response carries no MAN, MX, NT, NTS or HOST",
        spec: "UDA 1.1/2.0 §1.1.5 (derived)",
        "These reveal a copied NOTIFY or M-SEARCH template, often wrong elsewhere too.", example: "NTS: ssdp:alive in a 200 OK")
    static let aliveHeaders = r("SSDP-301", "alive-required-headers", .error, "ssdp:alive has HOST, CACHE-CONTROL, LOCATION, NT, NTS, SERVER, USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.1.2; UDA 1.1/2.0 §1.2.2",
        "SECURELOCATION.UPNP.ORG, when present, is an https URL.",
        interop: "minissdpd logs 'missing header'; gssdp, pupnp, async_upnp_client and HUPnP drop such advertisements",
        example: "an alive without LOCATION")
    static let nts = r("SSDP-302", "nts-value", .error, "NTS is exactly ssdp:alive, ssdp:byebye or ssdp:update",
        spec: "UDA 1.1/2.0 §1.2.2–§1.2.4; UDA 1.0 §1.1.2",
        "Case-sensitive; ssdp:update exists from UPnP 1.1.",
        interop: "pupnp compares case-sensitively and drops every ssdp:update; HUPnP and minissdpd compare case-insensitively",
        example: "NTS: ssdp:Alive")
    static let ntForm = r("SSDP-303", "nt-form", .error, "NT is upnp:rootdevice, uuid:…, or a device/service URN",
        spec: "UDA 1.1/2.0 §1.2.2", "ssdp:all is a search target, never a notification type.", example: "NT: ssdp:all")
    static let notifyMulticast = r("SSDP-304", "notify-multicast", .error, "NOTIFY is multicast",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.3, §1.2.4",
        "A unicast NOTIFY * on UDP does not conform (GENA events use TCP).", example: "NOTIFY * HTTP/1.1 to 192.168.1.20:1900")
    static let byebyeHeaders = r("SSDP-401", "byebye-required-headers", .error, "ssdp:byebye has HOST, NT, NTS, USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.1.3; UDA 1.1/2.0 §1.2.3",
        "CACHE-CONTROL, LOCATION and SERVER are not part of a byebye (info).", example: "a byebye without USN")
    static let updateHeaders = r("SSDP-402", "update-required-headers", .error, "ssdp:update has HOST, LOCATION, NT, NTS, USN, BOOTID, CONFIGID, NEXTBOOTID",
        spec: "UDA 1.1/2.0 §1.2.4", "", interop: "pupnp drops every update; minissdpd treats it as an alive",
        example: "an update without NEXTBOOTID.UPNP.ORG")
    static let nextBootID = r("SSDP-403", "nextbootid-greater", .error, "NEXTBOOTID.UPNP.ORG is greater than BOOTID.UPNP.ORG",
        spec: "UDA 1.1/2.0 §1.2.4", "", example: "BOOTID.UPNP.ORG: 17 with NEXTBOOTID.UPNP.ORG: 17")
    static let mxWindow = r("SSDP-501", "response-within-mx", .warning, "A response to a multicast M-SEARCH arrives within MX seconds",
        spec: "UDA 1.1/2.0 §1.3.3",
        "MX is capped at 5 for UPnP 1.1+ control points and 120 for 1.0; 0.5 s slack for capture jitter.",
        interop: "pupnp waits up to MX − 10 % with no cap; async_upnp_client sends each response twice",
        example: "M-SEARCH MX 3 at t0, 200 OK at t0 + 4.2 s", scope: .stateful)
    static let stEcho = r("SSDP-504", "response-st-matches-search", .error, "Response ST echoes the search (same version for a URN)",
        spec: "UDA 1.1/2.0 §1.3.2, §1.3.3",
        "ssdp:all may be answered with any NT; other searches with the same ST; a URN search with the requested version.",
        interop: "a default miniupnpd build answers searches for any version of its types",
        example: "search for …:MediaServer:1 answered with ST …:MediaServer:4", scope: .stateful)

    public static let descriptors: [RuleDescriptor] = [
        datagramSize, startLine, requestLine, statusLine, lineEndings, blankLine, headerSyntax, duplicateHeader,
        headerValueBytes, body, vendorHeaders, multicastGroup, hostHeader, ipTTL, ipv6Scope, uuidFormat, usnForm,
        urnForm, productTokens, location, cacheControl, maxAge, numericFields, searchHeaders, man, mxPresent,
        mxRange, unicastSearch, stForm, userAgent, cpfn, responseHeaders, ext, date, stUSN, responseUnicast,
        responseExtraHeaders, aliveHeaders, nts, ntForm, notifyMulticast, byebyeHeaders, updateHeaders, nextBootID,
        mxWindow, stEcho,
    ]
}
