import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-2xx: search responses (HTTP/1.1 200 OK).

/// SSDP-201: A search response has CACHE-CONTROL, EXT, LOCATION, SERVER, ST and USN (+ BOOTID, CONFIGID in 1.1+).
struct ResponseRequiredHeadersRule: MessageRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-201", "response-required-headers", .error,
        "A search response has CACHE-CONTROL, EXT, LOCATION, SERVER, ST and USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.2.3; UDA 1.1/2.0 §1.3.3",
        "Missing response headers make control points ignore the device.",
        interop: "pupnp requires LOCATION, USN, ST and max-age; HUPnP requires EXT, CACHE-CONTROL, USN and LOCATION",
        example: "a 200 OK without EXT")
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp(okLine, response11.removing("EXT")))])],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .response else { return }
        let miss = SSDPRuleSupport.missing(
            i.message, i.atLeast11 ? SSDPRuleSupport.responseRequired11 : SSDPRuleSupport.responseRequired)
        if !miss.isEmpty { out.report(Self.descriptor, "search response without \(miss.joined(separator: ", "))") }
    }
}

/// SSDP-202: EXT has no value.
struct ExtEmptyRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-202", "ext-empty", .error, "EXT has no value",
        spec: "UDA 1.0 §1.2.3; UDA 1.1/2.0 §1.3.3",
        "EXT is a field name only.", interop: "HUPnP rejects responses whose EXT is not empty", example: "EXT: 1")
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp(okLine, response11.setting("EXT", "1")))])],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .response, let v = i.message.value(.ext), !v.isEmpty else { return }
        out.report(Self.descriptor, "EXT has the value \"\(SSDPText.show(v))\"; it must be empty")
    }
}

/// SSDP-203: DATE is an RFC 1123 date in GMT.
struct DateRFC1123Rule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-203", "date-rfc1123", .warning, "DATE is an RFC 1123 date in GMT",
        spec: "UDA 1.1/2.0 §1.3.3; RFC 2616 §3.3.1", "For example `Sun, 06 Nov 1994 08:49:37 GMT`.",
        example: "DATE: 2024-01-01 10:00")
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp(okLine, response11.setting("DATE", "2024-01-01 10:00")))])],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard let v = i.message.value(.date) else { return }
        if !SSDPAddressing.isRFC1123Date(v) {
            out.report(Self.descriptor, "DATE \"\(SSDPText.show(v))\" is not an RFC 1123 date in GMT")
        }
    }
}

/// SSDP-204: Response ST and USN agree; ST is never ssdp:all.
struct ResponseSTMatchesUSNRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-204", "response-st-matches-usn", .error, "Response ST and USN agree; ST is never ssdp:all",
        spec: "UDA 1.1/2.0 §1.3.3",
        "ST upnp:rootdevice goes with uuid:X::upnp:rootdevice, uuid:X with uuid:X, a URN with uuid:X::<URN>.",
        example: "ST: ssdp:all in a 200 OK")
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp(okLine, response11.setting("ST", "ssdp:all")))])],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .response, let st = i.message.value(.st) else { return }
        if st.equals("ssdp:all") {
            out.report(Self.descriptor, "a response carries ST: ssdp:all; it must name what matched")
        }
    }
}

/// SSDP-205: A response is unicast to the searcher's IP and port.
struct ResponseUnicastRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-205", "response-unicast", .error, "A response is unicast to the searcher's IP and port",
        spec: "UDA 1.1/2.0 §1.3.3",
        "Never to a multicast group (error) nor to another port than the M-SEARCH came from (error). A source port other than 1900 is info (firewall helpers often key on 1900), unless it is the SEARCHPORT.UPNP.ORG the device advertised (in the response or an earlier message), where it answers unicast searches.",
        example: "HTTP/1.1 200 OK sent to 239.255.255.250:1900", scope: .stateful, lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([response(ssdp(okLine, response11), dst: "239.255.255.250", dport: 1900)], severity: .error),
            RuleExample([response(ssdp(okLine, response11), sport: 41234)], severity: .info),
            // A SEARCHPORT advertised, the response from a third port.
            RuleExample(
                [
                    notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 0),
                    response(ssdp(okLine, response11), sport: 41234, at: 10),
                ], severity: .info),
        ],
        nonTriggering: [
            RuleExample([response(ssdp(okLine, response11))]),
            // Near miss: from port 49200, the SEARCHPORT the device advertised.
            RuleExample([
                notify(alive11.adding("SEARCHPORT.UPNP.ORG", "49200"), at: 0),
                response(ssdp(okLine, response11), sport: 49200, at: 10),
            ]),
            RuleExample([response(ssdp(okLine, response11.adding("SEARCHPORT.UPNP.ORG", "49200")), sport: 49200)]),
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        guard i.kind == .response else { return }
        if i.isMulticast {
            out.report(Self.descriptor, severity: .error, "search response sent to multicast \(i.datagram.dst)")
        } else if i.datagram.srcPort != 1900, !i.fromSearchPort {
            out.report(
                Self.descriptor, severity: .info,
                "search response from port \(i.datagram.srcPort), not 1900 (firewall helpers key on 1900)")
        }
    }
}

/// SSDP-206: A response carries no MAN, MX, NT, NTS or HOST.
struct ResponseRequestHeadersRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-206", "response-request-headers", .info, "A response carries no MAN, MX, NT, NTS or HOST",
        spec: "UDA 1.1/2.0 §1.1.5 (derived)",
        "These reveal a copied NOTIFY or M-SEARCH template, often wrong elsewhere too.",
        example: "NTS: ssdp:alive in a 200 OK")
    static let examples = RuleExamples(
        triggering: [RuleExample([response(ssdp(okLine, response11.adding("NTS", "ssdp:alive")))])],
        nonTriggering: [RuleExample([response(ssdp(okLine, response11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .response else { return }
        let present = SSDPRuleSupport.notInResponses.filter { i.message.has($0) }.map(\.text)
        if !present.isEmpty {
            out.report(
                Self.descriptor, "search response carries request/notify headers \(present.joined(separator: ", "))")
        }
    }
}
