import FuzzCommon
import SSDP
import WireFormat

/// The SSDP decoder on any bytes: decoding never traps, and every range it hands out lies
/// inside the payload.
func fuzzSSDP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let payload = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let m = SSDPMessage(parsing: payload)
    for h in m.headers {
        guard h.nameRange.lowerBound >= 0, h.nameRange.upperBound <= payload.count,
            h.valueRange.lowerBound >= 0, h.valueRange.upperBound <= payload.count
        else { FuzzInput.fail("header range outside the payload") }
        _ = m.name(of: h)
        _ = m.value(of: h)
    }
    _ = m.notificationSubtype
    _ = m.mx
    _ = m.maxAge
    _ = m.claimedUPnPVersion
    _ = m.usnUUID
    _ = m.usnType
    _ = m.statusCode
    for name in [SSDPHeaderName.st, .mx, .nt, .nts, .usn, .location, .server, .man, .host] {
        _ = m.value(name)
        _ = m.count(name)
    }
    return 0
}

/// libFuzzer's own `main` (linked with the fuzzer runtime) looks for this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt { fuzzSSDP(start, count) }

runFuzzer { fuzzSSDP($0, $1) }
