/// Where to-dos live, behind the interactors.
///
/// Every call returns its answer: ready at once (in memory), or later on the calling loop thread
/// (the journal's writer, a database), so that a networked store can plug in without blocking the
/// loop. Nothing crossing the seam is a closure: each call is a value a database can serve in one
/// statement. Revisions are per to-do: 1 when inserted, +1 per change that changes something.
public protocol TodoStore: Sendable {
    /// Stores a new to-do; answers it as stored (revision 1).
    func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>>
    func todo(id: String) -> Pending<Result<Todo?, StoreError>>
    /// One page of the to-dos that pass the query's filters, in its order, and how many pass.
    func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>>
    /// The not-completed to-dos due on a day in `from...through`, ordered by due date, then
    /// order (unset last), then createdAt, then id.
    func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>>
    /// In one atomic step: if `condition` holds for the stored to-do, applies `change` to it. A
    /// change that leaves every field as it is answers `.unchanged` and keeps revision and
    /// `updatedAt`; otherwise the revision goes up by one and `updatedAt` becomes `time`.
    func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp
    ) -> Pending<Result<StoreUpdate, StoreError>>
    /// In one atomic step: removes the to-do if `condition` holds for it.
    func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>>
    func removeAll() -> Pending<Result<Void, StoreError>>
    /// Figures about the whole store (for metrics and health), every owner's to-dos together.
    func statistics() -> Pending<Result<StoreStatistics, StoreError>>
    /// The same store acting on `owner`'s to-dos only: every call of the answer reads and changes
    /// that owner's to-dos and no one else's, and its `changes` are that owner's. For
    /// `Owner.shared`, the shared list (the to-dos from before owners existed).
    func owned(by owner: Owner) -> any TodoStore
    /// Why the store refuses changes now, nil while it takes them; read without waiting (for
    /// `/healthz`): a journal on a failing disk, a database found unreachable by the last attempts.
    var writeRefusal: String? { get }
    /// Every change the store makes, in its change order, with positions that a page of `list`
    /// reports (`TodoPage.lastChange`): the live change feed reads it.
    var changes: ChangeLog { get }
}

extension TodoStore {
    public var writeRefusal: String? { nil }
}

/// Each call with its answer handed to `completion` when it is there (at once if it is): for
/// callers that take the answer in a callback (`ProjectedStore`, the micro benchmark, the fuzzers and
/// tests).
extension TodoStore {
    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        insert(todo).whenReady(completion)
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        todo(id: id).whenReady(completion)
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        list(query).whenReady(completion)
    }

    public func upcoming(from: CalendarDay, through: CalendarDay, completion: @escaping (Result<[Todo], StoreError>) -> Void) {
        upcoming(from: from, through: through).whenReady(completion)
    }

    public func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        update(id: id, change: change, condition: condition, at: time).whenReady(completion)
    }

    public func remove(id: String, condition: RevisionCondition, completion: @escaping (Result<StoreRemoval, StoreError>) -> Void) {
        remove(id: id, condition: condition).whenReady(completion)
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        removeAll().whenReady(completion)
    }

    public func statistics(completion: @escaping (Result<StoreStatistics, StoreError>) -> Void) {
        statistics().whenReady(completion)
    }
}

/// What `TodoStore.update` did.
public enum StoreUpdate: Sendable, Equatable {
    case updated(Todo)
    /// The change would leave the to-do as it is; the to-do as stored.
    case unchanged(Todo)
    /// The condition refused; the to-do as stored.
    case conditionFailed(Todo)
    /// No to-do has the id (whatever the condition).
    case notFound
}

/// What `TodoStore.remove` did.
public enum StoreRemoval: Sendable, Equatable {
    case removed
    /// The condition refused; the to-do as stored.
    case conditionFailed(Todo)
    case notFound
}

/// A store that could not do what it was asked. `retryAfter` (seconds) when trying again later
/// may work (a deadline passed, a database restarting): the presenter answers 503 + Retry-After.
public struct StoreError: Error, Sendable, Equatable {
    public let reason: String
    public let retryAfter: Int?

    public init(reason: String, retryAfter: Int? = nil) {
        self.reason = reason
        self.retryAfter = retryAfter
    }
}
