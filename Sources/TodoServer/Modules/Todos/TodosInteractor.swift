/// The to-dos use cases: ids and timestamps, list queries, revision conditions; talks to the store.
/// Its requests arrive decoded and validated (by the view).
public struct TodosInteractor: TodosUseCases {
    private let store: any TodoStore
    private let clock: any TodoClock
    private let ids: any IDGenerator

    public init(store: any TodoStore, clock: any TodoClock, ids: any IDGenerator) {
        self.store = store
        self.clock = clock
        self.ids = ids
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoListData, TodosError>) -> Void) {
        let changes = store.changes
        store.list(query) { result in
            completion(
                result.mapError(TodosError.store).map { page in
                    var list = TodoListData(items: page.items, total: page.total, offset: query.offset, limit: query.limit)
                    list.lastChange = page.lastChange.map { $0.token(tag: changes.tag) } ?? changes.headToken
                    return list
                })
        }
    }

    public func create(_ draft: TodoDraft, completion: @escaping (Result<Todo, TodosError>) -> Void) {
        let now = clock.now()
        let todo = Todo(
            id: ids.makeID(), title: draft.title, completed: draft.completed, order: draft.order,
            dueDate: draft.dueDate, createdAt: now, updatedAt: now)
        store.insert(todo) { result in
            completion(result.mapError(TodosError.store))
        }
    }

    public func get(id: String, completion: @escaping (Result<Todo, TodosError>) -> Void) {
        store.todo(id: id) { result in
            completion(
                result.mapError(TodosError.store).flatMap { todo in
                    todo.map { .success($0) } ?? .failure(.notFound(id: id))
                })
        }
    }

    public func patch(
        id: String, with change: TodoChange, condition: RevisionCondition,
        completion: @escaping (Result<Todo, TodosError>) -> Void
    ) {
        update(id: id, change: change, condition: condition, completion: completion)
    }

    public func replace(
        id: String, with draft: TodoDraft, condition: RevisionCondition,
        completion: @escaping (Result<Todo, TodosError>) -> Void
    ) {
        let change = TodoChange.replacement(
            title: draft.title, completed: draft.completed, order: draft.order, dueDate: draft.dueDate)
        update(id: id, change: change, condition: condition, completion: completion)
    }

    public func delete(id: String, condition: RevisionCondition, completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.remove(id: id, condition: condition) { result in
            completion(
                result.mapError(TodosError.store).flatMap { outcome in
                    switch outcome {
                    case .removed: .success(())
                    case .notFound: .failure(Self.missing(id: id, condition))
                    case .conditionFailed(let todo): .failure(Self.refused(todo, condition))
                    }
                })
        }
    }

    public func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.removeAll { completion($0.mapError(TodosError.store)) }
    }

    /// Applies `change` if the condition holds for the stored to-do. A change that leaves the
    /// writable fields as they are is not made: the store keeps the revision (the ETag) and
    /// `updatedAt`, and the to-do is answered as it is.
    private func update(
        id: String, change: TodoChange, condition: RevisionCondition,
        completion: @escaping (Result<Todo, TodosError>) -> Void
    ) {
        store.update(id: id, change: change, condition: condition, at: clock.now()) { result in
            completion(
                result.mapError(TodosError.store).flatMap { outcome in
                    switch outcome {
                    case .updated(let todo), .unchanged(let todo): .success(todo)
                    case .conditionFailed(let todo): .failure(Self.refused(todo, condition))
                    case .notFound: .failure(Self.missing(id: id, condition))
                    }
                })
        }
    }

    /// The failure for a to-do the condition refused, with its current revision.
    private static func refused(_ todo: Todo, _ condition: RevisionCondition) -> TodosError {
        .conditionFailed(id: todo.id, current: todo.revision, failure: condition.failure(for: todo) ?? .ifMatch)
    }

    /// A condition failure for `If-Match: *` on a missing to-do, else not found.
    private static func missing(id: String, _ condition: RevisionCondition) -> TodosError {
        condition.failure(for: nil).map { .conditionFailed(id: id, current: nil, failure: $0) } ?? .notFound(id: id)
    }
}
