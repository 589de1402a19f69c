import SSDP
import Testing

@testable import Findings
@testable import Rules

/// The facts the engine gates profile rules by: a profile's bit in a set, and what an SSDP
/// message claims (`SSDPMessageView.claims`), which the DIAL and Roku rules read too.
@Suite struct ServiceProfileClaimTests {
    @Test func eachProfilesBitIsItsPlaceAmongTheCases() {
        for (k, p) in ServiceProfile.allCases.enumerated() {
            #expect(p.bit == UInt32(1) << UInt32(k), "\(p)")
            #expect(ServiceProfiles(p).first == p)
        }
    }

    /// What the message of `lines` claims among DIAL and Roku ECP (the SSDP rules' profiles).
    func claims(_ lines: String..., among judged: ServiceProfiles = ServiceProfiles(.dial, .rokuECP)) -> ServiceProfiles
    {
        SSDPMessageView.claims(
            SSDPMessage(parsing: Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)), among: judged)
    }

    let dial = "urn:dial-multiscreen-org:service:dial:1"

    @Test func dialIsClaimedByItsSearchTargetNotificationTypeOrUSN() {
        #expect(claims("HTTP/1.1 200 OK", "ST: \(dial)", "USN: uuid:1") == ServiceProfiles(.dial))
        #expect(claims("HTTP/1.1 200 OK", "ST: URN:DIAL-MULTISCREEN-ORG:SERVICE:DIAL:1") == ServiceProfiles(.dial))
        #expect(claims("NOTIFY * HTTP/1.1", "NT: \(dial)", "NTS: ssdp:alive") == ServiceProfiles(.dial))
        #expect(claims("HTTP/1.1 200 OK", "ST: upnp:rootdevice", "USN: uuid:1::\(dial)") == ServiceProfiles(.dial))
        // Any version of the service type, as the inventory reads it.
        #expect(claims("HTTP/1.1 200 OK", "ST: urn:dial-multiscreen-org:service:dial:2") == ServiceProfiles(.dial))
    }

    @Test func onlyTheProfilesTheRulesJudgeAreClaimed() {
        let server = "NT: urn:schemas-upnp-org:device:MediaServer:1"
        #expect(claims("NOTIFY * HTTP/1.1", server, "NTS: ssdp:alive").isEmpty)
        #expect(
            claims("NOTIFY * HTTP/1.1", server, "NTS: ssdp:alive", among: ServiceProfiles(.upnpMediaServer, .dial))
                == ServiceProfiles(.upnpMediaServer))
        #expect(claims("HTTP/1.1 200 OK", "ST: \(dial)", among: []).isEmpty)
        #expect(ServiceProfile.claimed(bySSDPType: "urn:schemas-upnp-org:device:MediaServer:1") == .upnpMediaServer)
    }

    /// USN's type is judged apart from the target, not only when it repeats it; the claim of a
    /// target is read from its end, so targets that share a prefix are told apart.
    @Test func usnTypeClaimsWhereTheTargetDoesNot() {
        let all = ServiceProfiles(.upnpMediaServer, .upnpMediaRenderer, .upnpIGD, .dial, .rokuECP)
        #expect(
            claims(
                "NOTIFY * HTTP/1.1", "NT: urn:schemas-upnp-org:device:MediaRenderer:1", "USN: uuid:1::\(dial)",
                among: all) == ServiceProfiles(.upnpMediaRenderer, .dial))
        #expect(
            claims("NOTIFY * HTTP/1.1", "NT: \(dial)", "USN: uuid:1::\(dial)", among: all) == ServiceProfiles(.dial))
        #expect(ServiceProfile.claimed(bySSDPType: "urn:schemas-upnp-org:device:MediaRenderer:2") == .upnpMediaRenderer)
        #expect(ServiceProfile.claimed(bySSDPType: "urn:schemas-upnp-org:service:MediaServer:1") == nil)
        #expect(ServiceProfile.claimed(bySSDPType: "urn:schemas-upnp-org:device:MediaServer") == nil)
        #expect(ServiceProfile.claimed(bySSDPType: "ROKU:ECP") == .rokuECP)
        #expect(ServiceProfile.claimed(bySSDPType: "URN:Schemas-UPnP-Org:Device:InternetGatewayDevice:2") == .upnpIGD)
        // A target outside the bytes claims nothing.
        #expect(ServiceProfile.claimed(bySSDPType: Array("roku:ecp".utf8), 1..<9) == nil)
    }

    @Test func rokuIsClaimedByItsSearchTargetOrNotificationType() {
        #expect(
            claims("HTTP/1.1 200 OK", "ST: roku:ecp", "USN: uuid:roku:ecp:P0A070000007") == ServiceProfiles(.rokuECP))
        #expect(claims("NOTIFY * HTTP/1.1", "NT: roku:ecp", "NTS: ssdp:alive") == ServiceProfiles(.rokuECP))
    }

    @Test func nearMissesClaimNothing() {
        // DIAL's device type (not its service type), a longer Roku target, a USN that holds
        // DIAL's type but not after `::`, an NT outside a NOTIFY.
        #expect(claims("HTTP/1.1 200 OK", "ST: urn:dial-multiscreen-org:device:dial:1").isEmpty)
        #expect(claims("HTTP/1.1 200 OK", "ST: roku:ecp:1").isEmpty)
        #expect(claims("HTTP/1.1 200 OK", "ST: upnp:rootdevice", "USN: uuid:\(dial)").isEmpty)
        #expect(claims("HTTP/1.1 200 OK", "NT: \(dial)").isEmpty)
        #expect(claims("M-SEARCH * HTTP/1.1", "ST: ssdp:all").isEmpty)
    }
}
