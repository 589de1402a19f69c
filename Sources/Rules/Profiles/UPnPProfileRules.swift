import Findings
import NetLayers
import SSDP
import WireFormat

// PROF-5xx: UPnP device types, DIAL and Roku ECP (shared/rules/profiles.md). The device
// templates' tables could not be read in full (PROF-501…504 rest on their tables of contents
// and on miniupnpd and async_upnp_client), nor DIAL §5's subsections or Roku's SSDP
// paragraph: every row but PROF-505 ships as a warning.

// MARK: - Device descriptions (Probe)

/// A UPnP type URN split: `urn:<domain>:device|service:<name>:<version>`.
struct UPnPType {
    var domain: Substring
    var isDevice: Bool
    var name: Substring
    var version: Int

    init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].lowercased() == "urn", parts[2] == "device" || parts[2] == "service",
            let v = Int(parts[4]), v >= 0
        else { return nil }
        domain = parts[1]
        isDevice = parts[2] == "device"
        name = parts[3]
        version = v
    }

    /// A `urn:schemas-upnp-org:` type named `name`.
    func isUPnP(_ name: String, device: Bool) -> Bool {
        domain == "schemas-upnp-org" && isDevice == device && self.name == name
    }
}

extension DeviceDescription.Device {
    /// The device's type when it is the UPnP device `name`.
    func upnpType(_ name: String) -> UPnPType? {
        guard let t = UPnPType(deviceType), t.isUPnP(name, device: true) else { return nil }
        return t
    }

    /// The first service of UPnP type `name`.
    func service(_ name: String) -> UPnPType? {
        services.lazy.compactMap { UPnPType($0.serviceType) }.first { $0.isUPnP(name, device: false) }
    }

    /// The embedded devices of UPnP type `name`.
    func embedded(_ name: String) -> [DeviceDescription.Device] { embedded.filter { $0.upnpType(name) != nil } }

    /// How reports name it.
    var shownType: String { deviceType.isEmpty ? "(no deviceType)" : deviceType }
}

/// A device for a description example: type, services (type URNs) and embedded devices.
struct ExampleDevice {
    var type: String
    var services: [String] = []
    var embedded: [ExampleDevice] = []
    var presentationURL: String? = nil

    /// A UPnP device type URN, `urn:schemas-upnp-org:device:<name>`.
    static func upnp(
        _ name: String, _ services: [String] = [], _ embedded: [ExampleDevice] = [], presentationURL: String? = nil
    ) -> ExampleDevice {
        ExampleDevice(
            type: "urn:schemas-upnp-org:device:\(name)",
            services: services.map { "urn:schemas-upnp-org:service:\($0)" }, embedded: embedded,
            presentationURL: presentationURL)
    }

    func xml(_ n: inout Int) -> String {
        n += 1
        let udn = n == 1 ? "uuid:\(exampleUUID)" : "uuid:\(exampleUUID.dropLast(2))\(n < 10 ? "0" : "")\(n)"
        var s = "<device><deviceType>\(type)</deviceType><friendlyName>Example</friendlyName><UDN>\(udn)</UDN>"
        if let presentationURL { s += "<presentationURL>\(presentationURL)</presentationURL>" }
        if !services.isEmpty {
            s += "<serviceList>"
            for (k, t) in services.enumerated() {
                s +=
                    "<service><serviceType>\(t)</serviceType><serviceId>urn:upnp-org:serviceId:s\(k)</serviceId>"
                    + "<SCPDURL>/s\(n)_\(k).xml</SCPDURL><controlURL>/ctl/s\(n)_\(k)</controlURL>"
                    + "<eventSubURL>/evt/s\(n)_\(k)</eventSubURL></service>"
            }
            s += "</serviceList>"
        }
        if !embedded.isEmpty {
            s += "<deviceList>"
            for e in embedded { s += e.xml(&n) }
            s += "</deviceList>"
        }
        return s + "</device>"
    }

