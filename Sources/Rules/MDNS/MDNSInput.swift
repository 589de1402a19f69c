import DNS
import Findings
import NetLayers
import WireFormat

/// What an mDNS rule sees: the message, its datagram, and how it is classified
/// (RFC 6762 terms, see shared/rules/mdns.md "Conventions").
public struct MDNSInput: Sendable {
    public let message: DNSMessage
    public let datagram: Datagram
    public var header: DNSHeader { message.header }
    public var isResponse: Bool { message.header.qr }
    public var isQuery: Bool { !message.header.qr }
    public var isMulticast: Bool { datagram.dst.isMulticast }
    /// A query from a port other than 5353 (RFC 6762 §6.7).
    public var isLegacyQuery: Bool { isQuery && datagram.srcPort != 5353 }
    /// A response from 5353 to a port other than 5353: the answer to a legacy query.
    public var isLegacyResponse: Bool { isResponse && datagram.dstPort != 5353 && datagram.srcPort == 5353 }
    public var isProbe: Bool { isQuery && !message.authorities.isEmpty }
    /// Malformed-findings are suppressed when the snap length cut the datagram.
    public var truncated: Bool { datagram.isTruncated }

    /// Per-record facts computed once (labels and DNS-SD shape of owner names).
    /// A class: the rules iterate these many times per message, and a reference is cheaper
    /// to pass around than the struct's fields.
    public final class RecordInfo: Sendable {
        public let section: DNSSection
        public let record: ResourceRecord
        public let labels: [ArraySlice<UInt8>]
        public let dnssd: DNSSDName
        init(section: DNSSection, record: ResourceRecord, labels: [ArraySlice<UInt8>], dnssd: DNSSDName) {
            self.section = section
            self.record = record
            self.labels = labels
            self.dnssd = dnssd
        }
    }
    public let records: [RecordInfo]

    public init(message: DNSMessage, datagram: Datagram) {
        self.message = message
        self.datagram = datagram
        var info: [RecordInfo] = []
        info.reserveCapacity(message.answers.count + message.authorities.count + message.additionals.count)
        for (s, rr) in message.records {
            let l = rr.name.labels(in: message.payload)
            info.append(RecordInfo(section: s, record: rr, labels: l, dnssd: DNSSDName(labels: l)))
        }
        records = info
    }

    public func name(_ n: DNSName) -> String { n.presentation(in: message.payload) }

    /// Records that are shared in DNS-SD practice: browse PTRs (service type, subtype,
    /// service enumeration). Reverse-mapping PTRs are unique.
    public func isShared(_ r: RecordInfo) -> Bool {
        r.record.type == .ptr && (r.dnssd.kind == .serviceType || r.dnssd.kind == .subtype || r.dnssd.kind == .serviceEnumeration)
    }

    public func isUnique(_ r: RecordInfo) -> Bool {
        switch r.record.type {
        case .a, .aaaa, .srv, .txt, .hinfo, .nsec: return true
        case .ptr: return isReverse(r.labels)
        default: return false
        }
    }

    public func isReverse(_ l: [ArraySlice<UInt8>]) -> Bool {
        guard l.count >= 2 else { return false }
        return ASCII.equalsIgnoringCase(l[l.count - 1], "arpa".utf8)
            && (ASCII.equalsIgnoringCase(l[l.count - 2], "in-addr".utf8)
                || ASCII.equalsIgnoringCase(l[l.count - 2], "ip6".utf8))
    }

    /// Host records: named by a host name or carrying one (A, AAAA, HINFO, SRV, reverse PTR).
    public func isHostRecord(_ r: RecordInfo) -> Bool {
        switch r.record.type {
        case .a, .aaaa, .hinfo, .srv: return true
        case .ptr: return isReverse(r.labels)
        default: return false
        }
    }
}

enum MDNSText {
    static func show<C: Collection>(_ v: C) -> String where C.Element == UInt8 {
        DNSText.characterString(ArraySlice(v))
    }
}
