import WireFormat

/// IPv4 and IPv6 fragment reassembly with bounded memory and a timeout (in capture time).
/// The reassembled datagram is reported at the frame of the fragment that completed it, as
/// Wireshark does. Overlapping fragments are accepted when they agree; when they disagree
/// the datagram is dropped (a classic evasion trick) and reported as malformed.
public struct FragmentReassembler: Sendable {
    public struct Key: Hashable, Sendable {
        public var src: IPAddress
        public var dst: IPAddress
        public var id: UInt32
        public var proto: UInt8
        /// Fragments captured on different segments are different datagrams (a reflector
        /// repeats the same fragments on each link).
        public var segment: UInt16
        public init(src: IPAddress, dst: IPAddress, id: UInt32, proto: UInt8, segment: UInt16 = 0) {
            self.src = src
            self.dst = dst
            self.id = id
            self.proto = proto
            self.segment = segment
        }
    }

    public struct Whole: Sendable {
        public var payload: [UInt8]
        public var frames: [Int]
        public var hopLimit: UInt8
        public var headerLength: Int
    }

    public enum Result: Sendable {
        case held
        case complete(Whole)
        case dropped(String)
    }

    struct Pending: Sendable {
        var pieces: [(offset: Int, bytes: [UInt8])] = []
        var totalLength: Int? = nil  // known once the last fragment arrived
        var frames: [Int] = []
        var firstSeen: Timestamp
        var hopLimit: UInt8 = 0
        var headerLength: Int = 20
        var bytesHeld: Int = 0
    }

    /// Limits: datagrams in flight, bytes held in all, seconds before an incomplete datagram
    /// is given up (Linux uses 30 s).
    public let maxDatagrams: Int
    public let maxBytes: Int
    public let timeoutSeconds: Int64
    private var pending: [Key: Pending] = [:]
    private var bytesHeld = 0
    /// Datagrams given up (timeout, limits, inconsistent fragments), for the summary.
    public private(set) var abandoned = 0
    /// Of those: incomplete when `timeoutSeconds` of capture time had passed.
    public private(set) var timedOut = 0
    /// Of those: dropped, oldest first, to stay within `maxDatagrams` or `maxBytes`.
    public private(set) var droppedAtDatagramLimit = 0
    public private(set) var droppedAtByteLimit = 0
    /// Fragments whose overlapping bytes disagreed with earlier ones (earlier bytes kept).
    public private(set) var overlapConflicts = 0

    public init(maxDatagrams: Int = 256, maxBytes: Int = 8 << 20, timeoutSeconds: Int64 = 30) {
        self.maxDatagrams = maxDatagrams
        self.maxBytes = maxBytes
        self.timeoutSeconds = timeoutSeconds
    }

    public var inFlight: Int { pending.count }

    public mutating func add(
        key: Key, offset: Int, more: Bool, bytes: [UInt8], frame: Int, time: Timestamp, hopLimit: UInt8,
        headerLength: Int
    ) -> Result {
        expire(now: time)
        let end = offset + bytes.count
        guard end <= 65535 else {
            drop(key)
            return .dropped("IP fragment beyond 65535 bytes")
        }
        if pending[key] == nil {
            if pending.count >= maxDatagrams, let k = oldestKey() {
                drop(k)
                droppedAtDatagramLimit += 1
            }
            pending[key] = Pending(firstSeen: time)
        }
        guard var p = pending[key] else { return .held }
        if offset == 0 {
            p.hopLimit = hopLimit
            p.headerLength = headerLength
        }
        if !more {
            if let t = p.totalLength, t != end {
                drop(key)
                return .dropped("IP fragments disagree on the datagram length")
            }
            p.totalLength = end
        } else if bytes.count % 8 != 0 {
            drop(key)
            return .dropped("non-final IP fragment length not a multiple of 8")
        }
        guard p.pieces.count < 512 else {
            drop(key)
            return .dropped("more than 512 fragments for one IP datagram")
        }
        // Overlapping data must agree; where it does not (an evasion trick), the first copy
        // wins, as in Wireshark and Linux, and the conflict is counted for the summary.
        for piece in p.pieces {
            let lo = max(piece.offset, offset)
            let hi = min(piece.offset + piece.bytes.count, end)
            if lo < hi {
                for i in lo..<hi where piece.bytes[i - piece.offset] != bytes[i - offset] {
                    overlapConflicts += 1
                    break
                }
            }
        }
        p.pieces.append((offset, bytes))
        p.frames.append(frame)
        p.bytesHeld += bytes.count
        bytesHeld += bytes.count
        while bytesHeld > maxBytes, let victim = oldestKey(), victim != key {
            drop(victim)
            droppedAtByteLimit += 1
        }
        guard let total = p.totalLength else {
            pending[key] = p
            return .held
        }
        // Complete when the pieces cover [0, total).
        var covered = 0
        for range in p.pieces.map({ ($0.offset, $0.offset + $0.bytes.count) }).sorted(by: { $0.0 < $1.0 }) {
            if range.0 > covered { break }
            covered = max(covered, range.1)
        }
        guard covered >= total else {
            pending[key] = p
            return .held
        }
        var whole = [UInt8](repeating: 0, count: total)
        // Pieces are in arrival order; writing them in reverse lets the earliest copy of each
        // byte win.
        for piece in p.pieces.reversed() {
            let n = min(piece.bytes.count, total - piece.offset)
            if n > 0 { whole.replaceSubrange(piece.offset..<(piece.offset + n), with: piece.bytes[0..<n]) }
        }
        bytesHeld -= p.bytesHeld
        pending[key] = nil
        return .complete(Whole(payload: whole, frames: p.frames, hopLimit: p.hopLimit, headerLength: p.headerLength))
    }

    private mutating func drop(_ key: Key) {
        if let p = pending.removeValue(forKey: key) {
            bytesHeld -= p.bytesHeld
            abandoned += 1
        }
    }

    private func oldestKey() -> Key? {
        pending.min { $0.value.firstSeen < $1.value.firstSeen }?.key
    }

    private mutating func expire(now: Timestamp) {
        guard !pending.isEmpty else { return }
        let limit = now.seconds - timeoutSeconds
        for (k, p) in pending where p.firstSeen.seconds < limit {
            drop(k)
            timedOut += 1
        }
    }
}
