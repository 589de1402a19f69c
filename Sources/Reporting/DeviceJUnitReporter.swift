import Findings
import WireFormat

/// `probe --format junit`: one `<testsuite>` per device (SSDP root device or mDNS host, as in
/// the inventory) and one `<testcase>` per rule of its protocol that was checked; a test case
/// fails when the device has a finding of that rule at or above `--fail-on`. Findings that
/// name no device of the inventory (our own messages, unnamed senders) go to a suite of their
/// own. Needs the inventory (the analysis must report it). Written at `finish`.
public final class DeviceJUnitReporter: Reporter {
    let sink: any OutputSink
    private var findings: [Finding] = []
    private var devices: [InventoryDevice] = []

    public init(sink: any OutputSink) { self.sink = sink }
    public var isStreaming: Bool { false }

    public func message(_ m: MessageRecord, findings f: [Finding]) {
        for x in f { finding(x) }
    }

    public func finding(_ f: Finding) {
        guard findings.count < JUnitReporter.maxFindings else { return }
        findings.append(f)
    }

    public func inventory(_ inventory: Inventory) {
        devices = inventory.devices
    }

    /// The inventory key a finding's device text maps to (`ssdp <uuid>` or `mdns <host.>`).
    static func key(_ device: String) -> String {
        let d = device.lowercased()
        if d.hasPrefix("uuid:") {
            let uuid = d.dropFirst(5)
            return "ssdp " + String(uuid.prefix { $0 != ":" })
        }
        return "mdns " + (d.hasSuffix(".") ? d : d + ".")
    }

    public func finish(_ s: RunSummary) {
        var suiteOf: [String: Int] = [:]
        for (k, d) in devices.enumerated() {
            suiteOf["\(d.proto.rawValue) \(d.id.lowercased())"] = k
            for e in d.embedded { suiteOf["ssdp \(e.lowercased())"] = k }
        }
        var byDevice: [Int: [RuleID: [Finding]]] = [:]
        var other: [RuleID: [Finding]] = [:]
        for f in findings {
            if let d = f.device, let k = suiteOf[Self.key(d)] {
                byDevice[k, default: [:]][f.rule, default: []].append(f)
            } else {
                other[f.rule, default: []].append(f)
            }
        }
        var suites = ""
        var totals = (tests: 0, failures: 0)
        func suite(_ name: String, rules: [RuleDescriptor], found: [RuleID: [Finding]]) {
            var cases = ""
            var failures = 0
            for d in rules {
                let list = found[d.id] ?? []
                let failing = s.failOn.map { t in list.filter { $0.severity >= t } } ?? []
                let rest = list.filter { f in s.failOn.map { f.severity < $0 } ?? true }
                cases +=
                    "    <testcase classname=\"discoscope.\(d.proto.rawValue)\" name=\"\(JUnitReporter.escape(d.id.rawValue + " " + d.name))\" time=\"0\">\n"
                if !failing.isEmpty {
                    failures += 1
                    let worst = failing.map(\.severity).max() ?? .error
                    cases +=
                        "      <failure type=\"\(worst.rawValue)\" message=\"\(JUnitReporter.escape("\(failing.count) finding(s): \(d.title)"))\">"
                    cases += JUnitReporter.escapedLines(failing) + "</failure>\n"
                }
                if !rest.isEmpty {
                    cases += "      <system-out>" + JUnitReporter.escapedLines(rest) + "</system-out>\n"
                }
                cases += "    </testcase>\n"
            }
            totals.tests += rules.count
            totals.failures += failures
            suites +=
                "  <testsuite name=\"\(JUnitReporter.escape(name))\" tests=\"\(rules.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
            suites += cases + "  </testsuite>\n"
        }
        for (k, d) in devices.enumerated() {
            let name =
                d.proto == .ssdp
                ? "ssdp uuid:\(d.id) (\(d.addresses.joined(separator: ", ")))"
                : "mdns \(d.id) (\(d.addresses.joined(separator: ", ")))"
            suite(name, rules: s.rulesChecked.filter { $0.proto == d.proto }, found: byDevice[k] ?? [:])
        }
        if !other.isEmpty || devices.isEmpty {
            let rules = devices.isEmpty ? s.rulesChecked : s.rulesChecked.filter { other[$0.id] != nil }
            suite(devices.isEmpty ? "no device answered" : "other senders", rules: rules, found: other)
        }
        var errors = 0
        if !s.inputErrors.isEmpty {
            suites +=
                "  <testsuite name=\"capture\" tests=\"\(s.inputErrors.count)\" failures=\"0\" errors=\"\(s.inputErrors.count)\" skipped=\"0\" time=\"0\">\n"
            for e in s.inputErrors {
                suites +=
                    "    <testcase classname=\"discoscope.input\" name=\"\(JUnitReporter.escape(e))\" time=\"0\">\n"
                suites += "      <error type=\"input\" message=\"\(JUnitReporter.escape(e))\"/>\n    </testcase>\n"
            }
            suites += "  </testsuite>\n"
            errors = s.inputErrors.count
        }
        var doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        doc +=
            "<testsuites name=\"discoscope probe\" tests=\"\(totals.tests + errors)\" failures=\"\(totals.failures)\" errors=\"\(errors)\" time=\"\(JUnitReporter.seconds(s.elapsedSeconds))\">\n"
        doc += suites + "</testsuites>\n"
        sink.write(doc)
        sink.flush()
    }
}
