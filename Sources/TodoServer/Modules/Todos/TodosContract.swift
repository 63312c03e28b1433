import HTTPValues
import TodoData

// The to-dos module: list, create, read, change and delete to-dos (`/todos`, `/todos/{id}`).
// The router hands the HTTP request to the view; the view decodes it into typed request models
// and calls the presenter with them; the presenter asks the interactor and returns its answer, a
// view model or a problem (`Pending`: the store may answer later, on the loop); the view writes
// it as the response and returns that to the router.

/// The presenter, as the view calls it: typed requests in, its answer out. `context` gives
/// absolute URLs, page links and `If-None-Match` (304, a view model without a body).
public protocol TodosModuleInput: Sendable {
    func presentList(_ query: TodoQuery, context: RequestContext) -> Pending<ViewAnswer<TodoListViewModel>>
    func presentCreation(_ draft: TodoDraft, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>>
    func presentDeletionOfAll(context: RequestContext) -> Pending<ViewAnswer<NoBody>>
    func presentTodo(id: String, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>>
    func presentPatch(
        id: String, _ change: TodoChange, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>>
    func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>>
    func presentDeletion(id: String, condition: RevisionCondition, context: RequestContext) -> Pending<ViewAnswer<NoBody>>
}

/// The business rules (the interactor): ids, timestamps, the store calls, what a condition on a
/// missing to-do means. Knows nothing of HTTP: typed requests in, domain data or a domain error
/// out (`Pending`: ready when the store answered at once, later when it answers on the loop).
public protocol TodosUseCases: Sendable {
    /// The same use cases acting on `owner`'s to-dos only (`Owner.shared`: the shared list).
    func owned(by owner: Owner) -> Self
    /// One page of to-dos; by default `order` (unset last), then `createdAt`, then `id`.
    func list(_ query: TodoQuery) -> Pending<Result<TodoListData, TodosError>>
    /// Stores a new to-do with a fresh id, created and updated now.
    func create(_ draft: TodoDraft) -> Pending<Result<Todo, TodosError>>
    func get(id: String) -> Pending<Result<Todo, TodosError>>
    /// Applies a merge patch if the condition holds; a patch that changes nothing keeps the
    /// revision and `updatedAt`.
    func patch(id: String, with change: TodoChange, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>>
    /// Replaces the writable fields if the condition holds; the same content keeps the
    /// revision and `updatedAt`.
    func replace(id: String, with draft: TodoDraft, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>>
    /// Deletes the to-do if the condition holds.
    func delete(id: String, condition: RevisionCondition) -> Pending<Result<Void, TodosError>>
    func deleteAll() -> Pending<Result<Void, TodosError>>
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
