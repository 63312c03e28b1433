import EventHTTP

/// Has the view decode each request, passes the typed request to the use cases, and turns their
/// answers into view models: status, `Location`, `ETag`, 304, `X-Total-Count` and `Link`,
/// absolute urls, problems (`TodosPresenter+Problems.swift`).
public struct TodosPresenter: TodosModuleInput {
    private let interactor: any TodosUseCases
    let view: any TodosDisplay

    public init(interactor: any TodosUseCases, view: any TodosDisplay) {
        self.interactor = interactor
        self.view = view
    }

    public func presentList(context: RequestContext, respond: @escaping Respond) {
        let query: TodoQuery
        switch view.query(from: context.query) {
        case .success(let decoded): query = decoded
        case .failure(let problem): return view.displayProblem(ResponseViewModel(problem: problem), respond: respond)
        }
        interactor.list(query) { result in
            switch result {
            case .success(let list):
                var headers: HTTPHeaders = ["ETag": list.entityTag.description, "X-Total-Count": String(list.total)]
                if context.ifNoneMatch?.matchesWeakly(list.entityTag) == true {
                    return view.displayNoContent(ResponseViewModel(status: 304, headers: headers), respond: respond)
                }
                let links = PageLinks(
                    baseURL: context.baseURL, path: context.path, query: context.query, offset: list.offset,
                    limit: list.limit, total: list.total)
                if let link = links.headerValue { headers.set("Link", link) }
                let models = list.items.map { TodoViewModel($0, baseURL: context.baseURL) }
                view.displayTodoList(ResponseViewModel(status: 200, headers: headers, body: models), respond: respond)
            case .failure(let error):
                presentProblem(error, respond: respond)
            }
        }
    }

    public func presentCreation(body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        let draft: TodoDraft
        switch view.draft(from: body) {
        case .success(let decoded): draft = decoded
        case .failure(let problem): return view.displayProblem(ResponseViewModel(problem: problem), respond: respond)
        }
        interactor.create(draft) { result in
            presentTodo(result, status: 201, context: context, respond: respond)
        }
    }

    public func presentDeletionOfAll(context: RequestContext, respond: @escaping Respond) {
        interactor.deleteAll { presentNoContent($0, respond: respond) }
    }

    public func presentTodo(id: String, context: RequestContext, respond: @escaping Respond) {
        interactor.get(id: id) { result in
            if case .success(let todo) = result, context.ifNoneMatch?.matchesWeakly(todo.entityTag) == true {
                let headers: HTTPHeaders = ["ETag": todo.entityTag.description]
                return view.displayNoContent(ResponseViewModel(status: 304, headers: headers), respond: respond)
            }
            presentTodo(result, status: 200, context: context, respond: respond)
        }
    }

    public func presentPatch(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        let patch: TodoPatch
        switch view.patch(from: body) {
        case .success(let decoded): patch = decoded
        case .failure(let problem): return view.displayProblem(ResponseViewModel(problem: problem), respond: respond)
        }
        interactor.patch(id: id, with: patch, condition: condition(context)) {
            presentTodo($0, status: 200, context: context, respond: respond)
        }
    }

    public func presentReplacement(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        let draft: TodoDraft
        switch view.draft(from: body) {
        case .success(let decoded): draft = decoded
        case .failure(let problem): return view.displayProblem(ResponseViewModel(problem: problem), respond: respond)
        }
        interactor.replace(id: id, with: draft, condition: condition(context)) {
            presentTodo($0, status: 200, context: context, respond: respond)
        }
    }

    public func presentDeletion(id: String, context: RequestContext, respond: @escaping Respond) {
        interactor.delete(id: id, condition: condition(context)) { presentNoContent($0, respond: respond) }
    }

    /// The request's `If-Match` and `If-None-Match`, for a change, as the revisions they name.
    private func condition(_ context: RequestContext) -> RevisionCondition {
        view.condition(ifMatch: context.ifMatch, ifNoneMatch: context.ifNoneMatch)
    }

    /// A single to-do with its `ETag`; a 201 also carries `Location`.
    private func presentTodo(_ result: Result<TodoData, TodosError>, status: Int, context: RequestContext, respond: Respond) {
        switch result {
        case .success(let todo):
            let model = TodoViewModel(todo, baseURL: context.baseURL)
            var headers: HTTPHeaders = ["ETag": todo.entityTag.description]
            if status == 201 { headers.set("Location", model.url) }
            view.displayTodo(ResponseViewModel(status: status, headers: headers, body: model), respond: respond)
        case .failure(let error):
            presentProblem(error, respond: respond)
        }
    }

    private func presentNoContent(_ result: Result<Void, TodosError>, respond: Respond) {
        switch result {
        case .success: view.displayNoContent(ResponseViewModel(status: 204), respond: respond)
        case .failure(let error): presentProblem(error, respond: respond)
        }
    }
}
