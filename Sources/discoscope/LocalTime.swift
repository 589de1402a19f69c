import Glibc
import Reporting
import WireFormat

/// Local time as the C library knows it (TZ, /etc/localtime): the offset from UTC in force at
/// a moment, for the reporters, which do calendar arithmetic only.
enum LocalTime {
    /// Seconds ahead of UTC at `seconds` since the epoch (0 when the C library cannot say).
    static let offset: @Sendable (Int64) -> Int64 = { seconds in
        var t = time_t(truncatingIfNeeded: seconds)
        var tmv = tm()
        guard localtime_r(&t, &tmv) != nil else { return 0 }
        return Int64(tmv.tm_gmtoff)
    }

    /// `InventoryRecords.dateTime` in local time.
    static func dateTime(_ t: Timestamp) -> String {
        InventoryRecords.dateTime(t, utcOffset: offset(t.seconds))
    }
}
