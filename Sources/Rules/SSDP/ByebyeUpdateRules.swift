import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-4xx: NOTIFY ssdp:byebye and ssdp:update.

/// SSDP-401: ssdp:byebye has HOST, NT, NTS, USN (+ BOOTID, CONFIGID in 1.1+).
struct ByebyeRequiredHeadersRule: MessageRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-401", "byebye-required-headers", .error,
        "ssdp:byebye has HOST, NT, NTS, USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.1.3; UDA 1.1/2.0 §1.2.3",
        "CACHE-CONTROL, LOCATION and SERVER are not part of a byebye (info).", example: "a byebye without USN",
        lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                [
                    multicast(ssdp(notifyLine, alive11)),
                    multicast(ssdp(notifyLine, byebye11.removing("BOOTID.UPNP.ORG"))),
                ], severity: .error)
        ],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11)), multicast(ssdp(notifyLine, byebye11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.message.notificationSubtype == .byebye else { return }
        let miss = SSDPRuleSupport.missing(
            i.message, i.atLeast11 ? SSDPRuleSupport.byebyeRequired11 : SSDPRuleSupport.byebyeRequired)
        if !miss.isEmpty {
            out.report(Self.descriptor, severity: .error, "ssdp:byebye without \(miss.joined(separator: ", "))")
        }
        let extra = SSDPRuleSupport.notInByebye.filter { i.message.has($0) }.map(\.text)
        if !extra.isEmpty {
            out.report(Self.descriptor, severity: .info, "ssdp:byebye carries \(extra.joined(separator: ", "))")
        }
    }
}

/// SSDP-402: ssdp:update has HOST, LOCATION, NT, NTS, USN, BOOTID, CONFIGID, NEXTBOOTID.
struct UpdateRequiredHeadersRule: MessageRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-402", "update-required-headers", .error,
        "ssdp:update has HOST, LOCATION, NT, NTS, USN, BOOTID, CONFIGID, NEXTBOOTID",
        spec: "UDA 1.1/2.0 §1.2.4", "", interop: "pupnp drops every update; minissdpd treats it as an alive",
        example: "an update without NEXTBOOTID.UPNP.ORG")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, update11.removing("NEXTBOOTID.UPNP.ORG")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, update11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.message.notificationSubtype == .update else { return }
        let miss = SSDPRuleSupport.missing(i.message, SSDPRuleSupport.updateRequired)
        if !miss.isEmpty { out.report(Self.descriptor, "ssdp:update without \(miss.joined(separator: ", "))") }
    }
}

/// SSDP-403: NEXTBOOTID.UPNP.ORG is greater than BOOTID.UPNP.ORG.
struct NextBootIDGreaterRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-403", "nextbootid-greater", .error, "NEXTBOOTID.UPNP.ORG is greater than BOOTID.UPNP.ORG",
        spec: "UDA 1.1/2.0 §1.2.4", "", example: "BOOTID.UPNP.ORG: 17 with NEXTBOOTID.UPNP.ORG: 17")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, update11.setting("NEXTBOOTID.UPNP.ORG", "7")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, update11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.message.notificationSubtype == .update,
            let b = i.message.value(.bootID).flatMap({ ASCII.parseDecimal($0) }),
            let n = i.message.value(.nextBootID).flatMap({ ASCII.parseDecimal($0) })
        else { return }
        if n <= b { out.report(Self.descriptor, "NEXTBOOTID.UPNP.ORG \(n) is not greater than BOOTID.UPNP.ORG \(b)") }
    }
}
