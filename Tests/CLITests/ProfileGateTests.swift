import Foundation
import TestSupport
import Testing

/// `--profile`: the CI gate of a product's discovery contract. It fails unless the capture
/// shows an instance of the profile and every instance meets it; for IPP Everywhere and
/// AirPrint, which printers claim by a subtype, a printer that does not claim it fails it.
@Suite struct ProfileGateTests {
    /// avahi's lifecycle recording: one printer listed under `_print` and `_universal`, one
    /// HomeKit accessory, one Cast receiver.
    static let lifecycle = Fixtures.capture("session/mdns-testbed-lifecycle.pcap")
    /// Five `_ipp._tcp` printers, none under `_universal`.
    static let printers = Fixtures.capture("session/mdns-explain.pcap")

    @Test func aProfileTheCaptureMeetsPasses() throws {
        let r = try discoscope(["analyze", Self.lifecycle, "-q", "--fail-on", "never", "--profile", "homekit"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("gate        homekit ✔ 1 instance(s)"))
    }

    @Test func aProfileNoInstanceClaimsFails() throws {
        let r = try discoscope([
            "analyze", Self.lifecycle, "-q", "--fail-on", "never", "--profile", "matter-commissionable",
        ])
        #expect(r.status == 1)
        #expect(r.stdout.contains("gate        matter-commissionable ✘ no instance claims it"))
    }

    @Test func printersThatDoNotClaimASubtypeProfileFailIt() throws {
        let r = try discoscope(["analyze", Self.printers, "-q", "--fail-on", "never", "--profile", "airprint"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("gate        airprint ✘ 5 of 5 instance(s) fail: "))
        #expect(r.stdout.contains("(does not claim it)"))
        #expect(r.stdout.contains("result      fail: profile airprint not met"))
        // The same printers meet the base Bonjour printing profile (no PROF finding).
        let base = try discoscope([
            "analyze", Self.printers, "-q", "--fail-on", "never", "--profile", "bonjour-printing",
        ])
        #expect(base.status == 0)
    }

    @Test func theJSONSummaryCarriesEachProfileAndWhetherItPassed() throws {
        let r = try discoscope([
            "analyze", Self.printers, "--format", "jsonl", "--fail-on", "never", "--profile", "airprint",
        ])
        #expect(r.status == 1)
        guard let line = r.stdout.split(separator: "\n").last(where: { $0.contains(#""type":"summary""#) }),
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let profiles = object["profiles"] as? [[String: Any]]
        else {
            Issue.record("no summary with profiles")
            return
        }
        let airprint = profiles.first { $0["profile"] as? String == "airprint" }
        #expect(airprint?["gated"] as? Bool == true)
        #expect(airprint?["passed"] as? Bool == false)
        #expect((airprint?["missing"] as? [String])?.count == 5)
    }

    @Test func anUnknownProfileIsAUsageError() throws {
        let r = try discoscope(["analyze", Self.printers, "--profile", "zigbee"])
        #expect(r.status == 64 || r.status == 2)
        #expect(r.stderr.contains("zigbee"))
    }
}
