import Findings
import NetLayers
import Rules
import SSDP
import WireFormat

/// Which datagrams are SSDP (`claims`, on the reading thread), and what a message's own bytes
/// settle for its analysis (`start`, on the worker that decodes it): the facts the session
/// rules read, its event as far as the message alone says, and, when the session cannot
/// change it, the context its stateless rules judge it in.
enum SSDPRouter {
    /// What the in-order stage reads from a message: a function of its bytes alone, taken
    /// from the worker's decoding of the whole captured payload (the first header of each
    /// name, folded lines included).
    struct Facts {
        var kind: SSDPMessage.Kind
        var claimed: UPnPVersion?
        /// USN's UUID as a 64-bit key (FNV-1a, case-insensitive).
        var uuidKey: UInt64? { session.uuidKey }
        var isUpdate: Bool { session.nts == .update }
        var mx: UInt64?
        /// Where ST's and LOCATION's values are in the payload.
        var st: Range<Int>?
        var location: Range<Int>?
        var usn: Range<Int>?
        /// Where USN's type (after its first `::`) is.
        var usnType: Range<Int>?
        /// SERVER's (USER-AGENT's for an M-SEARCH) and NT's (ST's) values.
        var server: Range<Int>?
        var target: Range<Int>?
        /// What the session rules and model read.
        var session = SSDPFacts()

        init(_ m: SSDPMessage) {
            kind = m.kind
            claimed = m.claimedUPnPVersion
            func value(_ name: SSDPHeaderName) -> Range<Int>? { m.first(name)?.valueRange }
            func number(_ name: SSDPHeaderName) -> UInt64? { m.value(name).flatMap { ASCII.parseDecimal($0) } }
            mx = number(.mx)
            st = value(.st)
            location = value(.location)
            usn = value(.usn)
            server = value(kind == .mSearch ? .userAgent : .server)
            target = value(kind == .notify ? .nt : .st)
            var f = SSDPFacts()
            if let usn = m.value(.usn) {
                f.usnKey = SSDPFacts.key(usn, foldingCase: true)
                let parts = SSDPSyntax.split(usn: usn)
                f.uuidKey = parts.uuid.map { SSDPFacts.key($0, foldingCase: true) }
                usnType = parts.type.map { $0.startIndex..<$0.endIndex }
            }
            // The decoding's reading of NTS; a NOTIFY without one has none here.
            if m.has(.nts) {
                switch m.notificationSubtype {
                case .alive?: f.nts = .alive
                case .byebye?: f.nts = .byebye
                case .update?: f.nts = .update
                case .other?: f.nts = .other
                case nil: break
                }
            }
            if let v = m.value(kind == .notify ? .nt : .st) {
                if v.equals("upnp:rootdevice") {
                    f.target = .rootDevice
                } else if v.equals("ssdp:all") {
                    f.target = .all
                } else if SSDPSyntax.hasPrefix(v, "uuid:", caseInsensitive: true) {
                    f.target = .uuid
                    f.targetUUIDKey = SSDPFacts.key(v.dropFirst(5), foldingCase: true)
                } else if let u = SSDPSyntax.parseURN(v) {
                    f.target = u.kind == .device ? .deviceType : .serviceType
                    f.typeKey = SSDPFacts.key(v[v.startIndex..<u.type.endIndex])
                    f.typeVersion = ASCII.parseDecimal(u.version)
                } else {
                    f.target = .other
                }
            }
            f.locationKey = m.value(.location).map { SSDPFacts.key($0) }
            f.serverKey = m.value(.server).map { SSDPFacts.key($0) }
            f.maxAge = m.maxAge
            f.bootID = number(.bootID)
            f.configID = number(.configID)
            f.nextBootID = number(.nextBootID)
            f.searchPort = number(.searchPort)
            f.mx = mx
            f.hasMX = m.has(.mx)
            f.manValid = m.value(.man)?.equals("\"ssdp:discover\"") ?? false
            session = f
        }
    }

