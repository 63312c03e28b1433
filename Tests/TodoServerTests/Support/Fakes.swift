import LockTracing
import Synchronization
@testable import TodoServer

/// A clock that says whatever the test sets.
final class FakeClock: TodoClock {
    private let current: Mutex<Timestamp>

    init(_ iso: String) {
        current = Mutex(FakeClock.timestamp(iso))
    }

    func now() -> Timestamp { current.withTracedLock { $0 } }

    func set(_ iso: String) { current.withTracedLock { $0 = FakeClock.timestamp(iso) } }

    func advance(milliseconds: Int64) {
        current.withTracedLock { $0 = Timestamp(millisecondsSinceEpoch: $0.millisecondsSinceEpoch + milliseconds) }
    }

    /// `2026-11-22T10:00:00.000Z` (always this shape) as a timestamp.
    static func timestamp(_ iso: String) -> Timestamp {
        let day = CalendarDay(iso.prefix(10))!
        let time = iso.dropFirst(11).prefix(12)
        let parts = time.split(whereSeparator: { $0 == ":" || $0 == "." }).map { Int64($0)! }
        let ms = ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1000 + parts[3]
        return Timestamp(millisecondsSinceEpoch: Int64(day.daysSinceEpoch) * 86_400_000 + ms)
    }
}

/// Ids `id-1`, `id-2`, … in order.
final class SequentialIDs: IDGenerator {
    private let next = Atomic<Int>(1)

    func makeID() -> String { "id-\(next.add(1, ordering: .relaxed).oldValue)" }
}

/// A store that records what it was asked, can fail, and can hold its answers back until the test
/// releases them (as a networked store completing later on the loop would).
final class FakeTodoStore: TodoStore, @unchecked Sendable {
    private let todos = Mutex<[String: Todo]>([:])
    private let revision = Atomic<UInt64>(0)
    /// Answers held back; the tests that defer use the store from one thread.
    private var pending: [() -> Void] = []
    private let failure: StoreError?
    private let deferred: Bool
    let calls = Mutex<[String]>([])

    /// Initial to-dos keep the revisions they were made with.
    init(_ initial: [Todo] = [], failure: StoreError? = nil, deferred: Bool = false) {
        self.failure = failure
        self.deferred = deferred
        todos.withTracedLock { for todo in initial { $0[todo.id] = todo } }
        revision.store(initial.map(\.revision).max() ?? 0, ordering: .relaxed)
    }

    var count: Int { todos.withTracedLock { $0.count } }
    var stored: [String: Todo] { todos.withTracedLock { $0 } }

    /// Runs the answers held back so far; returns how many there were.
    @discardableResult
    func release() -> Int {
        let answers = pending
        pending = []
        answers.forEach { $0() }
        return answers.count
    }

    private func answer<T>(_ call: String, _ completion: @escaping (Result<T, StoreError>) -> Void, _ work: @escaping () -> T) {
        calls.withTracedLock { $0.append(call) }
        let run = { [failure] in
            if let failure { return completion(.failure(failure)) }
            completion(.success(work()))
        }
        if deferred { pending.append(run) } else { run() }
    }

    private func nextRevision() -> UInt64 { revision.add(1, ordering: .relaxed).newValue }

    func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        answer("insert", completion) {
            var todo = todo
            todo.revision = self.nextRevision()
            self.todos.withTracedLock { [todo] in $0[todo.id] = todo }
            return todo
        }
    }

    func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        answer("list(\(query.offset),\(query.limit))", completion) {
            let matching = self.todos.withTracedLock { $0.values.filter(query.includes) }.sorted(by: query.sort.areInIncreasingOrder)
            return TodoPage(
                items: Array(matching.dropFirst(query.offset).prefix(query.limit)), total: matching.count,
                revision: self.revision.load(ordering: .relaxed))
        }
    }

    func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        answer("todo", completion) { self.todos.withTracedLock { $0[id] } }
    }

    func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void) {
        answer("allTodos", completion) { self.todos.withTracedLock { Array($0.values) } }
    }

    func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        answer("update", completion) {
            self.todos.withTracedLock { todos -> StoreUpdate in
                guard var todo = todos[id] else { return .notFound }
                guard change(&todo) else { return .unchanged(todos[id]!) }
                todo.revision = self.nextRevision()
                todos[id] = todo
                return .updated(todo)
            }
        }
    }

    func remove(
        id: String, precondition: (@Sendable (Todo) -> Bool)?,
        completion: @escaping (Result<StoreRemoval, StoreError>) -> Void
    ) {
        answer("remove", completion) {
            self.todos.withTracedLock { todos -> StoreRemoval in
                guard let todo = todos[id] else { return .notFound }
                if let precondition, !precondition(todo) { return .preconditionFailed(todo) }
                todos[id] = nil
                return .removed
            }
        }
    }

    func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        answer("removeAll", completion) { self.todos.withTracedLock { $0.removeAll() } }
    }
}

/// A to-do for tests; times are `2026-11-22T10:00:00.000Z` unless given.
func makeTodo(
    _ id: String, title: String = "Task", completed: Bool = false, order: Int? = nil, due: String? = nil,
    created: String = "2026-11-22T10:00:00.000Z", revision: UInt64 = 0
) -> Todo {
    let time = FakeClock.timestamp(created)
    return Todo(
        id: id, title: title, completed: completed, order: order, dueDate: due.flatMap { CalendarDay($0) },
        createdAt: time, updatedAt: time, revision: revision)
}

/// Captures what a module responds, for unit tests that run without a socket.
final class ResponseCapture: @unchecked Sendable {
    private(set) var responses: [HTTPResponseSnapshot] = []

    var respond: TodoServer.Respond {
        { [self] response in responses.append(HTTPResponseSnapshot(response)) }
    }

    var only: HTTPResponseSnapshot? { responses.count == 1 ? responses[0] : nil }
}
