/// Where to-dos live, behind the interactors.
///
/// Every call answers through `completion` exactly once: at once, or later on the calling loop
/// thread, so that a networked store can plug in without blocking the loop. The store stamps each
/// change with the next value of a store-wide revision sequence.
public protocol TodoStore: Sendable {
    /// Stores a new to-do; answers it with its revision.
    func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void)
    func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void)
    /// One page of the to-dos that pass the query's filters, in its order.
    func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void)
    /// Every to-do, in no particular order.
    func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void)
    /// Applies `change` to the current to-do atomically; `change` returns false to leave it as it
    /// is (a failed precondition).
    func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void)
    /// Removes a to-do if `precondition` (when given) holds for it.
    func remove(
        id: String, precondition: (@Sendable (Todo) -> Bool)?,
        completion: @escaping (Result<StoreRemoval, StoreError>) -> Void)
    func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void)
    /// The number of to-dos, read without waiting (for health and metrics).
    var count: Int { get }
    /// Why the store refuses changes now (a disk that fails writes), nil while it takes them;
    /// read without waiting (for health).
    var writeRefusal: String? { get }
}

extension TodoStore {
    public var writeRefusal: String? { nil }
}

/// What `TodoStore.update` did.
public enum StoreUpdate: Sendable, Equatable {
    case updated(Todo)
    /// The change refused itself; the to-do as it is.
    case unchanged(Todo)
    case notFound
}

/// What `TodoStore.remove` did.
public enum StoreRemoval: Sendable, Equatable {
    case removed
    /// The precondition refused; the to-do as it is.
    case preconditionFailed(Todo)
    case notFound
}

/// A store that could not do what it was asked (a networked store's outage).
public struct StoreError: Error, Sendable, Equatable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }
}
