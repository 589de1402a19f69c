import DNS
import Findings
import WireFormat

// PROF-2xx, judged from one message: the TXT keys of IPP Everywhere, AirPrint and Bonjour
// printing instances (shared/rules/profiles.md). The self-certification tool's checks
// (istopwg/ippeveselfcert `dnssd-tests.sh`) are exact; the Bonjour Printing 1.2.1 key
// wording is not confirmed (PROF-209, PROF-210 ship as warnings).
//
// The IPP Everywhere claim comes from the `_print._sub` PTR: these rules see it when the
// message lists the instance under it (announcements do); the rules that must join a claim
// and a TXT of different messages are the session rules (PrintingSessionRules.swift).

/// The printing service types, as the session rules tell an instance's siblings apart.
enum PrintService: Int, CaseIterable {
    case ipp = 0
    case ipps = 1
    case printer = 2
    case pdlDatastream = 3

    var text: String {
        switch self {
        case .ipp: "_ipp._tcp"
        case .ipps: "_ipps._tcp"
        case .printer: "_printer._tcp"
        case .pdlDatastream: "_pdl-datastream._tcp"
        }
    }
}

/// A printing instance's service type and the identity of its instance label and domain
/// (`Office` in `Office._ipp._tcp.local.` and `Office._ipps._tcp.local.`): one printer's
/// instances share it (RFC 6763 §8 flagship naming).
struct PrintingName {
    var service: PrintService
    var label: UInt64
}

extension PrintingName {
    /// The printing service and instance-label key of an instance's name (nil for a name that
    /// is not `<Instance>._ipp|_ipps|_printer|_pdl-datastream._tcp.<domain>`).
    static func of(_ name: DNSName, in p: [UInt8]) -> PrintingName? {
        var k = 0
        var key = ASCII.keySeed
        var service: PrintService? = nil
        var tcp = false
        name.forEachLabelRange(in: p) { r in
            defer { k &+= 1 }
            switch k {
            case 0: ASCII.addToKey(p[r], &key)
            case 1:
                if ASCII.equalsIgnoringCase(p, r, "_ipp") {
                    service = .ipp
                } else if ASCII.equalsIgnoringCase(p, r, "_ipps") {
                    service = .ipps
                } else if ASCII.equalsIgnoringCase(p, r, "_printer") {
                    service = .printer
                } else if ASCII.equalsIgnoringCase(p, r, "_pdl-datastream") {
                    service = .pdlDatastream
                }
            case 2: tcp = ASCII.equalsIgnoringCase(p, r, "_tcp")
            default:
                // Label boundary, then the domain's label.
                key ^= 0x2E
                key = key &* 0x0000_0100_0000_01B3
                ASCII.addToKey(p[r], &key)
            }
        }
        guard let service, tcp else { return nil }
        return PrintingName(service: service, label: key)
    }
}

extension ProfileInstance {
    /// The TXT record is there, is no goodbye, and holds a key: the content rules judge it.
    func hasJudgeableTXT(in m: MDNSMessageView) -> Bool {
        guard txt != nil, !txtIsGoodbye(in: m.records) else { return false }
        return txtPairs(in: m).contains { !$0.key.isEmpty }
    }

    /// The instance's name as reports show it.
    func shown(in m: MDNSMessageView) -> String { m.name(name) }
}

/// Printing TXT values: the checks several rules share.
enum PrintingTXT {
    /// `bytes[r]` starts with `prefix`, ASCII case-insensitively.
    static func hasPrefix(_ p: [UInt8], _ r: Range<Int>, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard r.count >= n else { return false }
        return ASCII.equalsIgnoringCase(p, r.lowerBound..<(r.lowerBound + n), prefix)
    }

