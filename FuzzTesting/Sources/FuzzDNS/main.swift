import DNS
import FuzzCommon
import WireFormat

/// The DNS decoder and every view of what it decoded (names in presentation form, label
/// walks, character-strings, TXT keys, NSEC bitmaps, EDNS options) on any bytes: nothing
/// traps, and every range lies inside the payload.
func fuzzDNS(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let payload = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let m = DNSMessage(parsing: payload)
    func inside(_ r: Range<Int>) -> Bool { r.lowerBound >= 0 && r.upperBound <= payload.count }
    func walk(_ n: DNSName) {
        var out: [UInt8] = []
        n.appendPresentation(in: payload, to: &out)
        if !ASCII.isValidUTF8(out[...]) { FuzzInput.fail("presentation form is not UTF-8") }
        _ = n.key(in: payload)
        _ = n.firstLabelRange(in: payload)
        n.forEachLabelRange(in: payload) { r in if !inside(r) { FuzzInput.fail("label range outside the payload") } }
        _ = n.equals(n, in: payload)
    }
    for q in m.questions { walk(q.name) }
    for (_, rr) in m.records {
        walk(rr.name)
        if !inside(rr.rdata) { FuzzInput.fail("RDATA range outside the payload") }
        switch rr.value {
        case .name(let n): walk(n)
        case .srv(_, _, _, let t): walk(t)
        case .nsec(let n, let bitmap):
            walk(n)
            if !inside(bitmap) { FuzzInput.fail("NSEC bitmap outside the payload") }
            _ = m.nsecTypes(bitmap)
            _ = m.nsecHasTypeAbove255(bitmap)
        case .txt, .hinfo:
            for s in m.characterStrings(rr) {
                _ = DNSText.characterString(s)
                _ = TXTAttribute(s)
            }
            m.forEachTXTKey(rr) { s, k in
                if !inside(s) || !inside(k) { FuzzInput.fail("TXT key outside the payload") }
                return true
            }
        case .opt:
            for o in m.ednsOptions(rr) where o.code == 4 { _ = EDNSOwnerOption(o.data) }
        default:
            break
        }
    }
    return 0
}

/// libFuzzer's own `main` (linked with the fuzzer runtime) looks for this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt { fuzzDNS(start, count) }

runFuzzer { fuzzDNS($0, $1) }
