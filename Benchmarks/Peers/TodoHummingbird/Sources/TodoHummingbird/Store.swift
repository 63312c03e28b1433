import Synchronization

/// Creation-ordered to-dos behind a mutex, with a store-wide revision: each change takes the
/// next revision, which becomes the changed to-do's `ETag` and the list's (`"list-N"`).
final class Store: Sendable {
    private struct State {
        var byID: [String: Todo] = [:]
        var order: [String] = []
        var revision = 0
    }

    /// What a conditional change found.
    enum Outcome {
        case done(Todo)
        case notFound
        case preconditionFailed(current: Todo)
    }

    private let state = Mutex(State())

    func insert(_ make: (_ revision: Int) -> Todo) -> Todo {
        state.withLock { s in
            s.revision += 1
            let todo = make(s.revision)
            s.byID[todo.id] = todo
            s.order.append(todo.id)
            return todo
        }
    }

    func get(_ id: String) -> Todo? { state.withLock { $0.byID[id] } }

    var count: Int { state.withLock { $0.byID.count } }

    /// One page and what the list headers need: the total and the list tag.
    func page(offset: Int, limit: Int) -> (todos: [Todo], total: Int, tag: String) {
        state.withLock { s in
            (s.order.dropFirst(offset).prefix(limit).compactMap { s.byID[$0] }, s.order.count, "\"list-\(s.revision)\"")
        }
    }

    /// The list tag alone, for a conditional GET that may not need the page.
    var listTag: String { state.withLock { "\"list-\($0.revision)\"" } }

    /// Applies `change` if `precondition` accepts the current to-do; a change that leaves the
    /// to-do as it was keeps its revision.
    func update(_ id: String, if precondition: (Todo) -> Bool, _ change: (inout Todo) -> Void) -> Outcome {
        state.withLock { s in
            guard var todo = s.byID[id] else { return .notFound }
            guard precondition(todo) else { return .preconditionFailed(current: todo) }
            let before = todo
            change(&todo)
            guard
                todo.title != before.title || todo.completed != before.completed || todo.order != before.order
                    || todo.dueDate != before.dueDate
            else { return .done(before) }
            s.revision += 1
            todo.revision = s.revision
            s.byID[id] = todo
            return .done(todo)
        }
    }

    func remove(_ id: String, if precondition: (Todo) -> Bool) -> Outcome {
        state.withLock { s in
            guard let todo = s.byID[id] else { return .notFound }
            guard precondition(todo) else { return .preconditionFailed(current: todo) }
            s.byID[id] = nil
            s.order.removeAll { $0 == id }
            s.revision += 1
            return .done(todo)
        }
    }

    func removeAll() {
        state.withLock { s in
            s.byID = [:]
            s.order = []
            s.revision += 1
        }
    }
}
