import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-1xx: M-SEARCH.

/// SSDP-101: A multicast M-SEARCH has HOST, MAN, MX and ST.
struct MSearchRequiredHeadersRule: DatagramRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-101", "msearch-required-headers", .error, "A multicast M-SEARCH has HOST, MAN, MX and ST",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "Missing MX is reported by SSDP-103.",
        interop: "gssdp and pupnp need ST, MX and MAN; miniupnpd needs ST", example: "M-SEARCH without ST")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(mSearchLine, search11.removing("ST")), sport: 50000)])],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        guard i.kind == .mSearch, i.isMulticast else { return }
        let miss = SSDPRuleSupport.missing(i.message, SSDPRuleSupport.searchRequired)
        if !miss.isEmpty { out.report(Self.descriptor, "multicast M-SEARCH without \(miss.joined(separator: ", "))") }
    }
}

/// SSDP-102: MAN is exactly "ssdp:discover" with the quotes.
struct ManSSDPDiscoverRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-102", "man-ssdp-discover", .error, "MAN is exactly \"ssdp:discover\" with the quotes",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "The value is case-sensitive and includes the double quotes.",
        interop: "gssdp (strcmp) and pupnp drop it; strict miniupnpd fails the UCTT case 'Man header empty or invalid'",
        example: "MAN: ssdp:discover")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(mSearchLine, search11.setting("MAN", "ssdp:discover")), sport: 50000)])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .mSearch, let v = i.message.value(.man) else { return }
        if !v.equals("\"ssdp:discover\"") {
            out.report(Self.descriptor, "MAN is \(SSDPText.show(v)), not \"ssdp:discover\" (with the quotes)")
        }
    }
}

/// SSDP-103: A multicast M-SEARCH carries MX.
struct MSearchMXPresentRule: DatagramRule {
    /// Judges a missing MX.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-103", "msearch-mx-present", .error, "A multicast M-SEARCH carries MX",
        spec: "UDA 1.1/2.0 §1.3.2, §1.3.3",
        "Devices must silently ignore a multicast search without MX.",
        interop: "gssdp, pupnp, HUPnP and strict miniupnpd drop it; async_upnp_client answers at once",
        example: "M-SEARCH to 239.255.255.250:1900 without MX")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(mSearchLine, search11.removing("MX")), sport: 50000)])],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        if i.kind == .mSearch, i.isMulticast, !i.message.has(.mx) {
            out.report(Self.descriptor, "multicast M-SEARCH without MX: devices must ignore it")
        }
    }
}

/// SSDP-104: MX is an integer ≥ 1, at most 5 under UPnP 1.1+ (120 under 1.0).
struct MXRangeRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-104", "mx-range", .error, "MX is an integer ≥ 1, at most 5 under UPnP 1.1+ (120 under 1.0)",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "Devices treat MX above 5 as 5 (UPnP 1.1+), so a larger value only delays the control point.",
        interop:
            "gssdp and pupnp do not cap MX and wait up to MX seconds; HUPnP clamps to 5; async_upnp_client uses min(5, MX)",
        example: "MX: 10 with USER-AGENT … UPnP/1.1 …", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(mSearchLine, search11.setting("MX", "6")), sport: 50000)], severity: .warning)
        ],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11.setting("MX", "5")), sport: 50000)])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .mSearch, let v = i.message.value(.mx) else { return }
        guard let mx = ASCII.parseDecimal(v), mx >= 1 else {
            out.report(Self.descriptor, severity: .error, "MX \"\(SSDPText.show(v))\" is not an integer of at least 1")
            return
        }
        if i.atLeast11 && mx > 5 {
            out.report(
                Self.descriptor, severity: .warning,
                "MX=\(mx) from a UPnP \(i.version) control point; devices treat it as 5, so waiting longer only delays discovery"
            )
        } else if !i.atLeast11 && mx > 120 {
            out.report(Self.descriptor, severity: .warning, "MX=\(mx) is above UDA 1.0's 120")
        }
    }
}

/// SSDP-105: A unicast M-SEARCH has HOST device:port, MAN and ST (no MX).
struct UnicastMSearchFormRule: DatagramRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-105", "unicast-msearch-form", .error, "A unicast M-SEARCH has HOST device:port, MAN and ST (no MX)",
        spec: "UDA 1.1/2.0 §1.3.2",
        "HOST names the device, not the multicast group (warning); MX is not part of the unicast form (info).",
        interop: "pupnp and HUPnP reject unicast searches through their HOST checks; gssdp and pupnp still require MX",
        example: "unicast M-SEARCH with HOST: 239.255.255.250:1900", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [multicast(ssdp(mSearchLine, search11.removing("MX")), sport: 50000, dst: "192.168.1.20")],
                severity: .warning)
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(mSearchLine, search11.removing("MX").setting("HOST", "192.168.1.20:1900")), sport: 50000,
                    dst: "192.168.1.20")
            ])
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        guard i.kind == .mSearch, !i.isMulticast else { return }
        let m = i.message
        let miss = SSDPRuleSupport.missing(m, SSDPRuleSupport.searchRequired)
        if !miss.isEmpty {
            out.report(Self.descriptor, severity: .error, "unicast M-SEARCH without \(miss.joined(separator: ", "))")
        }
        if let host = m.value(.host), let a = SSDPAddressing.hostAddress(host), a.isMulticast {
            out.report(
                Self.descriptor, severity: .warning,
                "unicast M-SEARCH to \(i.datagram.dst) with HOST \(SSDPText.show(host)) (the multicast group)")
        }
        if m.has(.mx) { out.report(Self.descriptor, severity: .info, "MX is not part of a unicast M-SEARCH") }
    }
}

