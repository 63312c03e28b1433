import HTTPValues

/// Passes the view's typed requests to the use cases and turns their answers into view models
/// for the view: status, `Location`, `ETag`, 304, `X-Total-Count` and `Link`, absolute urls,
/// problems (`TodosPresenter+Problems.swift`).
public struct TodosPresenter: TodosModuleInput {
    private let interactor: any TodosUseCases

    public init(interactor: any TodosUseCases) {
        self.interactor = interactor
    }

    public func presentList(_ query: TodoQuery, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond) {
        interactor.list(query) { result in
            switch result {
            case .success(let list):
                var headers: HTTPHeaders = ["ETag": list.entityTag.description, "X-Total-Count": String(list.total)]
                if let lastChange = list.lastChange { headers.add("X-Last-Event-ID", lastChange) }
                if context.ifNoneMatch?.matchesWeakly(list.entityTag) == true {
                    return view.display(ResponseViewModel(status: 304, headers: headers), respond: respond)
                }
                let links = PageLinks(
                    baseURL: context.baseURL, path: context.path, query: context.query, offset: list.offset,
                    limit: list.limit, total: list.total)
                if let link = links.headerValue { headers.set("Link", link) }
                let model = TodoListViewModel(items: list.items, baseURL: context.baseURL)
                view.display(ResponseViewModel(status: 200, headers: consume headers, body: model), respond: respond)
            case .failure(let error):
                presentProblem(error, view: view, respond: respond)
            }
        }
    }

    public func presentCreation(_ draft: TodoDraft, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond) {
        interactor.create(draft) { result in
            presentTodo(result, status: 201, context: context, view: view, respond: respond)
        }
    }

    public func presentDeletionOfAll(context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond) {
        interactor.deleteAll { presentNoContent($0, view: view, respond: respond) }
    }

    public func presentTodo(id: String, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond) {
        interactor.get(id: id) { result in
            if case .success(let todo) = result, context.ifNoneMatch?.matchesWeakly(todo.entityTag) == true {
                let headers: HTTPHeaders = ["ETag": todo.entityTag.description]
                return view.display(ResponseViewModel(status: 304, headers: headers), respond: respond)
            }
            presentTodo(result, status: 200, context: context, view: view, respond: respond)
        }
    }

    public func presentPatch(
        id: String, _ change: TodoChange, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay,
        respond: @escaping Respond
    ) {
        interactor.patch(id: id, with: change, condition: condition) {
            presentTodo($0, status: 200, context: context, view: view, respond: respond)
        }
    }

    public func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay,
        respond: @escaping Respond
    ) {
        interactor.replace(id: id, with: draft, condition: condition) {
            presentTodo($0, status: 200, context: context, view: view, respond: respond)
        }
    }

    public func presentDeletion(
        id: String, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond
    ) {
        interactor.delete(id: id, condition: condition) { presentNoContent($0, view: view, respond: respond) }
    }

    /// A single to-do with its `ETag`; a 201 also carries `Location`.
    private func presentTodo(
        _ result: Result<Todo, TodosError>, status: Int, context: RequestContext, view: some ResponseDisplay, respond: Respond
    ) {
        switch result {
        case .success(let todo):
            let model = TodoViewModel(todo, baseURL: context.baseURL)
            var headers: HTTPHeaders = ["ETag": todo.entityTag.description]
            if status == 201 { headers.set("Location", model.url) }
            // Handed over (`consume`): a `var` lives to the end of its scope, so the list would be
            // shared while the view adds to it, and copied.
            view.display(ResponseViewModel(status: status, headers: consume headers, body: model), respond: respond)
        case .failure(let error):
            presentProblem(error, view: view, respond: respond)
        }
    }

    private func presentNoContent(_ result: Result<Void, TodosError>, view: some ResponseDisplay, respond: Respond) {
        switch result {
        case .success: view.display(ResponseViewModel(status: 204), respond: respond)
        case .failure(let error): presentProblem(error, view: view, respond: respond)
        }
    }
}
