import HTTPValues

/// The IMF-fixdate of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`), written from the seconds since
/// 1970 with integer arithmetic alone: what the `Date` field of every answer carries.
///
/// Written once per second per loop (`HTTPDateCache`); it needs no library call, no lock and no state.
public enum HTTPDate {
    /// Characters in a date (without the terminating NUL).
    public static let length = 29

    /// Writes the date of `seconds` and a terminating NUL at `out` (30 bytes). Years outside
    /// 1000–9999 are clamped to them: the field has exactly four digits.
    public static func write(secondsSinceEpoch seconds: Int, to out: UnsafeMutablePointer<CChar>) {
        let days = CivilCalendar.floorDivide(seconds, by: 86_400)
        let inDay = seconds - days * 86_400
        let date = CivilCalendar.date(daysSinceEpoch: days)
        let (month, day) = (date.month, date.day)
        let year = Swift.min(9999, Swift.max(1000, date.year))
        let weekday = CivilCalendar.weekday(daysSinceEpoch: days)
        let weekdays: StaticString = "SunMonTueWedThuFriSat"
        let months: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"
        func put(_ index: Int, _ byte: UInt8) { out[index] = CChar(bitPattern: byte) }
        func two(_ index: Int, _ value: Int) {
            put(index, UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10))
            put(index + 1, UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
        }
        for offset in 0..<3 {
            put(offset, weekdays.utf8Start[weekday * 3 + offset])
            put(8 + offset, months.utf8Start[(month - 1) * 3 + offset])
        }
        put(3, UInt8(ascii: ","))
        put(4, UInt8(ascii: " "))
        two(5, day)
        put(7, UInt8(ascii: " "))
        put(11, UInt8(ascii: " "))
        two(12, year / 100)
        two(14, year % 100)
        put(16, UInt8(ascii: " "))
        two(17, inDay / 3600)
        put(19, UInt8(ascii: ":"))
        two(20, inDay / 60 % 60)
        put(22, UInt8(ascii: ":"))
        two(23, inDay % 60)
        put(25, UInt8(ascii: " "))
        put(26, UInt8(ascii: "G"))
        put(27, UInt8(ascii: "M"))
        put(28, UInt8(ascii: "T"))
        out[29] = 0
    }
}
