import DNS
import Findings
import NetLayers
import WireFormat

// PROF-001 … PROF-021: the Matter discovery contract (CSA Matter Core §4.3), as
// shared/rules/profiles.md reads it from the certification harness (connectedhomeip
// `src/python_testing`) and the SDK (`src/lib/dnssd`). The rules judged from one message are
// here; PROF-005, 007, 009 and 011 join records across packets (MatterSessionRules.swift).
//
// Split between PROF-001/010/012 and PROF-020: the commissioner rule PROF-020 judges a
// `_matterd._udp` instance's name, VP, DT and DN with the checks of PROF-001, 010 and 012
// (its row says "per PROF-001", "follow PROF-010/012"), so those three judge commissionable
// nodes only and no defect is reported under two IDs.

/// PROF-001: a commissionable node's instance name is 16 uppercase hexadecimal characters.
struct MatterCommissionableInstanceNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-001", "matter-commissionable-instance-name", .error,
        "A commissionable node's instance name is 16 uppercase hexadecimal characters",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1; harness assert_valid_commissionable_instance_name; TC-SC-4.1 step 11; SDK Constants.h kInstanceNameMaxLength",
        "A `_matterc._udp` instance name is a 64-bit randomly chosen identifier written as exactly sixteen uppercase hexadecimal characters. A commissioner's (`_matterd._udp`) is judged the same way by PROF-020.",
        example: "4ba9831ae57ce2f9._matterc._udp.local. (lower case)")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(instance: "4ba9831ae57ce2f9")),
            RuleExample(MatterExample.commissionable(instance: "MyDevice")),
            RuleExample(MatterExample.commissionable(instance: "4BA9831AE57CE2F")),
        ],
        nonTriggering: [RuleExample(MatterExample.commissionable(instance: "4BA9831AE57CE2F9"))])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        judgeName(i, in: m, as: descriptor, into: &out)
    }

    /// Reports (under `d`) an instance name that is not 16 uppercase hexadecimal characters.
    static func judgeName(
        _ i: ProfileInstance, in m: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judges(m), let r = Matter.instanceLabel(i, in: p) else { return }
        let shape = MatterHex(p, r, lengths: 16)
        guard shape != .upper else { return }
        out.report(
            d,
            "instance name \(MDNSText.show(p[r])) of \(m.name(i.name)) is not a 64-bit identifier as 16 uppercase hexadecimal characters (\(shape.text))"
        )
    }
}

/// PROF-002: an operational instance name is `<compressed fabric ID>-<node ID>`.
struct MatterOperationalInstanceNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-002", "matter-operational-instance-name", .error,
        "An operational instance name is <compressed fabric ID>-<node ID> in uppercase hexadecimal",
        profiles: ServiceProfiles(.matterOperational),
        spec:
            "Matter Core §4.3.2 Operational Instance Name (subsection not confirmed); harness assert_valid_operational_instance_name; TC-SC-4.3 step 5; SDK ServiceNaming.cpp MakeInstanceName",
        "A `_matter._tcp` instance name is the 64-bit compressed fabric ID and the 64-bit node ID, each as sixteen uppercase hexadecimal characters of fixed length, joined by one hyphen (33 characters).",
        basis: .notConfirmed, example: "2906C908D115D362-1B669._matter._tcp.local. (node ID not zero-padded)")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.operational(instance: "2906c908d115d362-8fc7772401cd0696")),
            RuleExample(MatterExample.operational(instance: "2906C908D115D362-1B669")),
            RuleExample(MatterExample.operational(instance: "2906C908D115D3628FC7772401CD0696")),
        ],
        nonTriggering: [RuleExample(MatterExample.operational(instance: "2906C908D115D362-000000000001B669"))])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judges(m), let r = Matter.instanceLabel(i, in: p) else { return }
        var why: String? = nil
        if r.count == 33, p[r.lowerBound + 16] == 0x2D {
            let fabric = MatterHex(p, r.lowerBound..<(r.lowerBound + 16), lengths: 16)
            let node = MatterHex(p, (r.lowerBound + 17)..<r.upperBound, lengths: 16)
            if fabric != .upper { why = "compressed fabric ID \(fabric.text)" }
            if node != .upper { why = (why.map { $0 + ", " } ?? "") + "node ID \(node.text)" }
            guard let why else { return }
            report(i, r, why, m, &out)
        } else {
            report(i, r, r.count == 33 ? "no hyphen after 16 characters" : "\(r.count) characters, not 33", m, &out)
        }
    }

    private static func report(
        _ i: ProfileInstance, _ r: Range<Int>, _ why: String, _ m: MDNSMessageView, _ out: inout FindingSink
    ) {
        out.report(
            descriptor,
            "operational instance name \(MDNSText.show(m.message.payload[r])) of \(m.name(i.name)) is not <compressed fabric ID>-<node ID>, two 16-character uppercase hexadecimal strings joined by a hyphen (\(why))"
        )
    }
}

