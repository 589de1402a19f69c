import NetLayers
import WireFormat

// Building blocks for the SSDP rules' examples (and the rule tests): a UPnP 1.1 message of
// each kind, edited one header at a time.

typealias Headers = [(String, String)]

let exampleUUID = "4d696e69-444c-164e-9d41-b827eb000001"
/// A second device's UUID, for examples with two devices.
let otherUUID = "2c1f6e1a-5a7e-4c2e-9a59-99000000d003"

/// An SSDP payload: start line, headers, the blank line (unless `end` is false), a body.
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
    ("SERVER", "Linux/6.1 UPnP/1.1 test-dev/1.0"), ("USN", "uuid:\(exampleUUID)::upnp:rootdevice"),
    ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"),
]
let byebye11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("NT", "upnp:rootdevice"), ("NTS", "ssdp:byebye"),
    ("USN", "uuid:\(exampleUUID)::upnp:rootdevice"), ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"),
]
let update11: Headers = [
    ("HOST", "239.255.255.250:1900"), ("LOCATION", "http://192.168.1.20:8200/rootDesc.xml"),
    ("NT", "upnp:rootdevice"), ("NTS", "ssdp:update"), ("USN", "uuid:\(exampleUUID)::upnp:rootdevice"),
    ("BOOTID.UPNP.ORG", "7"), ("CONFIGID.UPNP.ORG", "1"), ("NEXTBOOTID.UPNP.ORG", "8"),
]
let response11: Headers = [
    ("CACHE-CONTROL", "max-age=1800"), ("DATE", "Sun, 06 Nov 1994 08:49:37 GMT"), ("EXT", ""),
    ("LOCATION", "http://192.168.1.20:8200/rootDesc.xml"), ("SERVER", "Linux/6.1 UPnP/1.1 test-dev/1.0"),
    ("ST", "upnp:rootdevice"), ("USN", "uuid:\(exampleUUID)::upnp:rootdevice"), ("BOOTID.UPNP.ORG", "7"),
    ("CONFIGID.UPNP.ORG", "1"),
]

let mSearchLine = "M-SEARCH * HTTP/1.1"
let notifyLine = "NOTIFY * HTTP/1.1"
let okLine = "HTTP/1.1 200 OK"

/// The time examples start at (2023-11-14 22:13:20 UTC), plus `seconds`.
func exampleTime(_ seconds: Double = 0) -> Timestamp {
    let whole = seconds.rounded(.down)
    return Timestamp(seconds: 1_700_000_000 + Int64(whole), nanoseconds: UInt32((seconds - whole) * 1e9))
}

/// A datagram for an example, with sensible defaults (an mDNS announcement's addresses).
func exampleDatagram(
    _ payload: [UInt8], src: String = "192.168.1.20", srcPort: UInt16 = 5353, dst: String = "224.0.0.251",
    dstPort: UInt16 = 5353, hopLimit: UInt8 = 255, frame: Int = 1, time: Timestamp = exampleTime()
) -> Datagram {
    Datagram(
        frame: frame, time: time, src: IPAddress(text: Array(src.utf8)) ?? .v4(0),
        dst: IPAddress(text: Array(dst.utf8)) ?? .v4(0), srcPort: srcPort, dstPort: dstPort, hopLimit: hopLimit,
        payload: payload)
}

/// A multicast NOTIFY / M-SEARCH datagram (TTL 2) unless told otherwise.
func multicast(
    _ payload: [UInt8], src: String = "192.168.1.20", sport: UInt16 = 1900, dst: String = "239.255.255.250",
    ttl: UInt8 = 2, fragments: [Int] = [], at seconds: Double = 0
) -> Datagram {
    var d = exampleDatagram(
        payload, src: src, srcPort: sport, dst: dst, dstPort: 1900, hopLimit: ttl, time: exampleTime(seconds))
    d.fragmentFrames = fragments
    return d
}

