import Synchronization

/// The default store: a dictionary behind a `Mutex`, safe under several loop threads.
/// Get, update and remove by id are O(1); every call completes before it returns.
public final class InMemoryTodoStore: TodoStore {
    private let todos = Mutex<[String: Todo]>([:])

    public init(_ initial: [Todo] = []) {
        todos.withLock { todos in
            for todo in initial { todos[todo.id] = todo }
        }
    }

    public var count: Int { todos.withLock { $0.count } }

    public func insert(_ todo: Todo, completion: @escaping (Result<Void, StoreError>) -> Void) {
        todos.withLock { $0[todo.id] = todo }
        completion(.success(()))
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        completion(.success(todos.withLock { $0[id] }))
    }

    public func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void) {
        completion(.success(todos.withLock { Array($0.values) }))
    }

    public func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        let outcome: StoreUpdate = todos.withLock { todos in
            guard var todo = todos[id] else { return .notFound }
            guard change(&todo) else { return .unchanged(todo) }
            todos[id] = todo
            return .updated(todo)
        }
        completion(.success(outcome))
    }

    public func remove(id: String, completion: @escaping (Result<Bool, StoreError>) -> Void) {
        completion(.success(todos.withLock { $0.removeValue(forKey: id) != nil }))
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        todos.withLock { $0.removeAll() }
        completion(.success(()))
    }
}
