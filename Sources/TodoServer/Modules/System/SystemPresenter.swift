/// Shapes the service index with absolute links, and the health status.
public struct SystemPresenter: Sendable {
    private let interactor: SystemInteractor

    public init(interactor: SystemInteractor) {
        self.interactor = interactor
    }

    public func presentIndex(context: RequestContext) -> ResponseViewModel<IndexViewModel> {
        let info = interactor.serviceInfo()
        var links: [String: String] = [:]
        for route in info.routes { links[route.rel] = context.baseURL + route.path }
        let model = IndexViewModel(name: info.name, version: info.version, build: info.build, links: links)
        return ResponseViewModel(status: 200, body: model)
    }

    /// Up (200) or down (503) for anyone; the count and the reason only when `detailed` (the
    /// reason may quote the store's own message: a socket path, a host).
    public func presentHealth(detailed: Bool) -> Pending<ResponseViewModel<HealthViewModel>> {
        Pending { promise in
            interactor.health { health in
                let status = health.healthy ? "ok" : "unavailable"
                let model =
                    detailed
                    ? HealthViewModel(status: status, todos: health.todoCount, reason: health.reason) : HealthViewModel(status: status)
                promise.fulfil(ResponseViewModel(status: health.healthy ? 200 : 503, body: model))
            }
        }
    }

    /// The document's `servers` names the base URL of this request (the public URL, else `Host`),
    /// so a client generated from it calls the server it was fetched from.
    public func presentOpenAPIDocument(context: RequestContext) -> ResponseViewModel<RawBody> {
        ResponseViewModel(status: 200, body: RawBody(interactor.openAPIDocument(serverURL: context.baseURL)))
    }
}
