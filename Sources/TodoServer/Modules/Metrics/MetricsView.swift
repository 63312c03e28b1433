import HTTPValues

/// The metrics module's HTTP adapter: hands the scrape to the presenter and writes the exposition
/// bytes it returns as the body; it decides nothing.
public struct MetricsView: Sendable {
    private let presenter: MetricsPresenter
    private let serializer: JSONSerializer

    public init(presenter: MetricsPresenter, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }

    public func handleMetrics(context: RequestContext) -> Pending<HTTPResponse> {
        presenter.presentMetrics().map { [serializer] in serializer.display($0) }
    }
}
