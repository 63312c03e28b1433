import CSupport
import LockTracing
import Synchronization

/// The default store: a dictionary behind a `Mutex`, safe under several loop threads.
/// Get by id is O(1); a page of the default order is O(limit) through `DefaultOrderIndex`, one of
/// `sort=title` through `TitleOrderIndex`, which also answers `q=` (other sorts filter and sort);
/// `upcoming` reads a slice of `DueDateIndex`; every call completes before it returns.
public final class InMemoryTodoStore: TodoStore {
    private struct State {
        var todos: [String: Todo] = [:]
        var index = DefaultOrderIndex()
        var dueIndex = DueDateIndex()
        var titles = TitleOrderIndex()
        var search = SearchArena()

        /// Stores `todo` (replacing the one with its id) and files it in the index: every write
        /// path, the journal's `apply` included, goes through here and `delete`.
        mutating func put(_ todo: Todo) {
            if let replaced = todos.updateValue(todo, forKey: todo.id) {
                index.replace(replaced, with: todo)
                dueIndex.replace(replaced, with: todo)
                titles.replace(replaced, with: todo)
                search.replace(replaced, with: todo)
            } else {
                index.insert(todo)
                dueIndex.insert(todo)
                titles.insert(todo)
                search.insert(todo)
            }
        }

        mutating func delete(id: String) {
            if let removed = todos.removeValue(forKey: id) {
                index.remove(removed)
                dueIndex.remove(removed)
                titles.remove(removed)
                search.remove(removed)
            }
        }
    }

    private let state = Mutex(State())

    /// A store holding `todos` exactly as given, revisions included: what recovery from disk builds.
    public init(restoring todos: [String: Todo]) {
        state.withTracedLock { state in
            state.todos = todos
            state.index = DefaultOrderIndex(todos.values)
            state.dueIndex = DueDateIndex(todos.values)
            state.titles = TitleOrderIndex(todos.values)
            state.search = SearchArena(todos.values)
        }
    }

    /// A store holding `initial`, each at revision 1.
    public init(_ initial: [Todo] = []) {
        state.withTracedLock { state in
            for var todo in initial {
                todo.revision = 1
                state.put(todo)
            }
        }
    }

    /// The number of to-dos, read without waiting.
    public var count: Int { state.withTracedLock { $0.todos.count } }

    public func statistics(completion: @escaping (Result<StoreStatistics, StoreError>) -> Void) {
        completion(.success(StoreStatistics(count: count)))
    }

    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        var todo = todo
        todo.revision = 1
        state.withTracedLock { [todo] state in state.put(todo) }
        completion(.success(todo))
    }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        completion(.success(state.withTracedLock { $0.todos[id] }))
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        // One lock: the search arena answers searches, the title index title orders, the
        // default-order index the default order, and any other order filters and sorts.
        completion(.success(state.withTracedLock { state in
            if let needle = query.titleContains, !needle.isEmpty {
                let page = state.search.page(
                    query, search: TitleSearch(needle), defaultOrder: state.index, titles: state.titles, todo: { state.todos[$0]! })
                return TodoPage(items: page.items, total: page.total)
            }
            if let page = state.titles.page(query, todo: { state.todos[$0]! }) { return TodoPage(items: page.items, total: page.total) }
            return query.sort == TodoSort() ? Self.indexedPage(query, state) : Self.sortedPage(query, state)
        }))
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
        guard query.offset < matching.count else { return TodoPage(items: [], total: matching.count) }
        let (end, overflow) = query.offset.addingReportingOverflow(query.limit)
        let sort = query.sort
        let first = matching.smallest(overflow ? matching.count : min(end, matching.count)) {
            sort.areInIncreasingOrder(todos.values[$0], todos.values[$1])
        }
        let page = first.dropFirst(query.offset).prefix(query.limit).map { todos.values[$0] }
        return TodoPage(items: page, total: matching.count)
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
            return TodoPage(items: items, total: keys.count)
        }
        var total = 0
        for key in keys {
            let todo = state.todos[key.id]!
            guard query.includes(todo) else { continue }
            if total >= query.offset && items.count < query.limit { items.append(todo) }
            total += 1
        }
        return TodoPage(items: items, total: total)
    }

    public func upcoming(
        from: CalendarDay, through: CalendarDay, completion: @escaping (Result<[Todo], StoreError>) -> Void
    ) {
        completion(.success(state.withTracedLock { state in
            state.dueIndex.ids(from: from, through: through).map { state.todos[$0]! }
        }))
    }

    public func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        completion(.success(state.withTracedLock { state in
            let outcome = StoreUpdate.decide(
                stored: state.todos[id], change: change, condition: condition, at: time, nextRevision: { $0.revision + 1 })
            if case .updated(let todo) = outcome { state.put(todo) }
            return outcome
        }))
    }

    public func remove(
        id: String, condition: RevisionCondition, completion: @escaping (Result<StoreRemoval, StoreError>) -> Void
    ) {
        completion(.success(state.withTracedLock { state -> StoreRemoval in
            guard let todo = state.todos[id] else { return .notFound }
            if condition.failure(for: todo) != nil { return .conditionFailed(todo) }
            state.delete(id: id)
            return .removed
        }))
    }

    /// Removes every to-do. The freed pages go back to the OS (glibc keeps them otherwise), so an
    /// emptied store shrinks the process.
    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        var old = State()
        state.withTracedLock { state in swap(&state, &old) }
        old = State()  // frees the old to-dos here, outside the lock, before the trim
        malloc_trim(0)
        completion(.success(()))
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
                    cleared.append(old)
                }
            }
        }
        guard !cleared.isEmpty else { return }
        cleared = []  // frees the old to-dos here, outside the lock, before the trim
        malloc_trim(0)
    }

    /// Every to-do, as one consistent picture (copy-on-write: O(1) here, the copy is paid by the
    /// next change).
    func snapshot() -> [String: Todo] {
        state.withTracedLock { $0.todos }
    }
}
