/// What a small device's firmware sends: an SSDP NOTIFY alive for its root device and an mDNS
/// announcement of its IPP printer service. `lineEnding` and `txt` are there so the tests can
/// build the broken variants a real bug would produce.
public enum Announcements {
    public static let uuid = "4d696e69-444c-164e-9d41-b827eb000001"

    /// `NOTIFY * HTTP/1.1` for `upnp:rootdevice`, lines ending in `lineEnding`.
    public static func notify(location: String, lineEnding: String = "\r\n") -> [UInt8] {
        let lines = [
            "NOTIFY * HTTP/1.1", "HOST: 239.255.255.250:1900", "CACHE-CONTROL: max-age=1800",
            "LOCATION: \(location)", "NT: upnp:rootdevice", "NTS: ssdp:alive",
            "SERVER: Linux/6.1 UPnP/1.1 example/1.0", "USN: uuid:\(uuid)::upnp:rootdevice", "BOOTID.UPNP.ORG: 1",
            "CONFIGID.UPNP.ORG: 1",
        ]
        return Array((lines.joined(separator: lineEnding) + lineEnding + lineEnding).utf8)
    }

    /// An mDNS response announcing `instance._ipp._tcp.local.` on `host.local.`: the shared PTR,
    /// the unique SRV and TXT (cache-flush set), and the host's A and AAAA records. A `txt` of
    /// `nil` leaves the TXT record out.
    public static func printer(
        instance: String, host: String, ipv4: [UInt8], ipv6: [UInt8], txt: [String]? = ["txtvers=1"]
    ) -> [UInt8] {
        var records: [[UInt8]] = []
        let service = "_ipp._tcp.local"
        let full = "\(instance).\(service)"
        let target = "\(host).local"
        records.append(record(service, type: 12, flush: false, ttl: 4500, rdata: name(full)))
        records.append(record(full, type: 33, flush: true, ttl: 120, rdata: [0, 0, 0, 0, 0x02, 0x77] + name(target)))
        if let txt {
            records.append(
                record(
                    full, type: 16, flush: true, ttl: 4500,
                    rdata: txt.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }))
        }
        records.append(record(target, type: 1, flush: true, ttl: 120, rdata: ipv4))
        records.append(record(target, type: 28, flush: true, ttl: 120, rdata: ipv6))
        // ID 0, flags: response, authoritative; no question; the records as answers.
        let header: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, UInt8(records.count), 0, 0, 0, 0]
        return header + records.flatMap { $0 }
    }

    static func name(_ text: String) -> [UInt8] {
        text.split(separator: ".").flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }

    static func record(_ owner: String, type: UInt16, flush: Bool, ttl: UInt32, rdata: [UInt8]) -> [UInt8] {
        let rrclass: UInt16 = flush ? 0x8001 : 1
        return name(owner) + be(type) + be(rrclass) + be(UInt16(ttl >> 16)) + be(UInt16(ttl & 0xFFFF))
            + be(UInt16(rdata.count)) + rdata
    }

    static func be(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
