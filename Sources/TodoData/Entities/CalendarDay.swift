import HTTPValues

/// A day of the proleptic Gregorian calendar, with no time or zone (`dueDate`). Stored as a day
/// number in 4 bytes, since every stored to-do carries one.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    private let number: Int32

    /// Creates a day from its parts, or nil when the day does not exist (2026-02-30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CivilCalendar.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        number = Int32(CivilCalendar.daysSinceEpoch(year: year, month: month, day: day))
    }

    public var year: Int { parts.year }
    public var month: Int { parts.month }
    public var day: Int { parts.day }

    /// Parses exactly `YYYY-MM-DD`.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The day `days` days after 1970-01-01 (negative: before).
    public init(daysSinceEpoch days: Int) {
        number = Int32(days)
    }

    private var parts: (year: Int, month: Int, day: Int) { CivilCalendar.date(daysSinceEpoch: Int(number)) }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int { Int(number) }

    /// 0 for Sunday through 6 for Saturday.
    public var weekday: Int { CivilCalendar.weekday(daysSinceEpoch: daysSinceEpoch) }

    public func adding(days: Int) -> CalendarDay {
        CalendarDay(daysSinceEpoch: daysSinceEpoch + days)
    }

    public var description: String {
        var bytes: [UInt8] = []
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `2026-11-24` as ASCII bytes.
    public func appendISO8601(to bytes: inout [UInt8]) {
        let (year, month, day) = parts
        bytes.appendPadded(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendPadded(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendPadded(day, width: 2)
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        lhs.number < rhs.number
    }
}
