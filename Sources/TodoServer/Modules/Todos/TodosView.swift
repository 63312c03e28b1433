import HTTPValues
import TodoData

/// The to-dos module's HTTP adapter: the router hands it the request; it decodes bodies, queries and
/// conditional headers into the module's request models (`TodosView+Decoding.swift`), answers what
/// it cannot decode itself, calls the presenter with the typed requests, and writes the answers the
/// presenter returns as JSON responses, which it returns to the router. Generic over its presenter
/// so that the router's module is called directly and its answers written by a specialised display.
public struct TodosView<Presenter: TodosModuleInput>: Sendable {
    private let presenter: Presenter
    private let serializer: JSONSerializer
    let inputDecoder = TodoInputDecoder()
    let queryDecoder = TodoListQueryDecoder()

    public init(presenter: Presenter, serializer: JSONSerializer) {
        self.presenter = presenter
        self.serializer = serializer
    }
}

/// The router's entry: one method per route and method. Decodes what the request carries; what
/// it cannot decode it answers itself.
extension TodosView {
    public func handleList(context: RequestContext) -> Pending<HTTPResponse> {
        switch query(from: context.query) {
        case .success(let query): serializer.display(presenter.presentList(query, context: context))
        case .failure(let problem): .ready(serializer.display(ResponseViewModel(problem: problem)))
        }
    }

    public func handleCreation(_ request: HTTPRequest, context: RequestContext) -> Pending<HTTPResponse> {
        switch draft(from: request.body) {
        case .success(let draft): serializer.display(presenter.presentCreation(draft, context: context))
        case .failure(let problem): .ready(serializer.display(ResponseViewModel(problem: problem)))
        }
    }

    public func handleDeletionOfAll(context: RequestContext) -> Pending<HTTPResponse> {
        serializer.display(presenter.presentDeletionOfAll(context: context))
    }

    public func handleTodo(id: String, context: RequestContext) -> Pending<HTTPResponse> {
        serializer.display(presenter.presentTodo(id: id, context: context))
    }

    public func handlePatch(id: String, _ request: HTTPRequest, context: RequestContext) -> Pending<HTTPResponse> {
        switch patch(from: request.body) {
        case .success(let patch):
            serializer.display(presenter.presentPatch(id: id, patch, condition: condition(of: context), context: context))
        case .failure(let problem): .ready(serializer.display(ResponseViewModel(problem: problem)))
        }
    }

    public func handleReplacement(id: String, _ request: HTTPRequest, context: RequestContext) -> Pending<HTTPResponse> {
        switch draft(from: request.body) {
        case .success(let draft):
            serializer.display(presenter.presentReplacement(id: id, draft, condition: condition(of: context), context: context))
        case .failure(let problem): .ready(serializer.display(ResponseViewModel(problem: problem)))
        }
    }

    public func handleDeletion(id: String, context: RequestContext) -> Pending<HTTPResponse> {
        serializer.display(presenter.presentDeletion(id: id, condition: condition(of: context), context: context))
    }

    /// The request's `If-Match` and `If-None-Match`, for a change, as the revisions they name.
    private func condition(of context: RequestContext) -> RevisionCondition {
        condition(ifMatch: context.ifMatch, ifNoneMatch: context.ifNoneMatch)
    }
}
