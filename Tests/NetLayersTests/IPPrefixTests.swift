import NetLayers
import Testing

/// `--subnet`'s values: `[NAME=]ADDRESS/LENGTH`, parsed without trapping on anything.
@Suite struct IPPrefixTests {
    func prefix(_ text: String) -> IPPrefix? { try? IPPrefix.parse(text).get() }
    func problem(_ text: String) -> String? {
        if case .failure(let e) = IPPrefix.parse(text) { return e.description }
        return nil
    }

    @Test func ipv4AndIPv6SubnetsParseWithTheirHostBitsCleared() {
        #expect(prefix("10.98.1.0/24")?.description == "10.98.1.0/24")
        #expect(prefix("10.98.1.5/24")?.description == "10.98.1.0/24")
        #expect(prefix("0.0.0.0/0")?.description == "0.0.0.0/0")
        #expect(prefix("192.168.1.7/32")?.description == "192.168.1.7/32")
        #expect(prefix("fd00:98:1::5/64")?.description == "fd00:98:1::/64")
        #expect(prefix("2001:db8::1/127")?.description == "2001:db8::/127")
        #expect(prefix("::/0")?.description == "::/0")
        #expect(prefix("fe80::1/128")?.description == "fe80::1/128")
    }

    @Test func containsTellsTheSubnetsAddressesByFamily() throws {
        let v4 = try #require(prefix("10.98.1.0/24"))
        #expect(v4.contains(.v4(0x0A62_0107)))
        #expect(!v4.contains(.v4(0x0A62_0207)))
        #expect(!v4.contains(.v6(0, 0x0A62_0107)))
        let v6 = try #require(prefix("fd00:98:1::/64"))
        #expect(v6.contains(.v6(0xFD00_0098_0001_0000, 42)))
        #expect(!v6.contains(.v6(0xFD00_0098_0002_0000, 42)))
        let all = try #require(prefix("::/0"))
        #expect(all.contains(.v6(.max, .max)))
        let odd = try #require(prefix("fd00::/65"))
        #expect(odd.contains(.v6(0xFD00_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF)))
        #expect(!odd.contains(.v6(0xFD00_0000_0000_0000, 0x8000_0000_0000_0000)))
    }

    @Test func aNetmaskGivesTheLength() {
        #expect(IPPrefix(address: .v4(0x0A62_0105), netmask: .v4(0xFFFF_FF00))?.description == "10.98.1.0/24")
        #expect(IPPrefix(address: .v4(0x7F00_0001), netmask: .v4(0xFF00_0000))?.description == "127.0.0.0/8")
        #expect(
            IPPrefix(address: .v6(0xFD00_0098_0001_0000, 5), netmask: .v6(.max, 0))?.description == "fd00:98:1::/64")
        #expect(IPPrefix(address: .v6(0, 1), netmask: .v6(.max, .max))?.description == "::1/128")
        #expect(IPPrefix(address: .v4(1), netmask: .v6(.max, 0)) == nil)
    }

    @Test func malformedValuesAreClearErrorsAndNeverTrap() {
        #expect(problem("10.98.1.0")?.contains("give ADDRESS/LENGTH") == true)
        #expect(problem("10.98.1.0/33")?.contains("from 0 to 32") == true)
        #expect(problem("::/129")?.contains("from 0 to 128") == true)
        #expect(problem("10.98.1.0/-1")?.contains("prefix length") == true)
        #expect(problem("10.98.1.0/")?.contains("prefix length") == true)
        #expect(problem("10.98.1.0/ 24")?.contains("prefix length") == true)
        #expect(problem("10.98.1.0/99999999999999999999999")?.contains("prefix length") == true)
        #expect(problem("10.98.1.0/24/8")?.contains("prefix length") == true)
        #expect(problem("10.98.1/24")?.contains("not an IPv4 or IPv6 address") == true)
        #expect(problem("10.98.1.256/24")?.contains("not an IPv4 or IPv6 address") == true)
        #expect(problem("fe80::1%eth0/64")?.contains("not an IPv4 or IPv6 address") == true)
        #expect(problem("1:2:3:4:5:6:7:8:9/64")?.contains("not an IPv4 or IPv6 address") == true)
        #expect(problem("/24")?.contains("not an IPv4 or IPv6 address") == true)
        #expect(problem("") != nil)
        #expect(problem("١٠.98.1.0/٢٤") != nil)
        // Long and hostile text is quoted short and escaped for the terminal.
        let long = problem(String(repeating: "9", count: 100_000) + "/24")
        #expect(long?.contains("too long") == true && (long?.count ?? .max) < 200)
        let escape = problem("\u{1B}]0;pwned\u{07}/24")
        #expect(escape != nil && escape?.contains("\u{1B}") == false)
    }

    @Test func aNamedValueGivesItsSegment() throws {
        let named = try IPPrefix.parse(named: "lan=10.98.1.0/24").get()
        #expect(named.segment == "lan" && named.prefix.description == "10.98.1.0/24")
        let plain = try IPPrefix.parse(named: "fd00::/64").get()
        #expect(plain.segment == "" && plain.prefix.description == "fd00::/64")
        #expect((try? IPPrefix.parse(named: "=10.98.1.0/24").get()) == nil)
        #expect((try? IPPrefix.parse(named: "lan=").get()) == nil)
        #expect((try? IPPrefix.parse(named: "lan=iot=10.0.0.0/8").get()) == nil)
    }

    @Test func aLinksSubnetsAreBoundedAndLinkLocalIsAlwaysOnLink() throws {
        var link = LinkSubnets()
        for k in 0..<100 { link.add(IPPrefix(.v4(UInt32(k) << 8), length: 24)) }
        #expect(link.prefixes.count == LinkSubnets.maxPrefixes)
        let lan = LinkSubnets([try #require(prefix("10.98.1.0/24"))])
        #expect(lan.isOnLink(.v6(0xFE80_0000_0000_0000, 1)))
        #expect(lan.isOnLink(.v4(0xA9FE_0101)))
        #expect(!lan.isOnLink(.v4(0x0A62_0201)))
        #expect(lan.knowsFamily(of: .v4(1)) && !lan.knowsFamily(of: .v6(0, 1)))
    }
}
