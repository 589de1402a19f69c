import Findings
import NetLayers
import SSDP
import WireFormat

// SSDP-6xx: the device description behind LOCATION (UDA 2.0 §2), checked by `discoscope
// probe`, which fetches it. The fetch lives in the command line; these rules judge what it
// brought back, as values.

/// One USN a device announced or answered with under a LOCATION: its UUID (lower case,
/// without `uuid:`) and its type (`upnp:rootdevice`, a device or service URN; nil for the
/// bare `uuid:` USN).
public struct Advertisement: Sendable, Hashable {
    public var uuid: String
    public var type: String?
    public init(uuid: String, type: String?) {
        self.uuid = uuid.lowercased()
        self.type = type
    }
}

/// What fetching a LOCATION URL brought back.
public enum DescriptionFetch: Sendable, Hashable {
    /// A 2xx answer with this body (at most the size cap), and the response's header fields
    /// in order (PROF-507 reads DIAL's `Application-URL`).
    case document(status: Int, body: [UInt8], headers: [ResponseHeader] = [])
    /// A 3xx answer: its target is never followed.
    case redirect(status: Int, target: String)
    /// Any other status.
    case httpStatus(Int)
    /// The body went past the size cap (bytes).
    case tooLarge(limit: Int)
    /// No HTTP answer: refused, timed out, or not HTTP (the reason).
    case failed(String)
    /// Deliberately not fetched (its host is not the address that answered, or not on the
    /// link): the reason.
    case notFetched(String)
}

/// One header field of the HTTP response to the GET of LOCATION, as received (its value
/// without surrounding spaces).
public struct ResponseHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The input of the description rules: one LOCATION of one responder.
public struct DescriptionInput: Sendable {
    public var location: String
    /// The address the messages carrying `location` came from.
    public var responder: IPAddress
    public var advertised: [Advertisement]
    public var fetch: DescriptionFetch
    /// The first frame that carried `location` from `responder`, and its time.
    public var frame: Int
    public var time: Timestamp
    public var fileIndex: Int

    public init(
        location: String, responder: IPAddress, advertised: [Advertisement], fetch: DescriptionFetch, frame: Int = 0,
        time: Timestamp = .zero, fileIndex: Int = 0
    ) {
        self.location = location
        self.responder = responder
        self.advertised = advertised
        self.fetch = fetch
        self.frame = frame
        self.time = time
        self.fileIndex = fileIndex
    }
}

/// What the description rules look at: the input, the parsed description (when it parsed),
/// and the URL relative references resolve against.
public struct DescriptionContext: Sendable {
    public var input: DescriptionInput
    public var parsed: Result<DeviceDescription, XMLError>?
    public var locationURL: HTTPURL?
    /// URLBase when present and valid, else LOCATION (UDA: relative URLs resolve against
    /// URLBase, or the description's own URL when there is none).
    public var baseURL: HTTPURL?

    public init(_ input: DescriptionInput) {
        self.input = input
        locationURL = HTTPURL(input.location)
        if case .document(_, let body, _) = input.fetch {
            do { parsed = .success(try DeviceDescription(parsing: body)) } catch { parsed = .failure(error) }
        }
        baseURL = locationURL
        if case .success(let d) = parsed, let b = d.urlBase, !b.isEmpty {
            baseURL = locationURL?.resolve(b) ?? HTTPURL(b)
        }
    }

    /// The description, when it was fetched and is well-formed with a root device.
    public var description: DeviceDescription? {
        guard case .success(let d) = parsed, d.rootName == "root", d.root != nil else { return nil }
        return d
    }

    /// The devices whose UDN is `uuid:<uuid>` (any case).
    public func devices(withUUID uuid: String) -> [DeviceDescription.Device] {
        (description?.devices ?? []).filter { Self.uuid(ofUDN: $0.udn) == uuid.lowercased() }
    }

    /// `uuid:X` → `x`; nil when the UDN does not start with `uuid:`.
    public static func uuid(ofUDN udn: String) -> String? {
        guard udn.lowercased().hasPrefix("uuid:") else { return nil }
        return String(udn.dropFirst(5)).lowercased()
    }
}

/// A rule judged from a fetched device description (see `DescriptionInput`).
public protocol DescriptionRule: Rule {
    static func check(_ context: DescriptionContext, into out: inout FindingSink)
}

/// Runs the registered description rules on one fetched LOCATION.
public enum DescriptionChecks {
    /// The IDs of the description rules.
    public static let ids = Set(RuleRegistry.ssdpDescription.map { $0.descriptor.id })