    /// SSDP: port 1900 either side, or any UDP payload that starts like an HTTP response
    /// (`HTTP/1.`) or an SSDP request (`M-SEARCH * `, `NOTIFY * `, any case). So a search
    /// response from another port, sent to the searcher's port or not, in time or late, and a
    /// unicast M-SEARCH to a device's SEARCHPORT.UPNP.ORG are decoded and shown, never dropped
    /// unseen; the rules say what is wrong with them (SSDP-205 wrong port, SSDP-501 late,
    /// SSDP-519 unanswered, SSDP-012 a NOTIFY off port 1900). The start line decides, not the
    /// ports devices advertised: it needs no state, does not depend on having seen the
    /// advertisement (a capture that starts later, another segment), and no other protocol
    /// starts a datagram with these request lines.
    static func claims(_ d: Datagram) -> Bool { claims(d, d.payload, d.payload.indices) }

    static func claims(_ d: borrowing Datagram, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        if d.srcPort == 1900 || d.dstPort == 1900 { return true }
        let b = range.lowerBound
        return range.count >= 7 && ASCII.equalsIgnoringCase(bytes, b..<(b + 7), "HTTP/1.")
            || range.count >= 11 && ASCII.equalsIgnoringCase(bytes, b..<(b + 11), "M-SEARCH * ")
            || range.count >= 9 && ASCII.equalsIgnoringCase(bytes, b..<(b + 9), "NOTIFY * ")
    }

    /// What one SSDP message's bytes settle: its facts for the session stage, the key of its
    /// payload, and its context when the session cannot change it. The session decides two
    /// things, for a few messages only:
    /// - the version of a NOTIFY with a USN and no `UPnP/x.y` token, inherited from its
    ///   device when the device claimed one before;
    /// - whether a response from a port other than 1900, with a USN and no SEARCHPORT of its
    ///   own, came from the SEARCHPORT.UPNP.ORG its device advertised before.
    /// For such a message, `alternatives` are the contexts it may be judged in: the worker
    /// judges it in each, and the session stage picks the one it settles (`SessionSettler`).
    struct Start {
        var facts: Facts
        var payloadKey: UInt64
        var context: SSDPContext?
        var alternatives: [SSDPContext] = []
    }

    /// `m` are the facts of the datagram's whole payload as captured, whose key is
    /// `payloadKey` (`SSDPJudge.decode`).
    static func start(_ d: borrowing Datagram, _ m: Facts, payloadKey: UInt64) -> Start {
        let inherits = m.claimed == nil && m.kind == .notify && m.uuidKey != nil
        let asksSearchPort =
            m.kind == .response && d.srcPort != 1900 && m.uuidKey != nil && m.session.searchPort == nil
        var version = m.claimed ?? .v1_0
        if m.isUpdate, version < .v1_1 { version = .v1_1 }
        let context = SSDPContext(
            version: version, claimedVersion: m.claimed, isCandidateResponse: d.srcPort != 1900 && d.dstPort != 1900,
            fromSearchPort: m.kind == .response && d.srcPort != 1900 && m.uuidKey != nil
                && m.session.searchPort == UInt64(d.srcPort),
            deviceKey: m.uuidKey ?? 0)
        if inherits {
            // Its device's version, or 1.0 (the rules tell 1.0 from 1.1 and later; a device
            // that claimed 2.0 is rare, and its NOTIFYs are judged in order). An UPDATE is 1.1
            // at least.
            var v11 = context
            v11.version = .v1_1
            return Start(
                facts: m, payloadKey: payloadKey, context: nil, alternatives: m.isUpdate ? [v11] : [context, v11])
        }
        if asksSearchPort {
            var fromPort = context
            fromPort.fromSearchPort = true
            return Start(facts: m, payloadKey: payloadKey, context: nil, alternatives: [context, fromPort])
        }
        return Start(facts: m, payloadKey: payloadKey, context: context)
    }
}
