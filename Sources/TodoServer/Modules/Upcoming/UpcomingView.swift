import HTTPValues
import TodoData

/// The upcoming module's HTTP adapter: decodes the query into an `UpcomingRequest`, hands it to
/// the presenter, and writes the answer it returns as a JSON response; it decides nothing else.
/// Generic over its presenter, as `TodosView`.
public struct UpcomingView<Presenter: UpcomingModuleInput>: Sendable {
    private let presenter: Presenter
    private let serializer: JSONSerializer
    private let zones: TimeZoneDirectory

    public init(presenter: Presenter, serializer: JSONSerializer, zones: TimeZoneDirectory = TimeZoneDirectory()) {
        self.presenter = presenter
        self.serializer = serializer
        self.zones = zones
    }

    /// The router's entry: decodes `tz` and `weekStart` from the query into an `UpcomingRequest`
    /// and hands it to the presenter; a value that names neither is a 400 problem that names it,
    /// answered here.
    public func handleUpcoming(context: RequestContext) -> Pending<HTTPResponse> {
        switch request(from: context.query) {
        case .success(let request): serializer.display(presenter.presentUpcoming(request, context: context))
        case .failure(let problem): .ready(serializer.display(ResponseViewModel(problem: problem)))
        }
    }

    /// `tz` (an IANA name) and `weekStart` (`monday` or `sunday`) from the query.
    public func request(from query: QueryParameters) -> Result<UpcomingRequest, ProblemDetails> {
        var request = UpcomingRequest()
        if let name = query["tz"] {
            guard let zone = zones.zone(named: name) else {
                return .failure(
                    .badRequest("Query parameter 'tz' is '\(name)', which is not a known IANA time zone (such as Europe/Berlin)."))
            }
            request.timeZone = zone
        }
        if let value = query["weekStart"] {
            guard let start = WeekStart(rawValue: value) else {
                return .failure(.badRequest("Query parameter 'weekStart' is '\(value)'; use 'monday' or 'sunday'."))
            }
            request.weekStart = start
        }
        return .success(request)
    }
}
