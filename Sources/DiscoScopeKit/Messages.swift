import Analyzer
import DNS
import SSDP

/// An SSDP message as decoded, for callers who want the parse only: its kind, start line and
/// headers, and what is wrong with its framing. Decoding never fails: a payload that is not
/// SSDP has kind `other`. Text from the payload is as sent (invalid UTF-8 repaired), not
/// escaped: escape it before printing it to a terminal or a page.
public struct SSDPMessage: Sendable {
    public enum Kind: String, Sendable, Hashable {
        case mSearch = "M-SEARCH"
        case notify = "NOTIFY"
        /// A response (`HTTP/1.1 200 OK`) to an M-SEARCH.
        case response
        case other
    }

    /// One header line: its name as sent, and its value without surrounding whitespace.
    public struct Header: Sendable, Hashable {
        public let name: String
        public let value: String
    }

    public let kind: Kind
    /// The first line, without its line ending.
    public let startLine: String
    public let headers: [Header]
    /// Framing problems by name (`bare-lf`, `space-before-colon`, …), in order of offset.
    public let anomalies: [String]

    public init(parsing payload: [UInt8]) {
        let m = SSDP.SSDPMessage(parsing: payload)
        switch m.kind {
        case .mSearch: kind = .mSearch
        case .notify: kind = .notify
        case .response: kind = .response
        case .other: kind = .other
        }
        startLine = String(decoding: m.startLine, as: UTF8.self)
        headers = m.headers.map {
            Header(
                name: String(decoding: m.name(of: $0), as: UTF8.self),
                value: String(decoding: m.value(of: $0), as: UTF8.self))
        }
        anomalies = m.anomalies.map(\.kind.rawValue)
    }

    /// The value of the first header named `name` (case-insensitive), if any.
    public func value(of name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// An mDNS (DNS wire format) message as decoded, for callers who want the parse only: its
/// header, questions and records, with record data as presentation text. Decoding never
/// fails: what could not be decoded is listed in `anomalies`, and `isComplete` says whether
/// every counted entry was read. Names are in presentation form with a trailing dot: `.`
/// inside a label is `\.`, a backslash `\\`, other bytes outside printable ASCII `\DDD`
/// unless the label is UTF-8.
public struct MDNSMessage: Sendable {
    public struct Question: Sendable, Hashable {
        public let name: String
        public let type: UInt16
        /// `PTR`, `A`, `TYPE65`, …
        public let typeName: String
        public let qclass: UInt16
        /// The QU bit: the querier asks for a unicast answer.
        public let unicastResponse: Bool
    }

    public struct Record: Sendable, Hashable {
        public enum Section: String, Sendable, Hashable {
            case answer, authority, additional
        }
        public let section: Section
        public let name: String
        public let type: UInt16
        public let typeName: String
        public let rrclass: UInt16
        /// The cache-flush bit: the record is the whole of its unique RRSet.
        public let cacheFlush: Bool
        public let ttl: UInt32
        /// The record data as text (`192.0.2.1`, `0 0 631 printer.local.`, `[txtvers=1]`).
        public let data: String
    }

    public let id: UInt16
    /// The header's flags word (QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE).
    public let flags: UInt16
    public var isResponse: Bool { flags & 0x8000 != 0 }
    public let questions: [Question]
    public let records: [Record]
    /// Every entry the header counts was decoded.
    public let isComplete: Bool
    /// Wire-format problems by name (`short-header`, `bad-pointer`, …), in order of offset.
    public let anomalies: [String]

    public init(parsing payload: [UInt8]) {
        let m = DNSMessage(parsing: payload)
        id = m.header.id
        flags = m.header.flags
        questions = m.questions.map {
            Question(
                name: $0.name.presentation(in: payload), type: $0.type.rawValue, typeName: $0.type.description,
                qclass: $0.qclass, unicastResponse: $0.unicastResponse)
        }
        records = m.records.compactMap { section, rr in
            let s: Record.Section
            switch section {
            case .answer: s = .answer
            case .authority: s = .authority
            case .additional: s = .additional
            case .question: return nil
            }
            return Record(
                section: s, name: rr.name.presentation(in: payload), type: rr.type.rawValue,
                typeName: rr.type.description, rrclass: rr.rrclass, cacheFlush: rr.cacheFlush, ttl: rr.ttl,
                data: MDNSRender.rdataText(rr, m))
        }
        isComplete = m.isComplete
        anomalies = m.anomalies.map(\.kind.rawValue)
    }
}