    /// Calls `body` with each comma-separated element of `r` (empty ones included), in
    /// order, until it returns false.
    static func forEachElement(_ p: [UInt8], _ r: Range<Int>, _ body: (Range<Int>) -> Bool) {
        var start = r.lowerBound
        for k in r.lowerBound...r.upperBound where k == r.upperBound || p[k] == 0x2C {
            guard body(start..<k) else { return }
            start = k &+ 1
        }
    }

    /// Whether the list `r` has the element `literal` (ASCII case-insensitively).
    static func lists(_ p: [UInt8], _ r: Range<Int>, _ literal: StaticString) -> Bool {
        var found = false
        forEachElement(p, r) { e in
            found = ASCII.equalsIgnoringCase(p, e, literal)
            return !found
        }
        return found
    }

    /// Calls `body` with each comma-separated element of `r` (empty ones included), in
    /// order, and whether it has a MIME media type's form: `type/subtype`, each a non-empty
    /// token of restricted-name-chars (RFC 6838 §4.2). One pass over the bytes.
    static func forEachMediaType(_ p: [UInt8], _ r: Range<Int>, _ body: (Range<Int>, Bool) -> Void) {
        var start = r.lowerBound
        while true {
            var k = start
            var slash = -1
            var tokens = true
            while k < r.upperBound {
                let b = p[k]
                if b == 0x2C { break }
                if b == 0x2F {
                    if slash >= 0 { tokens = false }
                    slash = k
                } else if !isRestrictedNameChar(b) {
                    tokens = false
                }
                k &+= 1
            }
            body(start..<k, tokens && slash > start && slash &+ 1 < k)
            guard k < r.upperBound else { return }
            start = k &+ 1
        }
    }

    /// RFC 6838 §4.2 restricted-name-chars (letters, digits, `!#$&-^_.+`): bit `b % 64` of
    /// word `b / 64` for ASCII byte `b`.
    static func isRestrictedNameChar(_ b: UInt8) -> Bool {
        let chars: (UInt64, UInt64) = (0x03FF_685A_0000_0000, 0x07FF_FFFE_C7FF_FFFE)
        return b < 0x80 && ((b < 0x40 ? chars.0 : chars.1) >> UInt64(b & 0x3F)) & 1 != 0
    }

    /// The value is exactly `T` or `F`.
    static func isBoolean(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        r.count == 1 && (p[r.lowerBound] == 0x54 || p[r.lowerBound] == 0x46)
    }

    /// `8-4-4-4-12` hexadecimal digits.
    static func isUUID(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        guard r.count == 36 else { return false }
        for (k, i) in r.enumerated() {
            if k == 8 || k == 13 || k == 18 || k == 23 {
                guard p[i] == 0x2D else { return false }
            } else if !ASCII.isHexDigit(p[i]) {
                return false
            }
        }
        return true
    }
}

/// An example printer's announcement: browse PTR (and subtype PTRs), SRV, TXT of
/// `<instance>.<service>.local.`.
func printerAnnouncement(
    _ txt: [String], service: String = "_ipp._tcp", instance: String = "Office", subtypes: [String] = ["_print"],
    port: UInt16 = 631, ttl: UInt32 = 4500
) -> DNSBuilder {
    let owner = "\(instance).\(service).local"
    return response { b in
        b.record(.answer, "\(service).local", 12, ttl: ttl, rdata: B.name(owner))
        for s in subtypes { b.record(.answer, "\(s)._sub.\(service).local", 12, ttl: ttl, rdata: B.name(owner)) }
        b.record(.answer, owner, 33, flush: true, rdata: B.srv(port, "printer.local"))
        b.record(.answer, owner, 16, flush: true, ttl: ttl, rdata: B.txt(txt))
        hostA(&b, .additional)
    }
}

/// The TXT of a conforming IPP Everywhere printer (`_ipp._tcp`), edited one key at a time.
let everywhereTXT = [
    "txtvers=1", "qtotal=1", "rp=ipp/print", "ty=Example Laser 1000", "product=(Example Laser 1000)",
    "adminurl=https://printer.local./", "pdl=application/pdf,image/jpeg,image/pwg-raster,image/urf",
    "UUID=4509a320-00a0-008f-00b6-002507510eec", "Color=T", "Duplex=T", "TLS=1.2",
    "URF=V1.4,W8,CP1,RS600,DM1",
]

