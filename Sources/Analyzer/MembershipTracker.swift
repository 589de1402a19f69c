import NetLayers
import WireFormat

/// The multicast memberships each host reported in a session (IGMP and MLD reports and
/// leaves), for the discovery groups only: 224.0.0.251 and ff02::fb (mDNS), 239.255.255.250
/// and ff02::c (SSDP). Taken in capture order on the reading thread; the inventory lists
/// them with each device and host. Bounded: at most `maxHosts` hosts (later ones are not
/// tracked, counted in `untracked`).
struct MembershipTracker {
    /// The groups a host listens to after its reports, in the order first joined.
    private(set) var groups: [IPAddress: [IPAddress]] = [:]
    private(set) var untracked = 0

    static let maxHosts = 16384
    static let discoveryGroups: [IPAddress] = [
        .v4(0xE000_00FB), .v4(0xEFFF_FFFA), .v6(0xFF02 << 48, 0xFB), .v6(0xFF02 << 48, 0xC),
    ]

    mutating func take(_ p: MembershipPacket) {
        guard case .success(let m) = p.message, m.kind != .query else { return }
        for r in m.records where Self.discoveryGroups.contains(r.group) {
            guard groups[p.src] != nil || groups.count < Self.maxHosts else {
                untracked += 1
                return
            }
            // Changed in place: one lookup, no copy of the host's list.
            if r.listens {
                if groups[p.src]?.contains(r.group) != true { groups[p.src, default: []].append(r.group) }
            } else {
                groups[p.src, default: []].removeAll { $0 == r.group }
            }
        }
    }

    /// The groups each host listens to, by the host's address as text (as the inventory
    /// keeps addresses): built once per session, so that each device's lookup costs its own
    /// addresses, not a scan of every host.
    func byAddressText() -> [String: [IPAddress]] {
        var out: [String: [IPAddress]] = [:]
        for (host, joined) in groups where !joined.isEmpty { out[host.description] = joined }
        return out
    }

    /// The discovery groups any of `addresses` listens to (`joined`: from `byAddressText`),
    /// as text, sorted.
    static func memberships(of addresses: [String], in joined: [String: [IPAddress]]) -> [String] {
        var out: [String] = []
        for a in addresses {
            for g in joined[a] ?? [] where !out.contains(g.description) { out.append(g.description) }
        }
        return out.sorted()
    }
}
