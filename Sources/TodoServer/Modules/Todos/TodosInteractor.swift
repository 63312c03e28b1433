/// The to-dos use cases: validation, ids and timestamps, ordering; talks to the store.
public struct TodosInteractor: TodosUseCases {
    private let store: any TodoStore
    private let clock: any TodoClock
    private let ids: any IDGenerator
    private let decoder = TodoInputDecoder()

    public init(store: any TodoStore, clock: any TodoClock, ids: any IDGenerator) {
        self.store = store
        self.clock = clock
        self.ids = ids
    }

    public func list(completion: @escaping (Result<[TodoData], TodosError>) -> Void) {
        store.allTodos { result in
            completion(result.mapError(TodosError.store).map { $0.sorted(by: Self.listOrder).map(TodoData.init) })
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
                completion(result.mapError(TodosError.store).map { TodoData(todo) })
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

    public func patch(id: String, with body: [UInt8], completion: @escaping (Result<TodoData, TodosError>) -> Void) {
        switch decoder.patch(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let patch):
            let now = clock.now()
            update(id: id, completion: completion) { todo in
                if let title = patch.title { todo.title = title }
                if let completed = patch.completed { todo.completed = completed }
                if let order = patch.order { todo.order = order }
                if let dueDate = patch.dueDate { todo.dueDate = dueDate }
                todo.updatedAt = now
                return true
            }
        }
    }

    public func replace(id: String, with body: [UInt8], completion: @escaping (Result<TodoData, TodosError>) -> Void) {
        switch decoder.draft(from: body) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let draft):
            let now = clock.now()
            update(id: id, completion: completion) { todo in
                todo.title = draft.title
                todo.completed = draft.completed
                todo.order = draft.order
                todo.dueDate = draft.dueDate
                todo.updatedAt = now
                return true
            }
        }
    }

    public func delete(id: String, completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.remove(id: id) { result in
            completion(result.mapError(TodosError.store).flatMap { $0 ? .success(()) : .failure(.notFound(id: id)) })
        }
    }

    public func deleteAll(completion: @escaping (Result<Void, TodosError>) -> Void) {
        store.removeAll { completion($0.mapError(TodosError.store)) }
    }

    private func update(
        id: String, completion: @escaping (Result<TodoData, TodosError>) -> Void,
        change: @escaping @Sendable (inout Todo) -> Bool
    ) {
        store.update(id: id, change: change) { result in
            completion(result.mapError(TodosError.store).flatMap { outcome in
                switch outcome {
                case .updated(let todo), .unchanged(let todo): .success(TodoData(todo))
                case .notFound: .failure(.notFound(id: id))
                }
            })
        }
    }

    /// `order` ascending with unset last, then `createdAt`, then `id`.
    static func listOrder(_ a: Todo, _ b: Todo) -> Bool {
        switch (a.order, b.order) {
        case let (x?, y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return (a.createdAt, a.id) < (b.createdAt, b.id)
        }
    }
}