extension Array where Element == String {
    /// The TXT strings with key `key` set to `value` (added when absent; removed when nil).
    func settingTXT(_ key: String, _ value: String?) -> [String] {
        let lower = key.lowercased()
        let keyOf: (String) -> String = { String($0.prefix { $0 != "=" }).lowercased() }
        var out = self.filter { keyOf($0) != lower }
        if let value {
            if let k = self.firstIndex(where: { keyOf($0) == lower }) {
                out.insert("\(key)=\(value)", at: Swift.min(k, out.count))
            } else {
                out.append("\(key)=\(value)")
            }
        }
        return out
    }
}

/// PROF-203: `rp` has no leading `/`; an IPP Everywhere printer's is `ipp/print[/…]`.
struct PrintResourcePathRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-203", "print-resource-path", .error,
        "rp is written without a leading /; an IPP Everywhere printer's is ipp/print or ipp/print/<name>",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-4; Bonjour Printing 1.2.1",
        "The `rp` TXT key is the resource path of the printer's URI without its leading `/`: clients build "
            + "`ipp://host:port/` + rp. An IPP Everywhere printer (listed under `_print._sub`) uses `ipp/print` or "
            + "`ipp/print/<name>`; print servers use other paths (CUPS `printers/<queue>`), but none starts with "
            + "`/` (an error for an IPP Everywhere printer, whose URI it breaks, a warning for others). DiscoScope "
            + "reads this as follows: another path of an IPP Everywhere printer is a warning, because the "
            + "self-certification script (dnssd-tests.sh) names it only among the reasons of a B-4 that failed on "
            + "its own criteria (adminurl, pdl, UUID and the IPP values), and a CUPS share that passes B-4 has "
            + "`printers/<queue>`. Judged when the message itself lists the instance under `_print._sub`.",
        interop:
            "cups-browsed crashed on a shared queue's rp without the path form it expected (OpenPrinting/cups-browsed#13)",
        example: "rp=/ipp/print", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("rp", "/ipp/print"))), severity: .error),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("rp", "ipp"))), severity: .warning),
            RuleExample(
                mdns(printerAnnouncement(everywhereTXT.settingTXT("rp", "/printers/Office"), subtypes: [])),
                severity: .warning),
        ],
        nonTriggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("rp", "ipp/print/office")))),
            // Near miss: a CUPS share (not under _print) with its queue path.
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("rp", "printers/Office"), subtypes: []))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m), case .some(let value) = instance.txtValue("rp", in: m) else { return }
        let everywhere = instance.profiles.contains(.ippEverywhere)
        let v = value ?? (0..<0)
        if !v.isEmpty, p[v.lowerBound] == 0x2F {
            out.report(
                Self.descriptor, severity: everywhere ? .error : .warning,
                "\(instance.shown(in: m)) has rp=\(MDNSText.show(p[v])): rp is the path without its leading /",
                field: "TXT rp")
            return
        }
        guard everywhere, instance.printing?.service != .printer else { return }
        let ok =
            ASCII.equalsIgnoringCase(p, v, "ipp/print")
            || (PrintingTXT.hasPrefix(p, v, "ipp/print/") && v.count > 10)
        if !ok {
            out.report(
                Self.descriptor, severity: .warning,
                "IPP Everywhere printer \(instance.shown(in: m)) has rp=\(MDNSText.show(p[v])), not ipp/print or ipp/print/<name>",
                field: "TXT rp")
        }
    }
}

