import Analyzer
import DNS
import SSDP

/// An SSDP message as decoded, for callers who want the parse only: its kind, start line and
/// headers, and what is wrong with its framing. Decoding never fails: a payload that is not
/// SSDP has kind `other`. Text from the payload is as sent (invalid UTF-8 repaired), not
/// escaped: escape it before printing it to a terminal or a page.
public struct SSDPMessage: Sendable {
    /// What the start line says the message is.
    public enum Kind: String, Sendable, Hashable {
        case mSearch = "M-SEARCH"
        case notify = "NOTIFY"
        /// A response (`HTTP/1.1 200 OK`) to an M-SEARCH.
        case response
        case other
    }

    /// One header line: its name as sent, and its value without surrounding whitespace.
    public struct Header: Sendable, Hashable {
        /// The header name as sent (any case).
        public let name: String
        /// The value, without the whitespace around it.
        public let value: String
    }

    /// What the message is, from its start line.
    public let kind: Kind
    /// The first line, without its line ending.
    public let startLine: String
    /// The header lines, in order, repeats included.
    public let headers: [Header]
    /// Framing problems by name (`bare-lf`, `space-before-colon`, …), in order of offset.
    public let anomalies: [String]

    /// Decodes a UDP payload (any bytes).
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
    /// One question: what a querier asks for.
    public struct Question: Sendable, Hashable {
        /// The name asked for, in presentation form.
        public let name: String
        /// The QTYPE (255: ANY).
        public let type: UInt16
        /// `PTR`, `A`, `TYPE65`, …
        public let typeName: String
        /// The class without the QU bit (1: IN).
        public let qclass: UInt16
        /// The QU bit: the querier asks for a unicast answer.
        public let unicastResponse: Bool
    }

    /// One resource record of the answer, authority or additional section.
    public struct Record: Sendable, Hashable {
        /// The section the record is in.
        public enum Section: String, Sendable, Hashable {
            case answer, authority, additional
        }
        /// Where the record is.
        public let section: Section
        /// The owner name, in presentation form.
        public let name: String
        /// The record type (1: A, 12: PTR, 33: SRV, …).
        public let type: UInt16
        public let typeName: String
        /// The class without the cache-flush bit (1: IN).
        public let rrclass: UInt16
        /// The cache-flush bit: the record is the whole of its unique RRSet.
        public let cacheFlush: Bool
        /// Seconds a cache keeps it; 0 is a goodbye.
        public let ttl: UInt32
        /// The record data as text (`192.0.2.1`, `0 0 631 printer.local.`, `[txtvers=1]`).
        public let data: String
    }

    /// The header's ID (0 in mDNS, except in answers to legacy unicast queries).
    public let id: UInt16
    /// The header's flags word (QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE).
    public let flags: UInt16
    /// The QR bit.
    public var isResponse: Bool { flags & 0x8000 != 0 }
    /// The question section.
    public let questions: [Question]
    /// The answer, authority and additional sections, in that order.
    public let records: [Record]
    /// Every entry the header counts was decoded.
    public let isComplete: Bool
    /// Wire-format problems by name (`short-header`, `bad-pointer`, …), in order of offset.
    public let anomalies: [String]

    /// Decodes a UDP payload (any bytes).
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
