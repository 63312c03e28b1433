/// The proleptic Gregorian calendar on day numbers (days since 1970-01-01, negative before it),
/// with integer arithmetic alone: Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (https://howardhinnant.github.io/date_algorithms.html), exact for every day whose year an `Int`
/// holds (year 0 is 1 BC; no time zone, no leap seconds).
///
/// The one home of the calendar's arithmetic: the `Date` field (`EventHTTP`'s `HTTPDate`), the
/// to-dos' days and timestamps (`CalendarDay`) and the time zones' yearly rules
/// (`PosixTimeZoneRule`) all count days here. Inlinable: the `Date` field and every timestamp in
/// JSON go through it, and each call compiles to the arithmetic itself.
public enum CivilCalendar {
    /// The year, month (1-12) and day (1-31) of the day `days` after 1970-01-01.
    @inlinable
    public static func date(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097  // day of the 400-year era, 0...146096
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365  // year of the era, 0...399
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)  // day of the year from March 1, 0...365
        let mp = (5 * doy + 2) / 153  // month from March, 0...11
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (month 1-12, day 1-31; not checked against the
    /// month's length: day 0 is the last of the month before).
    @inlinable
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 for Sunday through 6 for Saturday (1970-01-01 was a Thursday).
    @inlinable
    public static func weekday(daysSinceEpoch days: Int) -> Int {
        (days % 7 + 7 + 4) % 7
    }

    @inlinable
    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days in `month` (1-12) of `year`.
    @inlinable
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `value / divisor` rounded down (towards minus infinity), for a positive `divisor`: the day of
    /// a time before 1970 (`-1` second is day `-1`, not day 0).
    @inlinable
    public static func floorDivide(_ value: Int, by divisor: Int) -> Int {
        value >= 0 ? value / divisor : (value - (divisor - 1)) / divisor
    }
}