/// PROF-204: `adminurl` is an absolute http:// or https:// URL.
struct PrintAdminURLRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-204", "print-adminurl-absolute", .error, "adminurl is an absolute http:// or https:// URL",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-4; Bonjour Printing 1.2.1",
        "The `adminurl` TXT key is the URL of the printer's web page, absolute, with the http or https scheme "
            + "(the self-certification tool requires the value to start with one of them). For an IPP Everywhere "
            + "printer it also equals the `printer-more-info` attribute, which only an IPP request shows (probe "
            + "sends none): not checked.",
        example: "adminurl=/")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("adminurl", "/")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("adminurl", "192.168.1.5")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("adminurl", "")))),
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("adminurl", "https://Office.local.:631/printers/Office"))))
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m), case .some(let value) = instance.txtValue("adminurl", in: m) else {
            return
        }
        let v = value ?? (0..<0)
        let scheme =
            PrintingTXT.hasPrefix(p, v, "http://") ? 7 : PrintingTXT.hasPrefix(p, v, "https://") ? 8 : 0
        guard scheme == 0 || v.count <= scheme else { return }
        let shown = v.isEmpty ? "is empty" : "is \(MDNSText.show(p[v]))"
        out.report(
            Self.descriptor, "\(instance.shown(in: m)): adminurl \(shown), not an absolute http:// or https:// URL",
            field: "TXT adminurl")
    }
}

/// PROF-205: `UUID` is 8-4-4-4-12 hex digits, without `urn:uuid:`.
struct PrintUUIDFormRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-205", "print-uuid-form", .error, "UUID is the printer UUID as 8-4-4-4-12 hex digits, without urn:uuid:",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-4; PWG 5100.14 §4.2",
        "The `UUID` TXT key is the printer's `printer-uuid` without its `urn:uuid:` prefix: 36 characters, "
            + "hexadecimal digits in groups of 8, 4, 4, 4 and 12 separated by hyphens (the self-certification "
            + "tool's regular expression). Clients key their queues on it.",
        example: "UUID=urn:uuid:4509a320-00a0-008f-00b6-002507510eec")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("UUID", "urn:uuid:4509a320-00a0-008f-00b6-002507510eec")))),
            RuleExample(
                mdns(printerAnnouncement(everywhereTXT.settingTXT("UUID", "4509a32000a0008f00b6002507510eec")))),
        ],
        nonTriggering: [RuleExample(mdns(printerAnnouncement(everywhereTXT)))])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m), case .some(let value) = instance.txtValue("UUID", in: m) else { return }
        let v = value ?? (0..<0)
        guard !PrintingTXT.isUUID(p, v) else { return }
        let hint = PrintingTXT.hasPrefix(p, v, "urn:uuid:") ? " (drop the urn:uuid: prefix)" : ""
        out.report(
            Self.descriptor,
            "\(instance.shown(in: m)) has UUID=\(MDNSText.show(p[v])), not 8-4-4-4-12 hex digits\(hint)",
            field: "TXT UUID")
    }
}

