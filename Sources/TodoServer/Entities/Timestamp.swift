/// An instant in whole milliseconds since 1970-01-01T00:00:00Z, written as RFC 3339 in UTC.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    /// `2026-11-22T10:00:00.000Z`.
    public var description: String {
        let ms = millisecondsSinceEpoch
        let days = Int(ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000)
        let inDay = Int(ms - Int64(days) * 86_400_000)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: width - digits.count) + digits
        }
        let time = "\(pad(inDay / 3_600_000, 2)):\(pad(inDay / 60_000 % 60, 2)):\(pad(inDay / 1000 % 60, 2)).\(pad(inDay % 1000, 3))"
        return "\(CalendarDay(daysSinceEpoch: days))T\(time)Z"
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }
}
