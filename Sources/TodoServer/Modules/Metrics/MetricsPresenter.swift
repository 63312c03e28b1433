/// Labels the exposition with the Prometheus text format's media type.
public struct MetricsPresenter: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let interactor: any MetricsUseCases

    public init(interactor: any MetricsUseCases) {
        self.interactor = interactor
    }

    public func presentMetrics() -> Pending<ResponseViewModel<RawBody>> {
        Pending { promise in
            interactor.exposition { exposition in
                promise.fulfil(ResponseViewModel(status: 200, contentType: Self.contentType, body: RawBody(exposition.text)))
            }
        }
    }
}