/// PROF-003: the SRV target of a Matter service is built from a link-layer address.
struct MatterHostNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-003", "matter-host-name", .error,
        "A Matter SRV target is a MAC (12) or Thread Extended Address (16) in uppercase hexadecimal",
        profiles: .matter,
        spec:
            "Matter Core §4.3.1.1 Host Name Construction (connectedhomeip#33474); harness assert_valid_hostname; TC-SC-4.3 step 9; SDK ServiceNaming.cpp MakeHostName",
        "The SRV target of `_matterc._udp`, `_matterd._udp` and `_matter._tcp` is one of the node's link-layer addresses, a 48-bit MAC (Wi-Fi, Ethernet) or a 64-bit Extended Address (Thread), as a fixed-length string of 12 or 16 uppercase hexadecimal characters, followed by the domain. The SDK's 40-byte host name limit is a workaround for Android's names, not a relaxation.",
        interop: "LIT ICDs could not resolve Android's NsdManager host names (connectedhomeip#33474)",
        example: "SRV target Android_25101c8afe6a479387b1d63318378d56.local.")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.operational(host: "Android_25101c8afe6a479387b1d63318378d56.local")),
            RuleExample(MatterExample.commissionable(host: "240ac48e5170.local")),
            RuleExample(MatterExample.commissionable(host: "esp32-light.local")),
            RuleExample(MatterExample.commissionable(host: "240AC48E5170.lamp.local")),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(host: "240AC48E5170.local")),
            RuleExample(MatterExample.operational(host: "F4939FF4A4DA0000.local")),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judges(m), let t = Matter.target(i, in: m), let r = t.name.firstLabelRange(in: p) else { return }
        let shape = MatterHex(p, r, lengths: 12, 16)
        // The instance is <label>.<service>.<proto>.<domain>; its host <label>.<domain>.
        let extra = t.info.labelCount != m.records[t.srv].labelCount - 2
        guard shape != .upper || extra else { return }
        out.report(
            descriptor,
            "SRV target \(m.name(t.name)) of \(m.name(i.name)) is not a link-layer address as 12 or 16 uppercase hexadecimal characters followed by the domain (\(shape == .upper ? "more labels than the domain" : shape.text))"
        )
    }
}

/// PROF-004: a MAC-style Matter host name matches the sender's MAC.
struct MatterHostNameMACRule: DatagramRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-004", "matter-host-name-mac", .info, "A 12-digit Matter host name is the sender's MAC",
        profiles: .matter, spec: "Matter Core §4.3.1.1 (derived)",
        "When the capture has the link-layer source address of a message, the 12-hexadecimal-digit SRV target of a Matter service in it is expected to be that MAC, upper-cased without separators. Another interface's MAC is legitimate, so this is an observation; it often shows a placeholder or cloned host name. Not judged for a forwarder's copy of another link's records.",
        example: "host B75AFB458ECD.local. in an Ethernet frame from 24:0a:c4:8e:51:70")
    static let examples = RuleExamples(
        triggering: [RuleExample(from(MatterExample.commissionable(host: "B75AFB458ECD.local")))],
        nonTriggering: [
            RuleExample(from(MatterExample.commissionable(host: "240AC48E5170.local"))),
            // Near miss: a Thread node's 16-digit Extended Address is no MAC of the frame.
            RuleExample(from(MatterExample.operational(host: "F4939FF4A4DA0000.local"))),
        ])

    /// `d` sent from `MatterExample.mac`.
    static func from(_ d: Datagram) -> Datagram {
        var d = d
        d.sourceMAC = MACBytes(MatterExample.mac)
        return d
    }

    static func check(_ input: MDNSInput, into out: inout FindingSink) {
        let m = input.view
        guard !m.profileInstances.isEmpty, input.datagram.sourceMAC.count == 6, Matter.judges(m), !input.isRelayed
        else { return }
        let p = m.message.payload
        let mac = input.datagram.sourceMAC.bits
        var judged: [UInt64] = []
        for i in m.profileInstances {
            let both = ServiceProfiles(rawValue: i.profiles.rawValue & descriptor.profiles.rawValue)
            guard let profile = both.first, let t = Matter.target(i, in: m),
                let r = t.name.firstLabelRange(in: p), r.count == 12, !judged.contains(t.info.key),
                let named = hex(p[r]), named != mac
            else { continue }
            judged.append(t.info.key)
            out.profile = profile
            out.report(
                descriptor,
                "SRV target \(m.name(t.name)) of \(m.name(i.name)) is not the MAC the message came from (\(colons(input.datagram.sourceMAC))): a Matter host name is built from one of the node's link-layer addresses"
            )
        }
        out.profile = nil
    }

    /// Hexadecimal digits (either case) as a number; nil for any other byte.
    static func hex(_ b: ArraySlice<UInt8>) -> UInt64? {
        var v: UInt64 = 0
        for c in b {
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c &- 0x30
            case 0x41...0x46: d = c &- 0x37
            case 0x61...0x66: d = c &- 0x57
            default: return nil
            }
            v = v << 4 | UInt64(d)
        }
        return v
    }

    static func colons(_ mac: MACBytes) -> String { hexString(mac.bytes, separator: 0x3A) }
}

