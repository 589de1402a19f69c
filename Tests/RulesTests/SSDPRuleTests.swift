import Findings
import NetLayers
import Reporting
import SSDP
import TestSupport
import Testing
import WireFormat

@testable import Rules

@Suite struct SSDPRuleTests {
    @Test func wellFormedMessagesOfEveryKindRaiseNothing() {
        for d in [
            multicast(ssdp(notifyLine, alive11)), multicast(ssdp(mSearchLine, search11), sport: 50000),
            response(ssdp(okLine, response11)), multicast(ssdp(notifyLine, update11)),
        ] {
            #expect(ssdpFindings([d]).map(\.rule) == [])
        }
        // A byebye alone: only that nothing in the capture announced its USN (info).
        #expect(ssdpFindings([multicast(ssdp(notifyLine, byebye11))]).map(\.rule) == ["SSDP-513"])
    }

    @Test func mx10UnderUPnP11ExplainsTheCapAtFive() {
        let f = ssdpFindings([multicast(ssdp(mSearchLine, search11.setting("MX", "10")), sport: 50000)])
        let mx = f.first { $0.rule == "SSDP-104" }
        #expect(mx?.message.contains("treat it as 5") == true)
        // Under UPnP/1.0 the same MX is fine (1–120).
        let v10 = ssdpFindings([
            multicast(
                ssdp(mSearchLine, search11.setting("MX", "10").setting("USER-AGENT", "X/1 UPnP/1.0 y/1")), sport: 50000)
        ])
        #expect(!v10.contains { $0.rule == "SSDP-104" })
    }

    @Test func ssdpAllIsAValidSearchTargetButNotANotificationType() {
        #expect(
            !ssdpFindings([multicast(ssdp(mSearchLine, search11.setting("ST", "ssdp:all")), sport: 50000)]).contains {
                $0.rule == "SSDP-106"
            })
        #expect(
            ssdpFindings([multicast(ssdp(notifyLine, alive11.setting("NT", "ssdp:all")))]).contains {
                $0.rule == "SSDP-303"
            })
    }

    @Test func byebyeInheritsTheVersionItsDeviceClaimedEarlier() {
        let bye = multicast(ssdp(notifyLine, byebye11.removing("BOOTID.UPNP.ORG")))
        // Without an earlier UPnP/1.1 alive the byebye is judged as 1.0: BOOTID not required.
        #expect(!ssdpFindings([bye]).contains { $0.rule == "SSDP-401" })
        #expect(ssdpFindings([multicast(ssdp(notifyLine, alive11)), bye]).contains { $0.rule == "SSDP-401" })
    }

    @Test func responseFromAnEphemeralPortToASearcherIsRecognised() {
        let search = multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000)
        // A broken hand-rolled responder: bare LF, from port 43210.
        let reply = exampleDatagram(
            ssdp("HTTP/1.1 200 OK", response11, eol: "\n"), src: "192.168.1.20", srcPort: 43210, dst: "192.168.1.10",
            dstPort: 50000)
        let (findings, summary) = analyse([search, reply])
        #expect(summary.ssdpMessages == 2)
        #expect(findings.contains { $0.rule == "SSDP-005" && $0.firstFrame == 2 })
        // Random non-HTTP traffic to the same endpoint is not claimed.
        let noise = exampleDatagram(
            [1, 2, 3, 4, 5, 6], src: "192.168.1.20", srcPort: 43210, dst: "192.168.1.10", dstPort: 50000)
        #expect(analyse([search, noise]).summary.ssdpMessages == 1)
    }

}

@Suite struct SSDPVendorHeaderTests {
    /// SSDP-011 names every such header in one finding per form, in message order, with
    /// escapes for unprintable bytes; vendor-qualified and known names are left out.
    @Test func vendorHeaderFindingsListEveryNameOfTheirForm() {
        let headers = alive11.adding("Powerstate", "1").adding("X-User-Agent", "a").adding("hue-bridgeid", "2")
            .adding("powerstate.example.com", "3").adding("01-NLS", "4").adding("Bad\u{01}Name", "5").adding("OPT", "6")
        let found = ssdpFindings([multicast(ssdp(notifyLine, headers))]).filter { $0.rule.rawValue == "SSDP-011" }
        #expect(
            found.map(\.message) == [
                "headers Powerstate, hue-bridgeid, Bad\\x01Name are not defined by UDA and not vendor-qualified (name.domain)",
                "headers X-User-Agent, 01-NLS, OPT are not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)",
            ])
        #expect(found.map(\.field) == ["Powerstate,hue-bridgeid,Bad\\x01Name", "X-User-Agent,01-NLS,OPT"])
        let one = ssdpFindings([multicast(ssdp(notifyLine, alive11.adding("X-Foo", "1")))]).filter {
            $0.rule.rawValue == "SSDP-011"
        }
        #expect(
            one.map(\.message) == [
                "header X-Foo is not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)"
            ])
        #expect(one.map(\.severity) == [.info])
        // A name longer than a shown value may be is cut like one.
        let long = "X-" + String(repeating: "a", count: 130)
        let cut = ssdpFindings([multicast(ssdp(notifyLine, alive11.adding(long, "1")))]).filter {
            $0.rule.rawValue == "SSDP-011"
        }
        #expect(cut.map(\.field) == [String(long.prefix(120)) + "…"])
    }
}