    public static func run(_ input: DescriptionInput, disabled: Set<RuleID> = []) -> [Finding] {
        let context = DescriptionContext(input)
        var sink = FindingSink(
            frame: input.frame, time: input.time, source: input.responder, fileIndex: input.fileIndex)
        for rule in RuleRegistry.ssdpDescription where !disabled.contains(rule.descriptor.id) {
            rule.check(context, into: &sink)
        }
        let device = input.advertised.first { $0.type == "upnp:rootdevice" }?.uuid ?? input.advertised.first?.uuid
        sink.attachDevice { device.map { "uuid:" + $0 } }
        return sink.findings
    }
}

/// SSDP-601: LOCATION answers an HTTP GET with the description (200, no redirect, bounded).
struct DescriptionFetchedRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-601", "description-fetched", .error, "An HTTP GET of LOCATION returns the device description",
        spec: "UDA 2.0 §2.1, §1.2.2 LOCATION (Not confirmed: the section numbers of chapter 2)",
        "A control point retrieves the root device's description with an HTTP GET of the LOCATION URL; it must "
            + "answer 200 OK with the document. A redirect is reported, never followed (probe fetches only from the "
            + "address that answered).",
        interop:
            "gssdp/GUPnP, pupnp and Windows drop a device whose description cannot be fetched; none of them is known to follow a redirect",
        example: "LOCATION http://10.0.0.5:8200/rootDesc.xml answers 404 Not Found")
    static let examples = RuleExamples(
        triggering: [RuleExample(description: descriptionInput(fetch: .httpStatus(404)))],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        let l = c.input.location
        switch c.input.fetch {
        case .document: return
        case .notFetched: return
        case .redirect(let status, let target):
            out.report(
                Self.descriptor,
                "GET \(l) answered \(status) redirecting to \(target); the description must be at LOCATION itself (not followed)"
            )
        case .httpStatus(let s): out.report(Self.descriptor, "GET \(l) answered HTTP status \(s), not 200 OK")
        case .tooLarge(let limit):
            out.report(Self.descriptor, "GET \(l): the description is larger than \(limit) bytes (not read further)")
        case .failed(let why): out.report(Self.descriptor, "GET \(l) failed: \(why)")
        }
    }
}

/// SSDP-602: the description is well-formed XML with `<root>` and a root `<device>`.
struct DescriptionWellFormedRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-602", "description-well-formed", .error,
        "The device description is well-formed XML with a <root> holding a <device>",
        spec: "UDA 2.0 §2.3 (device description); XML 1.0 §2.1",
        "The description is an XML document whose root element is `root` (namespace "
            + "urn:schemas-upnp-org:device-1-0) with one `device` element.",
        interop: "GUPnP (libxml2) and pupnp (ixml) reject documents that are not well-formed",
        example: "a description whose </device> closes <serviceList>")
    static let examples = RuleExamples(
        triggering: [
            fetchedExample(Array("<root><device><UDN>x</device></root>".utf8))
        ],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        switch c.parsed {
        case .none: return
        case .failure(let e):
            out.report(Self.descriptor, "the description at \(c.input.location) is not well-formed XML: \(e)")
        case .success(let d):
            if d.rootName != "root" {
                out.report(Self.descriptor, "the description's root element is <\(d.rootName)>, not <root>")
            } else if d.root == nil {
                out.report(Self.descriptor, "the description's <root> has no <device>")
            }
        }
    }
}

/// SSDP-603: the UUID of every USN is the UDN of a device in the description.
struct DescriptionUDNRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-603", "description-udn-matches-usn", .error,
        "Every USN's UUID is the UDN of a device in the description at its LOCATION",
        spec: "UDA 2.0 §1.1.4, §1.2.2 USN, §2.3 UDN",
        "The UDN in the description is `uuid:` and the same UUID the device uses in USN, NT and ST; "
            + "a mismatch means the description is of another device (or a firmware template).",
        interop:
            "gssdp/GUPnP looks the USN's UDN up in the description and ignores the device when it is absent; Windows shows a duplicate or nothing",
        example: "USN uuid:A::upnp:rootdevice, but the description's UDN is uuid:B")
    static let examples = RuleExamples(
        triggering: [
            fetchedExample(description(udn: "uuid:00000000-0000-4000-8000-000000000bad"))
        ],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        let udns = d.devices.map(\.udn)
        var done: Set<String> = []
        for a in c.input.advertised where done.insert(a.uuid).inserted {
            guard c.devices(withUUID: a.uuid).isEmpty else { continue }
            let shown = udns.prefix(4).map { $0.isEmpty ? "(none)" : $0 }.joined(separator: ", ")
            out.report(
                Self.descriptor,
                "USN uuid:\(a.uuid) is not the UDN of any device in \(c.input.location) (UDNs: \(shown))",
                field: "UDN")
        }
    }
}