/// PROF-006: a commissionable node's TXT has `D`, the 12-bit discriminator.
struct MatterDiscriminatorRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-006", "matter-discriminator", .error,
        "A commissionable node's TXT has D, its discriminator, a Matter decimal of 0–4095",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.5 TXT key for discriminator (D); harness assert_valid_d_key; TC-SC-4.1 _verify_txt_record_keys; SDK kKeyLongDiscriminatorMaxLength",
        "`D` is the one key a `_matterc._udp` TXT must have: the full 12-bit discriminator as a Matter decimal (ASCII digits, no leading zero) of 0 to 4095.",
        example: "_matterc._udp TXT D=03840")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["CM=1"])),
            RuleExample(MatterExample.commissionable(["D=03840"])),
            RuleExample(MatterExample.commissionable(["D=4096"])),
            RuleExample(MatterExample.commissionable(["D=0xF00"])),
            RuleExample(MatterExample.commissionable(["D="])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840"])),
            RuleExample(MatterExample.commissionable(["D=0"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        guard Matter.judgesTXT(i, m) else { return }
        let p = m.message.payload
        guard let pair = Matter.pair("D", of: i, in: m) else {
            out.report(
                descriptor,
                "TXT of \(m.name(i.name)) has no D key: the discriminator is the one key a commissionable node must advertise"
            )
            return
        }
        if case .failure(let f) = Matter.value(pair, .discriminator, in: p) {
            out.report(
                descriptor,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the discriminator \(MatterNumber.discriminator.problem(f))"
            )
        }
    }
}

/// PROF-008: `CM`, when present, is 0, 1 or 2 (3 in the newest harness).
struct MatterCommissioningModeRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-008", "matter-commissioning-mode", .error, "CM, when present, is 0, 1 or 2; its absence means 0",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.7 TXT key for commissioning mode (CM) (connectedhomeip#13509, esp-matter#970); harness assert_valid_cm_key; SDK kKeyCommissioningModeMaxLength",
        "`CM` says whether the node is in commissioning mode: 1 with the onboarding-payload passcode, 2 with a window opened with a generated passcode, 0 not (Extended Discovery); an absent `CM` means 0. The value is a one-digit Matter decimal; 3, accepted by the newest harness with a meaning not confirmed, is accepted.",
        basis: .notConfirmed, example: "_matterc._udp TXT CM=true")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "CM=4"])),
            RuleExample(MatterExample.commissionable(["D=3840", "CM=01"])),
            RuleExample(MatterExample.commissionable(["D=3840", "CM=true"])),
            RuleExample(MatterExample.commissionable(["D=3840", "CM="])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "CM=2"])),
            RuleExample(MatterExample.commissionable(["D=3840"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m), let pair = Matter.pair("CM", of: i, in: m),
            case .failure(let f) = Matter.value(pair, .commissioningMode, in: p)
        else { return }
        out.report(
            descriptor,
            "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the commissioning mode \(MatterNumber.commissioningMode.problem(f))"
        )
    }
}

