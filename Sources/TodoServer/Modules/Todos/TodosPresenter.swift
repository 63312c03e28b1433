import EventHTTP

/// Turns the to-dos use cases' answers into view models: status, `Location`, absolute urls, problems.
public struct TodosPresenter: TodosModuleInput {
    private let interactor: any TodosUseCases
    private let view: any TodosDisplay

    public init(interactor: any TodosUseCases, view: any TodosDisplay) {
        self.interactor = interactor
        self.view = view
    }

    public func presentList(context: RequestContext, respond: @escaping Respond) {
        interactor.list { result in
            switch result {
            case .success(let todos):
                let models = todos.map { TodoViewModel($0, baseURL: context.baseURL) }
                view.displayTodoList(ResponseViewModel(status: 200, body: models), respond: respond)
            case .failure(let error):
                presentProblem(error, respond: respond)
            }
        }
    }

    public func presentCreation(body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        interactor.create(from: body) { result in
            presentTodo(result, status: 201, context: context, respond: respond)
        }
    }

    public func presentDeletionOfAll(context: RequestContext, respond: @escaping Respond) {
        interactor.deleteAll { presentNoContent($0, respond: respond) }
    }

    public func presentTodo(id: String, context: RequestContext, respond: @escaping Respond) {
        interactor.get(id: id) { presentTodo($0, status: 200, context: context, respond: respond) }
    }

    public func presentPatch(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        interactor.patch(id: id, with: body) { presentTodo($0, status: 200, context: context, respond: respond) }
    }

    public func presentReplacement(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond) {
        interactor.replace(id: id, with: body) { presentTodo($0, status: 200, context: context, respond: respond) }
    }

    public func presentDeletion(id: String, context: RequestContext, respond: @escaping Respond) {
        interactor.delete(id: id) { presentNoContent($0, respond: respond) }
    }

    /// A single to-do; a 201 also carries `Location`.
    private func presentTodo(_ result: Result<TodoData, TodosError>, status: Int, context: RequestContext, respond: Respond) {
        switch result {
        case .success(let todo):
            let model = TodoViewModel(todo, baseURL: context.baseURL)
            let headers: HTTPHeaders = status == 201 ? ["Location": model.url] : [:]
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

    private func presentProblem(_ error: TodosError, respond: Respond) {
        view.displayProblem(ResponseViewModel(problem: error.problem), respond: respond)
    }
}
