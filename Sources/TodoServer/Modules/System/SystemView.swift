import HTTPValues

/// The system module's HTTP adapter: hands the router's requests to the presenter and writes the
/// view models it returns as JSON responses; it decides nothing.
public struct SystemView: Sendable {
    private let presenter: SystemPresenter
    private let serializer: JSONSerializer

    public init(presenter: SystemPresenter, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }

    public func handleIndex(context: RequestContext) -> Pending<HTTPResponse> {
        .ready(serializer.display(presenter.presentIndex(context: context)))
    }

    /// `detailed`: whether the request may see the to-do count and the store's reason (the
    /// router's token decision); anyone else hears only up or down.
    public func handleHealth(detailed: Bool, context: RequestContext) -> Pending<HTTPResponse> {
        presenter.presentHealth(detailed: detailed).map { [serializer] in serializer.display($0) }
    }

    public func handleOpenAPIDocument(context: RequestContext) -> Pending<HTTPResponse> {
        .ready(serializer.display(presenter.presentOpenAPIDocument(context: context)))
    }
}