/// PROF-010: `VP` is `<vendor>` or `<vendor>+<product>`.
struct MatterVendorProductRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-010", "matter-vendor-product", .error,
        "VP is <vendor> or <vendor>+<product>, each a Matter decimal of 0–65535",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.6 TXT key for vendor ID and product ID (VP); harness assert_valid_vp_key, assert_valid_vendor_id, assert_valid_product_id; SDK kKeyVendorProductMaxLength, GetVendor/GetProduct",
        "`VP` holds the vendor ID, or the vendor ID, one `+` and the product ID: each a Matter decimal of at most 65535 (five digits), the product not empty after a `+`. The SDK reads a value it cannot parse as vendor 0. A commissioner's `VP` is judged the same way by PROF-020.",
        example: "_matterc._udp TXT VP=65521+")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "VP=65521+"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=0xFFF1+0x8000"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=65521+32768+1"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=70000"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=065521"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "VP=65521+32768"])),
            RuleExample(MatterExample.commissionable(["D=3840", "VP=4447"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        guard Matter.judgesTXT(i, m) else { return }
        judgeVP(i, in: m, as: descriptor, into: &out)
    }

    /// The vendor and product of a `VP` value: nil when it is not `<vendor>[+<product>]` with
    /// both in range.
    static func parse(_ p: [UInt8], _ v: Range<Int>) -> (vendor: UInt64, product: UInt64?)? {
        guard let plus = p[v].firstIndex(of: 0x2B) else {
            guard case .success(let vendor) = MatterNumber.vendorID.parse(p[v]) else { return nil }
            return (vendor, nil)
        }
        guard case .success(let vendor) = MatterNumber.vendorID.parse(p[v.lowerBound..<plus]),
            case .success(let product) = MatterNumber.productID.parse(p[(plus + 1)..<v.upperBound])
        else { return nil }
        return (vendor, product)
    }

    /// Reports (under `d`) a `VP` that is not `<vendor>[+<product>]`.
    static func judgeVP(_ i: ProfileInstance, in m: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink)
    {
        let p = m.message.payload
        guard let pair = Matter.pair("VP", of: i, in: m) else { return }
        let v = pair.value ?? pair.key.upperBound..<pair.key.upperBound
        guard parse(p, v) == nil else { return }
        let why: String
        if let plus = p[v].firstIndex(of: 0x2B) {
            let vendor = MatterNumber.vendorID.parse(p[v.lowerBound..<plus])
            let product = MatterNumber.productID.parse(p[(plus + 1)..<v.upperBound])
            if ASCII.count(0x2B, in: p[v]) > 1 {
                why = "more than one +"
            } else if case .failure(let f) = vendor {
                why = "the vendor ID \(MatterNumber.vendorID.problem(f))"
            } else if case .failure(let f) = product {
                why = "the product ID after + \(MatterNumber.productID.problem(f))"
            } else {
                why = "not <vendor>+<product>"
            }
        } else if case .failure(let f) = MatterNumber.vendorID.parse(p[v]) {
            why = "the vendor ID \(MatterNumber.vendorID.problem(f))"
        } else {
            why = "not <vendor>+<product>"
        }
        out.report(d, "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)) is not <vendor>[+<product>]: \(why)")
    }
}

/// PROF-012: `DT` is a 32-bit Matter decimal; `DN` UTF-8 of at most 32 bytes.
struct MatterDeviceTypeNameRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-012", "matter-device-type-name", .error,
        "DT is a 32-bit Matter decimal, DN non-empty UTF-8 of at most 32 bytes",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.8 TXT key for device type (DT), §4.3.1.9 TXT key for device name (DN); harness assert_valid_dt_key, assert_valid_dn_key; TC-SC-4.1; SDK kKeyDeviceTypeMaxLength, kKeyDeviceNameMaxLength",
        "`DT`, the primary device type, is a Matter decimal of at most 4294967295; `DN`, the user-facing device name, is valid UTF-8 of at most 32 bytes. A key that is present has a non-empty value. A commissioner's are judged the same way by PROF-020.",
        example: "_matterc._udp TXT DN= (empty)")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "DN="])),
            RuleExample(MatterExample.commissionable(["D=3840", "DN=" + String(repeating: "x", count: 40)])),
            RuleExample(
                MatterExample.commissionable(
                    rdata: MatterExample.rawTXT([Array("D=3840".utf8), Array("DN=Caf".utf8) + [0xE9]]))),
            RuleExample(MatterExample.commissionable(["D=3840", "DT=0x0100"])),
            RuleExample(MatterExample.commissionable(["D=3840", "DT=4294967296"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "DN=Living Room"])),
            RuleExample(MatterExample.commissionable(["D=3840", "DT=256"])),
            // Near miss: 32 bytes of UTF-8 (16 two-byte characters).
            RuleExample(MatterExample.commissionable(["D=3840", "DN=" + String(repeating: "é", count: 16)])),
        ])

    static let maxNameBytes = 32

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        guard Matter.judgesTXT(i, m) else { return }
        judgeDTDN(i, in: m, as: descriptor, into: &out)
    }

    /// Reports (under `d`) a `DT` or `DN` out of form.
    static func judgeDTDN(
        _ i: ProfileInstance, in m: MDNSMessageView, as d: RuleDescriptor, into out: inout FindingSink
    ) {
        let p = m.message.payload
        if let pair = Matter.pair("DT", of: i, in: m), case .failure(let f) = Matter.value(pair, .deviceType, in: p) {
            out.report(
                d,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the device type \(MatterNumber.deviceType.problem(f))"
            )
        }
        guard let pair = Matter.pair("DN", of: i, in: m) else { return }
        let v = pair.value ?? pair.key.upperBound..<pair.key.upperBound
        if v.isEmpty {
            out.report(d, "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): DN is present with no value")
        } else if !ASCII.isValidUTF8(p, v) {
            out.report(d, "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the device name is not valid UTF-8")
        } else if v.count > maxNameBytes {
            out.report(
                d,
                "TXT DN of \(m.name(i.name)) is \(v.count) bytes: the device name is at most \(maxNameBytes) bytes of UTF-8"
            )
        }
    }
}

/// PROF-013: `RI` is uppercase hexadecimal of even length, 2 to 100 characters.
struct MatterRotatingIDRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-013", "matter-rotating-id", .error,
        "RI is uppercase hexadecimal of even length, 2 to 100 characters",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.10 TXT key for rotating device identifier (RI); harness assert_valid_ri_key; SDK tests/TestTxtFields.cpp TestGetRotatingDeviceId, kKeyRotatingDeviceIdMaxLength",
        "`RI`, the rotating device identifier, is at most 50 octets written as hexadecimal: an even number of characters, 2 to 100, with no separator or `0x` prefix (error). Lower-case digits are read by the SDK but devices should not send them (warning).",
        example: "_matterc._udp TXT RI=0A1BC (odd length)", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "RI=0A1BC"]), severity: .error),
            RuleExample(MatterExample.commissionable(["D=3840", "RI=0x0A1B"]), severity: .error),
            RuleExample(
                MatterExample.commissionable(["D=3840", "RI=" + String(repeating: "0A", count: 51)]), severity: .error),
            RuleExample(MatterExample.commissionable(["D=3840", "RI=0a1b"]), severity: .warning),
        ],
        nonTriggering: [RuleExample(MatterExample.commissionable(["D=3840", "RI=0A1B2C3D"]))])

    static let maxCharacters = 100

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m), let pair = Matter.pair("RI", of: i, in: m) else { return }
        let v = pair.value ?? pair.key.upperBound..<pair.key.upperBound
        let shape = MatterHex(p, v, lengths: v.count)
        if shape == .notHex || v.count < 2 || v.count > maxCharacters || v.count % 2 != 0 {
            let why =
                shape == .notHex
                ? "not hexadecimal" : v.count % 2 != 0 ? "an odd number of characters" : "\(v.count) characters"
            out.report(
                descriptor,
                "TXT RI of \(m.name(i.name)) is not hexadecimal of even length, 2 to 100 characters (\(why)): \(Matter.show(pair, in: p))"
            )
        } else if shape == .lowerCase {
            out.report(
                descriptor, severity: .warning,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)) has lower-case hexadecimal digits: RI is written in capitals"
            )
        }
    }
}