    /// An example of this device's description fetched with status 200 (and `headers`),
    /// its root device advertised.
    func example(
        headers: [ResponseHeader] = [], severity: Severity? = nil, file: String = #fileID, line: Int = #line
    ) -> RuleExample {
        var n = 0
        let body =
            "<?xml version=\"1.0\"?><root xmlns=\"urn:schemas-upnp-org:device-1-0\">"
            + "<specVersion><major>1</major><minor>1</minor></specVersion>\(xml(&n))</root>"
        let input = DescriptionInput(
            location: exampleDescriptionLocation, responder: IPAddress(text: Array("192.168.1.20".utf8)[...]) ?? .v4(0),
            advertised: [
                Advertisement(uuid: exampleUUID, type: "upnp:rootdevice"), Advertisement(uuid: exampleUUID, type: type),
            ],
            fetch: .document(status: 200, body: Array(body.utf8), headers: headers), frame: 1)
        return RuleExample(description: input, severity: severity, file: file, line: line)
    }
}

/// PROF-501: a MediaServer has ContentDirectory and ConnectionManager.
struct MediaServerServicesRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-501", "mediaserver-services", .error, "A MediaServer device has ContentDirectory and ConnectionManager",
        profiles: ServiceProfiles(.upnpMediaServer),
        spec: "UPnP MediaServer:1…4 Device Template §2.2.1 (numbering not confirmed)",
        "A device of type `urn:schemas-upnp-org:device:MediaServer:n` (n = 1 … 4) in the description has a "
            + "`ContentDirectory` and a `ConnectionManager` service (any version); `AVTransport` is optional. "
            + "Control points (async_upnp_client's DMS profile) need both. The template's table could not be read "
            + "in full: a warning.",
        basis: .notConfirmed, example: "MediaServer:1 with only ContentDirectory:1", scope: .probe, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [ExampleDevice.upnp("MediaServer:1", ["ContentDirectory:1"]).example()],
        nonTriggering: [ExampleDevice.upnp("MediaServer:1", ["ContentDirectory:1", "ConnectionManager:1"]).example()])

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        for device in d.devices {
            guard let t = device.upnpType("MediaServer"), (1...4).contains(t.version) else { continue }
            let missing = ["ContentDirectory", "ConnectionManager"].filter { device.service($0) == nil }
            guard !missing.isEmpty else { continue }
            out.profile = .upnpMediaServer
            out.report(
                Self.descriptor,
                "\(device.shownType) \(device.udn) in \(c.input.location) has no \(missing.joined(separator: " and ")) service",
                field: "serviceList")
            out.profile = nil
        }
    }
}

/// PROF-502: a MediaRenderer has RenderingControl and ConnectionManager (AVTransport: info).
struct MediaRendererServicesRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-502", "mediarenderer-services", .error,
        "A MediaRenderer device has RenderingControl and ConnectionManager (and, as control points expect, AVTransport)",
        profiles: ServiceProfiles(.upnpMediaRenderer),
        spec: "UPnP MediaRenderer:1 Device Template §2.2.1 Table 1 (content not confirmed); ISO/IEC 29341-18-1",
        "A device of type `urn:schemas-upnp-org:device:MediaRenderer:n` has a `RenderingControl` and a "
            + "`ConnectionManager` service (both mandatory). `AVTransport` is optional in the template, but "
            + "control points (async_upnp_client's DMR profile lists all three) expect it to push media: its "
            + "absence is info. The template's table could not be read in full: a warning at most.",
        basis: .notConfirmed, example: "MediaRenderer:1 with AVTransport:1 and ConnectionManager:1 only", scope: .probe,
        lowest: .info, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            ExampleDevice.upnp("MediaRenderer:1", ["AVTransport:1", "ConnectionManager:1"]).example(severity: .warning),
            ExampleDevice.upnp("MediaRenderer:1", ["RenderingControl:1", "ConnectionManager:1"]).example(
                severity: .info),
        ],
        nonTriggering: [
            ExampleDevice.upnp("MediaRenderer:1", ["RenderingControl:1", "ConnectionManager:1", "AVTransport:1"])
                .example()
        ])

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        for device in d.devices where device.upnpType("MediaRenderer") != nil {
            out.profile = .upnpMediaRenderer
            let missing = ["RenderingControl", "ConnectionManager"].filter { device.service($0) == nil }
            if !missing.isEmpty {
                out.report(
                    Self.descriptor, severity: .warning,
                    "\(device.shownType) \(device.udn) in \(c.input.location) has no \(missing.joined(separator: " and ")) service",
                    field: "serviceList")
            }
            if device.service("AVTransport") == nil {
                out.report(
                    Self.descriptor, severity: .info,
                    "\(device.shownType) \(device.udn) has no AVTransport service: control points cannot push media to it",
                    field: "serviceList")
            }
            out.profile = nil
        }
    }
}

