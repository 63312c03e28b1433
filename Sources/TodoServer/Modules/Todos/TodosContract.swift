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
    /// Applies a JSON merge patch (RFC 7396) if the condition holds; a patch that changes
    /// nothing keeps the revision and `updatedAt`.
    func patch(
        id: String, with body: [UInt8], condition: RevisionCondition,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Replaces the writable fields if the condition holds; the same content keeps the
    /// revision and `updatedAt`.
    func replace(
        id: String, with body: [UInt8], condition: RevisionCondition,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Deletes the to-do if the condition holds.
    func delete(id: String, condition: RevisionCondition, completion: @escaping (Result<Void, TodosError>) -> Void)
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
    /// `current` is the to-do's revision, nil when it does not exist.
    case preconditionFailed(id: String, current: UInt64?, failure: RevisionCondition.Failure)
    case store(StoreError)

    public var problem: ProblemDetails {
        switch self {
        case .notFound(let id): .notFound("No to-do has the id '\(id)'.")
        case .badQueryParameter(let name, let value, let expected):
            .badRequest("Query parameter '\(name)' is '\(value)' but must be \(expected).")
        case .preconditionFailed(let id, let current, let failure):
            ProblemDetails(status: 412, title: "Precondition Failed", detail: Self.preconditionDetail(id: id, current: current, failure: failure))
        case .malformedBody(let problem): problem
        case .invalidFields(let errors): .unprocessable(errors)
        case .store(let error): error.problem
        }
    }

    private static func preconditionDetail(id: String, current: UInt64?, failure: RevisionCondition.Failure) -> String {
        let version = current.map { " (ETag \(EntityTag(revision: $0)))" } ?? ""
        return switch failure {
        case .ifMatch:
            "If-Match does not match the current version of to-do '\(id)'\(version); read it again and retry."
        case .ifMatchAnyButMissing:
            "If-Match: * asks for an existing to-do, and no to-do has the id '\(id)'."
        case .ifNoneMatch:
            "If-None-Match matches the current version of to-do '\(id)'\(version), so it was left unchanged."
        }
    }
}
