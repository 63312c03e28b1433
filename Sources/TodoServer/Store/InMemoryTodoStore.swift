import Synchronization

/// The default store: a dictionary behind a `Mutex`, safe under several loop threads.
/// Get, update and remove by id are O(1); a list filters and sorts; every call completes before
/// it returns.
public final class InMemoryTodoStore: TodoStore {
    private struct State {
        var todos: [String: Todo] = [:]
        var revision: UInt64 = 0

        mutating func nextRevision() -> UInt64 {
            revision += 1
            return revision
        }
    }

    private let state = Mutex(State())

    public init(_ initial: [Todo] = []) {
        state.withLock { state in
            for var todo in initial {
                todo.revision = state.nextRevision()
                state.todos[todo.id] = todo
            }
        }
    }

    public var count: Int { state.withLock { $0.todos.count } }

    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        let stored = state.withLock { state in
            var todo = todo
            todo.revision = state.nextRevision()
            state.todos[todo.id] = todo
            return todo
        }
        completion(.success(stored))
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        completion(.success(state.withLock { $0.todos[id] }))
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        let (matching, revision) = state.withLock { state in
            (state.todos.values.filter(query.includes), state.revision)
        }
        let sorted = matching.sorted(by: query.sort.areInIncreasingOrder)
        let page = sorted.dropFirst(query.offset).prefix(query.limit)
        completion(.success(TodoPage(items: Array(page), total: sorted.count, revision: revision)))
    }

    public func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void) {
        completion(.success(state.withLock { Array($0.todos.values) }))
    }

    public func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        let outcome: StoreUpdate = state.withLock { state in
            guard var todo = state.todos[id] else { return .notFound }
            guard change(&todo) else { return .unchanged(state.todos[id]!) }
            todo.revision = state.nextRevision()
            state.todos[id] = todo
            return .updated(todo)
        }
        completion(.success(outcome))
    }

    public func remove(
        id: String, precondition: (@Sendable (Todo) -> Bool)?,
        completion: @escaping (Result<StoreRemoval, StoreError>) -> Void
    ) {
        let outcome: StoreRemoval = state.withLock { state in
            guard let todo = state.todos[id] else { return .notFound }
            if let precondition, !precondition(todo) { return .preconditionFailed(todo) }
            state.todos[id] = nil
            _ = state.nextRevision()
            return .removed
        }
        completion(.success(outcome))
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        state.withLock { state in
            state.todos.removeAll()
            _ = state.nextRevision()
        }
        completion(.success(()))
    }
}
