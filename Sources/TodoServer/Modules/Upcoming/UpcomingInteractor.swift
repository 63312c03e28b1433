import HTTPValues
import TodoData

/// The upcoming use case: finds today in the asked time zone and groups the open to-dos due soon.
public struct UpcomingInteractor: UpcomingUseCases {
    private let store: any TodoStore
    private let clock: any TodoClock
    private let defaultTimeZone: IANATimeZone

    public init(store: any TodoStore, clock: any TodoClock, defaultTimeZone: IANATimeZone) {
        self.store = store
        self.clock = clock
        self.defaultTimeZone = defaultTimeZone
    }

    public func owned(by owner: Owner) -> UpcomingInteractor {
        owner.isShared ? self : UpcomingInteractor(store: store.owned(by: owner), clock: clock, defaultTimeZone: defaultTimeZone)
    }

    public func upcoming(_ request: UpcomingRequest) -> Pending<Result<UpcomingData, UpcomingError>> {
        let zone = request.timeZone ?? defaultTimeZone
        let window = UpcomingWindow(today: Self.today(at: clock.now(), in: zone), weekStart: request.weekStart ?? .monday)
        return store.upcoming(from: window.today, through: window.endOfNextWeek).map(with: window) { result, window in
            result.mapError(UpcomingError.store).map { Self.group($0, in: window) }
        }
    }

    /// The calendar day that `instant` falls on in `zone`.
    static func today(at instant: Timestamp, in zone: IANATimeZone) -> CalendarDay {
        let seconds = Int64(CivilCalendar.floorDivide(Int(instant.millisecondsSinceEpoch), by: 1000))
        let localMilliseconds = instant.millisecondsSinceEpoch + Int64(zone.secondsFromGMT(atSecondsSinceEpoch: seconds)) * 1000
        return CalendarDay(daysSinceEpoch: CivilCalendar.floorDivide(Int(localMilliseconds), by: 86_400_000))
    }

    static func group(_ todos: [Todo], in window: UpcomingWindow) -> UpcomingData {
        var groups: [RelativeDate: [Todo]] = [:]
        for todo in todos where !todo.completed {
            guard let day = todo.dueDate, let relative = window.relativeDate(of: day) else { continue }
            groups[relative, default: []].append(todo)
        }
        let sections = RelativeDate.allCases.compactMap { relative -> UpcomingData.Section? in
            guard let items = groups[relative] else { return nil }
            return UpcomingData.Section(relativeDate: relative, items: items.sorted(by: itemOrder))
        }
        return UpcomingData(sections: sections)
    }

    /// Due day, then `order` (unset last), then `createdAt`, then `id`.
    static func itemOrder(_ a: Todo, _ b: Todo) -> Bool {
        if a.dueDate != b.dueDate, let x = a.dueDate, let y = b.dueDate { return x < y }
        return TodoSort().areInIncreasingOrder(a, b)
    }
}