/// PROF-014: `PH` and `PI`, and the bits of `PH` that need `PI`.
struct MatterPairingHintRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-014", "matter-pairing-hint", .error,
        "PH is a non-zero bitmap of bits 0–22, PI UTF-8 of at most 128 bytes, present exactly when PH needs it",
        profiles: ServiceProfiles(.matterCommissionable),
        spec:
            "Matter Core §4.3.1.11 TXT key for pairing hint (PH), §4.3.1.12 TXT key for pairing instructions (PI); harness assert_valid_ph_key, assert_valid_pi_key, assert_valid_ph_pi_relationship; matter.js DiscoveryData",
        "`PH`, the pairing hint, is a Matter decimal above 0 with only bits 0 to 22 set. `PI`, the pairing instruction, is UTF-8 of at most 128 bytes. A `PH` with any of bits 4, 8, 10, 12, 15, 17, 19, 20, 21 or 22 needs `PI`; a `PI` needs a `PH` with one of bits 4, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 20, 21 or 22.",
        example: "_matterc._udp TXT PH=16 without PI")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "PH=0"])),
            RuleExample(MatterExample.commissionable(["D=3840", "PH=16"])),
            RuleExample(MatterExample.commissionable(["D=3840", "PH=33", "PI=Press the button"])),
            RuleExample(MatterExample.commissionable(["D=3840", "PH=8388608"])),
            RuleExample(MatterExample.commissionable(["D=3840", "PI=Press the button"])),
            RuleExample(
                MatterExample.commissionable(["D=3840", "PH=256", "PI=" + String(repeating: "x", count: 129)])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "PH=33"])),
            RuleExample(MatterExample.commissionable(["D=3840", "PH=256", "PI=10"])),
        ])

    /// The bits of `PH` whose hint needs a `PI`, and those a `PI` may go with.
    static let needsPI: UInt64 = bits(4, 8, 10, 12, 15, 17, 19, 20, 21, 22)
    static let takesPI: UInt64 = bits(4, 8, 9, 10, 11, 12, 15, 16, 17, 18, 19, 20, 21, 22)
    static let maxPIBytes = 128

    static func bits(_ b: UInt64...) -> UInt64 { b.reduce(0) { $0 | 1 << $1 } }

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m) else { return }
        let ph = Matter.pair("PH", of: i, in: m)
        let pi = Matter.pair("PI", of: i, in: m)
        guard ph != nil || pi != nil else { return }
        var hint: UInt64? = nil
        if let ph {
            switch Matter.value(ph, .pairingHint, in: p) {
            case .success(0):
                out.report(
                    descriptor, "TXT \(Matter.show(ph, in: p)) of \(m.name(i.name)): a pairing hint of 0 is illegal")
            case .success(let v):
                hint = v
            case .failure(.tooLarge):
                out.report(
                    descriptor,
                    "TXT \(Matter.show(ph, in: p)) of \(m.name(i.name)) sets a bit above 22: the pairing hint has bits 0–22 only"
                )
            case .failure(let f):
                out.report(
                    descriptor,
                    "TXT \(Matter.show(ph, in: p)) of \(m.name(i.name)): the pairing hint \(MatterNumber.pairingHint.problem(f))"
                )
            }
        }
        if let pi {
            let v = pi.value ?? pi.key.upperBound..<pi.key.upperBound
            if !ASCII.isValidUTF8(p, v) {
                out.report(descriptor, "TXT PI of \(m.name(i.name)) is not valid UTF-8: \(Matter.show(pi, in: p))")
            } else if v.count > maxPIBytes {
                out.report(
                    descriptor,
                    "TXT PI of \(m.name(i.name)) is \(v.count) bytes: the pairing instruction is at most \(maxPIBytes) bytes"
                )
            }
        }
        if let hint, hint & needsPI != 0, pi == nil {
            out.report(
                descriptor,
                "TXT PH=\(hint) of \(m.name(i.name)) sets a bit whose hint needs a pairing instruction (4, 8, 10, 12, 15, 17, 19–22), but there is no PI"
            )
        }
        if let pi, ph == nil || (hint.map { $0 & takesPI == 0 } ?? false) {
            out.report(
                descriptor,
                "TXT \(Matter.show(pi, in: p)) of \(m.name(i.name)) comes with \(hint.map { "PH=\($0), which has" } ?? "no PH, so") none of the bits a pairing instruction goes with (4, 8–12, 15–22)"
            )
        }
    }
}

