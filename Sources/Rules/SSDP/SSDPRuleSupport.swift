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
/// that are not vendor-qualified, in one of the two forms the rule tells apart. The texts
/// (the sentence's `a, b` and the field's `a,b`) are written at their exact length, one
/// allocation each; no list of names is kept, only which headers they are.
struct NameList {
    /// The message's header list and payload (not the message: a copy retains each of its
    /// arrays).
    private let headers: [SSDPMessage.Header]
    private let payload: [UInt8]
    /// Which headers are listed, one bit each (a message keeps at most
    /// `SSDPMessage.maxHeaders` = 256).
    private var listed = InlineArray<4, UInt64>(repeating: 0)
    private(set) var count = 0
    /// Bytes of the names as shown.
    private var length = 0

    init(_ input: SSDPMessageView, legacy: Bool) {
        headers = input.message.headers
        payload = input.message.payload
        for k in headers.indices where k < 256 && !headers[k].missingColon && headers[k].code == 0 {
            let r = headers[k].nameRange
            guard Self.isLegacyForm(payload, r) == legacy else { continue }
            listed[k >> 6] |= 1 << UInt64(k & 63)
            count += 1
            let plain = payload.withUnsafeBufferPointer { SSDPText.isPlain(UnsafeBufferPointer(rebasing: $0[r]), limit: 120) }
            length += plain ? r.count : SSDPText.show(payload[r]).utf8.count
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
        let head: StaticString = count == 1 ? "header " : "headers "
        let verb: StaticString = count == 1 ? " is " : " are "
        let total = head.utf8CodeUnitCount + length + 2 * max(count - 1, 0) + verb.utf8CodeUnitCount + rest.utf8CodeUnitCount
        return write(capacity: total, head: head, separator: ", ", tail: verb, rest)
    }

    /// `A,B`.
    var field: String { write(capacity: length + max(count - 1, 0), head: "", separator: ",", tail: "", "") }

    private func write(
        capacity: Int, head: StaticString, separator: StaticString, tail: StaticString, _ rest: StaticString
    ) -> String {
        String(unsafeUninitializedCapacity: capacity) { buf in
            // The WireFormat writers drop what would pass the end of the buffer, never trap.
            var w = OutputSpan(buffer: buf, initializedCount: 0)
            w.put(head)
            payload.withUnsafeBufferPointer { p in
                var first = true
                for k in headers.indices where k < 256 && listed[k >> 6] & (1 << UInt64(k & 63)) != 0 {
                    if !first { w.put(separator) }
                    first = false
                    let r = headers[k].nameRange
                    let name = UnsafeBufferPointer(rebasing: p[r])
                    if SSDPText.isPlain(name, limit: 120) {
                        w.put(name)
                    } else {
                        w.put(SSDPText.show(payload[r]))
                    }
                }
            }
            w.put(tail)
            w.put(rest)
            return w.finalize(for: buf)
        }
    }
}
