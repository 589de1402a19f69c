import CPcap

/// zlib's deflate (RFC 1950 format), for the HTML report's data block: Reporting has no C, so
/// the command line hands this one to `HTMLReporter(deflater:)`.
public final class ZlibDeflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var ended = false

    /// nil when zlib cannot start a stream (out of memory).
    public init?(level: Int32 = 6) {
        guard discoscope_deflate_init(stream, level) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// The compressed bytes for `input` that zlib has ready; with `finish`, the rest of the
    /// stream (nothing after that).
    public func deflate(_ input: UnsafeRawBufferPointer, finish: Bool) -> [UInt8] {
        guard !ended else { return [] }
        var out: [UInt8] = []
        let base = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.next_in = base
        stream.pointee.avail_in = uInt(input.count)
        let capacity = buffer.count
        // zlib's own pattern: call again while it filled the whole buffer.
        var full = false
        repeat {
            let (status, produced) = buffer.withUnsafeMutableBufferPointer { b -> (Int32, Int) in
                stream.pointee.next_out = b.baseAddress
                stream.pointee.avail_out = uInt(capacity)
                let status = CPcap.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                return (status, capacity - Int(stream.pointee.avail_out))
            }
            out.append(contentsOf: buffer[0..<produced])
            if status == Z_STREAM_END { ended = true }
            full = produced == capacity && (status == Z_OK || status == Z_STREAM_END)
        } while full && !ended
        stream.pointee.next_in = nil
        return out
    }
}