/// PROF-015: `SII`, `SAI` and `SAT`, the MRP intervals.
struct MatterSessionIntervalsRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-015", "matter-session-intervals", .error,
        "SII and SAI are Matter decimals of at most 3600000, SAT of at most 65535, and SAT comes with SAI",
        profiles: .matter,
        spec:
            "Matter Core §4.3.4 Common TXT Key/Value Pairs; harness assert_valid_sii_key, assert_valid_sai_key, assert_valid_sat_key; TC-SC-4.1; SDK kMaxRetryInterval, GetRetryInterval",
        "In all three Matter services: `SII` and `SAI`, the session idle and active intervals in milliseconds, are Matter decimals of at most 3600000; `SAT`, the session active threshold, of at most 65535; a TXT with `SAT` also has `SAI`. Receivers treat a value that is invalid or out of range as absent, so the node silently loses its MRP parameters.",
        interop: "receivers treat an invalid or out-of-range value as absent and use default MRP intervals",
        example: "TXT SAI=3600001")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "SII=05000"])),
            RuleExample(MatterExample.commissionable(["D=3840", "SAI=3600001"])),
            RuleExample(MatterExample.operational(["SAI=300", "SAT=70000"])),
            RuleExample(MatterExample.operational(["SII=5000", "SAT=4000"])),
            RuleExample(MatterExample.commissionable(["D=3840", "SII=5s"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissionable(["D=3840", "SII=5000", "SAI=300"])),
            RuleExample(MatterExample.operational(["SAI=300", "SAT=4000"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        guard Matter.judgesTXT(i, m) else { return }
        let p = m.message.payload
        let keys: [(StaticString, MatterNumber, String)] = [
            ("SII", .sessionInterval, "session idle interval"), ("SAI", .sessionInterval, "session active interval"),
            ("SAT", .activeThreshold, "session active threshold"),
        ]
        for (key, n, what) in keys {
            guard let pair = Matter.pair(key, of: i, in: m), case .failure(let f) = Matter.value(pair, n, in: p)
            else { continue }
            out.report(
                descriptor,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the \(what) \(n.problem(f)); receivers ignore it"
            )
        }
        if let sat = Matter.pair("SAT", of: i, in: m), Matter.pair("SAI", of: i, in: m) == nil {
            out.report(
                descriptor,
                "TXT of \(m.name(i.name)) has \(Matter.show(sat, in: p)) but no SAI: the active threshold needs the active interval"
            )
        }
    }
}

/// PROF-016: `T` is 0, 2, 4 or 6.
struct MatterTransportsRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-016", "matter-transports", .error, "T is a bitmap of TCP client (bit 1) and server (bit 2): 0, 2, 4 or 6",
        profiles: .matter,
        spec:
            "Matter Core §4.3.4; harness assert_valid_t_key; TC-SC-4.1 verify_t_key; TC-SC-4.3 MAX_T_VALUE; older SDK TxtFields.cpp MakeBoolFromAsciiDecimal; esp-matter#1674",
        "`T`, the supported transports, is a Matter decimal bitmap with bit 1 (TCP client) and bit 2 (TCP server) defined and bit 0 reserved and clear: 0, 2, 4 or 6 (error otherwise). `T=1` is the Matter 1.0–1.2 reading (\"1 = TCP supported\", parsed as a boolean by the SDK of then) and is reported as a legacy value (warning). Whether a node that supports TCP includes `T` is not visible in packets.",
        example: "TXT T=7", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.operational(["T=7"]), severity: .error),
            RuleExample(MatterExample.operational(["T=8"]), severity: .error),
            RuleExample(MatterExample.operational(["T=04"]), severity: .error),
            RuleExample(MatterExample.commissionable(["D=3840", "T=3"]), severity: .error),
            RuleExample(MatterExample.operational(["T=1"]), severity: .warning),
        ],
        nonTriggering: [
            RuleExample(MatterExample.operational(["T=0"])),
            RuleExample(MatterExample.operational(["T=4"])),
            RuleExample(MatterExample.commissionable(["D=3840", "T=6"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m), let pair = Matter.pair("T", of: i, in: m) else { return }
        switch Matter.value(pair, .transports, in: p) {
        case .success(1):
            out.report(
                descriptor, severity: .warning,
                "TXT T=1 of \(m.name(i.name)) is the Matter 1.0–1.2 reading (TCP supported); since 1.3 T is a bitmap whose bit 0 is reserved: 2 (TCP client), 4 (TCP server) or 6"
            )
        case .success(let v) where v & 1 != 0:
            out.report(
                descriptor,
                "TXT T=\(v) of \(m.name(i.name)) sets bit 0, which is reserved: T is 0, 2, 4 or 6")
        case .success:
            return
        case .failure(.tooLarge):
            out.report(
                descriptor,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)) sets bits other than 1 (TCP client) and 2 (TCP server): T is 0, 2, 4 or 6"
            )
        case .failure(let f):
            out.report(
                descriptor,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): the transports bitmap \(MatterNumber.transports.problem(f))"
            )
        }
    }
}

