import HTTPValues

/// A POSIX TZ rule as a TZif footer writes it (RFC 8536 §3.3), such as `CET-1CEST,M3.5.0,M10.5.0/3`
/// or `<+0530>-5:30`: a standard offset and, optionally, a daylight-saving offset with the two
/// yearly dates it starts and ends on. Offsets are kept east-positive (POSIX writes them west-positive).
struct PosixTimeZoneRule: Equatable {
    var standardOffset: Int32
    var daylight: Daylight?

    struct Daylight: Equatable {
        var offset: Int32
        var start: Transition
        var end: Transition
    }

    /// A yearly date and a local time of day (seconds, may be negative or over a day).
    struct Transition: Equatable {
        enum Day: Equatable {
            /// `Jn`: 1…365, February 29 never counted.
            case julianWithoutLeapDay(Int)
            /// `n`: 0…365, February 29 counted in leap years.
            case zeroBasedDayOfYear(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = the last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        var time: Int64
    }

    /// Seconds east of UTC at `seconds` since 1970.
    package func offset(at seconds: Int64) -> Int32 {
        guard let daylight else { return standardOffset }
        let localDays = Int64(CivilCalendar.floorDivide(Int(seconds + Int64(standardOffset)), by: 86_400))
        let year = Self.year(ofDaysSinceEpoch: localDays)
        let start = daylight.start.localSeconds(in: year) - Int64(standardOffset)
        let end = daylight.end.localSeconds(in: year) - Int64(daylight.offset)
        let inDaylight = start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
        return inDaylight ? daylight.offset : standardOffset
    }

    // MARK: parsing

    init?(parsing bytes: [UInt8]) {
        var parser = Parser(bytes: bytes)
        guard parser.name(), let standard = parser.offset(maxHours: 24) else { return nil }
        standardOffset = Int32(-standard)
        if parser.atEnd { return }
        guard parser.name() else { return nil }
        var daylightOffset = standardOffset + 3600
        if let peek = parser.peek, peek != 0x2C {
            guard let given = parser.offset(maxHours: 24) else { return nil }
            daylightOffset = Int32(-given)
        }
        let start: Transition
        let end: Transition
        if parser.atEnd {
            // POSIX's default rule (the US one), as glibc applies it.
            start = Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
            end = Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
        } else {
            guard parser.expect(0x2C), let first = parser.transition(), parser.expect(0x2C), let second = parser.transition(),
                parser.atEnd
            else { return nil }
            (start, end) = (first, second)
        }
        daylight = Daylight(offset: daylightOffset, start: start, end: end)
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            index += 1
            return true
        }

        /// An abbreviation: three or more letters, or anything but `>` between `<` and `>`.
        mutating func name() -> Bool {
            if expect(0x3C) {
                let start = index
                while let byte = peek, byte != 0x3E { index += 1 }
                guard index - start >= 3, expect(0x3E) else { return false }
                return true
            }
            let start = index
            while let byte = peek, (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x7A { index += 1 }
            return index - start >= 3
        }

        mutating func number() -> Int64? {
            let start = index
            var value: Int64 = 0
            while let byte = peek, byte >= 0x30, byte <= 0x39, index - start < 4 {
                value = value * 10 + Int64(byte - 0x30)
                index += 1
            }
            return index > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` in seconds.
        package mutating func offset(maxHours: Int64) -> Int64? {
            var sign: Int64 = 1
            if expect(0x2D) { sign = -1 } else { _ = expect(0x2B) }
            guard let hours = number(), hours <= maxHours else { return nil }
            var seconds = hours * 3600
            if expect(0x3A) {
                guard let minutes = number(), minutes < 60 else { return nil }
                seconds += minutes * 60
                if expect(0x3A) {
                    guard let secs = number(), secs < 60 else { return nil }
                    seconds += secs
                }
            }
            return sign * seconds
        }

        mutating func transition() -> Transition? {
            let day: Transition.Day
            if expect(0x4A) {
                guard let n = number(), (1...365).contains(n) else { return nil }
                day = .julianWithoutLeapDay(Int(n))
            } else if expect(0x4D) {
                guard let m = number(), (1...12).contains(m), expect(0x2E), let w = number(), (1...5).contains(w), expect(0x2E),
                    let d = number(), (0...6).contains(d)
                else { return nil }
                day = .monthWeekDay(month: Int(m), week: Int(w), weekday: Int(d))
            } else {
                guard let n = number(), (0...365).contains(n) else { return nil }
                day = .zeroBasedDayOfYear(Int(n))
            }
            var time: Int64 = 7200
            if expect(0x2F) {
                guard let given = offset(maxHours: 167) else { return nil }
                time = given
            }
            return Transition(day: day, time: time)
        }
    }

    // MARK: calendar

    // `CivilCalendar`'s arithmetic, in the rule's Int64.

    static func isLeap(_ year: Int64) -> Bool { CivilCalendar.isLeap(Int(year)) }

    /// Days from 1970-01-01 to year-month-day.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        Int64(CivilCalendar.daysSinceEpoch(year: Int(year), month: Int(month), day: Int(day)))
    }

    /// The year a day since 1970 falls in.
    static func year(ofDaysSinceEpoch days: Int64) -> Int64 {
        Int64(CivilCalendar.date(daysSinceEpoch: Int(days)).year)
    }
}

extension PosixTimeZoneRule.Transition {
    /// The transition in `year` as local seconds since 1970 (local time read as if it were UTC).
    func localSeconds(in year: Int64) -> Int64 {
        let january1 = PosixTimeZoneRule.days(year: year, month: 1, day: 1)
        let dayNumber: Int64
        switch day {
        case .julianWithoutLeapDay(let n):
            dayNumber = january1 + Int64(n) - 1 + (PosixTimeZoneRule.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBasedDayOfYear(let n):
            dayNumber = january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = PosixTimeZoneRule.days(year: year, month: Int64(month), day: 1)
            let firstWeekday = CivilCalendar.weekday(daysSinceEpoch: Int(first))
            var candidate = first + Int64((weekday - firstWeekday + 7) % 7) + Int64(week - 1) * 7
            let nextMonth =
                month == 12
                ? PosixTimeZoneRule.days(year: year + 1, month: 1, day: 1)
                : PosixTimeZoneRule.days(year: year, month: Int64(month) + 1, day: 1)
            while candidate >= nextMonth { candidate -= 7 }
            dayNumber = candidate
        }
        return dayNumber * 86_400 + time
    }
}
