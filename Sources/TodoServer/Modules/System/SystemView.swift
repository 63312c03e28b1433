import HTTPValues

/// The system module's HTTP adapter: hands the router's requests to the presenter, with the
/// display that writes its view models; it decides nothing.
public struct SystemView: Sendable {
    private let presenter: SystemPresenter
    private let serializer: JSONSerializer

    public init(presenter: SystemPresenter, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }

    public func handleIndex(context: RequestContext, respond: @escaping Respond) {
        presenter.presentIndex(context: context, view: serializer, respond: respond)
    }

    /// `detailed`: whether the request may see the to-do count and the store's reason (the
    /// router's token decision); anyone else hears only up or down.
    public func handleHealth(detailed: Bool, context: RequestContext, respond: @escaping Respond) {
        presenter.presentHealth(detailed: detailed, context: context, view: serializer, respond: respond)
    }

    public func handleOpenAPIDocument(context: RequestContext, respond: @escaping Respond) {
        presenter.presentOpenAPIDocument(context: context, view: serializer, respond: respond)
    }
}
