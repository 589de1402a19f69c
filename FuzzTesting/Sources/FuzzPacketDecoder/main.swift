import FuzzCommon
import NetLayers
import WireFormat

/// Link → IP → UDP decoding with fragment reassembly over a short sequence of frames: the
/// first byte picks the link type, the pieces after it are frames. Nothing traps, payload
/// ranges lie inside their frame, and reassembly stays within its bounds.
func fuzzPacketDecoder(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    guard let selector = input.first else { return 0 }
    let linkTypes: [LinkType] = [
        .ethernet, .null, .raw, .rawOpenBSD, .linktypeRaw, .ieee802_11, .loop,
        LinkType(rawValue: 113), LinkType(rawValue: 276), LinkType(rawValue: 127), LinkType(rawValue: 228),
        LinkType(rawValue: 229), LinkType(rawValue: 147),
    ]
    let link = linkTypes[Int(selector) % linkTypes.count]
    // Small limits, so the fuzzer reaches eviction and give-up paths in a few frames.
    var decoder = PacketDecoder(reassembler: FragmentReassembler(maxDatagrams: 4, maxBytes: 4096, timeoutSeconds: 2))
    decoder.copiesPayloads = selector & 0x80 == 0
    for (k, frame) in FuzzInput.pieces(UnsafeRawBufferPointer(rebasing: input.dropFirst())).enumerated() {
        // Every third frame claims to have been cut by the snap length.
        let original = k % 3 == 2 ? frame.count + 100 : frame.count
        let time = Timestamp(seconds: 1_700_000_000 + Int64(k), nanoseconds: 0)
        let outcome = decoder.decode(
            frame: k + 1, time: time, linkType: link, frameBytes: frame, originalLength: original,
            wants: { _, _, _, _ in true })
        if case .datagram(let d) = outcome {
            if let r = d.framePayload, r.lowerBound < 0 || r.upperBound > frame.count {
                FuzzInput.fail("payload range outside the frame")
            }
            _ = d.isTruncated
            _ = d.src.description
            _ = d.dst.description
        }
        if decoder.reassembler.inFlight > 4 { FuzzInput.fail("reassembly holds more datagrams than its limit") }
    }
    return 0
}

/// libFuzzer's own `main` (linked with the fuzzer runtime) looks for this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt { fuzzPacketDecoder(start, count) }

runFuzzer { fuzzPacketDecoder($0, $1) }
