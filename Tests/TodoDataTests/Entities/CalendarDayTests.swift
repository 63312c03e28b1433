import Testing

@testable import TodoData

@Suite("CalendarDay")
struct CalendarDayTests {
    @Test(
        "parses exactly YYYY-MM-DD",
        arguments: [
            ("2026-11-22", "2026-11-22"), ("2024-02-29", "2024-02-29"), ("0001-01-01", "0001-01-01"), ("9999-12-31", "9999-12-31"),
        ])
    func parses(text: String, expected: String) {
        #expect(CalendarDay(text)?.description == expected)
    }

    @Test(
        "refuses days that do not exist and other shapes",
        arguments: [
            "2026-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-01", "26-01-01", " 2026-01-01", "2026-01-01T00:00",
            "2026/01/01", "", "0000-01-01", "2026-01-0a", "１０２６-01-01",
        ])
    func refuses(text: String) {
        #expect(CalendarDay(text) == nil)
    }

    @Test("counts days from 1970-01-01 both ways")
    func epochDays() {
        #expect(CalendarDay("1970-01-01")!.daysSinceEpoch == 0)
        #expect(CalendarDay("1969-12-31")!.daysSinceEpoch == -1)
        #expect(CalendarDay("2026-11-22")!.daysSinceEpoch == 20_779)
        #expect(CalendarDay("0001-01-01")!.daysSinceEpoch == -719_162)
        #expect(CalendarDay("9999-12-31")!.daysSinceEpoch == 2_932_896)
        for days in stride(from: -719_162, through: 2_932_896, by: 997) {
            #expect(CalendarDay(daysSinceEpoch: days).daysSinceEpoch == days)
        }
    }

    @Test("knows the weekday (0 is Sunday)")
    func weekday() {
        #expect(CalendarDay("2026-11-22")!.weekday == 0)
        #expect(CalendarDay("2026-11-23")!.weekday == 1)
        #expect(CalendarDay("2026-11-28")!.weekday == 6)
        #expect(CalendarDay("1970-01-01")!.weekday == 4)
        #expect(CalendarDay("1969-12-28")!.weekday == 0)
    }

    @Test("adds days across months, years and leap days")
    func adding() {
        #expect(CalendarDay("2026-11-30")!.adding(days: 1).description == "2026-12-01")
        #expect(CalendarDay("2026-12-31")!.adding(days: 1).description == "2027-01-01")
        #expect(CalendarDay("2028-02-28")!.adding(days: 1).description == "2028-02-29")
        #expect(CalendarDay("2026-03-01")!.adding(days: -1).description == "2026-02-28")
    }

    @Test("orders by date")
    func ordering() {
        #expect(CalendarDay("2026-11-22")! < CalendarDay("2026-11-23")!)
        #expect(CalendarDay("2025-12-31")! < CalendarDay("2026-01-01")!)
    }
}

@Suite("Timestamp")
struct TimestampTests {
    @Test("writes RFC 3339 in UTC with milliseconds")
    func rfc3339() {
        #expect(Timestamp(millisecondsSinceEpoch: 0).description == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSinceEpoch: 1_795_341_600_123).description == "2026-11-22T10:00:00.123Z")
        #expect(Timestamp(millisecondsSinceEpoch: -1).description == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(millisecondsSinceEpoch: 86_399_999).description == "1970-01-01T23:59:59.999Z")
    }

    @Test("years before 0 are written in ISO 8601's expanded form, never trapping")
    func yearsBeforeZero() {
        #expect(Timestamp(millisecondsSinceEpoch: -62_167_219_200_000).description == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSinceEpoch: -62_167_219_200_001).description == "-0001-12-31T23:59:59.999Z")
        #expect(CalendarDay(daysSinceEpoch: -719_529).description == "-0001-12-31")
        #expect(CalendarDay(daysSinceEpoch: -719_528 - 366 * 5).year < 0)
    }
}

@Suite("Entity layout")
struct EntityLayoutTests {
    @Test("a stored to-do is compact: 120 bytes inline (80, and 40 for the prepared title key), a due day in 5")
    func layout() {
        #expect(MemoryLayout<CalendarDay?>.size == 5)
        // The title key: two string references and a flag (33 bytes, 40 with alignment).
        #expect(MemoryLayout<TitleKey>.size == 33)
        #expect(MemoryLayout<Todo>.stride == 120)
        #expect(CalendarDay(year: 2026, month: 11, day: 22)?.daysSinceEpoch == 20_779)
        #expect(CalendarDay(daysSinceEpoch: 20_779).month == 11)
    }
}
