import HTTPValues
import TodoData

/// Passes the view's typed requests to the use cases and turns their answers into view models
/// for the view: status, `Location`, `ETag`, 304, `X-Total-Count` and `Link`, absolute urls,
/// problems (`TodosPresenter+Problems.swift`). Generic over its use cases so that the router's
/// module (`TodosInteractor`) is called directly and its answers are handed on unboxed.
public struct TodosPresenter<UseCases: TodosUseCases>: TodosModuleInput {
    private let interactor: UseCases

    public init(interactor: UseCases) {
        self.interactor = interactor
    }

    public func presentList(_ query: TodoQuery, context: RequestContext) -> Pending<ViewAnswer<TodoListViewModel>> {
        interactor.owned(by: context.owner).list(query).map(with: context) { result, context in
            switch result {
            case .success(let list):
                var headers: HTTPHeaders = ["ETag": list.entityTag.description, "X-Total-Count": String(list.total)]
                if let lastChange = list.lastChange { headers.add("X-Last-Event-ID", lastChange) }
                if context.ifNoneMatch?.matchesWeakly(list.entityTag) == true {
                    return .model(ResponseViewModel(status: 304, headers: headers, body: nil))
                }
                let links = PageLinks(
                    baseURL: context.baseURL, path: context.path, query: context.query, offset: list.offset,
                    limit: list.limit, total: list.total)
                if let link = links.headerValue { headers.set("Link", link) }
                let model = TodoListViewModel(items: list.items, baseURL: context.baseURL)
                return .model(ResponseViewModel(status: 200, headers: consume headers, body: model))
            case .failure(let error):
                return .problem(Self.problem(error))
            }
        }
    }

    public func presentCreation(_ draft: TodoDraft, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        interactor.owned(by: context.owner).create(draft).map(with: context.baseURL) {
            (result: consuming Result<Todo, TodosError>, baseURL) in
            Self.todo(consume result, status: 201, baseURL: baseURL)
        }
    }

    public func presentDeletionOfAll(context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        interactor.owned(by: context.owner).deleteAll().map(with: ()) { result, _ in Self.noContent(result) }
    }

    public func presentTodo(id: String, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        interactor.owned(by: context.owner).get(id: id).map(with: context) { result, context in
            if case .success(let todo) = result, context.ifNoneMatch?.matchesWeakly(todo.entityTag) == true {
                let headers: HTTPHeaders = ["ETag": todo.entityTag.description]
                return .model(ResponseViewModel(status: 304, headers: headers, body: nil))
            }
            return Self.todo(result, status: 200, baseURL: context.baseURL)
        }
    }

    public func presentPatch(
        id: String, _ change: TodoChange, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        interactor.owned(by: context.owner).patch(id: id, with: change, condition: condition).map(with: context.baseURL) {
            (result: consuming Result<Todo, TodosError>, baseURL) in Self.todo(consume result, status: 200, baseURL: baseURL)
        }
    }

    public func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        interactor.owned(by: context.owner).replace(id: id, with: draft, condition: condition).map(with: context.baseURL) {
            (result: consuming Result<Todo, TodosError>, baseURL) in Self.todo(consume result, status: 200, baseURL: baseURL)
        }
    }

    public func presentDeletion(id: String, condition: RevisionCondition, context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        interactor.owned(by: context.owner).delete(id: id, condition: condition).map(with: ()) { result, _ in Self.noContent(result) }
    }

    /// A single to-do with its `ETag`; a 201 also carries `Location`.
    /// `result` is consumed: the to-do is moved into the view model, not copied (a closure's
    /// parameter is borrowed unless declared consuming: the transforms above declare it).
    private static func todo(_ result: consuming Result<Todo, TodosError>, status: Int, baseURL: String) -> ViewAnswer<TodoViewModel> {
        switch consume result {
        case .success(let todo):
            let model = TodoViewModel(todo, baseURL: baseURL)
            // Both fields in one literal: it keeps room for the view's and the pipeline's six
            // (`JSONSerializer.display`), where a `set` after it took that room, and the list was
            // copied into a larger one for each 201.
            let headers: HTTPHeaders =
                status == 201 ? ["ETag": todo.entityTag.description, "Location": model.url] : ["ETag": todo.entityTag.description]
            return .model(ResponseViewModel(status: status, headers: consume headers, body: model))
        case .failure(let error):
            return .problem(problem(error))
        }
    }

    private static func noContent(_ result: Result<Void, TodosError>) -> ViewAnswer<NoBody> {
        switch result {
        case .success: .model(ResponseViewModel(status: 204))
        case .failure(let error): .problem(problem(error))
        }
    }
}