/// PROF-017: `ICD` is 0 or 1, and comes with `SAI` (and with `SII` when 0).
struct MatterICDRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-017", "matter-icd", .error, "ICD is 0 or 1, with SAI, and with SII when 0", profiles: .matter,
        spec:
            "Matter Core §4.3.4; harness assert_valid_icd_key; TC-SC-4.1 _verify_txt_record_keys; SDK kKeyLongIdleTimeICDMaxLength",
        "`ICD`, when present, is 0 or 1 (1: operating as a Long Idle Time ICD). A node that advertises it supports the ICD Management cluster, so it advertises `SAI` too; with `ICD=0` (a LIT-capable node operating in SIT mode) also `SII`.",
        example: "TXT ICD=1 without SAI")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.operational(["SII=5000", "SAI=300", "ICD=2"])),
            RuleExample(MatterExample.operational(["SII=5000", "SAI=300", "ICD=true"])),
            RuleExample(MatterExample.operational(["SAI=300", "ICD=0"])),
            RuleExample(MatterExample.commissionable(["D=3840", "SII=5000", "ICD=1"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.operational(["ICD=1", "SAI=300"])),
            RuleExample(MatterExample.commissionable(["D=3840", "ICD=0", "SII=5000", "SAI=300"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m), let pair = Matter.pair("ICD", of: i, in: m) else { return }
        switch Matter.value(pair, .icd, in: p) {
        case .failure(let f):
            out.report(
                descriptor, "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): ICD \(MatterNumber.icd.problem(f))")
        case .success(let v):
            if Matter.pair("SAI", of: i, in: m) == nil {
                out.report(
                    descriptor,
                    "TXT of \(m.name(i.name)) has ICD=\(v) but no SAI: an ICD-capable node advertises its active interval"
                )
            }
            if v == 0, Matter.pair("SII", of: i, in: m) == nil {
                out.report(
                    descriptor,
                    "TXT of \(m.name(i.name)) has ICD=0 but no SII: a node operating in SIT mode advertises its idle interval"
                )
            }
        }
    }
}

/// PROF-018: `_I<compressed fabric ID>._sub._matter._tcp` names the fabric of its instance.
struct MatterFabricSubtypeRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-018", "matter-fabric-subtype", .error,
        "_I<X> is the compressed fabric ID in 16 uppercase hexadecimal characters, and its instance starts with X-",
        profiles: ServiceProfiles(.matterOperational),
        spec:
            "Matter Core §4.3.2 operational subtypes (subsection not confirmed); TC-SC-4.3 step 10; SDK ServiceNaming.cpp MakeServiceSubtype kCompressedFabricId, kSubTypeCompressedFabricIdMaxLength",
        "The operational subtype `_I<X>._sub._matter._tcp` carries the 64-bit compressed fabric ID `X` as exactly sixteen uppercase hexadecimal characters, and the instance it points to is named `X-<node ID>`.",
        basis: .notConfirmed, example: "_I2906c908d115d362._sub._matter._tcp.local. (lower case)")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                MatterExample.operational(
                    instance: "2906c908d115d362-000000000001B669", subtypes: ["_I2906c908d115d362"])),
            RuleExample(
                MatterExample.operational(
                    instance: "AAAAAAAAAAAAAAAA-000000000001B669", subtypes: ["_I2906C908D115D362"])),
        ],
        nonTriggering: [RuleExample(MatterExample.operational(subtypes: ["_I2906C908D115D362"]))])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judges(m), let label = Matter.instanceLabel(i, in: p) else { return }
        Matter.forEachSubtype(of: i, in: m) { k, letter, x in
            guard letter == 0x69 else { return }
            let shape = MatterHex(p, x, lengths: 16)
            let owner = m.records[k].record.name
            if shape != .upper {
                out.report(
                    descriptor,
                    "subtype \(m.name(owner)) does not carry a compressed fabric ID as 16 uppercase hexadecimal characters (\(shape.text))"
                )
            }
            // The instance is X-<node ID> (case aside: PROF-002 judges it).
            let prefix = label.lowerBound..<(label.lowerBound + x.count)
            guard label.count > x.count, ASCII.equalsIgnoringCase(p, prefix, x), p[prefix.upperBound] == 0x2D
            else {
                out.report(
                    descriptor,
                    "subtype \(m.name(owner)) points to \(m.name(i.name)), whose name does not start with its compressed fabric ID \(MDNSText.show(p[x])) and a hyphen"
                )
                return
            }
        }
    }
}

/// PROF-019: an operational TXT has only the common keys.
struct MatterOperationalKeysRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-019", "matter-operational-keys", .info, "An operational TXT has the common keys only",
        profiles: ServiceProfiles(.matterOperational), spec: "SDK TxtFields.h TxtKeyUse (kCommission, kCommon)",
        "A `_matter._tcp` TXT carries the common keys (SII, SAI, SAT, T, ICD); the commissioning keys (D, VP, CM, DT, DN, RI, PH, PI) in an operational record are unexpected and usually mean the commissionable TXT was reused.",
        example: "_matter._tcp TXT D=3840 CM=1 SII=5000")
    static let examples = RuleExamples(
        triggering: [RuleExample(MatterExample.operational(["D=3840", "CM=1", "SII=5000"]))],
        nonTriggering: [RuleExample(MatterExample.operational(["SII=5000", "SAI=300", "T=0"]))])

    static let commissioningKeys: [StaticString] = ["D", "VP", "CM", "DT", "DN", "RI", "PH", "PI"]

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m),
            i.txtPairs(in: m).contains(where: { pair in
                commissioningKeys.contains { ASCII.equalsIgnoringCase(p, pair.key, $0) }
            })
        else { return }
        let found = i.txtPairs(in: m).filter { pair in
            commissioningKeys.contains { ASCII.equalsIgnoringCase(p, pair.key, $0) }
        }
        out.report(
            descriptor,
            "operational TXT of \(m.name(i.name)) has commissioning keys (\(found.map { MDNSText.show(p[$0.key]) }.joined(separator: ", "))), which belong in the commissionable TXT (reused here?)"
        )
    }
}

