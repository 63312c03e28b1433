import TodoData

/// The to-dos use cases: ids and timestamps, list queries, revision conditions; talks to the store.
/// Its requests arrive decoded and validated (by the view).
public struct TodosInteractor: TodosUseCases {
    private let store: any TodoStore
    private let clock: any TodoClock
    private let ids: any IDGenerator
    /// Owners are on: a to-do the caller does not have is not found, whatever the conditions say
    /// (`If-Match: *` included, else 412): it may be another owner's, and no answer may tell.
    private let ownersOn: Bool

    public init(store: any TodoStore, clock: any TodoClock, ids: any IDGenerator, ownersOn: Bool = false) {
        self.store = store
        self.clock = clock
        self.ids = ids
        self.ownersOn = ownersOn
    }

    public func owned(by owner: Owner) -> TodosInteractor {
        owner.isShared ? self : TodosInteractor(store: store.owned(by: owner), clock: clock, ids: ids, ownersOn: ownersOn)
    }

    public func list(_ query: TodoQuery) -> Pending<Result<TodoListData, TodosError>> {
        store.list(query).map(with: (query, store.changes)) { result, captured in
            let (query, changes) = captured
            return result.mapError(TodosError.store).map { page in
                var list = TodoListData(items: page.items, total: page.total, offset: query.offset, limit: query.limit)
                list.lastChange = page.lastChange.map { $0.token(tag: changes.tag) } ?? changes.headToken
                return list
            }
        }
    }

    public func create(_ draft: TodoDraft) -> Pending<Result<Todo, TodosError>> {
        let now = clock.now()
        let todo = Todo(
            id: ids.makeID(), title: draft.title, completed: draft.completed, order: draft.order,
            dueDate: draft.dueDate, createdAt: now, updatedAt: now)
        return store.insert(todo).map(with: ()) { result, _ in result.mapError(TodosError.store) }
    }

    public func get(id: String) -> Pending<Result<Todo, TodosError>> {
        store.todo(id: id).map(with: id) { result, id in
            result.mapError(TodosError.store).flatMap { todo in
                todo.map { .success($0) } ?? .failure(.notFound(id: id))
            }
        }
    }

    public func patch(id: String, with change: TodoChange, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>> {
        update(id: id, change: change, condition: condition)
    }

    public func replace(id: String, with draft: TodoDraft, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>> {
        let change = TodoChange.replacement(
            title: draft.title, completed: draft.completed, order: draft.order, dueDate: draft.dueDate)
        return update(id: id, change: change, condition: condition)
    }

    public func delete(id: String, condition: RevisionCondition) -> Pending<Result<Void, TodosError>> {
        store.remove(id: id, condition: condition).map(with: (id, condition, conditionWhenMissing(condition))) {
            result, captured in
            let (id, condition, whenMissing) = captured
            return result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .removed: .success(())
                case .notFound: .failure(Self.missing(id: id, whenMissing))
                case .conditionFailed(let todo): .failure(Self.refused(todo, condition))
                }
            }
        }
    }

    public func deleteAll() -> Pending<Result<Void, TodosError>> {
        store.removeAll().map(with: ()) { result, _ in result.mapError(TodosError.store) }
    }

    /// Applies `change` if the condition holds for the stored to-do. A change that leaves the
    /// writable fields as they are is not made: the store keeps the revision (the ETag) and
    /// `updatedAt`, and the to-do is answered as it is.
    private func update(id: String, change: TodoChange, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>> {
        store.update(id: id, change: change, condition: condition, at: clock.now())
            .map(with: (id, condition, conditionWhenMissing(condition))) { (result: consuming Result<StoreUpdate, StoreError>, captured) in
                let (id, condition, whenMissing) = captured
                // Consumed, not borrowed: the stored to-do is moved into the answer, not copied.
                return (consume result).mapError(TodosError.store).flatMap { outcome in
                    switch outcome {
                    case .updated(let todo), .unchanged(let todo): .success(todo)
                    case .conditionFailed(let todo): .failure(Self.refused(todo, condition))
                    case .notFound: .failure(Self.missing(id: id, whenMissing))
                    }
                }
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

    /// What a missing to-do's answer is judged by: the request's condition, or none with owners on.
    private func conditionWhenMissing(_ condition: RevisionCondition) -> RevisionCondition {
        ownersOn ? .none : condition
    }
}
