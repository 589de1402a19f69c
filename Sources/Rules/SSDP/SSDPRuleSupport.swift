import Findings
import NetLayers
import SSDP
import WireFormat

/// What several SSDP rules share: the header lists they check.
enum SSDPRuleSupport {
    /// Headers that appear at most once (SSDP-008).
    static let singleValued: [SSDPHeaderName] = [
        .host, .man, .mx, .st, .nt, .nts, .usn, .location, .server, .userAgent, .ext, .cacheControl, .date, .bootID,
        .configID, .nextBootID, .searchPort, .tcpPort, .cpfn, .cpuuid, .secureLocation,
    ]
    // Names UDA and HTTP define are exactly `SSDPHeaderName.known` (header code ≠ 0); SSDP-011
    // leaves those alone.

    // Header lists the rules check, built once (an array literal in a rule would be
    // allocated for every message).
    // UDA 1.1 adds BOOTID and CONFIGID to what responses, alive and byebye must carry.
    static let bootAndConfig: [SSDPHeaderName] = [.bootID, .configID]
    static let responseRequired: [SSDPHeaderName] = [.cacheControl, .ext, .location, .server, .st, .usn]
    static let responseRequired11 = responseRequired + bootAndConfig
    static let aliveRequired: [SSDPHeaderName] = [.host, .cacheControl, .location, .nt, .nts, .server, .usn]
    static let aliveRequired11 = aliveRequired + bootAndConfig
    static let byebyeRequired: [SSDPHeaderName] = [.host, .nt, .nts, .usn]
    static let byebyeRequired11 = byebyeRequired + bootAndConfig
    static let searchRequired: [SSDPHeaderName] = [.host, .man, .st]
    static let updateRequired: [SSDPHeaderName] = [.host, .location, .nt, .nts, .usn, .bootID, .configID, .nextBootID]
    static let usnNTST: [SSDPHeaderName] = [.usn, .nt, .st]
    static let typeFields: [SSDPHeaderName] = [.nt, .st]
    static let bootFields: [SSDPHeaderName] = [.bootID, .configID, .nextBootID]
    static let portFields: [SSDPHeaderName] = [.searchPort, .tcpPort]
    static let notInResponses: [SSDPHeaderName] = [.man, .mx, .nt, .nts, .host]
    static let notInByebye: [SSDPHeaderName] = [.cacheControl, .location, .server]

    static func missing(_ m: SSDPMessage, _ names: [SSDPHeaderName]) -> [String] {
        names.filter { !m.has($0) }.map(\.text)
    }

}

/// The header names of one SSDP-011 finding: headers that UDA and HTTP do not define and
/// that are not vendor-qualified, in one of the two forms the rule tells apart. No list of
/// names is kept, only which headers they are.
struct NameList {
    /// The message's header list and payload (not the message: a copy retains each of its
    /// arrays).
    private let headers: [SSDPMessage.Header]
    private let payload: [UInt8]
    /// Which headers are listed, one bit each (a message keeps at most
    /// `SSDPMessage.maxHeaders` = 256).
    private var listed = InlineArray<4, UInt64>(repeating: 0)
    private(set) var count = 0

    init(_ input: SSDPMessageView, legacy: Bool) {
        headers = input.message.headers
        payload = input.message.payload
        for k in headers.indices where k < 256 && !headers[k].missingColon && headers[k].code == 0 {
            let r = headers[k].nameRange
            guard Self.isLegacyForm(payload, r) == legacy else { continue }
            listed[k >> 6] |= 1 << UInt64(k & 63)
            count += 1
        }
    }

    /// Whether an unknown header name (`p[r]`) is in the legacy form (`X-…`, `OPT`, `NLS`,
    /// `…-NLS`); nil for a vendor-qualified one (`name.domain`), which the rule leaves alone.
    static func isLegacyForm(_ p: [UInt8], _ r: Range<Int>) -> Bool? {
        for k in r where p[k] == 0x2E { return nil }  // token.domain
        return r.count >= 2 && ASCII.equalsIgnoringCase(p, r.lowerBound..<(r.lowerBound + 2), "X-")
            || ASCII.equalsIgnoringCase(p, r, "OPT")
            || r.count > 3 && ASCII.equalsIgnoringCase(p, (r.upperBound - 4)..<r.upperBound, "-NLS")
            || ASCII.equalsIgnoringCase(p, r, "NLS")
    }

    /// `header A is <rest>` or `headers A, B are <rest>`.
    func sentence(_ rest: StaticString) -> String {
        var text: [UInt8] = []
        text.append(count == 1 ? "header " : "headers ")
        appendNames(separator: ", ", to: &text)
        text.append(count == 1 ? " is " : " are ")
        text.append(rest)
        return String(decoding: text, as: UTF8.self)
    }

    /// `A,B`.
    var field: String {
        var text: [UInt8] = []
        appendNames(separator: ",", to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The listed names in message order, unprintable bytes escaped.
    private func appendNames(separator: StaticString, to text: inout [UInt8]) {
        var first = true
        for k in headers.indices where k < 256 && listed[k >> 6] & (1 << UInt64(k & 63)) != 0 {
            if !first { text.append(separator) }
            first = false
            let r = headers[k].nameRange
            if SSDPText.isPlain(payload[r], limit: 120) {
                text.append(contentsOf: payload[r])
            } else {
                text.append(string: SSDPText.show(payload[r]))
            }
        }
    }
}
