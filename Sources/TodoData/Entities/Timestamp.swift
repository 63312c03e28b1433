import HTTPValues

/// An instant in whole milliseconds since 1970-01-01T00:00:00Z, written as RFC 3339 in UTC.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// `2026-11-22T10:00:00.000Z`.
    public var description: String {
        var bytes: [UInt8] = []
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The day in UTC this instant falls on, as days since 1970-01-01, and the milliseconds from
    /// that day's start (0 to 86,399,999, also before 1970).
    @inlinable @inline(__always)
    package var daysAndMillisecondsInDay: (days: Int, milliseconds: Int) {
        let days = CivilCalendar.floorDivide(Int(millisecondsSinceEpoch), by: 86_400_000)
        return (days, Int(millisecondsSinceEpoch) - days * 86_400_000)
    }

    /// Appends `2026-11-22T10:00:00.000Z` as ASCII bytes.
    public func appendRFC3339(to bytes: inout [UInt8]) {
        let (days, inDay) = daysAndMillisecondsInDay
        CalendarDay(daysSinceEpoch: days).appendISO8601(to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        bytes.appendPadded(inDay / 3_600_000, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendPadded(inDay / 60_000 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendPadded(inDay / 1000 % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        bytes.appendPadded(inDay % 1000, width: 3)
        bytes.append(UInt8(ascii: "Z"))
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }
}

extension [UInt8] {
    /// Appends `value` in decimal, left-padded with zeros to `width` digits (2, 3 or 4 digits take a
    /// path without loops or divisions by variables: dates are written per to-do). A negative value
    /// gets a `-` before its padded digits: ISO 8601's expanded form of a year before year 0
    /// (`-0001`), which only a stored record from elsewhere can hold (requests are validated), so
    /// that such a record is written out rather than trapping the process.
    mutating func appendPadded(_ value: Int, width: Int) {
        let zero = UInt8(ascii: "0")
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendPadded(value == Int.min ? Int.max : -value, width: width)
            return
        }
        switch width {
        case 2 where value < 100:
            append(zero + UInt8(value / 10))
            append(zero + UInt8(value % 10))
        case 3 where value < 1000:
            append(zero + UInt8(value / 100))
            append(zero + UInt8(value / 10 % 10))
            append(zero + UInt8(value % 10))
        case 4 where value < 10000:
            append(zero + UInt8(value / 1000))
            append(zero + UInt8(value / 100 % 10))
            append(zero + UInt8(value / 10 % 10))
            append(zero + UInt8(value % 10))
        default:
            let digits = String(value)
            if digits.utf8.count < width { append(contentsOf: repeatElement(zero, count: width - digits.utf8.count)) }
            append(contentsOf: digits.utf8)
        }
    }
}