/// The IGD services that control points look for in a WANConnectionDevice.
private let portMappingServices = ["WANIPConnection", "WANPPPConnection"]

/// PROF-503: the InternetGatewayDevice tree.
struct IGDTreeRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-503", "igd-device-tree", .error,
        "An InternetGatewayDevice nests WANDevice (with WANCommonInterfaceConfig) → WANConnectionDevice → WANIPConnection or WANPPPConnection",
        profiles: ServiceProfiles(.upnpIGD),
        spec: "UPnP InternetGatewayDevice:1 Device Template (section not confirmed)",
        "The root `InternetGatewayDevice`'s `deviceList` holds a `WANDevice`, whose `serviceList` has "
            + "`WANCommonInterfaceConfig` and whose `deviceList` holds at least one `WANConnectionDevice` carrying "
            + "`WANIPConnection` or `WANPPPConnection` (or both), as miniupnpd builds it and async_upnp_client's "
            + "IGD profile looks for it. Port-mapping services placed elsewhere (in the root's own `serviceList`) "
            + "are not found by control points. Checked by type name; the versions are PROF-504's. The template "
            + "could not be read in full: a warning.",
        basis: .notConfirmed,
        interop:
            "control points (miniupnpc, async_upnp_client) look for the port-mapping service only in a WANConnectionDevice",
        example: "WANIPConnection:1 in the root's own serviceList", scope: .probe, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            ExampleDevice.upnp("InternetGatewayDevice:1", ["Layer3Forwarding:1", "WANIPConnection:1"]).example(),
            ExampleDevice.upnp(
                "InternetGatewayDevice:1", ["Layer3Forwarding:1"],
                [.upnp("WANDevice:1", ["WANCommonInterfaceConfig:1"])]
            ).example(),
        ],
        nonTriggering: [igdTree(root: 1, wan: 1, connection: 1, service: "WANIPConnection:1").example()])

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        out.profile = .upnpIGD
        defer { out.profile = nil }
        for igd in d.devices where igd.upnpType("InternetGatewayDevice") != nil {
            let wans = igd.embedded("WANDevice")
            if wans.isEmpty {
                out.report(Self.descriptor, "\(igd.shownType) has no WANDevice in its deviceList", field: "deviceList")
            }
            for wan in wans {
                if wan.service("WANCommonInterfaceConfig") == nil {
                    out.report(
                        Self.descriptor, "\(wan.shownType) \(wan.udn) has no WANCommonInterfaceConfig service",
                        field: "serviceList")
                }
                let connections = wan.embedded("WANConnectionDevice")
                if connections.isEmpty {
                    out.report(
                        Self.descriptor, "\(wan.shownType) \(wan.udn) has no WANConnectionDevice in its deviceList",
                        field: "deviceList")
                }
                for cd in connections where !portMappingServices.contains(where: { cd.service($0) != nil }) {
                    out.report(
                        Self.descriptor,
                        "\(cd.shownType) \(cd.udn) has neither a WANIPConnection nor a WANPPPConnection service",
                        field: "serviceList")
                }
            }
            // Port-mapping services outside a WANConnectionDevice.
            var stack = [igd]
            var reported = 0
            while let device = stack.popLast(), reported < 4 {
                stack += device.embedded
                guard device.upnpType("WANConnectionDevice") == nil else { continue }
                for name in portMappingServices where device.service(name) != nil {
                    reported += 1
                    out.report(
                        Self.descriptor,
                        "\(name) is in the serviceList of \(device.shownType), not of a WANConnectionDevice: control points do not find it there",
                        field: "serviceList")
                }
            }
        }
    }
}

/// An IGD example tree of the given versions, the root with presentationURL and
/// Layer3Forwarding:1.
func igdTree(root: Int, wan: Int, connection: Int, service: String) -> ExampleDevice {
    .upnp(
        "InternetGatewayDevice:\(root)", ["Layer3Forwarding:1"],
        [
            .upnp(
                "WANDevice:\(wan)", ["WANCommonInterfaceConfig:1"],
                [.upnp("WANConnectionDevice:\(connection)", [service])])
        ], presentationURL: "http://192.168.1.20/")
}