/// PROF-207: `pdl` lists MIME types; IPP Everywhere lists image/pwg-raster (and image/jpeg
/// with Color=T); application/octet-stream is not listed.
struct PrintPDLRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-207", "print-pdl-formats", .error,
        "pdl lists MIME media types; an IPP Everywhere printer lists image/pwg-raster, and image/jpeg when Color=T",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-4",
        "The `pdl` TXT key is a comma-separated list of the MIME media types the printer accepts. An IPP "
            + "Everywhere printer (listed under `_print._sub` in the message) lists `image/pwg-raster`, and "
            + "`image/jpeg` too when it advertises `Color=T` (a monochrome printer need not): errors. An element "
            + "that is not `type/subtype` is an error for any printer. `application/octet-stream` (auto-sense) is "
            + "not a format to list, as PAPPL leaves it out: info.",
        example: "pdl=application/pdf,image/urf on a _print instance", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(printerAnnouncement(everywhereTXT.settingTXT("pdl", "application/pdf,image/urf"))),
                severity: .error),
            RuleExample(
                mdns(printerAnnouncement(everywhereTXT.settingTXT("pdl", "application/pdf,image/pwg-raster"))),
                severity: .error),
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("pdl", "application/octet-stream,application/pdf"), subtypes: [])),
                severity: .info),
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    printerAnnouncement(everywhereTXT.settingTXT("pdl", "application/pdf,image/jpeg,image/pwg-raster")))
            ),
            // Near miss: monochrome, no image/jpeg needed.
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("pdl", "application/pdf,image/pwg-raster").settingTXT("Color", "F")))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m), case .some(let value) = instance.txtValue("pdl", in: m) else { return }
        let v = value ?? (0..<0)
        let name = { instance.shown(in: m) }
        // One pass over the comma-separated elements (empty ones included).
        var bad: Range<Int>? = nil
        var pwgRaster = false
        var jpeg = false
        var octetStream = false
        PrintingTXT.forEachMediaType(p, v) { e, isMediaType in
            if bad == nil, !isMediaType { bad = e }
            if ASCII.equalsIgnoringCase(p, e, "image/pwg-raster") { pwgRaster = true }
            if ASCII.equalsIgnoringCase(p, e, "image/jpeg") { jpeg = true }
            if ASCII.equalsIgnoringCase(p, e, "application/octet-stream") { octetStream = true }
        }
        if let bad {
            let shown = bad.isEmpty ? "an empty element" : "\(MDNSText.show(p[bad]))"
            out.report(
                Self.descriptor, severity: .error, "\(name()): pdl lists \(shown), not a MIME media type",
                field: "TXT pdl")
        }
        if instance.profiles.contains(.ippEverywhere), instance.printing?.service != .printer {
            if !pwgRaster {
                out.report(
                    Self.descriptor, severity: .error,
                    "IPP Everywhere printer \(name()): pdl=\(MDNSText.show(p[v])) lacks image/pwg-raster",
                    field: "TXT pdl")
            }
            let color = instance.txtValue("Color", in: m)
            if case .some(.some(let c)) = color, ASCII.equalsIgnoringCase(p, c, "T"), !jpeg {
                out.report(
                    Self.descriptor, severity: .error,
                    "IPP Everywhere printer \(name()) advertises Color=T, but pdl=\(MDNSText.show(p[v])) lacks image/jpeg",
                    field: "TXT pdl")
            }
        }
        if octetStream {
            out.report(
                Self.descriptor, severity: .info,
                "\(name()): pdl lists application/octet-stream (auto-sense), which is not a document format to advertise",
                field: "TXT pdl")
        }
    }
}

/// PROF-208: `TLS` is `<major>.<minor>`.
struct PrintTLSVersionRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-208", "print-tls-version", .error, "TLS is the highest TLS version supported, as <major>.<minor>",
        profiles: .printing, spec: "IPP Everywhere Self-Cert Manual §5 B-5",
        "The `TLS` TXT key gives the highest TLS version the printer supports, as `<major>.<minor>` (`1.2`, "
            + "`1.3`; the self-certification tool's pattern is a digit 1-9, a dot and a digit). `yes`, `T` or "
            + "`TLSv1.2` are not versions clients can compare.",
        example: "TLS=yes")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", "yes")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", "T")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", "TLSv1.2")))),
        ],
        nonTriggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("TLS", "1.3")))),
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m), case .some(let value) = instance.txtValue("TLS", in: m) else { return }
        let v = value ?? (0..<0)
        if isVersion(p, v) { return }
        let shown = v.isEmpty ? "has no value" : "is \(MDNSText.show(p[v]))"
        out.report(
            Self.descriptor, "\(instance.shown(in: m)): TLS \(shown), not a version <major>.<minor> such as 1.2",
            field: "TXT TLS")
    }

    /// `[1-9][0-9]*\.[0-9]+`.
    static func isVersion(_ p: [UInt8], _ v: Range<Int>) -> Bool {
        guard let dot = v.first(where: { p[$0] == 0x2E }), dot > v.lowerBound, dot &+ 1 < v.upperBound else {
            return false
        }
        guard p[v.lowerBound] != 0x30 else { return false }
        return v.allSatisfy { $0 == dot || ASCII.isDigit(p[$0]) }
    }
}

