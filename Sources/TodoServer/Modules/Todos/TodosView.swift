import HTTPValues

/// The to-dos module's HTTP adapter: the router hands it the request; it decodes bodies, queries and
/// conditional headers into the module's request models (`TodosView+Decoding.swift`), answers what
/// it cannot decode itself, and calls the presenter with the typed requests and the display
/// (`JSONSerializer`) that writes the view models it hands back.
public struct TodosView: Sendable {
    private let presenter: any TodosModuleInput
    private let serializer: JSONSerializer
    let inputDecoder = TodoInputDecoder()
    let queryDecoder = TodoListQueryDecoder()

    public init(presenter: any TodosModuleInput, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }
}

/// The router's entry: one method per route and method. Decodes what the request carries; what
/// it cannot decode it answers itself.
extension TodosView {
    public func handleList(context: RequestContext, respond: @escaping Respond) {
        switch query(from: context.query) {
        case .success(let query): presenter.presentList(query, context: context, view: serializer, respond: respond)
        case .failure(let problem): serializer.display(ResponseViewModel(problem: problem), respond: respond)
        }
    }

    public func handleCreation(_ request: HTTPRequest, context: RequestContext, respond: @escaping Respond) {
        switch draft(from: request.body) {
        case .success(let draft): presenter.presentCreation(draft, context: context, view: serializer, respond: respond)
        case .failure(let problem): serializer.display(ResponseViewModel(problem: problem), respond: respond)
        }
    }

    public func handleDeletionOfAll(context: RequestContext, respond: @escaping Respond) {
        presenter.presentDeletionOfAll(context: context, view: serializer, respond: respond)
    }

    public func handleTodo(id: String, context: RequestContext, respond: @escaping Respond) {
        presenter.presentTodo(id: id, context: context, view: serializer, respond: respond)
    }

    public func handlePatch(id: String, _ request: HTTPRequest, context: RequestContext, respond: @escaping Respond) {
        switch patch(from: request.body) {
        case .success(let patch):
            presenter.presentPatch(id: id, patch, condition: condition(of: context), context: context, view: serializer, respond: respond)
        case .failure(let problem):
            serializer.display(ResponseViewModel(problem: problem), respond: respond)
        }
    }

    public func handleReplacement(id: String, _ request: HTTPRequest, context: RequestContext, respond: @escaping Respond) {
        switch draft(from: request.body) {
        case .success(let draft):
            presenter.presentReplacement(
                id: id, draft, condition: condition(of: context), context: context, view: serializer, respond: respond)
        case .failure(let problem):
            serializer.display(ResponseViewModel(problem: problem), respond: respond)
        }
    }

    public func handleDeletion(id: String, context: RequestContext, respond: @escaping Respond) {
        presenter.presentDeletion(id: id, condition: condition(of: context), context: context, view: serializer, respond: respond)
    }

    /// The request's `If-Match` and `If-None-Match`, for a change, as the revisions they name.
    private func condition(of context: RequestContext) -> RevisionCondition {
        condition(ifMatch: context.ifMatch, ifNoneMatch: context.ifNoneMatch)
    }
}
