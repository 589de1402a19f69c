/// A capture timestamp kept exactly as libpcap delivers it (nanosecond precision).
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var seconds: Int64
    public var nanoseconds: UInt32

    public init(seconds: Int64, nanoseconds: UInt32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static let zero = Timestamp(seconds: 0, nanoseconds: 0)

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        a.seconds != b.seconds ? a.seconds < b.seconds : a.nanoseconds < b.nanoseconds
    }

    /// Seconds since the epoch as a floating-point number (for JSON output and arithmetic on
    /// time windows).
    public var asDouble: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    /// This time plus `s` whole seconds, saturating at the ends of the range (a packet time is
    /// the kernel's, a lifetime added to it the wire's).
    public func adding(seconds s: Int64) -> Timestamp {
        let (sum, overflow) = seconds.addingReportingOverflow(s)
        return Timestamp(seconds: overflow ? (s > 0 ? .max : .min) : sum, nanoseconds: nanoseconds)
    }

    /// `b - a` in seconds (saturating on absurd inputs rather than trapping).
    public static func seconds(from a: Timestamp, to b: Timestamp) -> Double {
        b.asDouble - a.asDouble
    }

    /// `seconds.nnnnnnnnn`, exact.
    public var description: String {
        var frac = String(nanoseconds)
        while frac.count < 9 { frac = "0" + frac }
        return "\(seconds).\(frac)"
    }

    /// `seconds.uuuuuu` (microseconds, as tcpdump prints and JSON carries), exact.
    public var microsecondText: String {
        var b: [UInt8] = []
        b.append(microsecondsOf: self)
        return String(decoding: b, as: UTF8.self)
    }
}

extension OutputSpan where Element == UInt8 {
    /// `t.microsecondText` (at most 28 bytes), written in place.
    public mutating func put(microsecondsOf t: Timestamp) {
        put(decimal: Int(t.seconds))
        put(0x2E)
        // At least six digits; a nanosecond count past a second (never from libpcap) keeps
        // all of its microseconds.
        let us = Int(t.nanoseconds / 1000)
        if us >= 1_000_000 { put(decimal: us) } else { put(zeroPadded: us, width: 6) }
    }
}

extension Array where Element == UInt8 {
    /// `t.microsecondText`, written in place.
    public mutating func append(microsecondsOf t: Timestamp) {
        append(addingCapacity: 28) { $0.put(microsecondsOf: t) }
    }
}