/// PROF-209: the Bonjour-printing capability keys take T or F.
struct PrintBooleanKeysRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-209", "print-boolean-keys", .warning,
        "Bonjour-printing capability keys (Color, Duplex, Copies …) take T or F",
        profiles: .printing, spec: "Bonjour Printing Specification 1.2.1, TXT keys (wording not confirmed)",
        "The capability keys `Color`, `Duplex`, `Copies`, `Collate`, `Staple`, `Punch`, `Bind`, `Sort`, `Scan`, "
            + "`Fax`, `Transparent`, `Binary` and `TBCP` take the value `T` or `F`, as CUPS and PAPPL write them; "
            + "`true`, `1` or an empty value are not read as true by every client. The specification's sentence "
            + "could not be read: a warning.",
        basis: .notConfirmed, example: "Color=true")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("Color", "true")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("Duplex", "1")))),
        ],
        nonTriggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("Duplex", "F"))))
        ])

    static let keys: [StaticString] = [
        "Color", "Duplex", "Copies", "Collate", "Staple", "Punch", "Bind", "Sort", "Scan", "Fax", "Transparent",
        "Binary", "TBCP",
    ]

    /// The keys' folds (`ProfileInstances.fold`), made once, and a bit for each
    /// (`ProfileInstances.bit(ofFold:)`): a pair whose bit is not among them names none of the
    /// keys, and is passed over without comparing folds.
    static let folds = keys.map { ProfileInstances.fold($0) }
    static let foldBits = folds.reduce(UInt64(0)) { $0 | ProfileInstances.bit(ofFold: $1) }

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m) else { return }
        // One pass over the pairs: the keys (by their place in `keys`) whose first pair is
        // not T or F.
        var seen: UInt32 = 0
        var notBoolean: UInt32 = 0
        let bits = Self.foldBits
        for pair in instance.txtPairs(in: m) where bits & ProfileInstances.bit(ofFold: pair.fold) != 0 {
            guard let j = folds.firstIndex(of: pair.fold), seen & (1 << UInt32(j)) == 0 else { continue }
            if keys[j].utf8CodeUnitCount > ProfileInstances.foldedBytes,
                !ASCII.equalsIgnoringCase(p, pair.key, keys[j])
            {
                continue
            }
            seen |= 1 << UInt32(j)
            if !(pair.value.map { PrintingTXT.isBoolean(p, $0) } ?? false) { notBoolean |= 1 << UInt32(j) }
        }
        guard notBoolean != 0 else { return }
        var reported = 0
        for (j, key) in keys.enumerated() where reported < 4 && notBoolean & (1 << UInt32(j)) != 0 {
            guard case .some(let value) = instance.txtValue(key, in: m) else { continue }
            reported &+= 1
            let shown = value.map { $0.isEmpty ? "=" : "=\(MDNSText.show(p[$0]))" } ?? " without a value"
            out.report(
                Self.descriptor, "\(instance.shown(in: m)) has \(key)\(shown), not T or F", field: "TXT \(key)")
        }
    }
}

