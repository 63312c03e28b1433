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
        id: String, with body: [UInt8], ifMatch: EntityTagCondition?,
        completion: @escaping (Result<TodoData, TodosError>) -> Void
    ) {
        switch decoder.patch(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let patch):
            let now = clock.now()
            update(id: id, ifMatch: ifMatch, completion: completion) { todo in
                if let title = patch.title { todo.title = title }
                if let completed = patch.completed { todo.completed = completed }
                if let order = patch.order { todo.order = order }
                if let dueDate = patch.dueDate { todo.dueDate = dueDate }
                todo.updatedAt = now
            }
        }
    }

    public func replace(
        id: String, with body: [UInt8], ifMatch: EntityTagCondition?,
        completion: @escaping (Result<TodoData, TodosError>) -> Void
    ) {
        switch decoder.draft(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let draft):
            let now = clock.now()
            update(id: id, ifMatch: ifMatch, completion: completion) { todo in
                todo.title = draft.title
                todo.completed = draft.completed
                todo.order = draft.order
                todo.dueDate = draft.dueDate
                todo.updatedAt = now
            }
        }
    }

    public func delete(id: String, ifMatch: EntityTagCondition?, completion: @escaping (Result<Void, TodosError>) -> Void) {
        let precondition = ifMatch.map { condition in { @Sendable (todo: Todo) in condition.matchesStrongly(EntityTag(revision: todo.revision)) } }
        store.remove(id: id, precondition: precondition) { result in
            completion(result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .removed: .success(())
                case .notFound: .failure(.notFound(id: id))
                case .preconditionFailed(let todo): .failure(.preconditionFailed(id: id, current: EntityTag(revision: todo.revision)))
                }
            })
        }
    }

    public func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.removeAll { completion($0.mapError(TodosError.store)) }
    }

    /// Applies `change` if `ifMatch` (when given) matches the stored to-do's tag.
    private func update(
        id: String, ifMatch: EntityTagCondition?, completion: @escaping (Result<TodoData, TodosError>) -> Void,
        change: @escaping @Sendable (inout Todo) -> Void
    ) {
        store.update(id: id, change: { todo in
            if let ifMatch, !ifMatch.matchesStrongly(EntityTag(revision: todo.revision)) { return false }
            change(&todo)
            return true
        }) { result in
            completion(result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .updated(let todo): .success(TodoData(todo))
                case .unchanged(let todo): .failure(.preconditionFailed(id: id, current: EntityTag(revision: todo.revision)))
                case .notFound: .failure(.notFound(id: id))
                }
            })
        }
    }
}