/// SSDP-106: ST is ssdp:all, upnp:rootdevice, uuid:…, or a device/service URN.
struct STFormRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-106", "st-form", .error, "ST is ssdp:all, upnp:rootdevice, uuid:…, or a device/service URN",
        spec: "UDA 1.0 §1.2.2; UDA 1.1/2.0 §1.3.2",
        "A single search target; vendor non-URN targets are warnings.",
        interop: "async_upnp_client lower-cases ST before matching", example: "ST: ssdp:discover", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([multicast(ssdp(mSearchLine, search11.setting("ST", "ssdp:discover")), sport: 50000)])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .mSearch, let st = i.message.value(.st) else { return }
        switch SSDPAddressing.targetForm(st) {
        case .valid: break
        case .empty: out.report(Self.descriptor, severity: .error, "ST is empty")
        case .list: out.report(Self.descriptor, severity: .error, "ST \"\(SSDPText.show(st))\" is more than one target")
        case .vendor:
            out.report(
                Self.descriptor, severity: .warning,
                "ST \(SSDPText.show(st)) is a vendor target, not a UPnP search target")
        case .invalid:
            out.report(
                Self.descriptor, severity: .error,
                "ST \(SSDPText.show(st)) is not ssdp:all, upnp:rootdevice, uuid:… or a URN")
        }
    }
}

/// SSDP-107: USER-AGENT, when present, names the UPnP version.
struct UserAgentTokensRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-107", "user-agent-tokens", .info, "USER-AGENT, when present, names the UPnP version",
        spec: "UDA 1.1/2.0 §1.3.2",
        "USER-AGENT is optional; when present it should follow the product-token format with a UPnP token.",
        example: "USER-AGENT: Google Chrome/87 Windows")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(ssdp(mSearchLine, search11.setting("USER-AGENT", "Google Chrome/87 Windows")), sport: 50000)
            ])
        ],
        nonTriggering: [RuleExample([multicast(ssdp(mSearchLine, search11), sport: 50000)])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .mSearch, let v = i.message.value(.userAgent) else { return }
        if UPnPVersion.find(in: v) == nil {
            out.report(Self.descriptor, "USER-AGENT \"\(SSDPText.show(v))\" names no UPnP/x.y version")
        }
    }
}

/// SSDP-108: A UPnP 2.0 multicast M-SEARCH carries CPFN.UPNP.ORG.
struct UPnP2CPFNRule: DatagramRule {
    /// Judges a missing CPFN.UPNP.ORG.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-108", "upnp2-cpfn", .error, "A UPnP 2.0 multicast M-SEARCH carries CPFN.UPNP.ORG",
        spec: "UDA 2.0 §1.3.2",
        "UDA 2.0 control points name themselves; CPUUID.UPNP.ORG, if present, is uuid:<UUID>.",
        example: "USER-AGENT … UPnP/2.0 … without CPFN.UPNP.ORG")
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                multicast(ssdp(mSearchLine, search11.setting("USER-AGENT", "Linux/6.1 UPnP/2.0 cp/1.0")), sport: 50000)
            ])
        ],
        nonTriggering: [
            RuleExample([
                multicast(
                    ssdp(
                        mSearchLine,
                        search11.setting("USER-AGENT", "Linux/6.1 UPnP/2.0 cp/1.0").adding(
                            "CPFN.UPNP.ORG", "Living room")), sport: 50000)
            ])
        ])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        guard i.kind == .mSearch, let claimed = i.claimedVersion, claimed >= .v2_0 else { return }
        if i.isMulticast && !i.message.has(.cpfn) {
            out.report(Self.descriptor, "UPnP/2.0 multicast M-SEARCH without CPFN.UPNP.ORG")
        }
        if let u = i.message.value(.cpuuid) {
            if !(SSDPSyntax.uuid(inUSN: u).map(SSDPSyntax.isCanonicalUUID) ?? false) {
                out.report(Self.descriptor, "CPUUID.UPNP.ORG \(SSDPText.show(u)) is not uuid:<UUID>")
            }
        }
    }
}
