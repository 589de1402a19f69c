import Testing
import WireFormat

/// A line written into too small a span is written again with more room, never cut short.
@Suite struct SizedWriteTests {
    @Test func textLongerThanItsBoundIsWrittenWhole() {
        let long = String(repeating: "x", count: 300) + " end"
        for bound in [0, 1, 10, 303, 304, 305, 1000] {
            var out: [UInt8] = Array("> ".utf8)
            out.append(sizedFor: bound) { o in
                o.put(long)
                o.put(decimal: 1_234_567)
                o.put(0x0A)
            }
            #expect(String(decoding: out, as: UTF8.self) == "> " + long + "1234567\n", "bound \(bound)")
        }
    }
}
