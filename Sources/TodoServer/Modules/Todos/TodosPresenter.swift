import HTTPValues

/// Passes the view's typed requests to the use cases and turns their answers into view models
/// for the view: status, `Location`, `ETag`, 304, `X-Total-Count` and `Link`, absolute urls,
/// problems (`TodosPresenter+Problems.swift`).
public struct TodosPresenter: TodosModuleInput {
    private let interactor: any TodosUseCases

    public init(interactor: any TodosUseCases) {
        self.interactor = interactor
    }

    public func presentList(_ query: TodoQuery, context: RequestContext) -> Pending<ViewAnswer<TodoListViewModel>> {
        Pending { promise in
            interactor.list(query) { result in
                switch result {
                case .success(let list):
                    var headers: HTTPHeaders = ["ETag": list.entityTag.description, "X-Total-Count": String(list.total)]
                    if let lastChange = list.lastChange { headers.add("X-Last-Event-ID", lastChange) }
                    if context.ifNoneMatch?.matchesWeakly(list.entityTag) == true {
                        return promise.fulfil(.model(ResponseViewModel(status: 304, headers: headers, body: nil)))
                    }
                    let links = PageLinks(
                        baseURL: context.baseURL, path: context.path, query: context.query, offset: list.offset,
                        limit: list.limit, total: list.total)
                    if let link = links.headerValue { headers.set("Link", link) }
                    let model = TodoListViewModel(items: list.items, baseURL: context.baseURL)
                    promise.fulfil(.model(ResponseViewModel(status: 200, headers: consume headers, body: model)))
                case .failure(let error):
                    promise.fulfil(.problem(problem(error)))
                }
            }
        }
    }

    public func presentCreation(_ draft: TodoDraft, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        Pending { promise in
            interactor.create(draft) { promise.fulfil(todo($0, status: 201, baseURL: context.baseURL)) }
        }
    }

    public func presentDeletionOfAll(context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        Pending { promise in
            interactor.deleteAll { promise.fulfil(noContent($0)) }
        }
    }

    public func presentTodo(id: String, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        Pending { promise in
            interactor.get(id: id) { result in
                if case .success(let todo) = result, context.ifNoneMatch?.matchesWeakly(todo.entityTag) == true {
                    let headers: HTTPHeaders = ["ETag": todo.entityTag.description]
                    return promise.fulfil(.model(ResponseViewModel(status: 304, headers: headers, body: nil)))
                }
                promise.fulfil(todo(result, status: 200, baseURL: context.baseURL))
            }
        }
    }

    public func presentPatch(
        id: String, _ change: TodoChange, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        Pending { promise in
            interactor.patch(id: id, with: change, condition: condition) {
                promise.fulfil(todo($0, status: 200, baseURL: context.baseURL))
            }
        }
    }

    public func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        Pending { promise in
            interactor.replace(id: id, with: draft, condition: condition) {
                promise.fulfil(todo($0, status: 200, baseURL: context.baseURL))
            }
        }
    }

    public func presentDeletion(id: String, condition: RevisionCondition, context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        Pending { promise in
            interactor.delete(id: id, condition: condition) { promise.fulfil(noContent($0)) }
        }
    }

    /// A single to-do with its `ETag`; a 201 also carries `Location`.
    private func todo(_ result: Result<Todo, TodosError>, status: Int, baseURL: String) -> ViewAnswer<TodoViewModel> {
        switch result {
        case .success(let todo):
            let model = TodoViewModel(todo, baseURL: baseURL)
            var headers: HTTPHeaders = ["ETag": todo.entityTag.description]
            if status == 201 { headers.set("Location", model.url) }
            // Handed over (`consume`): a `var` lives to the end of its scope, so the list would be
            // shared while the view adds to it, and copied.
            return .model(ResponseViewModel(status: status, headers: consume headers, body: model))
        case .failure(let error):
            return .problem(problem(error))
        }
    }

    private func noContent(_ result: Result<Void, TodosError>) -> ViewAnswer<NoBody> {
        switch result {
        case .success: .model(ResponseViewModel(status: 204))
        case .failure(let error): .problem(problem(error))
        }
    }
}
