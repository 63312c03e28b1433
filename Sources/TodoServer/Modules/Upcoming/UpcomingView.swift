import EventHTTP
import Foundation

/// The upcoming module's HTTP adapter: decodes the query into an `UpcomingRequest` and writes
/// the view model as a JSON response; it decides nothing else.
public struct UpcomingView: UpcomingDisplay {
    private let serializer: JSONSerializer

    public init(serializer: JSONSerializer) {
        self.serializer = serializer
    }

    public func request(from query: QueryParameters) -> Result<UpcomingRequest, ProblemDetails> {
        var request = UpcomingRequest()
        if let name = query["tz"] {
            guard let zone = TimeZone(identifier: name) else {
                return .failure(.badRequest("Query parameter 'tz' is '\(name)', which is not a known IANA time zone (such as Europe/Berlin)."))
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

    public func displayUpcoming(_ model: ResponseViewModel<UpcomingViewModel>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond) {
        respond(serializer.response(for: model))
    }
}