/// PROF-020: a commissioner's (`_matterd._udp`) name and keys.
struct MatterCommissionerRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-020", "matter-commissioner", .error,
        "A commissioner's instance name is 16 uppercase hexadecimal characters; VP, DT, DN are well formed and CP is 0 or 1",
        profiles: ServiceProfiles(.matterCommissioner),
        spec:
            "Matter Core §4.3.3 Commissioner Discovery (subsection not confirmed); SC-4.x helper verify_commissioner_txt_record_keys; SDK TxtFields.h kKeyCommissionerPasscodeMaxLength, TestGetCommissionerPasscode",
        "A `_matterd._udp` instance: its name as PROF-001 asks of a commissionable node's; every TXT key optional, but `VP`, `DT` and `DN`, when present, as PROF-010 and PROF-012 ask (non-empty); `CP`, commissioner-generated passcode support, 0 or 1. PROF-001, 010 and 012 leave commissioners to this rule.",
        basis: .notConfirmed, example: "_matterd._udp TXT CP=2")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(MatterExample.commissioner(["DN="])),
            RuleExample(MatterExample.commissioner(["CP=2"])),
            RuleExample(MatterExample.commissioner(["VP=65521+32769"], instance: "tv-living-room")),
            RuleExample(MatterExample.commissioner(["VP=65521+"])),
        ],
        nonTriggering: [
            RuleExample(MatterExample.commissioner(["VP=65521+32769", "DT=35", "DN=Living Room TV"])),
            RuleExample(MatterExample.commissioner(["CP=1"])),
        ])

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        MatterCommissionableInstanceNameRule.judgeName(i, in: m, as: descriptor, into: &out)
        guard Matter.judgesTXT(i, m) else { return }
        MatterVendorProductRule.judgeVP(i, in: m, as: descriptor, into: &out)
        MatterDeviceTypeNameRule.judgeDTDN(i, in: m, as: descriptor, into: &out)
        let p = m.message.payload
        if let pair = Matter.pair("CP", of: i, in: m),
            case .failure(let f) = Matter.value(pair, .commissionerPasscode, in: p)
        {
            out.report(
                descriptor,
                "TXT \(Matter.show(pair, in: p)) of \(m.name(i.name)): CP (commissioner passcode support) \(MatterNumber.commissionerPasscode.problem(f))"
            )
        }
    }
}

/// PROF-021: Matter keys are written in the case the specification defines.
struct MatterKeyCaseRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-021", "matter-key-case", .warning, "Matter TXT keys are written in their defined case", profiles: .matter,
        spec:
            "SDK TxtFields.cpp IsKey, TestGetTxtFieldKeyCaseInsensitive; TC-SC-4.1 (assert_in('D', txt_record.txt)); RFC 6763 §6.4",
        "Matter keys (D, VP, CM, DT, DN, RI, PH, PI, SII, SAI, SAT, T, ICD, CP) are written in upper case as defined. Keys are case-insensitive (RFC 6763 §6.4) and the SDK looks them up so, but the certification harness reads exact keys, so a lower-case key fails TC-SC-4.1 even though controllers work.",
        interop: "the certification harness (TC-SC-4.1) reads keys case-sensitively", example: "TXT d=3840 cm=1")
    static let examples = RuleExamples(
        triggering: [RuleExample(MatterExample.commissionable(["d=3840", "cm=1", "vp=65521+32768"]))],
        nonTriggering: [RuleExample(MatterExample.commissionable(["D=3840", "CM=1", "VP=65521+32768"]))])

    static let keys: [StaticString] = [
        "D", "VP", "CM", "DT", "DN", "RI", "PH", "PI", "SII", "SAI", "SAT", "T", "ICD", "CP",
    ]

    /// The defined key `pair` is written otherwise than defined, if it is one.
    static func isMiscased(_ pair: ProfileInstance.TXTPair, _ p: [UInt8]) -> Bool {
        keys.contains { ASCII.equalsIgnoringCase(p, pair.key, $0) && !p[pair.key].equals($0) }
    }

    static func check(
        _ i: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard Matter.judgesTXT(i, m), i.txtPairs(in: m).contains(where: { isMiscased($0, p) }) else { return }
        let written = i.txtPairs(in: m).filter { isMiscased($0, p) }.map { MDNSText.show(p[$0.key]) }
        out.report(
            descriptor,
            "TXT of \(m.name(i.name)) writes Matter keys in lower case (\(written.joined(separator: ", "))): defined in capitals, and the certification harness reads them so"
        )
    }
}