/// PROF-504: IGD versions in lockstep.
struct IGDVersionLockstepRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-504", "igd-version-lockstep", .warning,
        "An InternetGatewayDevice:n tree nests WANDevice:n, WANConnectionDevice:n and WANIPConnection:n",
        profiles: ServiceProfiles(.upnpIGD),
        spec: "UPnP InternetGatewayDevice:1, :2 Device Templates (derived; not confirmed)",
        "Version lockstep, as miniupnpd builds its tree: an `InternetGatewayDevice:2` nests `WANDevice:2` → "
            + "`WANConnectionDevice:2` → `WANIPConnection:2` (optionally `WANIPv6FirewallControl:1`; "
            + "`WANCommonInterfaceConfig` and `WANPPPConnection` stay :1), and a `:1` root nests `:1` types. A "
            + "mixed tree is suspicious (a warning). A `WANIPConnection:2` under an `InternetGatewayDevice:1` is "
            + "info: IGD:1-only clients (async_upnp_client's IGD profile lists only WANIPConnection:1) do not use it.",
        basis: .notConfirmed, example: "InternetGatewayDevice:2 → WANDevice:1 → WANConnectionDevice:2", scope: .probe,
        lowest: .info, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            igdTree(root: 2, wan: 1, connection: 2, service: "WANIPConnection:2").example(severity: .warning),
            igdTree(root: 1, wan: 1, connection: 1, service: "WANIPConnection:2").example(severity: .info),
        ],
        nonTriggering: [
            igdTree(root: 2, wan: 2, connection: 2, service: "WANIPConnection:2").example(),
            igdTree(root: 1, wan: 1, connection: 1, service: "WANIPConnection:1").example(),
        ])

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let d = c.description else { return }
        out.profile = .upnpIGD
        defer { out.profile = nil }
        for igd in d.devices {
            guard let root = igd.upnpType("InternetGatewayDevice"), root.version == 1 || root.version == 2 else {
                continue
            }
            var mixed: [String] = []
            var ipv2UnderV1 = false
            for wan in igd.embedded("WANDevice") {
                if let t = wan.upnpType("WANDevice"), t.version != root.version { mixed.append(wan.deviceType) }
                for cd in wan.embedded("WANConnectionDevice") {
                    if let t = cd.upnpType("WANConnectionDevice"), t.version != root.version {
                        mixed.append(cd.deviceType)
                    }
                    for s in cd.services {
                        guard let t = UPnPType(s.serviceType), t.isUPnP("WANIPConnection", device: false) else {
                            continue
                        }
                        if root.version == 1, t.version == 2 {
                            ipv2UnderV1 = true
                        } else if t.version != root.version {
                            mixed.append(s.serviceType)
                        }
                    }
                }
            }
            if !mixed.isEmpty {
                out.report(
                    Self.descriptor, severity: .warning,
                    "\(igd.deviceType) nests \(mixed.prefix(4).joined(separator: ", ")): the versions of an IGD tree go together",
                    field: "deviceType")
            }
            if ipv2UnderV1 {
                out.report(
                    Self.descriptor, severity: .info,
                    "\(igd.deviceType) offers WANIPConnection:2, which IGD:1-only control points do not use",
                    field: "serviceType")
            }
        }
    }
}

/// PROF-505: an IGD root has presentationURL and Layer3Forwarding:1 (recommended).
struct IGDRootRecommendationsRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-505", "igd-root-recommended", .info,
        "An InternetGatewayDevice root has a presentationURL and a Layer3Forwarding service (recommended)",
        profiles: ServiceProfiles(.upnpIGD),
        spec: "UPnP InternetGatewayDevice Device Template; miniupnpd upnpdescgen.c",
        "Recommended for the root `InternetGatewayDevice`: a `presentationURL` (Windows XP does not show a router "
            + "without it in Network Connections) and a `Layer3Forwarding:1` service (\"only recommended, not "
            + "mandatory\", miniupnpd notes).",
        interop: "Windows XP does not list the router in Network Connections without a presentationURL",
        example: "IGD root without presentationURL", scope: .probe, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            ExampleDevice.upnp(
                "InternetGatewayDevice:1", ["Layer3Forwarding:1"],
                igdTree(root: 1, wan: 1, connection: 1, service: "WANIPConnection:1").embedded
            ).example()
        ],
        nonTriggering: [igdTree(root: 1, wan: 1, connection: 1, service: "WANIPConnection:1").example()])

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard let root = c.description?.root, root.upnpType("InternetGatewayDevice") != nil else { return }
        out.profile = .upnpIGD
        defer { out.profile = nil }
        if !(root.presentationURL?.contains { !$0.isWhitespace } ?? false) {
            out.report(
                Self.descriptor, "\(root.deviceType) root has no presentationURL (Windows XP does not show it)",
                field: "presentationURL")
        }
        if root.service("Layer3Forwarding") == nil {
            out.report(Self.descriptor, "\(root.deviceType) root has no Layer3Forwarding service", field: "serviceList")
        }
    }
}

