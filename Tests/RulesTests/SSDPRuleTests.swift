import Findings
import NetLayers
import Rules
import SSDP
import Testing
import TestSupport
import WireFormat

// MARK: - Message builders

typealias Headers = [(String, String)]

let testUUID = "4d696e69-444c-164e-9d41-b827eb000001"

func ssdp(_ start: String, _ headers: Headers, eol: String = "\r\n", end: Bool = true, body: String = "") -> [UInt8] {
    var s = start + eol
    for (n, v) in headers { s += v.isEmpty ? "\(n):" + eol : "\(n): \(v)" + eol }
    if end { s += eol }
    return Array((s + body).utf8)
}

extension Array where Element == (String, String) {
    func setting(_ name: String, _ value: String) -> Headers {
        var out = self
        if let i = out.firstIndex(where: { $0.0 == name }) { out[i].1 = value } else { out.append((name, value)) }
        return out
    }
    func removing(_ name: String) -> Headers { filter { $0.0 != name } }
    func adding(_ name: String, _ value: String) -> Headers { self + [(name, value)] }
    func renaming(_ name: String, to new: String) -> Headers { map { $0.0 == name ? (new, $0.1) : $0 } }
}

let search11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("MAN", "\"ssdp:discover\""), ("MX", "2"), ("ST", "ssdp:all"),
    ("USER-AGENT", "Linux/6.1 UPnP/1.1 test-cp/1.0"),
]
let alive11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("CACHE-CONTROL", "max-age=1800"),
    ("LOCATION", "http://192.168.1.20:8200/rootDesc.xml"), ("NT", "upnp:rootdevice"), ("NTS", "ssdp:alive"),
    ("SERVER", "Linux/6.1 UPnP/1.1 test-dev/1.0"), ("USN", "uuid:\(testUUID)::upnp:rootdevice"),
    ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"),
]
let byebye11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("NT", "upnp:rootdevice"), ("NTS", "ssdp:byebye"),
    ("USN", "uuid:\(testUUID)::upnp:rootdevice"), ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"),
]
let update11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("LOCATION", "http://192.168.1.20:8200/rootDesc.xml"),
    ("NT", "upnp:rootdevice"), ("NTS", "ssdp:update"), ("USN", "uuid:\(testUUID)::upnp:rootdevice"),
    ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"), ("NEXTBOOTID.UPNP.ORG", "8"),
]
let response11: Headers = [
    ("CACHE-CONTROL", "max-age=1800"), ("DATE", "Sun, 06 Nov 1994 08:49:37 GMT"), ("EXT", ""),
    ("LOCATION", "http://192.168.1.20:8200/rootDesc.xml"), ("SERVER", "Linux/6.1 UPnP/1.1 test-dev/1.0"),
    ("ST", "upnp:rootdevice"), ("USN", "uuid:\(testUUID)::upnp:rootdevice"), ("BOOTID.UPNP.ORG", "7"),
    ("CONFIGID.UPNP.ORG", "1"),
]

let mSearchLine = "M-SEARCH * HTTP/1.1"
let notifyLine = "NOTIFY * HTTP/1.1"
let okLine = "HTTP/1.1 200 OK"

/// A multicast NOTIFY / M-SEARCH datagram (TTL 2) unless told otherwise.
func multicast(_ payload: [UInt8], src: String = "192.168.1.20", sport: UInt16 = 1900, dst: String = "239.255.255.250", ttl: UInt8 = 2, fragments: [Int] = []) -> Datagram {
    var d = makeDatagram(payload, src: src, srcPort: sport, dst: dst, dstPort: 1900, hopLimit: ttl)
    d.fragmentFrames = fragments
    return d
}

