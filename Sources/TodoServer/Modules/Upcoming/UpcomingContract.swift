import HTTPValues

// The upcoming module (the VIPER seeds' use case): not-completed to-dos due from today to the end of
// next week, grouped as today, tomorrow, later this week and next week (`GET /todos/upcoming`).

/// The module's entry for the router (the view, the module's HTTP adapter).
public protocol UpcomingHTTPEntry: Sendable {
    /// Decodes `tz` and `weekStart` from the query into an `UpcomingRequest` and hands it to the
    /// presenter; a value that names neither is a 400 problem that names it, answered here.
    func handleUpcoming(context: RequestContext, respond: @escaping Respond)
}

/// The presenter, as the view calls it: the typed request in, view models out to `view`.
public protocol UpcomingModuleInput: Sendable {
    func presentUpcoming(_ request: UpcomingRequest, context: RequestContext, view: some UpcomingDisplay, respond: @escaping Respond)
}

/// The business rules (the interactor): which to-dos are upcoming and in which group. Knows
/// nothing of HTTP: a typed request in, domain data or a domain error out.
public protocol UpcomingUseCases: Sendable {
    func upcoming(_ request: UpcomingRequest, completion: @escaping (Result<UpcomingData, UpcomingError>) -> Void)
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

/// The view as the presenter sees it: serializes the presenter's view models.
public protocol UpcomingDisplay: Sendable {
    func displayUpcoming(_ model: consuming ResponseViewModel<UpcomingViewModel>, respond: Respond)
    func displayProblem(_ model: consuming ResponseViewModel<ProblemDetails>, respond: Respond)
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