/// PROF-210: the legacy keys txtvers, qtotal, priority, product, ty.
struct PrintLegacyKeysRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-210", "print-legacy-keys", .warning,
        "txtvers=1 is present; qtotal is a positive decimal; priority a decimal; product in parentheses; ty set",
        profiles: .printing, spec: "Bonjour Printing Specification 1.2.1, TXT keys (wording not confirmed)",
        "The Bonjour-printing TXT starts with `txtvers=1`; `qtotal` (the number of queues) is a positive decimal "
            + "(1 for a single-queue printer), `priority` a decimal, `product` the PostScript make and model in "
            + "parentheses (`(HP LaserJet 1020)`) and `ty` the human-readable make and model, not empty; `note` "
            + "(the location) may be empty. As CUPS and PAPPL write them; the specification's sentences could not "
            + "be read: a warning for a wrong value, info for a TXT without `txtvers` (many minimal IPP TXTs "
            + "omit it). A TXT without any key (an LPD name placeholder, PROF-211) is not judged.",
        basis: .notConfirmed, example: "product=HP LaserJet 1020", lowest: .info)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("txtvers", "2"))), severity: .warning),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("txtvers", nil))), severity: .info),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("qtotal", "0")))),
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("product", "HP LaserJet 1020")))),
        ],
        nonTriggering: [
            RuleExample(
                mdns(
                    printerAnnouncement(
                        everywhereTXT.settingTXT("priority", "0").settingTXT("product", "(HP LaserJet 1020)"))))
        ])

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m) else { return }
        let name = { instance.shown(in: m) }
        switch instance.txtValue("txtvers", in: m) {
        case .none:
            out.report(
                Self.descriptor, severity: .info, "\(name()): TXT has no txtvers key (txtvers=1)", field: "TXT txtvers")
        case .some(let v):
            if !(v.map { ASCII.equalsIgnoringCase(p, $0, "1") } ?? false) {
                out.report(
                    Self.descriptor, "\(name()) has txtvers=\(shown(v, p)), not txtvers=1", field: "TXT txtvers")
            }
        }
        if case .some(let v) = instance.txtValue("qtotal", in: m) {
            if (v.flatMap { ASCII.parseDecimal(p[$0]) } ?? 0) == 0 {
                out.report(
                    Self.descriptor, "\(name()) has qtotal=\(shown(v, p)), not a positive decimal", field: "TXT qtotal")
            }
        }
        if case .some(let v) = instance.txtValue("priority", in: m) {
            if (v.flatMap { ASCII.parseDecimal(p[$0]) }) == nil {
                out.report(
                    Self.descriptor, "\(name()) has priority=\(shown(v, p)), not a decimal", field: "TXT priority")
            }
        }
        if case .some(let v) = instance.txtValue("product", in: m) {
            let r = v ?? (0..<0)
            if r.count < 3 || p[r.lowerBound] != 0x28 || p[r.upperBound &- 1] != 0x29 {
                out.report(
                    Self.descriptor, "\(name()) has product=\(shown(v, p)), not the make and model in parentheses",
                    field: "TXT product")
            }
        }
        if case .some(let v) = instance.txtValue("ty", in: m), v?.isEmpty ?? true {
            out.report(Self.descriptor, "\(name()) has an empty ty (the make and model)", field: "TXT ty")
        }
    }

    private static func shown(_ v: Range<Int>?, _ p: [UInt8]) -> String { v.map { MDNSText.show(p[$0]) } ?? "" }
}

