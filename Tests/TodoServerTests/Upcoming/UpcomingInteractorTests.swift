import Foundation
import LockTracing
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("UpcomingInteractor")
struct UpcomingInteractorTests {
    private func upcoming(
        now: String, tz: String? = nil, weekStart: String? = nil, defaultZone: String = "UTC", _ todos: [Todo]
    ) -> Result<UpcomingData, UpcomingError>? {
        let interactor = UpcomingInteractor(
            store: FakeTodoStore(todos), clock: FakeClock(now), defaultTimeZone: IANATimeZone(identifier: defaultZone)!)
        var answer: Result<UpcomingData, UpcomingError>?
        let request = UpcomingRequest(
            timeZone: tz.map { IANATimeZone(identifier: $0)! }, weekStart: weekStart.map { WeekStart(rawValue: $0)! })
        interactor.upcoming(request).whenReady { answer = $0 }
        return answer
    }

    /// Section name → ids, in order.
    private func groups(_ result: Result<UpcomingData, UpcomingError>?) -> [String: [String]] {
        guard case .success(let data)? = result else { return [:] }
        var groups: [String: [String]] = [:]
        for section in data.sections { groups[section.relativeDate.rawValue] = section.items.map(\.id) }
        return groups
    }

    /// One open to-do per day from `first` for `count` days, named by its date.
    private func daily(from first: String, count: Int) -> [Todo] {
        (0..<count).map { offset in
            let day = CalendarDay(first)!.adding(days: offset).description
            return makeTodo(day, due: day)
        }
    }

