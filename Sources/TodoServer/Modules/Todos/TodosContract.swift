import EventHTTP

// The to-dos module: list, create, read, change and delete to-dos (`/todos`, `/todos/{id}`).
// The router calls the presenter; the presenter asks the interactor and hands view models to the view.

/// The module's entry for the router (the presenter): one method per route and method.
public protocol TodosModuleInput: Sendable {
    func presentList(context: RequestContext, respond: @escaping Respond)
    func presentCreation(body: [UInt8], context: RequestContext, respond: @escaping Respond)
    func presentDeletionOfAll(context: RequestContext, respond: @escaping Respond)
    func presentTodo(id: String, context: RequestContext, respond: @escaping Respond)
    func presentPatch(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond)
    func presentReplacement(id: String, body: [UInt8], context: RequestContext, respond: @escaping Respond)
    func presentDeletion(id: String, context: RequestContext, respond: @escaping Respond)
}

/// The business rules (the interactor): validates input, manages entities, answers plain data.
public protocol TodosUseCases: Sendable {
    /// One page of to-dos: `completed`, `q`, `sort`, `limit` and `offset` from the query; by
    /// default `order` (unset last), then `createdAt`, then `id`.
    func list(_ parameters: QueryParameters, completion: @escaping (Result<TodoListData, TodosError>) -> Void)
    func create(from body: [UInt8], completion: @escaping (Result<TodoData, TodosError>) -> Void)
    func get(id: String, completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Applies a JSON merge patch (RFC 7396) if `ifMatch` (when given) matches the to-do's tag.
    func patch(
        id: String, with body: [UInt8], ifMatch: EntityTagCondition?,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Replaces the writable fields if `ifMatch` (when given) matches the to-do's tag.
    func replace(
        id: String, with body: [UInt8], ifMatch: EntityTagCondition?,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Deletes the to-do if `ifMatch` (when given) matches its tag.
    func delete(id: String, ifMatch: EntityTagCondition?, completion: @escaping (Result<Void, TodosError>) -> Void)
    func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void)
}

/// The view: serializes what the presenter decided into the HTTP response.
public protocol TodosDisplay: Sendable {
    func displayTodo(_ model: ResponseViewModel<TodoViewModel>, respond: Respond)
    func displayTodoList(_ model: ResponseViewModel<[TodoViewModel]>, respond: Respond)
    /// 204 and 304: status and headers only.
    func displayNoContent(_ model: ResponseViewModel<NoBody>, respond: Respond)
    func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond)
}

/// Why a to-do use case failed; each case knows its HTTP shape.
public enum TodosError: HTTPProblemConvertible, Equatable {
    case notFound(id: String)
    case malformedBody(ProblemDetails)
    case invalidFields([FieldError])
    case badQueryParameter(name: String, value: String, expected: String)
    case preconditionFailed(id: String, current: EntityTag)
    case store(StoreError)

    public var problem: ProblemDetails {
        switch self {
        case .notFound(let id): .notFound("No to-do has the id '\(id)'.")
        case .badQueryParameter(let name, let value, let expected):
            .badRequest("Query parameter '\(name)' is '\(value)' but must be \(expected).")
        case .preconditionFailed(let id, let current):
            ProblemDetails(
                status: 412, title: "Precondition Failed",
                detail: "If-Match does not match the current version of to-do '\(id)' (ETag \(current)); read it again and retry.")
        case .malformedBody(let problem): problem
        case .invalidFields(let errors): .unprocessable(errors)
        case .store(let error): error.problem
        }
    }
}
