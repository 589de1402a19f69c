import Findings
import NetLayers
import SSDP
import WireFormat

/// What an SSDP message rule sees: the decoded message and the UDA version it is judged
/// against (from its `UPnP/x.y` token, or for a byebye the version the same root device
/// claimed earlier; none means 1.0). No datagram: see `SSDPInput`.
///
/// A class: every rule of the catalog receives it, and passing a reference costs nothing
/// where copying a struct retained each of its arrays once per rule. Immutable.
public class SSDPMessageView: @unchecked Sendable {
    public let message: SSDPMessage
    public let version: UPnPVersion
    /// Whether the version came from the message itself (else it was inherited or defaulted).
    public let claimedVersion: UPnPVersion?
    /// The service profiles the message claims (`claims(_:)`): the engine runs a profile
    /// rule of others only where its descriptor's profiles meet them.
    public let claimedProfiles: ServiceProfiles

    init(message: SSDPMessage, version: UPnPVersion, claimedVersion: UPnPVersion?, claimedProfiles: ServiceProfiles) {
        self.message = message
        self.version = version
        self.claimedVersion = claimedVersion
        self.claimedProfiles = claimedProfiles
    }

    /// The profiles an SSDP message claims, from its bytes alone (a fact of the payload, kept
    /// with its decoding): those its ST, a NOTIFY's NT, or its USN's type after `::` claim
    /// (`ServiceProfile.claimed(bySSDPType:_:)`), among `judged` (the profiles the enabled
    /// rules are gated on). `st`, `nt` and `usnType` are where those values are in `payload`.
    public static func claims(
        _ payload: [UInt8], st: Range<Int>?, nt: Range<Int>?, usnType: Range<Int>?, among judged: ServiceProfiles
    ) -> ServiceProfiles {
        var claimed = ServiceProfiles()
        guard !judged.isEmpty else { return claimed }
        // `claimed(bySSDPType:_:)` claims nothing for a range outside `payload`.
        func claim(_ range: Range<Int>?) {
            guard let r = range, let p = ServiceProfile.claimed(bySSDPType: payload, r, among: judged) else { return }
            claimed.insert(p)
        }
        claim(st)
        claim(nt)
        claim(usnType)
        return claimed
    }

    /// `claims(_:st:nt:usnType:)` of a decoded message.
    public static func claims(_ m: SSDPMessage, among judged: ServiceProfiles) -> ServiceProfiles {
        let type = m.usnType
        return claims(
            m.payload, st: m.first(.st)?.valueRange, nt: m.kind == .notify ? m.first(.nt)?.valueRange : nil,
            usnType: type.map { $0.startIndex..<$0.endIndex }, among: judged)
    }

    public var atLeast11: Bool { version >= .v1_1 }
    public var kind: SSDPMessage.Kind { message.kind }

    /// A header value as text, for messages only.
    public func text(_ v: ArraySlice<UInt8>) -> String { SSDPText.show(v) }
}

/// What an SSDP datagram rule sees: the message view and the datagram that carried it. One
/// object, so that the rules of both kinds receive the same reference. Immutable.
public final class SSDPInput: SSDPMessageView, RuleInput, @unchecked Sendable {
    public let datagram: Datagram
    /// Recognised by its payload alone (it starts like an HTTP response), port 1900 on
    /// neither side.
    public let isCandidateResponse: Bool
    /// A response sent from the SEARCHPORT.UPNP.ORG its device advertised (in this response
    /// or in an earlier message of the device).
    public let fromSearchPort: Bool
    /// The message as captured, when the snap length cut it; `message` then holds only its
    /// complete lines, which is all that rules judge (a cut value is never judged).
    public let captured: SSDPMessage?

    public init(
        message: SSDPMessage, datagram: Datagram, version: UPnPVersion, claimedVersion: UPnPVersion?,
        isCandidateResponse: Bool, fromSearchPort: Bool = false, captured: SSDPMessage? = nil,
        claimedProfiles: ServiceProfiles
    ) {
        self.datagram = datagram
        self.isCandidateResponse = isCandidateResponse
        self.fromSearchPort = fromSearchPort
        self.captured = captured
        super.init(
            message: message, version: version, claimedVersion: claimedVersion,
            claimedProfiles: claimedProfiles)
    }

    /// What message rules see.
    public var view: SSDPMessageView { self }
    public var isTruncated: Bool { datagram.isTruncated }
    public var isMulticast: Bool { datagram.dst.isMulticast }
}
