import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-3xx: NOTIFY ssdp:alive.

/// SSDP-301: ssdp:alive has HOST, CACHE-CONTROL, LOCATION, NT, NTS, SERVER, USN (+ BOOTID, CONFIGID in 1.1+).
struct AliveRequiredHeadersRule: MessageRule {
    /// Judges required headers.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-301", "alive-required-headers", .error,
        "ssdp:alive has HOST, CACHE-CONTROL, LOCATION, NT, NTS, SERVER, USN (+ BOOTID, CONFIGID in 1.1+)",
        spec: "UDA 1.0 §1.1.2; UDA 1.1/2.0 §1.2.2",
        "SECURELOCATION.UPNP.ORG, when present, is an https URL.",
        interop: "minissdpd logs 'missing header'; gssdp, pupnp, async_upnp_client and HUPnP drop such advertisements",
        example: "an alive without LOCATION")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.removing("LOCATION")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.message.notificationSubtype == .alive else { return }
        let miss = SSDPRuleSupport.missing(
            i.message, i.atLeast11 ? SSDPRuleSupport.aliveRequired11 : SSDPRuleSupport.aliveRequired)
        if !miss.isEmpty { out.report(Self.descriptor, "ssdp:alive without \(miss.joined(separator: ", "))") }
        if let s = i.message.value(.secureLocation), !SSDPSyntax.hasPrefix(s, "https://", caseInsensitive: true) {
            out.report(Self.descriptor, "SECURELOCATION.UPNP.ORG \(SSDPText.show(s)) is not an https URL")
        }
    }
}

/// SSDP-302: NTS is exactly ssdp:alive, ssdp:byebye or ssdp:update.
struct NTSValueRule: MessageRule {
    /// Judges a missing NTS.
    static let needsWholeMessage = true
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-302", "nts-value", .error, "NTS is exactly ssdp:alive, ssdp:byebye or ssdp:update",
        spec: "UDA 1.1/2.0 §1.2.2–§1.2.4; UDA 1.0 §1.1.2",
        "Case-sensitive; ssdp:update exists from UPnP 1.1.",
        interop:
            "pupnp compares case-sensitively and drops every ssdp:update; HUPnP and minissdpd compare case-insensitively",
        example: "NTS: ssdp:Alive")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.setting("NTS", "ssdp:Alive")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .notify else { return }
        guard let v = i.message.value(.nts) else {
            out.report(Self.descriptor, "NOTIFY without NTS")
            return
        }
        if i.message.notificationSubtype == .other {
            out.report(Self.descriptor, "NTS \"\(SSDPText.show(v))\" is not ssdp:alive, ssdp:byebye or ssdp:update")
        }
    }
}

/// SSDP-303: NT is upnp:rootdevice, uuid:…, or a device/service URN.
struct NTFormRule: MessageRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-303", "nt-form", .error, "NT is upnp:rootdevice, uuid:…, or a device/service URN",
        spec: "UDA 1.1/2.0 §1.2.2", "ssdp:all is a search target, never a notification type.", example: "NT: ssdp:all")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11.setting("NT", "ssdp:all")))])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .notify, let nt = i.message.value(.nt) else { return }
        switch SSDPAddressing.targetForm(nt) {
        case .valid:
            if nt.equals("ssdp:all") {
                out.report(Self.descriptor, "NT: ssdp:all is a search target, not a notification type")
            }
        case .empty: out.report(Self.descriptor, "NT is empty")
        default:
            out.report(
                Self.descriptor, "NT \(SSDPText.show(nt)) is not upnp:rootdevice, uuid:… or a device/service URN")
        }
    }
}

/// SSDP-304: NOTIFY is multicast.
struct NotifyMulticastRule: DatagramRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-304", "notify-multicast", .error, "NOTIFY is multicast",
        spec: "UDA 1.1/2.0 §1.2.2, §1.2.3, §1.2.4",
        "A unicast NOTIFY * on UDP does not conform (GENA events use TCP).",
        example: "NOTIFY * HTTP/1.1 to 192.168.1.20:1900")
    static let examples = RuleExamples(
        triggering: [RuleExample([multicast(ssdp(notifyLine, alive11), dst: "192.168.1.10")])],
        nonTriggering: [RuleExample([multicast(ssdp(notifyLine, alive11))])])

    static func check(_ i: SSDPInput, into out: inout FindingSink) {
        if i.kind == .notify, !i.isMulticast {
            let d = i.datagram
            out.report(
                Self.descriptor,
                "NOTIFY sent to \(d.dst.isBroadcast ? "broadcast" : "unicast") \(d.dst):\(d.dstPort), not an SSDP group; notifications are multicast to 239.255.255.250, FF02::C or FF05::C port 1900"
            )
        }
    }
}