    @Test("asks the store for one range, today through the end of next week, in the asked time zone and week")
    func asksForTheWindow() {
        for (now, tz, weekStart, from, through) in [
            ("2026-11-22T10:00:00.000Z", "UTC", "monday", "2026-11-22", "2026-11-29"),
            ("2026-11-22T10:00:00.000Z", "UTC", "sunday", "2026-11-22", "2026-12-05"),
            ("2026-11-22T23:30:00.000Z", "Asia/Tokyo", "monday", "2026-11-23", "2026-12-06"),
        ] {
            let store = FakeTodoStore([makeTodo("a", due: from)])
            let interactor = UpcomingInteractor(store: store, clock: FakeClock(now), defaultTimeZone: IANATimeZone(identifier: "UTC")!)
            var answer: Result<UpcomingData, UpcomingError>?
            interactor.upcoming(UpcomingRequest(timeZone: IANATimeZone(identifier: tz)!, weekStart: WeekStart(rawValue: weekStart)!))
                .whenReady { answer = $0 }
            #expect(
                store.calls.withTracedLock { $0 } == [.upcoming(from: CalendarDay(from)!, through: CalendarDay(through)!)],
                "\(now) \(tz) \(weekStart)")
            #expect(groups(answer) == ["today": ["a"]])
        }
    }

    @Test("Sunday with Monday weeks: the week ends today, tomorrow starts next week and wins")
    func sundayMondayStart() {
        let result = upcoming(now: "2026-11-22T10:00:00.000Z", daily(from: "2026-11-20", count: 12))
        #expect(
            groups(result) == [
                "today": ["2026-11-22"],
                "tomorrow": ["2026-11-23"],
                "nextWeek": ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"],
            ])
        guard case .success(let data)? = result else { return }
        #expect(data.sections.map(\.relativeDate) == [.today, .tomorrow, .nextWeek])
    }

    @Test("Sunday with Sunday weeks: later this week runs to Saturday, next week to the Saturday after")
    func sundaySundayStart() {
        let result = upcoming(now: "2026-11-22T10:00:00.000Z", weekStart: "sunday", daily(from: "2026-11-21", count: 16))
        #expect(
            groups(result) == [
                "today": ["2026-11-22"],
                "tomorrow": ["2026-11-23"],
                "laterThisWeek": ["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"],
                "nextWeek": ["2026-11-29", "2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05"],
            ])
    }

    @Test("midweek: later this week ends on Sunday, next week on the Sunday after")
    func wednesday() {
        let result = upcoming(now: "2026-11-25T08:00:00.000Z", daily(from: "2026-11-25", count: 14))
        #expect(
            groups(result) == [
                "today": ["2026-11-25"],
                "tomorrow": ["2026-11-26"],
                "laterThisWeek": ["2026-11-27", "2026-11-28", "2026-11-29"],
                "nextWeek": ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05", "2026-12-06"],
            ])
    }

    @Test("last day of a Sunday week: tomorrow is in next week and is shown as tomorrow")
    func lastDayOfWeek() {
        let result = upcoming(now: "2026-11-28T12:00:00.000Z", weekStart: "sunday", daily(from: "2026-11-28", count: 9))
        #expect(
            groups(result) == [
                "today": ["2026-11-28"],
                "tomorrow": ["2026-11-29"],
                "nextWeek": ["2026-11-30", "2026-12-01", "2026-12-02", "2026-12-03", "2026-12-04", "2026-12-05"],
            ])
    }

    @Test("today is the day in the asked time zone, not in UTC")
    func timeZones() {
        let todos = [makeTodo("22", due: "2026-11-22"), makeTodo("23", due: "2026-11-23")]
        #expect(groups(upcoming(now: "2026-11-22T23:30:00.000Z", todos))["today"] == ["22"])
        #expect(groups(upcoming(now: "2026-11-22T23:30:00.000Z", tz: "Europe/Berlin", todos))["today"] == ["23"])
        #expect(groups(upcoming(now: "2026-11-22T23:30:00.000Z", tz: "Pacific/Kiritimati", todos))["today"] == ["23"])
        #expect(groups(upcoming(now: "2026-11-23T05:00:00.000Z", tz: "America/Los_Angeles", todos))["today"] == ["22"])
        #expect(groups(upcoming(now: "2026-11-22T23:30:00.000Z", defaultZone: "Asia/Tokyo", todos))["today"] == ["23"])
    }

    @Test("completed, overdue, undated and far-off to-dos are left out; nothing left is an empty list")
    func exclusions() {
        let todos = [
            makeTodo("done", completed: true, due: "2026-11-22"), makeTodo("overdue", due: "2026-11-21"),
            makeTodo("undated"), makeTodo("far", due: "2027-01-01"),
        ]
        #expect(upcoming(now: "2026-11-22T10:00:00.000Z", todos) == .success(UpcomingData(sections: [])))
    }

    @Test("items sort by due day, then order with unset last, then createdAt")
    func itemOrder() {
        let todos = [
            makeTodo("d29", due: "2026-11-29"),
            makeTodo("d24-none-early", order: nil, due: "2026-11-24", created: "2026-11-22T09:00:00.000Z"),
            makeTodo("d24-o2", order: 2, due: "2026-11-24"),
            makeTodo("d24-none-late", order: nil, due: "2026-11-24", created: "2026-11-22T11:00:00.000Z"),
            makeTodo("d24-o1", order: 1, due: "2026-11-24", created: "2026-11-22T12:00:00.000Z"),
        ]
        #expect(
            groups(upcoming(now: "2026-11-22T10:00:00.000Z", todos))["nextWeek"]
                == ["d24-o1", "d24-o2", "d24-none-early", "d24-none-late", "d29"])
    }

    @Test("a store failure is the domain error .store, passed on as it is")
    func storeFailure() {
        let interactor = UpcomingInteractor(
            store: FakeTodoStore(failure: StoreError(reason: "down", retryAfter: 2)), clock: FakeClock("2026-11-22T10:00:00.000Z"),
            defaultTimeZone: IANATimeZone(identifier: "UTC")!)
        var answer: Result<UpcomingData, UpcomingError>?
        interactor.upcoming(UpcomingRequest()).whenReady { answer = $0 }
        #expect(answer == .failure(.store(StoreError(reason: "down", retryAfter: 2))))
    }
}
