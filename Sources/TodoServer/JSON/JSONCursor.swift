import Glibc
import TodoData

/// Writes into room that `JSONWriter.withCursor` reserved, through a bare pointer: for a view
/// model that knows its shape and has checked that its strings need no escape, so that a whole
/// object costs one reservation instead of one per member.
public struct JSONCursor {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    /// The last day a timestamp fell on and its `YYYY-MM-DD` (`JSONWriter.dayText`), handed over by
    /// the writer and back: the civil date is computed once per day seen, not per timestamp.
    private(set) var cachedDay: Int
    private(set) var cachedDayText: UInt128

    init(_ pointer: UnsafeMutablePointer<UInt8>, cachedDay: Int = .min, cachedDayText: UInt128 = 0) {
        self.pointer = pointer
        self.cachedDay = cachedDay
        self.cachedDayText = cachedDayText
    }

    /// Text that is already JSON (names, punctuation, `true`).
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        _ = memcpy(pointer, text.utf8Start, count)
        pointer += count
    }

    /// A string known to need no escape, in quotes.
    @inline(__always)
    public mutating func quoted(clean utf8: UnsafeBufferPointer<UInt8>) {
        pointer[0] = UInt8(ascii: "\"")
        pointer += 1
        unquoted(clean: utf8)
        pointer[0] = UInt8(ascii: "\"")
        pointer += 1
    }

    /// Bytes known to need no escape, without quotes.
    @inline(__always)
    public mutating func unquoted(clean utf8: UnsafeBufferPointer<UInt8>) {
        if let source = utf8.baseAddress { _ = memcpy(pointer, source, utf8.count) }
        pointer += utf8.count
    }

    /// A to-do id given as its 16 bytes, in quotes: 36 lower-case hex digits and dashes, never
    /// escaped. Answers where the 36 characters were written (to copy them again, into a url).
    @inline(__always)
    mutating func quoted(uuid: TodoID16) -> UnsafeBufferPointer<UInt8> {
        pointer[0] = UInt8(ascii: "\"")
        uuid.writeText(to: pointer + 1)
        pointer[37] = UInt8(ascii: "\"")
        defer { pointer += 38 }
        return UnsafeBufferPointer(start: pointer + 1, count: 36)
    }

    /// `true` or `false`.
    @inline(__always)
    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// An integer, or `null`.
    @inline(__always)
    public mutating func int(_ value: Int?) {
        guard let value else { return raw("null") }
        if value < 0 {
            pointer[0] = UInt8(ascii: "-")
            pointer += 1
        }
        pointer += JSONWriter.writeDigits(value.magnitude, to: pointer)
    }

    /// `"2026-11-22T10:00:00.000Z"` for a year from 0 to 9999 (check with `JSONCursor.fits`).
    @inline(__always)
    public mutating func timestamp(_ value: Timestamp) {
        let (days, inDay) = value.daysAndMillisecondsInDay
        if days != cachedDay {
            let day = CalendarDay(daysSinceEpoch: days)
            cachedDayText = JSONWriter.dayText(year: day.year, month: day.month, day: day.day)
            cachedDay = days
        }
        pointer[0] = UInt8(ascii: "\"")
        withUnsafeBytes(of: cachedDayText) { _ = memcpy(pointer + 1, $0.baseAddress!, 10) }
        JSONWriter.writeTimeOfDay(millisecondsInDay: inDay, to: pointer + 11)
        pointer += 26
    }

    /// `"2026-11-24"`, or `null`, for a year from 0 to 9999.
    @inline(__always)
    public mutating func day(_ value: CalendarDay?) {
        guard let value else { return raw("null") }
        pointer[0] = UInt8(ascii: "\"")
        JSONWriter.writeDay(year: value.year, month: value.month, day: value.day, to: pointer + 1)
        pointer[11] = UInt8(ascii: "\"")
        pointer += 12
    }

    /// Whether `timestamp` and `day` can write these (years 0 to 9999; others take the writer's
    /// general path).
    public static func fits(_ timestamp: Timestamp) -> Bool {
        (-62_167_219_200_000...253_402_300_799_999).contains(timestamp.millisecondsSinceEpoch)
    }

    public static func fits(_ day: CalendarDay?) -> Bool {
        day.map { (0...9999).contains($0.year) } ?? true
    }
}
