import HTTPValues

/// The metrics module's HTTP adapter: hands the scrape to the presenter, with the display that
/// writes the exposition bytes as the body; it decides nothing.
public struct MetricsView: Sendable {
    private let presenter: MetricsPresenter
    private let serializer: JSONSerializer

    public init(presenter: MetricsPresenter, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }

    public func handleMetrics(context: RequestContext, respond: @escaping Respond) {
        presenter.presentMetrics(context: context, view: serializer, respond: respond)
    }
}