/// A unicast response from the device's port 1900 to a searcher.
func response(
    _ payload: [UInt8], dst: String = "192.168.1.10", dport: UInt16 = 50000, sport: UInt16 = 1900,
    at seconds: Double = 0, frame: Int = 2
) -> Datagram {
    exampleDatagram(
        payload, src: "192.168.1.20", srcPort: sport, dst: dst, dstPort: dport, hopLimit: 64, frame: frame,
        time: exampleTime(seconds))
}

// Timed sequences for the session rules: the example device's announcements, by NT.

let deviceTypeNT = "urn:schemas-upnp-org:device:MediaServer:1"

/// `headers` (an alive, byebye or update) for NT `nt` of the example device, USN to match.
func targeting(_ nt: String, _ headers: Headers = alive11, uuid: String = exampleUUID) -> Headers {
    let usn = nt.hasPrefix("uuid:") ? nt : "uuid:\(uuid)::\(nt)"
    return headers.setting("NT", nt).setting("USN", usn)
}

/// Link-layer addresses for examples that tell hosts apart by MAC.
let exampleMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x20]
let otherMAC: [UInt8] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x21]

/// A NOTIFY with `headers` from the example device (or `src`, with link-layer address `mac`
/// when given) at `seconds`.
func notify(_ headers: Headers, src: String = "192.168.1.20", mac: [UInt8] = [], at seconds: Double) -> Datagram {
    var d = multicast(ssdp(notifyLine, headers), src: src, at: seconds)
    if !mac.isEmpty { d.sourceMAC = MACBytes(mac) }
    return d
}

/// The example device's whole alive set (root device, UUID, device type), 1 ms apart from
/// `seconds`, with `headers` edited as given.
func aliveSet(_ headers: Headers = alive11, src: String = "192.168.1.20", at seconds: Double) -> [Datagram] {
    ["upnp:rootdevice", "uuid:\(exampleUUID)", deviceTypeNT].enumerated().map { k, nt in
        notify(targeting(nt, headers), src: src, at: seconds + 0.001 * Double(k))
    }
}

/// Some other host's multicast M-SEARCH at `seconds`: the capture goes on.
func otherSearch(at seconds: Double) -> Datagram {
    multicast(ssdp(mSearchLine, search11), src: "192.168.1.99", sport: 50999, at: seconds)
}

let unicastSearch11: Headers = [
    ("HOST", "192.168.1.20:1900"), ("MAN", "\"ssdp:discover\""), ("ST", "upnp:rootdevice"),
    ("USER-AGENT", "Linux/6.1 UPnP/1.1 test-cp/1.0"),
]

/// A unicast M-SEARCH from the example control point (192.168.1.10:50000) to the device (on
/// port `dport`).
func unicastSearch(_ headers: Headers = unicastSearch11, dport: UInt16 = 1900, at seconds: Double = 0) -> Datagram {
    exampleDatagram(
        ssdp(mSearchLine, headers), src: "192.168.1.10", srcPort: 50000, dst: "192.168.1.20", dstPort: dport,
        hopLimit: 64, time: exampleTime(seconds))
}

/// A multicast M-SEARCH for ssdp:all from 192.168.1.10:`port` (50000: where `response`
/// goes) at `seconds`.
func searchFrom(port: UInt16 = 50000, at seconds: Double) -> Datagram {
    multicast(ssdp(mSearchLine, search11), src: "192.168.1.10", sport: port, at: seconds)
}

/// `headers` (an alive) sent as a NOTIFY unicast to 192.168.1.10:`port`, the searcher of
/// `searchFrom`, at `seconds`: a search answered with a NOTIFY.
func unicastNotify(_ headers: Headers, port: UInt16 = 50000, at seconds: Double) -> Datagram {
    exampleDatagram(
        ssdp(notifyLine, headers), src: "192.168.1.20", srcPort: 1900, dst: "192.168.1.10", dstPort: port,
        hopLimit: 64, time: exampleTime(seconds))
}
