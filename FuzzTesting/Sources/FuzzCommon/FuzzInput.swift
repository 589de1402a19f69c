/// How a fuzz input is cut into several packets: pieces separated by `FuzzInput.separator`
/// (four bytes a seed script writes between records and the dictionaries list, so mutation
/// can add, drop and reorder packets). The first byte of the input chooses the link type or
/// the ports; everything after it is pieces.
public enum FuzzInput {
    public static let separator: [UInt8] = [0x00, 0x44, 0x53, 0x00]  // "\0DS\0"
    /// At most this many pieces per input (a short sequence: session rules, reassembly).
    public static let maxPieces = 32

    public static func pieces(_ bytes: UnsafeRawBufferPointer) -> [[UInt8]] {
        let all = [UInt8](bytes)
        var out: [[UInt8]] = []
        var start = 0
        var i = 0
        while i + separator.count <= all.count && out.count < maxPieces - 1 {
            if all[i] == separator[0] && all[i + 1] == separator[1] && all[i + 2] == separator[2]
                && all[i + 3] == separator[3]
            {
                out.append(Array(all[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        out.append(Array(all[start...]))
        return out
    }

    /// Stops the fuzzer with a finding: libFuzzer records the input that led here.
    public static func fail(_ message: String) -> Never {
        fatalError("fuzz invariant broken: \(message)")
    }
}
