import EventHTTP

/// Writes the upcoming view model as a JSON response; it decides nothing.
public struct UpcomingView: UpcomingDisplay {
    private let serializer: JSONSerializer

    public init(serializer: JSONSerializer) {
        self.serializer = serializer
    }

    public func displayUpcoming(_ model: ResponseViewModel<UpcomingViewModel>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond) {
        respond(serializer.response(for: model))
    }
}