/// SSDP-604: the announced device and service types are those of the device with that UDN.
struct DescriptionTypesRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-604", "description-types-match", .error,
        "Announced device and service types are the deviceType and serviceTypes of the device with that UDN",
        spec: "UDA 2.0 §1.2.2 NT, §2.3 deviceType, serviceType",
        "A device URN in NT/ST under uuid:X is the deviceType of the device whose UDN is uuid:X, and a service URN "
            + "is the serviceType of one of its services, with the same version.",
        interop:
            "control points that search by type (Windows, VLC, BubbleUPnP) fetch the description and do not list a device whose deviceType differs",
        example: "NT urn:schemas-upnp-org:device:MediaServer:1, deviceType urn:schemas-upnp-org:device:MediaRenderer:1",
    )
    static let examples = RuleExamples(
        triggering: [
            fetchedExample(description(deviceType: "urn:schemas-upnp-org:device:MediaRenderer:1"))
        ],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard c.description != nil else { return }
        var done: Set<Advertisement> = []
        for a in c.input.advertised where done.insert(a).inserted {
            guard let type = a.type, type.hasPrefix("urn:") else { continue }
            let devices = c.devices(withUUID: a.uuid)
            guard !devices.isEmpty else { continue }  // SSDP-603
            if type.contains(":device:") {
                if !devices.contains(where: { $0.deviceType == type }) {
                    out.report(
                        Self.descriptor,
                        "uuid:\(a.uuid) announces \(type), but its deviceType in \(c.input.location) is \(devices[0].deviceType.isEmpty ? "missing" : devices[0].deviceType)",
                        field: "deviceType")
                }
            } else if type.contains(":service:") {
                if !devices.contains(where: { d in d.services.contains { $0.serviceType == type } }) {
                    out.report(
                        Self.descriptor,
                        "uuid:\(a.uuid) announces \(type), but no service of that type is in its serviceList in \(c.input.location)",
                        field: "serviceType")
                }
            }
        }
    }
}

/// SSDP-605: every service's SCPDURL, controlURL and eventSubURL resolves to an http URL on
/// the device.
struct DescriptionURLsRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-605", "description-urls-resolve", .error,
        "Every service's SCPDURL, controlURL and eventSubURL resolves against URLBase or LOCATION",
        spec: "UDA 2.0 §2.3 SCPDURL, controlURL, eventSubURL, URLBase",
        "Each service lists SCPDURL, controlURL and eventSubURL; relative URLs resolve against URLBase (UDA 1.x) or "
            + "the description's URL. A URL that does not resolve to http on the device is reported; one on another "
            + "host is a warning.",
        interop:
            "pupnp and GUPnP resolve relative to LOCATION; some Windows versions use URLBase when present: a wrong URLBase breaks control",
        example: "a service without controlURL", lowest: .warning)
    static let examples = RuleExamples(
        triggering: [
            fetchedExample(description(controlURL: ""))
        ],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        if let b = d.urlBase, !b.isEmpty, c.baseURL == nil || c.locationURL?.resolve(b) == nil {
            out.report(Self.descriptor, "URLBase \(b) is not an http URL", field: "URLBase")
        }
        guard let base = c.baseURL else { return }
        var reported = 0
        for device in d.devices {
            for s in device.services {
                for (name, value) in [
                    ("SCPDURL", s.scpdURL), ("controlURL", s.controlURL), ("eventSubURL", s.eventSubURL),
                ]
                where reported < 8 {
                    let label = s.serviceID.isEmpty ? s.serviceType : s.serviceID
                    guard let v = value, !v.isEmpty else {
                        reported += 1
                        out.report(Self.descriptor, "service \(label) has no \(name)", field: name)
                        continue
                    }
                    guard let url = base.resolve(v) else {
                        reported += 1
                        out.report(
                            Self.descriptor, "\(name) \(v) of service \(label) does not resolve to an http URL",
                            field: name)
                        continue
                    }
                    if !DescriptionHost.same(url.host, c.input.responder) {
                        reported += 1
                        out.report(
                            Self.descriptor, severity: .warning,
                            "\(name) of service \(label) resolves to \(url), not to the device at \(c.input.responder)",
                            field: name)
                    }
                }
            }
        }
    }
}

