import HTTPValues
import TodoData

// The upcoming module (the VIPER seeds' use case): not-completed to-dos due from today to the end of
// next week, grouped as today, tomorrow, later this week and next week (`GET /todos/upcoming`).

/// The presenter, as the view calls it: the typed request in, its answer out (the sections, or the
/// store's problem).
public protocol UpcomingModuleInput: Sendable {
    func presentUpcoming(_ request: UpcomingRequest, context: RequestContext) -> Pending<ViewAnswer<UpcomingViewModel>>
}

/// The business rules (the interactor): which to-dos are upcoming and in which group. Knows
/// nothing of HTTP: a typed request in, domain data or a domain error out (`Pending`: the store
/// may answer later, on the loop).
public protocol UpcomingUseCases: Sendable {
    /// The same use case over `owner`'s to-dos only (`Owner.shared`: the shared list).
    func owned(by owner: Owner) -> Self
    func upcoming(_ request: UpcomingRequest) -> Pending<Result<UpcomingData, UpcomingError>>
}

/// What the upcoming use case is asked: nil takes the default (the configured time zone, Monday).
public struct UpcomingRequest: Sendable, Equatable {
    public var timeZone: IANATimeZone?
    public var weekStart: WeekStart?

    public init(timeZone: IANATimeZone? = nil, weekStart: WeekStart? = nil) {
        self.timeZone = timeZone
        self.weekStart = weekStart
    }
}

/// Where a due day falls relative to today.
public enum RelativeDate: String, Sendable, CaseIterable {
    case today, tomorrow, laterThisWeek, nextWeek
}

/// The upcoming to-dos, in groups in `RelativeDate` order, empty groups left out.
public struct UpcomingData: Sendable, Equatable {
    public var sections: [Section]

    /// One group: the to-dos by due day, then order, then creation time.
    public struct Section: Sendable, Equatable {
        public var relativeDate: RelativeDate
        public var items: [Todo]
    }
}

/// The first day of the week.
public enum WeekStart: String, Sendable, CaseIterable {
    case monday, sunday

    /// The weekday number of the first day (0 is Sunday).
    var weekday: Int { self == .sunday ? 0 : 1 }
}

/// Why the upcoming use case failed (a domain error: the presenter gives it its HTTP shape).
public enum UpcomingError: Error, Equatable {
    case store(StoreError)
}
