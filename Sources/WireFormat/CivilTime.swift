/// A moment's calendar date and time of day, from seconds since the Unix epoch and the offset
/// from UTC in force at that moment: arithmetic only (days to a proleptic Gregorian date, as
/// in H. Hinnant's `civil_from_days`), so no time zone database is needed. Whoever knows the
/// local offset (the command line, through the C library) passes it in.
public struct CivilTime: Sendable, Hashable {
    public var year: Int64
    /// 1 to 12.
    public var month: Int
    /// 1 to 31.
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    /// What the C library's broken-down time holds when it cannot represent a moment (a year
    /// beyond its `int`): all fields zero, printed as `1900-01-00 00:00:00`. Times read from a
    /// capture may be anything; they print as the C library printed them.
    public static let unrepresentable = CivilTime(year: 1900, month: 1, day: 0, hour: 0, minute: 0, second: 0)

    public init(year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The time at `seconds` since the epoch, `utcOffset` seconds ahead of UTC; `unrepresentable`
    /// for a year outside the C library's range.
    public init(seconds: Int64, utcOffset: Int64 = 0) {
        // Far beyond the C library's years (±2^31), so the arithmetic below cannot overflow;
        // the year is checked against its range at the end.
        guard seconds.magnitude < 1 << 58, utcOffset.magnitude < 1 << 20 else {
            self = .unrepresentable
            return
        }
        let s = seconds + utcOffset
        var days = s / 86400
        var ofDay = s % 86400
        if ofDay < 0 {
            ofDay += 86400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        guard y - 1900 >= Int64(Int32.min), y - 1900 <= Int64(Int32.max) else {
            self = .unrepresentable
            return
        }
        self.init(
            year: y, month: Int(m), day: Int(d), hour: Int(ofDay / 3600), minute: Int(ofDay / 60 % 60),
            second: Int(ofDay % 60))
    }
}
