import HTTPValues

// The to-dos module: list, create, read, change and delete to-dos (`/todos`, `/todos/{id}`).
// The router hands the HTTP request to the view; the view decodes it into typed request models
// and calls the presenter with them; the presenter asks the interactor and hands view models
// back to the view, which writes the response.

/// The presenter, as the view calls it: typed requests in, view models out to `view`. `context`
/// gives absolute URLs, page links and `If-None-Match` (304); `respond` is handed back to `view`.
public protocol TodosModuleInput: Sendable {
    func presentList(_ query: TodoQuery, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond)
    func presentCreation(_ draft: TodoDraft, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond)
    func presentDeletionOfAll(context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond)
    func presentTodo(id: String, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond)
    func presentPatch(
        id: String, _ change: TodoChange, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay,
        respond: @escaping Respond)
    func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay,
        respond: @escaping Respond)
    func presentDeletion(
        id: String, condition: RevisionCondition, context: RequestContext, view: some ResponseDisplay, respond: @escaping Respond)
}

/// The business rules (the interactor): ids, timestamps, the store calls, what a condition on a
/// missing to-do means. Knows nothing of HTTP: typed requests in, domain data or a domain error out.
public protocol TodosUseCases: Sendable {
    /// One page of to-dos; by default `order` (unset last), then `createdAt`, then `id`.
    func list(_ query: TodoQuery, completion: @escaping (Result<TodoListData, TodosError>) -> Void)
    /// Stores a new to-do with a fresh id, created and updated now.
    func create(_ draft: TodoDraft, completion: @escaping (Result<Todo, TodosError>) -> Void)
    func get(id: String, completion: @escaping (Result<Todo, TodosError>) -> Void)
    /// Applies a merge patch if the condition holds; a patch that changes nothing keeps the
    /// revision and `updatedAt`.
    func patch(
        id: String, with change: TodoChange, condition: RevisionCondition,
        completion: @escaping (Result<Todo, TodosError>) -> Void)
    /// Replaces the writable fields if the condition holds; the same content keeps the
    /// revision and `updatedAt`.
    func replace(
        id: String, with draft: TodoDraft, condition: RevisionCondition,
        completion: @escaping (Result<Todo, TodosError>) -> Void)
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

// Decoding the request into `TodoQuery`, `TodoDraft`, `TodoChange` (a merge patch) and
// `RevisionCondition` happens before the presenter is called, in `TodosView`: a body or query the
// view cannot decode is a problem, 400 or 422 naming the fields, that never reaches the presenter.

/// Why a to-do use case failed (a domain error: the presenter gives it its HTTP shape).
public enum TodosError: Error, Equatable {
    case notFound(id: String)
    /// The revision condition refused the change; `current` is the to-do's revision, nil when it
    /// does not exist (`If-Match: *` on a missing to-do).
    case conditionFailed(id: String, current: UInt64?, failure: RevisionCondition.Failure)
    /// The store cannot answer now (`retryAfter` says when to try again, if known).
    case store(StoreError)
}
