/// The to-dos use cases: validation, ids and timestamps, list queries, preconditions; talks to
/// the store.
public struct TodosInteractor: TodosUseCases {
    private let store: any TodoStore
    private let clock: any TodoClock
    private let ids: any IDGenerator
    private let decoder = TodoInputDecoder()
    private let queryDecoder = TodoListQueryDecoder()

    public init(store: any TodoStore, clock: any TodoClock, ids: any IDGenerator) {
        self.store = store
        self.clock = clock
        self.ids = ids
    }

    public func list(_ parameters: QueryParameters, completion: @escaping (Result<TodoListData, TodosError>) -> Void) {
        switch queryDecoder.query(from: parameters) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let query):
            store.list(query) { result in
                completion(result.mapError(TodosError.store).map { page in
                    TodoListData(
                        items: page.items.map(TodoData.init), total: page.total, offset: query.offset, limit: query.limit,
                        revision: page.revision)
                })
            }
        }
    }

    public func create(from body: [UInt8], completion: @escaping (Result<TodoData, TodosError>) -> Void) {
        switch decoder.draft(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let draft):
            let now = clock.now()
            let todo = Todo(
                id: ids.makeID(), title: draft.title, completed: draft.completed, order: draft.order,
                dueDate: draft.dueDate, createdAt: now, updatedAt: now)
            store.insert(todo) { result in
                completion(result.mapError(TodosError.store).map(TodoData.init))
            }
        }
    }

    public func get(id: String, completion: @escaping (Result<TodoData, TodosError>) -> Void) {
        store.todo(id: id) { result in
            completion(result.mapError(TodosError.store).flatMap { todo in
                todo.map { .success(TodoData($0)) } ?? .failure(.notFound(id: id))
            })
        }
    }

    public func patch(
        id: String, with body: [UInt8], preconditions: TodoPreconditions,
        completion: @escaping (Result<TodoData, TodosError>) -> Void
    ) {
        switch decoder.patch(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let patch):
            update(id: id, preconditions: preconditions, completion: completion) { todo in
                if let title = patch.title { todo.title = title }
                if let completed = patch.completed { todo.completed = completed }
                if let order = patch.order { todo.order = order }
                if let dueDate = patch.dueDate { todo.dueDate = dueDate }
            }
        }
    }

    public func replace(
        id: String, with body: [UInt8], preconditions: TodoPreconditions,
        completion: @escaping (Result<TodoData, TodosError>) -> Void
    ) {
        switch decoder.draft(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let draft):
            update(id: id, preconditions: preconditions, completion: completion) { todo in
                todo.title = draft.title
                todo.completed = draft.completed
                todo.order = draft.order
                todo.dueDate = draft.dueDate
            }
        }
    }

    public func delete(id: String, preconditions: TodoPreconditions, completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.remove(id: id, precondition: { preconditions.failure(for: $0) == nil }) { result in
            completion(result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .removed: .success(())
                case .notFound: .failure(Self.missing(id: id, preconditions))
                case .preconditionFailed(let todo): .failure(Self.refused(todo, preconditions))
                }
            })
        }
    }

    public func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.removeAll { completion($0.mapError(TodosError.store)) }
    }

    /// Applies `change` if the preconditions hold for the stored to-do. A change that leaves the
    /// writable fields as they are is not made: the store keeps the revision (the ETag) and
    /// `updatedAt`, and the to-do is answered as it is.
    private func update(
        id: String, preconditions: TodoPreconditions, completion: @escaping (Result<TodoData, TodosError>) -> Void,
        change: @escaping @Sendable (inout Todo) -> Void
    ) {
        let now = clock.now()
        store.update(id: id, change: { todo in
            guard preconditions.failure(for: todo) == nil else { return false }
            var changed = todo
            change(&changed)
            guard !changed.hasSameContent(as: todo) else { return false }
            changed.updatedAt = now
            todo = changed
            return true
        }) { result in
            completion(result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .updated(let todo): .success(TodoData(todo))
                // Refused by a precondition or changing nothing: the same pure test tells which.
                case .unchanged(let todo):
                    preconditions.failure(for: todo) == nil ? .success(TodoData(todo)) : .failure(Self.refused(todo, preconditions))
                case .notFound: .failure(Self.missing(id: id, preconditions))
                }
            })
        }
    }

    /// The 412 for a to-do the preconditions refused.
    private static func refused(_ todo: Todo, _ preconditions: TodoPreconditions) -> TodosError {
        .preconditionFailed(id: todo.id, current: EntityTag(revision: todo.revision), failure: preconditions.failure(for: todo) ?? .ifMatch)
    }

    /// 412 for `If-Match: *` on a missing to-do, else 404.
    private static func missing(id: String, _ preconditions: TodoPreconditions) -> TodosError {
        preconditions.failure(for: nil).map { .preconditionFailed(id: id, current: nil, failure: $0) } ?? .notFound(id: id)
    }
}