/// DIAL's service and device type URNs.
enum DIAL {
    static let serviceType: StaticString = "urn:dial-multiscreen-org:service:dial:1"
    static let service = serviceType.description
    static let deviceType = "urn:dial-multiscreen-org:device:dial:1"
}

/// PROF-507: the GET of a DIAL device's LOCATION answers with an Application-URL.
struct DIALApplicationURLRule: DescriptionRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-507", "dial-application-url", .error,
        "The HTTP response to the GET of a DIAL device's LOCATION carries Application-URL, an absolute http:// URL",
        profiles: ServiceProfiles(.dial), spec: "DIAL 1.7 / 2.x §5 (subsection not confirmed)",
        "A DIAL server answers the GET of its device description with an `Application-URL` header, the absolute "
            + "`http://` URL of its DIAL REST service (dial-reference: `http://<ip>:<port>/apps/`); without it no "
            + "client can launch an application. A DIAL device is one that advertised the DIAL service type (or "
            + "whose description says it is DIAL). The section could not be read: a warning.",
        basis: .notConfirmed, interop: "DIAL clients (dial-reference's dialClient.js getAppsUrl) read only this header",
        example: "200 OK for /dd.xml without Application-URL", scope: .probe, proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            dialExample([]),
            dialExample([ResponseHeader(name: "Application-URL", value: "/apps/")]),
        ],
        nonTriggering: [
            dialExample([ResponseHeader(name: "Application-URL", value: "http://192.168.1.20:56789/apps/")])
        ])

    static func dialExample(_ headers: [ResponseHeader], line: Int = #line) -> RuleExample {
        var n = 0
        let device = ExampleDevice(type: DIAL.deviceType)
        let body =
            "<?xml version=\"1.0\"?><root xmlns=\"urn:schemas-upnp-org:device-1-0\">"
            + "<specVersion><major>1</major><minor>0</minor></specVersion>\(device.xml(&n))</root>"
        let input = DescriptionInput(
            location: "http://192.168.1.20:56789/dd.xml",
            responder: IPAddress(text: Array("192.168.1.20".utf8)[...]) ?? .v4(0),
            advertised: [Advertisement(uuid: exampleUUID, type: DIAL.service)],
            fetch: .document(
                status: 200, body: Array(body.utf8),
                headers: [ResponseHeader(name: "Content-Type", value: "text/xml")] + headers),
            frame: 1)
        return RuleExample(description: input, line: line)
    }

    static func check(_ c: DescriptionContext, into out: inout FindingSink) {
        guard case .document(_, _, let headers) = c.input.fetch else { return }
        let advertised = c.input.advertised.contains {
            ($0.type ?? "").lowercased().hasPrefix("urn:dial-multiscreen-org:")
        }
        let described =
            c.description?.devices.contains { $0.deviceType.lowercased().hasPrefix("urn:dial-multiscreen-org:") }
            ?? false
        guard advertised || described else { return }
        out.profile = .dial
        defer { out.profile = nil }
        guard let field = headers.first(where: { $0.name.lowercased() == "application-url" }) else {
            out.report(
                Self.descriptor, "GET \(c.input.location) of a DIAL device answered without an Application-URL header",
                field: "header Application-URL")
            return
        }
        if HTTPURL(field.value) == nil {
            out.report(
                Self.descriptor,
                "GET \(c.input.location): Application-URL \(SSDPText.show(Array(field.value.utf8))) is not an absolute http:// URL",
                field: "header Application-URL")
        }
    }
}

// MARK: - Search responses and announcements (SSDP, stateless)