/// A unicast response from the device's port 1900 to a searcher.
func response(_ payload: [UInt8], dst: String = "192.168.1.10", dport: UInt16 = 50000, time: Timestamp = Timestamp(seconds: 1_700_000_000, nanoseconds: 0), frame: Int = 2) -> Datagram {
    makeDatagram(payload, src: "192.168.1.20", srcPort: 1900, dst: dst, dstPort: dport, hopLimit: 64, frame: frame, time: time)
}

/// Runs the SSDP analyzer over datagrams in order and returns the rule IDs reported on the
/// last one.
func ssdpFindings(_ datagrams: [Datagram]) -> [Finding] {
    var analyzer = SSDPAnalyzer()
    var last: [Finding] = []
    for d in datagrams {
        var sink = FindingSink(datagram: d)
        if analyzer.claims(d) { _ = analyzer.analyze(d, into: &sink) }
        last = sink.findings
    }
    return last
}

struct SSDPRuleCase: CustomTestStringConvertible, Sendable {
    var id: String
    var trigger: [Datagram]
    var clean: [Datagram]
    var severity: Severity? = nil
    var testDescription: String { id }
}

/// One triggering and one near-miss input per rule (SwiftLint's triggering / non-triggering
/// examples). The clean input must not raise this rule; it may raise others.
let ssdpCases: [SSDPRuleCase] = [
    .init(id: "SSDP-001", trigger: [multicast(ssdp(notifyLine, alive11), fragments: [1, 2])], clean: [multicast(ssdp(notifyLine, alive11))], severity: .warning),
    .init(id: "SSDP-002", trigger: [multicast(ssdp("SUBSCRIBE * HTTP/1.1", alive11))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-003", trigger: [multicast(ssdp("m-search * HTTP/1.1", search11), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-004", trigger: [response(ssdp("HTTP/1.1 404 Not Found", response11))], clean: [response(ssdp(okLine, response11))], severity: .error),
    .init(id: "SSDP-005", trigger: [multicast(ssdp(notifyLine, alive11, eol: "\n"))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-006", trigger: [multicast(ssdp(notifyLine, alive11, end: false))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-007", trigger: [multicast(ssdp(notifyLine, alive11.renaming("HOST", to: "HOST ")))], clean: [multicast(ssdp(notifyLine, alive11.renaming("HOST", to: "host").renaming("NTS", to: "nts")))]),
    .init(id: "SSDP-008", trigger: [multicast(ssdp(notifyLine, alive11.adding("LOCATION", "http://192.168.1.20:8200/other.xml")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-009", trigger: [multicast(ssdp(notifyLine, alive11.setting("SERVER", "Linux/6.1\u{1} UPnP/1.1 test/1.0")))], clean: [multicast(ssdp(notifyLine, alive11))], severity: .warning),
    .init(id: "SSDP-010", trigger: [multicast(ssdp(notifyLine, alive11, body: "<root/>"))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-011", trigger: [multicast(ssdp(notifyLine, alive11.adding("Powerstate", "1")))], clean: [multicast(ssdp(notifyLine, alive11.adding("powerstate.example.com", "1")))], severity: .warning),
    .init(id: "SSDP-012", trigger: [multicast(ssdp(notifyLine, alive11), dst: "239.255.255.251")], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-013", trigger: [multicast(ssdp(notifyLine, alive11.setting("HOST", "239.255.255.250")))], clean: [multicast(ssdp(notifyLine, alive11))], severity: .warning),
    .init(id: "SSDP-014", trigger: [multicast(ssdp(notifyLine, alive11), ttl: 64)], clean: [multicast(ssdp(notifyLine, alive11), ttl: 1)]),
    .init(id: "SSDP-015", trigger: [multicast(ssdp(notifyLine, alive11.setting("HOST", "[FF05::C]:1900").setting("LOCATION", "http://[fd00::20]:8200/d.xml")), src: "fe80::20", dst: "ff05::c")],
          clean: [multicast(ssdp(notifyLine, alive11.setting("HOST", "[FF05::C]:1900").setting("LOCATION", "http://[fd00::20]:8200/d.xml")), src: "fd00::20", dst: "ff05::c")]),
    .init(id: "SSDP-016", trigger: [multicast(ssdp(notifyLine, alive11.setting("USN", "uuid:upnp-InternetGatewayDevice-1_0-0090a2777777::upnp:rootdevice")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-017", trigger: [multicast(ssdp(notifyLine, alive11.setting("USN", "uuid:\(testUUID)")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-018", trigger: [multicast(ssdp(notifyLine, alive11.setting("NT", "urn:schemas-upnp-org:device:MediaServer").setting("USN", "uuid:\(testUUID)::urn:schemas-upnp-org:device:MediaServer")))],
          clean: [multicast(ssdp(notifyLine, alive11.setting("NT", "urn:schemas-upnp-org:device:MediaServer:1").setting("USN", "uuid:\(testUUID)::urn:schemas-upnp-org:device:MediaServer:1")))]),
    .init(id: "SSDP-019", trigger: [multicast(ssdp(notifyLine, alive11.setting("SERVER", "Linux/5.4, UPnP/1.1, SDK/1.14")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-020", trigger: [multicast(ssdp(notifyLine, alive11.setting("LOCATION", "http://127.0.0.1:8200/rootDesc.xml")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-021", trigger: [multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "no-cache")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-022", trigger: [multicast(ssdp(notifyLine, alive11.setting("CACHE-CONTROL", "max-age=0")))], clean: [multicast(ssdp(notifyLine, alive11))], severity: .error),
    .init(id: "SSDP-023", trigger: [multicast(ssdp(notifyLine, alive11.setting("BOOTID.UPNP.ORG", "-1")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-101", trigger: [multicast(ssdp(mSearchLine, search11.removing("ST")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-102", trigger: [multicast(ssdp(mSearchLine, search11.setting("MAN", "ssdp:discover")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-103", trigger: [multicast(ssdp(mSearchLine, search11.removing("MX")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-104", trigger: [multicast(ssdp(mSearchLine, search11.setting("MX", "6")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11.setting("MX", "5")), sport: 50000)], severity: .warning),
    .init(id: "SSDP-105", trigger: [multicast(ssdp(mSearchLine, search11.removing("MX")), sport: 50000, dst: "192.168.1.20")],
          clean: [multicast(ssdp(mSearchLine, search11.removing("MX").setting("HOST", "192.168.1.20:1900")), sport: 50000, dst: "192.168.1.20")], severity: .warning),
    .init(id: "SSDP-106", trigger: [multicast(ssdp(mSearchLine, search11.setting("ST", "ssdp:discover")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-107", trigger: [multicast(ssdp(mSearchLine, search11.setting("USER-AGENT", "Google Chrome/87 Windows")), sport: 50000)], clean: [multicast(ssdp(mSearchLine, search11), sport: 50000)]),
    .init(id: "SSDP-108", trigger: [multicast(ssdp(mSearchLine, search11.setting("USER-AGENT", "Linux/6.1 UPnP/2.0 cp/1.0")), sport: 50000)],
          clean: [multicast(ssdp(mSearchLine, search11.setting("USER-AGENT", "Linux/6.1 UPnP/2.0 cp/1.0").adding("CPFN.UPNP.ORG", "Living room")), sport: 50000)]),
    .init(id: "SSDP-201", trigger: [response(ssdp(okLine, response11.removing("EXT")))], clean: [response(ssdp(okLine, response11))]),
    .init(id: "SSDP-202", trigger: [response(ssdp(okLine, response11.setting("EXT", "1")))], clean: [response(ssdp(okLine, response11))]),
    .init(id: "SSDP-203", trigger: [response(ssdp(okLine, response11.setting("DATE", "2024-01-01 10:00")))], clean: [response(ssdp(okLine, response11))]),
    .init(id: "SSDP-204", trigger: [response(ssdp(okLine, response11.setting("ST", "ssdp:all")))], clean: [response(ssdp(okLine, response11))]),
    .init(id: "SSDP-205", trigger: [response(ssdp(okLine, response11), dst: "239.255.255.250", dport: 1900)], clean: [response(ssdp(okLine, response11))], severity: .error),
    .init(id: "SSDP-206", trigger: [response(ssdp(okLine, response11.adding("NTS", "ssdp:alive")))], clean: [response(ssdp(okLine, response11))]),
    .init(id: "SSDP-301", trigger: [multicast(ssdp(notifyLine, alive11.removing("LOCATION")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-302", trigger: [multicast(ssdp(notifyLine, alive11.setting("NTS", "ssdp:Alive")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-303", trigger: [multicast(ssdp(notifyLine, alive11.setting("NT", "ssdp:all")))], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-304", trigger: [multicast(ssdp(notifyLine, alive11), dst: "192.168.1.10")], clean: [multicast(ssdp(notifyLine, alive11))]),
    .init(id: "SSDP-401", trigger: [multicast(ssdp(notifyLine, alive11)), multicast(ssdp(notifyLine, byebye11.removing("BOOTID.UPNP.ORG")))],
          clean: [multicast(ssdp(notifyLine, alive11)), multicast(ssdp(notifyLine, byebye11))], severity: .error),
    .init(id: "SSDP-402", trigger: [multicast(ssdp(notifyLine, update11.removing("NEXTBOOTID.UPNP.ORG")))], clean: [multicast(ssdp(notifyLine, update11))]),
    .init(id: "SSDP-403", trigger: [multicast(ssdp(notifyLine, update11.setting("NEXTBOOTID.UPNP.ORG", "7")))], clean: [multicast(ssdp(notifyLine, update11))]),
    .init(id: "SSDP-501",
          trigger: [multicast(ssdp(mSearchLine, search11.setting("MX", "3").setting("ST", "upnp:rootdevice")), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11), time: Timestamp(seconds: 1_700_000_004, nanoseconds: 200_000_000))],
          clean: [multicast(ssdp(mSearchLine, search11.setting("MX", "3").setting("ST", "upnp:rootdevice")), src: "192.168.1.10", sport: 50000),
                  response(ssdp(okLine, response11), time: Timestamp(seconds: 1_700_000_002, nanoseconds: 0))]),
    .init(id: "SSDP-504",
          trigger: [multicast(ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1")), src: "192.168.1.10", sport: 50000),
                    response(ssdp(okLine, response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:4").setting("USN", "uuid:\(testUUID)::urn:schemas-upnp-org:device:MediaServer:4")))],
          clean: [multicast(ssdp(mSearchLine, search11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1")), src: "192.168.1.10", sport: 50000),
                  response(ssdp(okLine, response11.setting("ST", "urn:schemas-upnp-org:device:MediaServer:1").setting("USN", "uuid:\(testUUID)::urn:schemas-upnp-org:device:MediaServer:1")))]),
]

@Suite struct SSDPRuleTests {
    @Test(arguments: ssdpCases)
    func ruleFiresOnItsTriggerAndStaysSilentOnTheNearMiss(_ c: SSDPRuleCase) {
        expectRule(c.id, severity: c.severity, firesOn: ssdpFindings(c.trigger), notOn: ssdpFindings(c.clean))
    }

    @Test func wellFormedMessagesOfEveryKindRaiseNothing() {
        for d in [
            multicast(ssdp(notifyLine, alive11)), multicast(ssdp(mSearchLine, search11), sport: 50000),
            response(ssdp(okLine, response11)), multicast(ssdp(notifyLine, byebye11)), multicast(ssdp(notifyLine, update11)),
        ] {
            #expect(ssdpFindings([d]).map(\.rule) == [])
        }
    }

    @Test func mx10UnderUPnP11ExplainsTheCapAtFive() {
        let f = ssdpFindings([multicast(ssdp(mSearchLine, search11.setting("MX", "10")), sport: 50000)])
        let mx = f.first { $0.rule == "SSDP-104" }
        #expect(mx?.message.contains("treat it as 5") == true)
        // Under UPnP/1.0 the same MX is fine (1–120).
        let v10 = ssdpFindings([multicast(ssdp(mSearchLine, search11.setting("MX", "10").setting("USER-AGENT", "X/1 UPnP/1.0 y/1")), sport: 50000)])
        #expect(!v10.contains { $0.rule == "SSDP-104" })
    }

    @Test func ssdpAllIsAValidSearchTargetButNotANotificationType() {
        #expect(!ssdpFindings([multicast(ssdp(mSearchLine, search11.setting("ST", "ssdp:all")), sport: 50000)]).contains { $0.rule == "SSDP-106" })
        #expect(ssdpFindings([multicast(ssdp(notifyLine, alive11.setting("NT", "ssdp:all")))]).contains { $0.rule == "SSDP-303" })
    }

    @Test func byebyeInheritsTheVersionItsDeviceClaimedEarlier() {
        let bye = multicast(ssdp(notifyLine, byebye11.removing("BOOTID.UPNP.ORG")))
        // Without an earlier UPnP/1.1 alive the byebye is judged as 1.0: BOOTID not required.
        #expect(!ssdpFindings([bye]).contains { $0.rule == "SSDP-401" })
        #expect(ssdpFindings([multicast(ssdp(notifyLine, alive11)), bye]).contains { $0.rule == "SSDP-401" })
    }

    @Test func responseFromAnEphemeralPortToASearcherIsRecognised() {
        var analyzer = SSDPAnalyzer()
        let search = multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: 50000)
        var sink = FindingSink(datagram: search)
        #expect(analyzer.claims(search))
        _ = analyzer.analyze(search, into: &sink)
        // A broken hand-rolled responder: bare LF, from port 43210.
        let reply = makeDatagram(ssdp("HTTP/1.1 200 OK", response11, eol: "\n"), src: "192.168.1.20", srcPort: 43210, dst: "192.168.1.10", dstPort: 50000)
        #expect(analyzer.claims(reply))
        var out = FindingSink(datagram: reply)
        let m = analyzer.analyze(reply, into: &out)
        #expect(m.kind == .response)
        #expect(out.findings.contains { $0.rule == "SSDP-005" })
        // Random non-HTTP traffic to the same endpoint is not claimed.
        #expect(!analyzer.claims(makeDatagram([1, 2, 3, 4, 5, 6], src: "192.168.1.20", srcPort: 43210, dst: "192.168.1.10", dstPort: 50000)))
    }
}

@Suite struct SSDPCatalogTests {
    /// Every stateless rule of shared/rules/ssdp.md (0xx–4xx), plus the paired 501 and 504.
    static let expected = [
        "SSDP-001", "SSDP-002", "SSDP-003", "SSDP-004", "SSDP-005", "SSDP-006", "SSDP-007", "SSDP-008", "SSDP-009",
        "SSDP-010", "SSDP-011", "SSDP-012", "SSDP-013", "SSDP-014", "SSDP-015", "SSDP-016", "SSDP-017", "SSDP-018",
        "SSDP-019", "SSDP-020", "SSDP-021", "SSDP-022", "SSDP-023", "SSDP-101", "SSDP-102", "SSDP-103", "SSDP-104",
        "SSDP-105", "SSDP-106", "SSDP-107", "SSDP-108", "SSDP-201", "SSDP-202", "SSDP-203", "SSDP-204", "SSDP-205",
        "SSDP-206", "SSDP-301", "SSDP-302", "SSDP-303", "SSDP-304", "SSDP-401", "SSDP-402", "SSDP-403", "SSDP-501",
        "SSDP-504",
    ]

    /// SSDP-011 names every such header in one finding per form, in message order, with
    /// escapes for unprintable bytes; vendor-qualified and known names are left out.
    @Test func vendorHeaderFindingsListEveryNameOfTheirForm() {
        let headers = alive11.adding("Powerstate", "1").adding("X-User-Agent", "a").adding("hue-bridgeid", "2")
            .adding("powerstate.example.com", "3").adding("01-NLS", "4").adding("Bad\u{01}Name", "5").adding("OPT", "6")
        let found = ssdpFindings([multicast(ssdp(notifyLine, headers))]).filter { $0.rule.rawValue == "SSDP-011" }
        #expect(found.map(\.message) == [
            "headers Powerstate, hue-bridgeid, Bad\\x01Name are not defined by UDA and not vendor-qualified (name.domain)",
            "headers X-User-Agent, 01-NLS, OPT are not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)",
        ])
        #expect(found.map(\.field) == ["Powerstate,hue-bridgeid,Bad\\x01Name", "X-User-Agent,01-NLS,OPT"])
        let one = ssdpFindings([multicast(ssdp(notifyLine, alive11.adding("X-Foo", "1")))]).filter { $0.rule.rawValue == "SSDP-011" }
        #expect(one.map(\.message) == ["header X-Foo is not defined by UDA and not vendor-qualified (X- or HTTP Extension Framework headers are common)"])
        #expect(one.map(\.severity) == [.info])
    }

    @Test func everyCatalogRuleIsImplementedOnceWithNameAndSpec() {
        expectCatalog(SSDPCatalog.descriptors, hasExactly: Self.expected)
    }

    @Test func everyRuleHasATriggerAndNearMissTest() {
        #expect(Set(ssdpCases.map(\.id)) == Set(Self.expected))
    }

    @Test func everyStatelessRuleHasACheck() {
        let checked = Set(SSDPRules.all.map(\.descriptor.id.rawValue))
        let stateless = Set(SSDPCatalog.descriptors.filter { $0.scope == .stateless }.map(\.id.rawValue))
        #expect(stateless.isSubset(of: checked))
    }
}

/// Trigger and near miss, shared by both protocols: the rule fires on its trigger (at the
/// expected severity, with a message and a spec reference) and stays silent on the near miss.
func expectRule(
    _ id: String, severity: Severity?, firesOn trigger: [Finding], notOn clean: [Finding],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let hit = trigger.filter { $0.rule.rawValue == id }
    #expect(!hit.isEmpty, "\(id) did not fire on its triggering input", sourceLocation: sourceLocation)
    if let s = severity {
        #expect(hit.contains { $0.severity == s }, "\(id) severity \(hit.map(\.severity))", sourceLocation: sourceLocation)
    }
    let miss = clean.filter { $0.rule.rawValue == id }
    #expect(miss.isEmpty, "\(id) fired on its near miss: \(miss.map(\.message))", sourceLocation: sourceLocation)
    for f in hit { #expect(!f.message.isEmpty && !f.spec.isEmpty, "\(id)", sourceLocation: sourceLocation) }
}

/// Catalog invariants shared by both protocols: exactly the expected IDs, each once, unique
/// kebab-case names, and a spec reference, title and example for every rule.
func expectCatalog(_ descriptors: [RuleDescriptor], hasExactly expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let ids = descriptors.map(\.id.rawValue)
    #expect(Set(ids) == Set(expected), sourceLocation: sourceLocation)
    #expect(ids.count == Set(ids).count, sourceLocation: sourceLocation)
    let names = descriptors.map(\.name)
    #expect(names.count == Set(names).count, sourceLocation: sourceLocation)
    for d in descriptors {
        #expect(!d.spec.isEmpty && !d.title.isEmpty && !d.example.isEmpty, "\(d.id)", sourceLocation: sourceLocation)
        #expect(d.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(d.id) name \(d.name)", sourceLocation: sourceLocation)
    }
}
