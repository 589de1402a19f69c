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

/// The header names of SSDP-011's findings: headers that UDA and HTTP do not define and
/// that are not vendor-qualified, split into the two forms the rule tells apart (one finding
/// each). Each header is classified once; no list of names is kept, only which headers are
/// in which form.
struct NameList {
    /// The legacy form (`X-…`, `OPT`, `NLS`, `…-NLS`, reported as info) or any other
    /// unqualified name (a warning).
    enum Form { case other, legacy }

    /// The headers listed in one form: one bit each (a message keeps at most
    /// `SSDPMessage.maxHeaders` = 256), how many, and their names' bytes (to size the text in
    /// one allocation).
    private struct Listed {
        var bits = InlineArray<4, UInt64>(repeating: 0)
        var count = 0
        var bytes = 0

        mutating func add(_ k: Int, nameBytes: Int) {
            bits[k >> 6] |= 1 << UInt64(k & 63)
            count += 1
            bytes += nameBytes
        }
    }

    /// The message's header list and payload (not the message: a copy retains each of its
    /// arrays).
    private let headers: [SSDPMessage.Header]
    private let payload: [UInt8]
    private var other = Listed()
    private var legacy = Listed()

    init(_ input: SSDPMessageView) {
        headers = input.message.headers
        payload = input.message.payload
        for k in headers.indices where k < 256 && !headers[k].missingColon && headers[k].code == 0 {
            let r = headers[k].nameRange
            switch Self.isLegacyForm(payload, r) {
            case true?: legacy.add(k, nameBytes: r.count)
            case false?: other.add(k, nameBytes: r.count)
            case nil: continue
            }
        }
    }

    private func listed(_ form: Form) -> Listed { form == .legacy ? legacy : other }

    /// How many names the form lists.
    func count(_ form: Form) -> Int { listed(form).count }

    /// Whether an unknown header name (`p[r]`) is in the legacy form (`X-…`, `OPT`, `NLS`,
    /// `…-NLS`); nil for a vendor-qualified one (`name.domain`), which the rule leaves alone.
    static func isLegacyForm(_ p: [UInt8], _ r: Range<Int>) -> Bool? {
        if p[r].contains(0x2E) { return nil }  // token.domain
        return r.count >= 2 && ASCII.equalsIgnoringCase(p, r.lowerBound..<(r.lowerBound + 2), "X-")
            || ASCII.equalsIgnoringCase(p, r, "OPT")
            || r.count > 3 && ASCII.equalsIgnoringCase(p, (r.upperBound - 4)..<r.upperBound, "-NLS")
            || ASCII.equalsIgnoringCase(p, r, "NLS")
    }

    /// `header A is <rest>` or `headers A, B are <rest>`.
    func sentence(_ form: Form, _ rest: StaticString) -> String {
        let one = count(form) == 1
        var text: [UInt8] = []
        // Plain names fill it exactly; an escaped one may grow it.
        text.reserveCapacity(
            (one ? 11 : 13) + listed(form).bytes + 2 * count(form)
                + rest.utf8CodeUnitCount)
        text.append(one ? "header " : "headers ")
        appendNames(form, separator: ", ", to: &text)
        text.append(one ? " is " : " are ")
        text.append(rest)
        return String(decoding: text, as: UTF8.self)
    }

    /// `A,B`.
    func field(_ form: Form) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(listed(form).bytes + count(form))
        appendNames(form, separator: ",", to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The form's names in message order, unprintable bytes escaped.
    private func appendNames(_ form: Form, separator: StaticString, to text: inout [UInt8]) {
        let bits = listed(form).bits
        var first = true
        // Set bits only, lowest first: message order.
        for w in bits.indices {
            var word = bits[w]
            while word != 0 {
                let k = w << 6 | word.trailingZeroBitCount
                word &= word &- 1
                if !first { text.append(separator) }
                first = false
                let r = headers[k].nameRange
                // Token bytes are printable ASCII: such a name is shown as it is unless long.
                if headers[k].nameIsToken && r.count <= 120 {
                    text.append(contentsOf: payload[r])
                } else {
                    text.append(string: SSDPText.show(payload[r]))
                }
            }
        }
    }
}
