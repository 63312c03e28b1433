import TodoData

/// The days that count as upcoming from a given today: tomorrow, the rest of this week, next week.
struct UpcomingWindow: Sendable, Equatable {
    let today: CalendarDay
    let tomorrow: CalendarDay
    /// The last day of the current week.
    let endOfWeek: CalendarDay
    /// The last day of next week: nothing later is upcoming.
    let endOfNextWeek: CalendarDay

    init(today: CalendarDay, weekStart: WeekStart) {
        self.today = today
        tomorrow = today.adding(days: 1)
        let daysIntoWeek = (today.weekday - weekStart.weekday + 7) % 7
        endOfWeek = today.adding(days: 6 - daysIntoWeek)
        endOfNextWeek = endOfWeek.adding(days: 7)
    }

    /// The group of a due day, or nil when it is overdue or after next week. Tomorrow wins over
    /// "later this week" and "next week".
    func relativeDate(of day: CalendarDay) -> RelativeDate? {
        if day == today { return .today }
        if day == tomorrow { return .tomorrow }
        if day > tomorrow, day <= endOfWeek { return .laterThisWeek }
        if day > endOfWeek, day <= endOfNextWeek { return .nextWeek }
        return nil
    }
}
