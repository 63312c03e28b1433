import EventHTTP

// The to-dos module: list, create, read, change and delete to-dos (`/todos`, `/todos/{id}`).
// The router calls the presenter; the presenter has the view decode the request into typed
// request models, asks the interactor, and hands view models to the view.

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

/// The business rules (the interactor): ids, timestamps, the store calls, what a condition on a
/// missing to-do means. Knows nothing of HTTP: typed requests in, domain data or a domain error out.
public protocol TodosUseCases: Sendable {
    /// One page of to-dos; by default `order` (unset last), then `createdAt`, then `id`.
    func list(_ query: TodoQuery, completion: @escaping (Result<TodoListData, TodosError>) -> Void)
    /// Stores a new to-do with a fresh id, created and updated now.
    func create(_ draft: TodoDraft, completion: @escaping (Result<TodoData, TodosError>) -> Void)
    func get(id: String, completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Applies a merge patch if the condition holds; a patch that changes nothing keeps the
    /// revision and `updatedAt`.
    func patch(
        id: String, with patch: TodoPatch, condition: RevisionCondition,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Replaces the writable fields if the condition holds; the same content keeps the
    /// revision and `updatedAt`.
    func replace(
        id: String, with draft: TodoDraft, condition: RevisionCondition,
        completion: @escaping (Result<TodoData, TodosError>) -> Void)
    /// Deletes the to-do if the condition holds.
    func delete(id: String, condition: RevisionCondition, completion: @escaping (Result<Void, TodosError>) -> Void)
    func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void)
}

/// The fields of a new to-do or of a replacement (create, PUT), validated by the view.
public struct TodoDraft: Equatable, Sendable {
    public var title: String
    public var completed: Bool
    public var order: Int?
    public var dueDate: CalendarDay?

    public init(title: String, completed: Bool = false, order: Int? = nil, dueDate: CalendarDay? = nil) {
        self.title = title
        self.completed = completed
        self.order = order
        self.dueDate = dueDate
    }
}

/// The fields of a merge patch, validated by the view: nil leaves a field alone, `.some(nil)` clears it.
public struct TodoPatch: Equatable, Sendable {
    public var title: String?
    public var completed: Bool?
    public var order: Int??
    public var dueDate: CalendarDay??

    public init(title: String? = nil, completed: Bool? = nil, order: Int?? = nil, dueDate: CalendarDay?? = nil) {
        self.title = title
        self.completed = completed
        self.order = order
        self.dueDate = dueDate
    }
}

/// The view, the module's HTTP adapter: decodes the request into the request models above
/// (`TodoQuery`, `TodoDraft`, `TodoPatch`, `RevisionCondition`) and serializes the presenter's view
/// models. A body or query it cannot decode is a problem (400, or 422 naming the fields) that
/// never reaches the interactor.
public protocol TodosDisplay: Sendable {
    /// `completed`, `q`, `sort`, `limit` and `offset` from the query; other parameters are ignored.
    func query(from parameters: QueryParameters) -> Result<TodoQuery, ProblemDetails>
    /// A create or PUT body: a JSON object with `title` and optionally `completed`, `order`, `dueDate`.
    func draft(from body: [UInt8]) -> Result<TodoDraft, ProblemDetails>
    /// A PATCH body (RFC 7396 merge patch).
    func patch(from body: [UInt8]) -> Result<TodoPatch, ProblemDetails>
    /// The revisions `If-Match` and `If-None-Match` name, for a change.
    func condition(ifMatch: EntityTagCondition?, ifNoneMatch: EntityTagCondition?) -> RevisionCondition
    func displayTodo(_ model: ResponseViewModel<TodoViewModel>, respond: Respond)
    func displayTodoList(_ model: ResponseViewModel<[TodoViewModel]>, respond: Respond)
    /// 204 and 304: status and headers only.
    func displayNoContent(_ model: ResponseViewModel<NoBody>, respond: Respond)
    func displayProblem(_ model: ResponseViewModel<ProblemDetails>, respond: Respond)
}

/// Why a to-do use case failed (a domain error: the presenter gives it its HTTP shape).
public enum TodosError: Error, Equatable {
    case notFound(id: String)
    /// The revision condition refused the change; `current` is the to-do's revision, nil when it
    /// does not exist (`If-Match: *` on a missing to-do).
    case conditionFailed(id: String, current: UInt64?, failure: RevisionCondition.Failure)
    /// The store cannot answer now (`retryAfter` says when to try again, if known).
    case store(StoreError)
}
