import Findings
import Reporting
import Testing
import WireFormat

/// `probe --format junit`: a suite per device of the inventory, a case per rule of its
/// protocol, findings of embedded devices under their root, the rest under "other senders".
@Suite struct DeviceJUnitReporterTests {
    static let ssdpRule = RuleDescriptor(
        id: "SSDP-603", name: "description-udn-matches-usn", title: "UDN is the USN's UUID", severity: .error,
        proto: .ssdp, spec: "UDA 2.0 §2.3", description: "d", example: "e")
    static let mdnsRule = RuleDescriptor(
        id: "MDNS-406", name: "ip-ttl-255", title: "TTL 255", severity: .warning, proto: .mdns, spec: "RFC 6762 §11",
        description: "d", example: "e")

    static func finding(_ d: RuleDescriptor, device: String?, source: String = "10.0.0.5") -> Finding {
        Finding(
            descriptor: d, frame: 3, time: Timestamp(seconds: 1_700_000_000, nanoseconds: 0), message: "m",
            source: source, device: device)
    }

    @Test func oneSuitePerDeviceWithTheRulesOfItsProtocol() {
        let sink = StringSink()
        let r = DeviceJUnitReporter(sink: sink)
        var inventory = Inventory()
        var root = InventoryDevice(proto: .ssdp, id: "b0b0b0b0-0000-4000-8000-00000000b0b0")
        root.addresses = ["10.0.0.5"]
        root.embedded = ["e0e0e0e0-0000-4000-8000-00000000e0e0"]
        inventory.add(root)
        var host = InventoryDevice(proto: .mdns, id: "printer.local.")
        host.addresses = ["10.0.0.6"]
        inventory.add(host)
        r.finding(Self.finding(Self.ssdpRule, device: "uuid:E0E0E0E0-0000-4000-8000-00000000E0E0::upnp:rootdevice"))
        r.finding(Self.finding(Self.mdnsRule, device: "printer.local"))
        r.finding(Self.finding(Self.mdnsRule, device: nil, source: "10.0.0.9"))
        r.inventory(inventory)
        var s = RunSummary()
        s.rulesChecked = [Self.ssdpRule, Self.mdnsRule]
        s.failOn = .error
        r.finish(s)
        let xml = sink.text
        #expect(
            xml.contains(
                #"<testsuite name="ssdp uuid:b0b0b0b0-0000-4000-8000-00000000b0b0 (10.0.0.5)" tests="1" failures="1""#),
            "\(xml)")
        #expect(xml.contains(#"<testsuite name="mdns printer.local. (10.0.0.6)" tests="1" failures="0""#))
        #expect(xml.contains(#"<testsuite name="other senders" tests="1" failures="0""#))
        #expect(xml.contains(#"<testsuites name="discoscope probe" tests="3" failures="1""#))
    }
}
