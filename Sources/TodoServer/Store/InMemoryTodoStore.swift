import CSupport
import LockTracing
import Synchronization

/// The default store: a dictionary behind a `Mutex`, safe under several loop threads.
/// Get by id is O(1); a page of the default order is O(limit) through `DefaultOrderIndex`, one of
/// `sort=title` through `TitleOrderIndex`, which also answers `q=` (other sorts filter and sort);
/// every call completes before it returns.
public final class InMemoryTodoStore: TodoStore {
    private struct State {
        var todos: [String: Todo] = [:]
        var index = DefaultOrderIndex()
        var titles = TitleOrderIndex()
        var revision: UInt64 = 0

        mutating func nextRevision() -> UInt64 {
            revision += 1
            return revision
        }

        /// Stores `todo` (replacing the one with its id) and files it in the index: every write
        /// path, the journal's `apply` included, goes through here and `delete`.
        mutating func put(_ todo: Todo) {
            if let replaced = todos.updateValue(todo, forKey: todo.id) {
                index.replace(replaced, with: todo)
                titles.replace(replaced, with: todo)
            } else {
                index.insert(todo)
                titles.insert(todo)
            }
        }

        mutating func delete(id: String) {
            if let removed = todos.removeValue(forKey: id) {
                index.remove(removed)
                titles.remove(removed)
            }
        }
    }

    private let state = Mutex(State())

    /// A store holding `todos` exactly as given, revisions included, whose sequence continues
    /// after `revision`: what recovery from disk builds.
    public init(restoring todos: [String: Todo], revision: UInt64) {
        state.withTracedLock { state in
            state.todos = todos
            state.revision = revision
            state.index = DefaultOrderIndex(todos.values)
            state.titles = TitleOrderIndex(todos.values)
        }
    }

    public init(_ initial: [Todo] = []) {
        state.withTracedLock { state in
            for var todo in initial {
                todo.revision = state.nextRevision()
                state.todos[todo.id] = todo
                state.index.insert(todo)
                state.titles.insert(todo)
            }
        }
    }

    public var count: Int { state.withTracedLock { $0.todos.count } }

    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        completion(.success(insertNow(todo)))
    }

    /// `insert`, answered by return: the stored to-do with its revision.
    func insertNow(_ todo: Todo) -> Todo {
        state.withTracedLock { state in
            var todo = todo
            todo.revision = state.nextRevision()
            state.put(todo)
            return todo
        }
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        completion(.success(state.withTracedLock { $0.todos[id] }))
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        let titled = state.withTracedLock { state in
            state.titles.page(query) { state.todos[$0]! }.map { TodoPage(items: $0.items, total: $0.total, revision: state.revision) }
        }
        if let titled { return completion(.success(titled)) }
        if query.sort == TodoSort() {
            return completion(.success(state.withTracedLock { state in Self.indexedPage(query, state) }))
        }
        completion(.success(state.withTracedLock { state in Self.sortedPage(query, state) }))
    }

    /// A page in any other order. Only the to-dos up to the end of the page are put in order, and
    /// only the page is copied out: the others are compared in place, through their dictionary
    /// positions, by keys prepared when they were stored.
    private static func sortedPage(_ query: TodoQuery, _ state: State) -> TodoPage {
        let todos = state.todos
        var matching: [Dictionary<String, Todo>.Index]
        if query.completed == nil && (query.titleContains ?? "").isEmpty {
            matching = Array(todos.indices)
        } else {
            matching = []
            var position = todos.startIndex
            while position != todos.endIndex {
                if query.includes(todos.values[position]) { matching.append(position) }
                todos.formIndex(after: &position)
            }
        }
        guard query.offset < matching.count else { return TodoPage(items: [], total: matching.count, revision: state.revision) }
        let (end, overflow) = query.offset.addingReportingOverflow(query.limit)
        let sort = query.sort
        let first = matching.smallest(overflow ? matching.count : min(end, matching.count)) {
            sort.areInIncreasingOrder(todos.values[$0], todos.values[$1])
        }
        let page = first.dropFirst(query.offset).prefix(query.limit).map { todos.values[$0] }
        return TodoPage(items: page, total: matching.count, revision: state.revision)
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
        completion(.success(state.withTracedLock { Array($0.todos.values) }))
    }

    public func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        completion(.success(updateNow(id: id, change: change)))
    }

    /// `update`, answered by return.
    func updateNow(id: String, change: (inout Todo) -> Bool) -> StoreUpdate {
        state.withTracedLock { state in
            guard var todo = state.todos[id] else { return .notFound }
            let old = todo
            guard change(&todo) else { return .unchanged(old) }
            todo.revision = state.nextRevision()
            state.put(todo)
            return .updated(todo)
        }
    }

    public func remove(
        id: String, precondition: (@Sendable (Todo) -> Bool)?,
        completion: @escaping (Result<StoreRemoval, StoreError>) -> Void
    ) {
        completion(.success(removeNow(id: id, precondition: precondition).removal))
    }

    /// `remove`, answered by return, with the store revision the removal took (nil if none).
    func removeNow(id: String, precondition: ((Todo) -> Bool)?) -> (removal: StoreRemoval, revision: UInt64?) {
        state.withTracedLock { state in
            guard let todo = state.todos[id] else { return (.notFound, nil) }
            if let precondition, !precondition(todo) { return (.preconditionFailed(todo), nil) }
            state.delete(id: id)
            return (.removed, state.nextRevision())
        }
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        _ = removeAllNow()
        completion(.success(()))
    }

    /// `removeAll`, answered by return: the store revision it took. The freed pages go back to
    /// the OS (glibc keeps them otherwise), so an emptied store shrinks the process.
    func removeAllNow() -> UInt64 {
        var old = State()
        let revision = state.withTracedLock { state in
            swap(&state, &old)
            state.revision = old.revision
            return state.nextRevision()
        }
        old = State()  // frees the old to-dos here, outside the lock, before the trim
        malloc_trim(0)
        return revision
    }

    /// Applies changes the journal has written, with the revisions they took (the durable store
    /// prepares them on a `StoreDraft` and applies them only once they are written).
    func apply(_ records: [JournalRecord]) {
        var cleared: [State] = []
        state.withTracedLock { state in
            for record in records {
                switch record {
                case .put(let todo): state.put(todo)
                case .remove(let id, _): state.delete(id: id)
                case .removeAll:
                    var old = State()
                    swap(&state, &old)
                    state.revision = old.revision
                    cleared.append(old)
                }
                state.revision = max(state.revision, record.revision)
            }
        }
        guard !cleared.isEmpty else { return }
        cleared = []  // frees the old to-dos here, outside the lock, before the trim
        malloc_trim(0)
    }

    /// Every to-do and the current revision, as one consistent picture (copy-on-write: O(1) here,
    /// the copy is paid by the next change).
    func snapshot() -> (todos: [String: Todo], revision: UInt64) {
        state.withTracedLock { ($0.todos, $0.revision) }
    }
}