/// The DIAL search-response headers of the examples.
let dialResponse = response11.setting("ST", DIAL.service).setting(
    "USN", "uuid:deadbeef-dead-beef-dead-beefdeadbeef::\(DIAL.service)"
).setting("LOCATION", "http://192.168.1.20:56789/dd.xml")

/// PROF-506: a DIAL search response's USN and LOCATION.
struct DIALSearchResponseRule: MessageRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-506", "dial-search-response", .error,
        "A DIAL search response carries USN uuid:<UUID>::urn:dial-multiscreen-org:service:dial:1 and a LOCATION",
        profiles: ServiceProfiles(.dial), spec: "DIAL 1.7 / 2.x §5 service discovery (subsection not confirmed)",
        "A response to `ST: urn:dial-multiscreen-org:service:dial:1` carries `USN: uuid:<UUID>::urn:dial-multiscreen-"
            + "org:service:dial:1` (clients key servers on it) and a `LOCATION` with the http URL of the device "
            + "description (dial-reference's `ssdp_reply`); the base SSDP rules still apply. The section could not "
            + "be read: a warning.",
        basis: .notConfirmed, example: "USN: uuid:deadbeef-… without ::urn:dial-multiscreen-org:service:dial:1",
        proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([
                response(ssdp(okLine, dialResponse.setting("USN", "uuid:deadbeef-dead-beef-dead-beefdeadbeef")))
            ]),
            RuleExample([response(ssdp(okLine, dialResponse.removing("LOCATION")))]),
        ],
        nonTriggering: [RuleExample([response(ssdp(okLine, dialResponse))])])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind == .response, let st = i.message.value(.st), ASCII.equalsIgnoringCase(st, DIAL.serviceType) else {
            return
        }
        out.profile = .dial
        defer { out.profile = nil }
        let usn = i.message.value(.usn)
        let uuid = usn.flatMap { SSDPSyntax.uuid(inUSN: $0) }
        let suffix = usn.flatMap { SSDPSyntax.suffix(ofUSN: $0) }
        if uuid?.isEmpty ?? true || !(suffix.map { ASCII.equalsIgnoringCase($0, DIAL.serviceType) } ?? false) {
            let shown = usn.map { "USN \(i.text($0))" } ?? "no USN"
            out.report(
                Self.descriptor, "DIAL search response has \(shown), not uuid:<UUID>::\(DIAL.service)",
                field: "header USN")
        }
        let location = i.message.value(.location)
        if let l = location, SSDPSyntax.hasPrefix(l, "http://", caseInsensitive: true) { return }
        let shown = location.map { "LOCATION \(i.text($0))" } ?? "no LOCATION"
        out.report(
            Self.descriptor, "DIAL search response has \(shown), not the http URL of its device description",
            field: "header LOCATION")
    }
}

/// PROF-508: DIAL's WAKEUP header is `MAC=<MAC>;Timeout=<seconds>`.
struct DIALWakeupRule: MessageRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-508", "dial-wakeup-form", .error, "DIAL's WAKEUP header is MAC=<MAC address>;Timeout=<seconds>",
        profiles: ServiceProfiles(.dial), spec: "DIAL 2.1 §5 Wake-on-LAN (section not confirmed)",
        "A DIAL 2.1 server that can be woken says so in its search responses with `WAKEUP: MAC=<MAC address>;"
            + "Timeout=<seconds>`: six hexadecimal octets separated by `:` (or `-`), then the seconds the device "
            + "needs to wake, as dial-reference writes it and clients split it (at `;`, then `=`). The section "
            + "could not be read: a warning.",
        basis: .notConfirmed, example: "WAKEUP: 00:11:22:33:44:55", proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([response(ssdp(okLine, dialResponse.adding("WAKEUP", "00:11:22:33:44:55")))]),
            RuleExample([response(ssdp(okLine, dialResponse.adding("WAKEUP", "MAC=00:11:22:33:44:55")))]),
        ],
        nonTriggering: [
            RuleExample([response(ssdp(okLine, dialResponse.adding("WAKEUP", "MAC=10:dd:b1:c9:00:e4;Timeout=10")))])
        ])

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        guard i.kind != .mSearch, i.claimedProfiles.contains(.dial), let v = i.message.value(.wakeup) else { return }
        guard !isWellFormed(v) else { return }
        out.profile = .dial
        out.report(
            Self.descriptor, "WAKEUP: \(i.text(v)) is not MAC=<MAC address>;Timeout=<seconds>", field: "header WAKEUP")
        out.profile = nil
    }

    /// `MAC=xx:xx:xx:xx:xx:xx;Timeout=<decimal>` (names ASCII case-insensitive).
    static func isWellFormed(_ v: ArraySlice<UInt8>) -> Bool {
        guard let semi = v.firstIndex(of: 0x3B) else { return false }
        let mac = v[v.startIndex..<semi]
        let timeout = v[(semi + 1)...]
        guard SSDPSyntax.hasPrefix(mac, "MAC=", caseInsensitive: true),
            SSDPSyntax.hasPrefix(timeout, "Timeout=", caseInsensitive: true)
        else { return false }
        guard ASCII.parseDecimal(timeout.dropFirst(8)) != nil else { return false }
        let octets = mac.dropFirst(4)
        guard octets.count == 17 else { return false }
        let separator = octets[octets.startIndex + 2]
        guard separator == 0x3A || separator == 0x2D else { return false }
        for (k, b) in octets.enumerated() {
            if k % 3 == 2 {
                guard b == separator else { return false }
            } else if !ASCII.isHexDigit(b) {
                return false
            }
        }
        return true
    }
}