/// A finding's interop note is about its own kind of violation, not another case of the rule.
@Suite struct InteropNoteTests {
    @Test func maxAgeNotesSpeakOfTheirOwnCase() {
        let zero = ssdpFindings([multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "max-age=0")))])
        let short = ssdpFindings([multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "max-age=900")))])
        #expect(zero.first { $0.rule == "SSDP-022" }?.interop?.contains("max-age 0") == true)
        let note = short.first { $0.rule == "SSDP-022" }?.interop ?? ""
        #expect(!note.isEmpty && !note.contains("max-age 0"), "\(note)")
    }

    @Test func urnNotesSpeakOfVersionsOnlyForVersions() {
        func note(_ nt: String) -> String? {
            ssdpFindings([
                multicast(ssdp(notifyLine, alive11.setting("NT", nt).setting("USN", "uuid:\(exampleUUID)::\(nt)")))
            ])
            .first { $0.rule == "SSDP-018" }?.interop
        }
        #expect(note("urn:schemas-upnp-org:device:MediaServer:x")?.contains("version") == true)
        let dots = note("urn:schemas.upnp.org:device:MediaServer:1") ?? ""
        #expect(!dots.isEmpty && !dots.contains("version"), "\(dots)")
    }

    /// The product-token check reads a value as `split` would (runs of spaces separate once,
    /// `major.minor` has exactly one dot, `token[/version]` at most one slash), without
    /// building arrays: every value over a small alphabet agrees with that reading.
    @Test func productTokenCheckAgreesWithTheSplitReading() {
        func reference(_ v: ArraySlice<UInt8>) -> String? {
            if v.contains(0x2C) { return "commas" }
            let tokens = v.split(separator: 0x20)
            guard tokens.count >= 3 else { return "fewer" }
            guard SSDPSyntax.hasPrefix(tokens[1], "UPnP/") else { return "second" }
            let parts = tokens[1].dropFirst(5).split(separator: 0x2E, omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ ASCII.parseDecimal($0) != nil }) else { return "version" }
            for t in tokens.prefix(3) {
                let pieces = t.split(separator: 0x2F, omittingEmptySubsequences: false)
                if pieces.count > 2 || !pieces.allSatisfy({ SSDPSyntax.isToken($0) }) { return "token" }
            }
            return nil
        }
        func kind(_ problem: String?) -> String? {
            guard let p = problem else { return nil }
            if p.contains("commas") { return "commas" }
            if p.contains("fewer") { return "fewer" }
            if p.contains("second product token") { return "second" }
            if p.contains("UPnP version") { return "version" }
            return "token"
        }
        // Valid values with up to two pieces inserted at random places.
        let pieces = ["/", " ", "  ", ".", "1", "x", "@", ",", "UPnP/", "/1.0"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var checked = 0
        for _ in 0..<20000 {
            let bases = [
                "Linux/5.1 UPnP/1.0 DLNA/1.5", "A UPnP/2.0 B", " x/1  UPnP/1.1 y/2 z", "Linux/5.1 UPnP/1.0", "",
            ]
            var v = Array(bases[next(bases.count)].utf8)
            for _ in 0..<next(3) {
                v.insert(contentsOf: Array(pieces[next(pieces.count)].utf8), at: next(v.count + 1))
            }
            let slice = v[...]
            #expect(
                kind(SSDPAddressing.productTokenProblem(slice)) == reference(slice),
                "\(String(decoding: v, as: UTF8.self))")
            if reference(slice) == nil { checked += 1 }
        }
        // The generator reaches valid values too, not only problems.
        #expect(checked > 100)
        #expect(SSDPAddressing.productTokenProblem(Array("Linux/5.1 UPnP/1.1 MiniDLNA/1.3".utf8)[...]) == nil)
    }
}
