/// Labels the exposition with the Prometheus text format's media type.
public struct MetricsPresenter: MetricsModuleInput {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let interactor: any MetricsUseCases
    private let view: any MetricsDisplay

    public init(interactor: any MetricsUseCases, view: any MetricsDisplay) {
        self.interactor = interactor
        self.view = view
    }

    public func presentMetrics(context: RequestContext, respond: @escaping Respond) {
        interactor.exposition { body in
            view.displayMetrics(ResponseViewModel(status: 200, contentType: Self.contentType, body: body), respond: respond)
        }
    }
}