/// PROF-509: Roku ECP's USN and LOCATION.
struct RokuECPRule: MessageRule {
    static let descriptor = RuleDescriptor.profile(
        "PROF-509", "roku-ecp-discovery", .warning,
        "A Roku ECP device (ST or NT roku:ecp) gives USN uuid:roku:ecp:<serial> and a LOCATION on port 8060",
        profiles: ServiceProfiles(.rokuECP), spec: "Roku External Control Protocol, discovery (not confirmed)",
        "A device answering `ST: roku:ecp` (or announcing `NT: roku:ecp`) gives `USN: uuid:roku:ecp:<serial "
            + "number>`, which ECP clients match, and a `LOCATION` on port 8060 (`http://<ip>:8060/`), where the ECP "
            + "REST API listens. Roku's SSDP paragraph could not be read: a warning.",
        basis: .notConfirmed, example: "ST: roku:ecp with USN: uuid:roku:ecp: (no serial)", proto: .ssdp)
    static let examples = RuleExamples(
        triggering: [
            RuleExample([response(ssdp(okLine, rokuResponse.setting("USN", "uuid:roku:ecp:")))]),
            RuleExample([response(ssdp(okLine, rokuResponse.setting("LOCATION", "http://192.168.1.20:80/")))]),
        ],
        nonTriggering: [RuleExample([response(ssdp(okLine, rokuResponse))])])

    static let rokuResponse = response11.setting("ST", "roku:ecp").setting("USN", "uuid:roku:ecp:P0A070000007")
        .setting("LOCATION", "http://192.168.1.20:8060/")
    static let target: StaticString = "roku:ecp"

    static func check(_ i: SSDPMessageView, into out: inout FindingSink) {
        let field: SSDPHeaderName
        switch i.kind {
        case .response: field = .st
        case .notify where i.message.notificationSubtype == .alive: field = .nt
        default: return
        }
        guard let t = i.message.value(field), ASCII.equalsIgnoringCase(t, target) else { return }
        out.profile = .rokuECP
        defer { out.profile = nil }
        let usn = i.message.value(.usn)
        let serial = usn.flatMap { u -> ArraySlice<UInt8>? in
            guard SSDPSyntax.hasPrefix(u, "uuid:roku:ecp:", caseInsensitive: true) else { return nil }
            return u.dropFirst(14)
        }
        if serial?.isEmpty ?? true {
            let shown = usn.map { "USN \(i.text($0))" } ?? "no USN"
            out.report(
                Self.descriptor, "Roku ECP device has \(shown), not uuid:roku:ecp:<serial number>", field: "header USN")
        }
        if let l = i.message.value(.location) {
            let url = HTTPURL(String(decoding: l, as: UTF8.self))
            if url?.port != 8060 {
                out.report(
                    Self.descriptor,
                    "Roku ECP device has LOCATION \(i.text(l)), not http://<ip>:8060/ where ECP listens",
                    field: "header LOCATION")
            }
        } else {
            out.report(Self.descriptor, "Roku ECP device has no LOCATION (http://<ip>:8060/)", field: "header LOCATION")
        }
    }
}
