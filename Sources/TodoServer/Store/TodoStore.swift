/// Where to-dos live, behind the interactors.
///
/// Every call answers through `completion` exactly once: at once, or later on the calling loop
/// thread, so that a networked store can plug in without blocking the loop.
public protocol TodoStore: Sendable {
    func insert(_ todo: Todo, completion: @escaping (Result<Void, StoreError>) -> Void)
    func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void)
    func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void)
    /// Applies `change` to the current to-do atomically; `change` returns false to leave it as it is.
    func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void)
    /// Answers true when a to-do was removed.
    func remove(id: String, completion: @escaping (Result<Bool, StoreError>) -> Void)
    func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void)
    /// The number of to-dos, read without waiting (for health and metrics).
    var count: Int { get }
}

/// What `TodoStore.update` did.
public enum StoreUpdate: Sendable, Equatable {
    case updated(Todo)
    case unchanged(Todo)
    case notFound
}

/// A store that could not do what it was asked (a networked store's outage).
public struct StoreError: Error, Sendable, Equatable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }
}
