import Foundation
import TestSupport
import Testing

/// `packaging/systemd/discoscope@.service` passes `systemd-analyze verify` without a word:
/// the unit is copied to a temporary directory with ExecStart pointing at the built binary
/// (verify checks that it exists), as the template and as an instance.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
        "systemd-analyze is not installed: the unit is not verified"))
struct SystemdUnitTests {
    static let unit = Fixtures.packageRoot + "/packaging/systemd/discoscope@.service"

    /// `systemd-analyze verify` on `text` saved as `name` in a fresh directory.
    func verify(_ text: String, as name: String) throws -> ProcessResult {
        let dir = NSTemporaryDirectory() + "discoscope-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        return try runProcess("/usr/bin/systemd-analyze", ["verify", "--man=no", dir + "/" + name])
    }

    func builtUnit() throws -> String {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        #expect(text.contains("ExecStart=/usr/local/bin/discoscope capture -i %i "))
        return text.replacingOccurrences(of: "/usr/local/bin/discoscope", with: Fixtures.binary)
    }

    @Test(arguments: ["discoscope@.service", "discoscope@eth0.service"])
    func theUnitVerifiesWithoutAnyWarning(name: String) throws {
        let r = try verify(try builtUnit(), as: name)
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    /// The check can fail: a misspelt key and a missing binary are both reported.
    @Test func verifyReportsAMisspeltKeyAndAMissingBinary() throws {
        let broken = try builtUnit().replacingOccurrences(of: "UMask=", with: "UMaks=")
            .replacingOccurrences(of: Fixtures.binary, with: "/nonexistent/discoscope")
        let r = try verify(broken, as: "discoscope@eth0.service")
        #expect(r.stderr.contains("Unknown key 'UMaks'") && r.stderr.contains("/nonexistent/discoscope"), "\(r.stderr)")
    }

    /// What the unit promises in its settings (README and docs/SENSOR.md describe them).
    @Test func theUnitRunsUnprivilegedWithOnlyTheCaptureCapabilitiesAndReloadsWithSIGHUP() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        for line in [
            "DynamicUser=yes", "AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN",
            "CapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN", "NoNewPrivileges=yes", "ProtectSystem=strict",
            "ProtectHome=yes", "PrivateTmp=yes", "StateDirectory=discoscope/%i", "LogsDirectory=discoscope/%i",
            "RestrictAddressFamilies=AF_PACKET AF_INET AF_INET6 AF_NETLINK AF_UNIX",
            "ExecReload=/bin/kill -HUP $MAINPID",
        ] {
            #expect(text.split(separator: "\n").contains { $0 == line }, "\(line)")
        }
    }

    /// The unit's ExecStart (all but --metrics, which the metrics work adds, and the
    /// per-interface options) is a command line `capture` accepts: its options are checked
    /// before any interface is opened, so with an interface that does not exist the run
    /// fails on the interface, having accepted everything else.
    @Test func theUnitsCaptureOptionsAreAcceptedByCapture() throws {
        let text = try String(contentsOfFile: Self.unit, encoding: .utf8)
        guard let start = text.range(of: "ExecStart=/usr/local/bin/discoscope ") else {
            Issue.record("no ExecStart")
            return
        }
        var command = ""
        for line in text[start.upperBound...].split(separator: "\n") {
            command += line.hasSuffix("\\") ? line.dropLast() : line
            if !line.hasSuffix("\\") { break }
        }
        let dir = NSTemporaryDirectory()
        let words = command.split(separator: " ").map(String.init).filter { !$0.isEmpty }
        #expect(words.contains("--metrics") && words.contains("--append") && words.contains("-G"), "\(words)")
        var args: [String] = []
        var k = 0
        while k < words.count {
            let w = words[k]
            k += 1
            if w == "--metrics" {
                k += 1
                continue
            }
            if w == "$DISCOSCOPE_OPTIONS" { continue }
            args.append(
                w.replacingOccurrences(of: "%i", with: "no-such-if0").replacingOccurrences(of: "%%", with: "%")
                    .replacingOccurrences(of: "${STATE_DIRECTORY}", with: dir)
                    .replacingOccurrences(of: "${LOGS_DIRECTORY}", with: dir))
        }
        let r = try discoscope(args)
        #expect(r.status == 2 && r.stderr.contains("no-such-if0"), "\(args): \(r.stderr)")
        #expect(!r.stderr.contains("usage:"), "\(r.stderr)")
    }
}
