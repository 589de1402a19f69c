/// A libpcap data-link type (DLT value as `pcap_datalink` returns it). Open: any value is
/// representable; the named ones are those DiscoScope decodes or names in messages.
public struct LinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let null = LinkType(rawValue: 0)  // BSD loopback, host-order family
    public static let ethernet = LinkType(rawValue: 1)
    public static let raw = LinkType(rawValue: 12)  // DLT_RAW on Linux and most systems
    public static let rawOpenBSD = LinkType(rawValue: 14)  // DLT_RAW on OpenBSD
    public static let linktypeRaw = LinkType(rawValue: 101)  // LINKTYPE_RAW if not mapped
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let ieee802_11 = LinkType(rawValue: 105)
    public static let loop = LinkType(rawValue: 108)  // OpenBSD loopback, network-order family
    public static let linuxSLL = LinkType(rawValue: 113)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let ieee802_11Radiotap = LinkType(rawValue: 127)
    public static let ipv4 = LinkType(rawValue: 228)
    public static let ipv6 = LinkType(rawValue: 229)
    public static let linuxSLL2 = LinkType(rawValue: 276)

    public var isSupported: Bool {
        switch self {
        case .null, .ethernet, .raw, .rawOpenBSD, .linktypeRaw, .ieee802_11, .loop, .linuxSLL,
            .ieee802_11Radiotap, .ipv4, .ipv6, .linuxSLL2:
            return true
        default:
            return false
        }
    }

    /// The libpcap name (`EN10MB`, `LINUX_SLL2`, …) or `DLT <n>`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .ethernet: "EN10MB"
        case .raw, .rawOpenBSD, .linktypeRaw: "RAW"
        case .ieee802_11: "IEEE802_11"
        case .loop: "LOOP"
        case .linuxSLL: "LINUX_SLL"
        case .ieee802_11Radiotap: "IEEE802_11_RADIO"
        case .ipv4: "IPV4"
        case .ipv6: "IPV6"
        case .linuxSLL2: "LINUX_SLL2"
        case LinkType(rawValue: 6): "IEEE802 (token ring)"
        case LinkType(rawValue: 9): "PPP"
        case LinkType(rawValue: 192): "PPI"
        case LinkType(rawValue: 195): "IEEE802_15_4"
        case LinkType(rawValue: 201): "BLUETOOTH_HCI_H4"
        case LinkType(rawValue: 220): "USB_LINUX_MMAPPED"
        case LinkType(rawValue: 147): "USER0"
        default: "DLT \(rawValue)"
        }
    }
}