/// SSDP-606: LOCATION's host is the address that sent the message.
struct LocationHostAnsweredRule: DescriptionRule {
    static let descriptor = RuleDescriptor.ssdp(
        "SSDP-606", "location-host-answered", .warning, "LOCATION's host is the address that sent the message",
        spec: "UDA 2.0 §1.2.2, §1.3.3 LOCATION; Annex A (IPv6 scope)",
        "A device's LOCATION points at itself, on the interface it announced from. A LOCATION on another address "
            + "is unreachable from this link (a NAT, a second interface, a stale address) or points a control point "
            + "elsewhere; probe does not fetch it.",
        interop: "control points fetch whatever LOCATION says: a stale or foreign host makes the device invisible",
        example: "a response from 10.0.0.5 with LOCATION http://192.168.7.1:8200/rootDesc.xml", hides: true)
    static let examples = RuleExamples(
        triggering: [
            RuleExample(
                description: descriptionInput(
                    location: "http://192.168.7.1:8200/rootDesc.xml",
                    fetch: .notFetched("not the address that answered")))
        ],
        nonTriggering: [
            goodDescriptionExample()
        ]
    )

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let url = c.locationURL else { return }  // SSDP-020
        if !DescriptionHost.same(url.host, c.input.responder) {
            out.report(
                Self.descriptor,
                "LOCATION \(c.input.location) names host \(url.host), but the message came from \(c.input.responder)",
                field: "header LOCATION")
        }
    }
}

/// Host comparison for description URLs: the literal address (IPv6 zone dropped).
public enum DescriptionHost {
    public static func same(_ host: String, _ address: IPAddress) -> Bool {
        var h = host
        if let pct = h.firstIndex(of: "%") { h = String(h[..<pct]) }
        guard let a = IPAddress(text: Array(h.utf8)[...]) else { return false }
        return a == address
    }
}

// MARK: Examples

let exampleDescriptionLocation = "http://192.168.1.20:8200/rootDesc.xml"

/// A description document: the example device, edited one field at a time.
func description(
    udn: String = "uuid:\(exampleUUID)", deviceType: String = "urn:schemas-upnp-org:device:MediaServer:1",
    controlURL: String = "/ctl/ContentDir"
) -> [UInt8] {
    let xml = """
        <?xml version="1.0"?>
        <root xmlns="urn:schemas-upnp-org:device-1-0">
          <specVersion><major>1</major><minor>1</minor></specVersion>
          <device>
            <deviceType>\(deviceType)</deviceType>
            <friendlyName>Example &amp; Co</friendlyName>
            <UDN>\(udn)</UDN>
            <serviceList>
              <service>
                <serviceType>urn:schemas-upnp-org:service:ContentDirectory:1</serviceType>
                <serviceId>urn:upnp-org:serviceId:ContentDirectory</serviceId>
                <SCPDURL>ContentDir.xml</SCPDURL>
                <controlURL>\(controlURL)</controlURL>
                <eventSubURL>/evt/ContentDir</eventSubURL>
              </service>
            </serviceList>
          </device>
        </root>
        """
    return Array(xml.utf8)
}

let goodDescription = description()

/// The near miss every description rule has: the well-formed description, consistent with
/// what the device announced, fetched with status 200.
func goodDescriptionExample(file: String = #fileID, line: Int = #line) -> RuleExample {
    fetchedExample(goodDescription, file: file, line: line)
}

/// An example of a description fetched with status 200 and `body`.
func fetchedExample(_ body: [UInt8], file: String = #fileID, line: Int = #line) -> RuleExample {
    RuleExample(description: descriptionInput(fetch: .document(status: 200, body: body)), file: file, line: line)
}

/// The example MediaServer's advertisements under `location`, fetched as `fetch`.
func descriptionInput(location: String = exampleDescriptionLocation, fetch: DescriptionFetch) -> DescriptionInput {
    DescriptionInput(
        location: location, responder: IPAddress(text: Array("192.168.1.20".utf8)[...]) ?? .v4(0),
        advertised: [
            Advertisement(uuid: exampleUUID, type: "upnp:rootdevice"), Advertisement(uuid: exampleUUID, type: nil),
            Advertisement(uuid: exampleUUID, type: "urn:schemas-upnp-org:device:MediaServer:1"),
            Advertisement(uuid: exampleUUID, type: "urn:schemas-upnp-org:service:ContentDirectory:1"),
        ],
        fetch: fetch, frame: 1)
}
