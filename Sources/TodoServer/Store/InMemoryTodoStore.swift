import Synchronization

/// The default store: a dictionary behind a `Mutex`, safe under several loop threads.
/// Get by id is O(1); a page of the default order is O(limit) through `DefaultOrderIndex` (other
/// sorts filter and sort); every call completes before it returns.
public final class InMemoryTodoStore: TodoStore {
    private struct State {
        var todos: [String: Todo] = [:]
        var index = DefaultOrderIndex()
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
                state.index.insert(todo)
            }
        }
    }

    public var count: Int { state.withLock { $0.todos.count } }

    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        let stored = state.withLock { state in
            var todo = todo
            todo.revision = state.nextRevision()
            if let replaced = state.todos.updateValue(todo, forKey: todo.id) { state.index.remove(replaced) }
            state.index.insert(todo)
            return todo
        }
        completion(.success(stored))
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        completion(.success(state.withLock { $0.todos[id] }))
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        if query.sort == TodoSort() {
            return completion(.success(state.withLock { state in Self.indexedPage(query, state) }))
        }
        let (matching, revision) = state.withLock { state in
            (state.todos.values.filter(query.includes), state.revision)
        }
        let sorted = matching.sorted(by: query.sort.areInIncreasingOrder)
        let page = sorted.dropFirst(query.offset).prefix(query.limit)
        completion(.success(TodoPage(items: Array(page), total: sorted.count, revision: revision)))
    }

    /// A page in the default order from the index: O(limit) without filters, one pass with them.
    private static func indexedPage(_ query: TodoQuery, _ state: State) -> TodoPage {
        let keys = state.index.keys
        var items: [Todo] = []
        items.reserveCapacity(min(query.limit, keys.count))
        guard query.completed != nil || !(query.titleContains ?? "").isEmpty else {
            let end = min(keys.count, query.offset.addingReportingOverflow(query.limit).partialValue)
            if query.offset < end {
                for key in keys[query.offset..<end] { items.append(state.todos[key.id]!) }
            }
            return TodoPage(items: items, total: keys.count, revision: state.revision)
        }
        var total = 0
        for key in keys {
            let todo = state.todos[key.id]!
            guard query.includes(todo) else { continue }
            if total >= query.offset && items.count < query.limit { items.append(todo) }
            total += 1
        }
        return TodoPage(items: items, total: total, revision: state.revision)
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
            let old = todo
            guard change(&todo) else { return .unchanged(old) }
            todo.revision = state.nextRevision()
            state.todos[id] = todo
            state.index.replace(old, with: todo)
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
            state.index.remove(todo)
            _ = state.nextRevision()
            return .removed
        }
        completion(.success(outcome))
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        state.withLock { state in
            state.todos.removeAll()
            state.index.removeAll()
            _ = state.nextRevision()
        }
        completion(.success(()))
    }
}
