import Glibc
import HTTPValues
import TestSupport
import Testing

/// The calendar's one implementation (`CivilCalendar`, used by `HTTPDate`, `CalendarDay` and
/// `PosixTimeZoneRule`) against a walk one day at a time with its own month lengths and leap rule,
/// from 1970-01-01 (day 0, a Thursday) out to year -10000 and to year 10000, and against the C
/// library's proleptic `gmtime_r`.
@Suite("CivilCalendar: day numbers against a day-by-day walk and the C library, years -10000 to 10000")
struct CivilCalendarTests {
    /// A date moved one day at a time, knowing nothing but month lengths and the Gregorian leap rule.
    private struct Walk {
        var year = 1970
        var month = 1
        var day = 1
        var weekday = 4  // Thursday

        private var monthLength: Int {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        }

        mutating func forward() {
            weekday = (weekday + 1) % 7
            day += 1
            if day > monthLength {
                day = 1
                month += 1
                if month > 12 { (year, month) = (year + 1, 1) }
            }
        }

        mutating func backward() {
            weekday = (weekday + 6) % 7
            day -= 1
            if day == 0 {
                month -= 1
                if month == 0 { (year, month) = (year - 1, 12) }
                day = monthLength
            }
        }
    }

    /// The days that differ from the walk (at most the first few), and how many days were walked.
    private func compare(from start: Walk, untilYear last: Int, step: Int, move: (inout Walk) -> Void) -> (mismatches: [Int], walked: Int) {
        var walk = start
        var number = 0
        var mismatches: [Int] = []
        var walked = 0
        while true {
            let date = CivilCalendar.date(daysSinceEpoch: number)
            let matches =
                date.year == walk.year && date.month == walk.month && date.day == walk.day
                && CivilCalendar.weekday(daysSinceEpoch: number) == walk.weekday
                && CivilCalendar.daysSinceEpoch(year: walk.year, month: walk.month, day: walk.day) == number
            if !matches, mismatches.count < 5 { mismatches.append(number) }
            walked += 1
            if walk.year == last { break }
            move(&walk)
            number += step
        }
        return (mismatches, walked)
    }

    @Test("every day from 1970-01-01 to 10000-12-31 round-trips and matches the walk")
    func everyDayForward() {
        // Stops on the first day of year 10001 (compared too: one day past the range).
        let forward = compare(from: Walk(), untilYear: 10_001, step: 1) { $0.forward() }
        #expect(forward.mismatches.isEmpty, "first days that differ: \(forward.mismatches)")
        // 1970-01-01 to 10001-01-01 (the calendar's 146,097 days every 400 years): the walk covered
        // the whole range and no more.
        #expect(forward.walked == 2_933_264)
        #expect(CivilCalendar.daysSinceEpoch(year: 10_001, month: 1, day: 1) == 2_933_263)
    }

    @Test("every day from 1970-01-01 back to -10000-01-01 round-trips and matches the walk")
    func everyDayBackward() {
        // Stops on the last day of year -10001.
        let backward = compare(from: Walk(), untilYear: -10_001, step: -1) { $0.backward() }
        #expect(backward.mismatches.isEmpty, "first days that differ: \(backward.mismatches)")
        #expect(backward.walked == 4_371_955)
        #expect(CivilCalendar.daysSinceEpoch(year: -10_001, month: 12, day: 31) == -4_371_954)
        #expect(CivilCalendar.daysSinceEpoch(year: -10_000, month: 1, day: 1) == -4_371_953)
    }

    @Test("known days: the epoch, the era's start, leap days, year 0, the first and last four-digit years")
    func known() {
        #expect(CivilCalendar.date(daysSinceEpoch: 0) == (1970, 1, 1))
        #expect(CivilCalendar.date(daysSinceEpoch: -1) == (1969, 12, 31))
        #expect(CivilCalendar.date(daysSinceEpoch: 11_016) == (2000, 2, 29))
        #expect(CivilCalendar.date(daysSinceEpoch: 20_779) == (2026, 11, 22))
        #expect(CivilCalendar.date(daysSinceEpoch: -719_468) == (0, 3, 1))
        #expect(CivilCalendar.date(daysSinceEpoch: -719_529) == (-1, 12, 31))
        #expect(CivilCalendar.daysSinceEpoch(year: 0, month: 2, day: 29) == -719_469)
        #expect(CivilCalendar.daysSinceEpoch(year: 1, month: 1, day: 1) == -719_162)
        #expect(CivilCalendar.daysSinceEpoch(year: 9999, month: 12, day: 31) == 2_932_896)
        #expect(CivilCalendar.daysSinceEpoch(year: 2026, month: 3, day: 0) == CivilCalendar.daysSinceEpoch(year: 2026, month: 2, day: 28))
        #expect(CivilCalendar.weekday(daysSinceEpoch: 0) == 4)
        #expect(CivilCalendar.weekday(daysSinceEpoch: -4) == 0)
        #expect(CivilCalendar.weekday(daysSinceEpoch: -5) == 6)
        #expect(CivilCalendar.weekday(daysSinceEpoch: 20_779) == 0)
        #expect(
            [1900, 2000, 2023, 2024, 0, -4, -100, -400].map(CivilCalendar.isLeap) == [false, true, false, true, true, true, false, true])
        #expect((1...12).map { CivilCalendar.daysIn(month: $0, year: 2024) } == [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
        #expect(CivilCalendar.daysIn(month: 2, year: 1900) == 28)
    }

    @Test("matches the C library's gmtime_r (proleptic Gregorian) on every 7th day from year -10000 to 10000")
    func cLibrary() {
        var mismatches: [Int] = []
        var compared = 0
        for number in stride(from: -4_371_953, through: 2_932_896, by: 7) {
            var time = time_t(number) * 86_400
            var parts = tm()
            guard gmtime_r(&time, &parts) != nil else {
                mismatches.append(number)
                continue
            }
            let date = CivilCalendar.date(daysSinceEpoch: number)
            if date != (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
                || CivilCalendar.weekday(daysSinceEpoch: number) != Int(parts.tm_wday)
            {
                mismatches.append(number)
            }
            compared += 1
        }
        #expect(compared == 1_043_550)
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5))")
    }

    @Test("floorDivide rounds towards minus infinity: the day of an instant before 1970")
    func floorDivide() {
        #expect(CivilCalendar.floorDivide(0, by: 86_400) == 0)
        #expect(CivilCalendar.floorDivide(86_399, by: 86_400) == 0)
        #expect(CivilCalendar.floorDivide(86_400, by: 86_400) == 1)
        #expect(CivilCalendar.floorDivide(-1, by: 86_400) == -1)
        #expect(CivilCalendar.floorDivide(-86_400, by: 86_400) == -1)
        #expect(CivilCalendar.floorDivide(-86_401, by: 86_400) == -2)
        #expect(CivilCalendar.floorDivide(-999, by: 1000) == -1)
        var generator = SplitMix64(seed: 37)
        for _ in 0..<10_000 {
            let value = Int.random(in: -(1 << 50)...(1 << 50), using: &generator)
            let divisor = Int.random(in: 1...100_000_000, using: &generator)
            let quotient = CivilCalendar.floorDivide(value, by: divisor)
            let remainder = value - quotient * divisor
            #expect((0..<divisor).contains(remainder), "\(value) / \(divisor)")
        }
    }
}
