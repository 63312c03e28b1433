/// Labels the exposition with the Prometheus text format's media type.
public struct MetricsPresenter: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let interactor: any MetricsUseCases

    public init(interactor: any MetricsUseCases) {
        self.interactor = interactor
    }

    public func presentMetrics(context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond) {
        interactor.exposition { exposition in
            let body = RawBody(exposition.text)
            view.display(ResponseViewModel(status: 200, contentType: Self.contentType, body: body), respond: respond)
        }
    }
}
