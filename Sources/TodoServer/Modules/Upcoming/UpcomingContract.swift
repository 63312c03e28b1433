import EventHTTP

// The upcoming module (the VIPER seeds' use case): not-completed to-dos due from today to the end of
// next week, grouped as today, tomorrow, later this week and next week (`GET /todos/upcoming`).

/// The module's entry for the router (the presenter).
public protocol UpcomingModuleInput: Sendable {
    /// Reads `tz` and `weekStart` from the query.
    func presentUpcoming(context: RequestContext, respond: @escaping Respond)
}

/// The business rules (the interactor): which to-dos are upcoming and in which group.
public protocol UpcomingUseCases: Sendable {
    /// `timeZone` is an IANA name and `weekStart` is `monday` or `sunday`; nil takes the default.
    func upcoming(
        timeZone: String?, weekStart: String?, completion: @escaping (Result<UpcomingData, UpcomingError>) -> Void)
}

/// The view: serializes the presenter's view model.
public protocol UpcomingDisplay: Sendable {
    func displayUpcoming(_ model: ResponseViewModel<UpcomingViewModel>, respond: Respond)
    func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond)
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
        public var items: [TodoData]
    }
}

/// The first day of the week.
public enum WeekStart: String, Sendable, CaseIterable {
    case monday, sunday

    /// The weekday number of the first day (0 is Sunday).
    var weekday: Int { self == .sunday ? 0 : 1 }
}

/// Why the upcoming use case failed.
public enum UpcomingError: HTTPProblemConvertible, Equatable {
    case unknownTimeZone(String)
    case unknownWeekStart(String)
    case store(StoreError)

    public var problem: ProblemDetails {
        switch self {
        case .unknownTimeZone(let name):
            .badRequest("Query parameter 'tz' is '\(name)', which is not a known IANA time zone (such as Europe/Berlin).")
        case .unknownWeekStart(let value):
            .badRequest("Query parameter 'weekStart' is '\(value)'; use 'monday' or 'sunday'.")
        case .store(let error): error.problem
        }
    }
}