/// PROF-213: list-valued keys cut to fit a TXT string are cut at a comma.
struct PrintListCutRule: InstanceRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-213", "print-list-cut-at-comma", .warning,
        "pdl, URF and kind lists that do not fit one TXT string are shortened at a comma, not inside a value",
        profiles: .printing, spec: "RFC 6763 §6.1 (derived); PAPPL and CUPS TXT builders",
        "A TXT character-string holds at most 255 bytes (key, `=` and value). A printer whose `pdl`, `URF` or "
            + "`kind` list is longer drops whole elements from the end, as PAPPL and CUPS do; one cut inside an "
            + "element leaves a token no client knows. Reported: a list ending with a comma or an empty element, a "
            + "`pdl` whose last element is the beginning of a well-known media type or has no subtype, a `URF` "
            + "whose last element is a cut-off token (letters without their digits, or ending with `-` or `.`), a "
            + "`kind` whose last element is the beginning of a kind keyword.",
        example: "pdl=application/pdf,image/jpeg,image/pwg-ras")
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                mdns(printerAnnouncement(everywhereTXT.settingTXT("pdl", "application/pdf,image/jpeg,image/pwg-ras"))))
        ],
        nonTriggering: [
            RuleExample(mdns(printerAnnouncement(everywhereTXT.settingTXT("pdl", "application/pdf,image/jpeg"))))
        ])

    static let mediaTypes: [[UInt8]] = [
        "application/pdf", "application/postscript", "application/vnd.hp-pcl", "application/pclm",
        "application/vnd.cups-raster", "application/octet-stream", "image/jpeg", "image/pwg-raster", "image/urf",
        "image/png", "image/tiff", "text/plain",
    ].map { Array($0.utf8) }
    static let kinds: [[UInt8]] = ["document", "envelope", "photo", "postcard", "label", "receipt", "roll", "disc"]
        .map { Array($0.utf8) }
    /// The lists judged: `pdl` of media types, `URF` of tokens, `kind` of media kinds.
    private static let lists: [(key: StaticString, kind: Int)] = [("pdl", 0), ("URF", 1), ("kind", 2)]

    static func check(
        _ instance: ProfileInstance, as profile: ServiceProfile, in m: MDNSMessageView, into out: inout FindingSink
    ) {
        let p = m.message.payload
        guard instance.hasJudgeableTXT(in: m) else { return }
        for (key, kind) in lists {
            guard case .some(.some(let v)) = instance.txtValue(key, in: m), !v.isEmpty else { continue }
            // The last comma-separated element.
            let last = ((v.lastIndex { p[$0] == 0x2C }).map { $0 &+ 1 } ?? v.lowerBound)..<v.upperBound
            let cut: Bool
            if last.isEmpty {
                cut = true
            } else {
                switch kind {
                case 0: cut = isCutMediaType(p, last)
                case 1: cut = isCutURFToken(p, last)
                default: cut = isCutPrefix(p, last, of: kinds)
                }
            }
            guard cut else { continue }
            let end = last.isEmpty ? "ends with a comma" : "ends with \(MDNSText.show(p[last])), a value cut short"
            out.report(
                Self.descriptor,
                "\(instance.shown(in: m)): \(key) (\(v.count &+ key.utf8CodeUnitCount &+ 1) bytes) \(end); shorten the list at a comma",
                field: "TXT \(key)")
        }
    }

    /// No subtype, or a proper beginning of a well-known type.
    static func isCutMediaType(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        guard let slash = r.first(where: { p[$0] == 0x2F }), slash &+ 1 < r.upperBound else { return true }
        return isCutPrefix(p, r, of: mediaTypes)
    }

    /// A proper, case-insensitive beginning of one of `words` (written in lower case), and
    /// none of them itself. Compared from the end of `r`: the words share their beginnings
    /// (`application/`).
    static func isCutPrefix(_ p: [UInt8], _ r: Range<Int>, of words: [[UInt8]]) -> Bool {
        var prefix = false
        for u in words where u.count >= r.count {
            var k = r.count
            while k > 0, ASCII.lower(p[r.lowerBound &+ k &- 1]) == u[k &- 1] { k &-= 1 }
            guard k == 0 else { continue }
            if u.count == r.count { return false }
            prefix = true
        }
        return prefix
    }

    /// URF tokens are letters then a value (`V1.4`, `W8`, `RS300-600`, `DM1`): letters alone,
    /// or a value ending with `-` or `.`, was cut.
    static func isCutURFToken(_ p: [UInt8], _ r: Range<Int>) -> Bool {
        guard let lastByte = r.last.map({ p[$0] }) else { return true }
        if lastByte == 0x2D || lastByte == 0x2E { return true }
        if ASCII.equalsIgnoringCase(p, r, "none") { return false }
        return !r.contains { ASCII.isDigit(p[$0]) }
    }
}
