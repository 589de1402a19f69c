/// The segment of each message frame of a session with named segments, for the findings
/// session rules make without a message (at the end of the input, on live capture's timer):
/// such a finding carries the segment of the frame it names first.
///
/// Kept as runs: a frame number where the segment changes from the message before it, and
/// that segment (frames only grow within a session). Bounded: past `maxRuns` runs the older
/// half is dropped, and a finding about a frame before the oldest run kept has no segment.
struct SegmentRuns {
    /// Runs kept at most (16 bytes each: 16 MiB at most, for a session whose segments
    /// alternate on every one of more than a million messages).
    static let maxRuns = 1 << 20
    private var starts: [Int] = []
    private var segments: [UInt16] = []

    /// Whether any frame of the session was on a named segment.
    var isEmpty: Bool { starts.isEmpty }

    /// A message at `frame` on `segment` (frames in increasing order; the unnamed segment
    /// is noted too once a named one was, so runs stay exact).
    mutating func note(frame: Int, segment: UInt16) {
        if let last = segments.last {
            guard last != segment, let lastStart = starts.last, frame > lastStart else { return }
        } else if segment == 0 {
            return
        }
        if starts.count >= Self.maxRuns {
            let drop = Self.maxRuns / 2
            starts.removeFirst(drop)
            segments.removeFirst(drop)
        }
        starts.append(frame)
        segments.append(segment)
    }

    /// The segment of message frame `frame`; 0 when unknown (before the first run, or
    /// dropped).
    func segment(of frame: Int) -> UInt16 {
        guard let first = starts.first, frame >= first else { return 0 }
        // The last run starting at or before `frame`.
        var lo = 0
        var hi = starts.count
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if starts[mid] <= frame { lo = mid } else { hi = mid }
        }
        return segments[lo]
    }

    mutating func removeAll() {
        starts.removeAll()
        segments.removeAll()
    }
}
