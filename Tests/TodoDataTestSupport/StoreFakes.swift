import LockTracing
import Synchronization
import TestSupport

@testable import TodoData

/// A clock that says whatever the test sets.
final class FakeClock: TodoClock {
    private let current: Mutex<Timestamp>

    init(_ iso: String) {
        current = Mutex(FakeClock.timestamp(iso))
    }

    init(millisecondsSinceEpoch: Int64) {
        current = Mutex(Timestamp(millisecondsSinceEpoch: millisecondsSinceEpoch))
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

/// One call a `FakeTodoStore` was given, with its arguments.
enum StoreCall: Equatable, CustomStringConvertible {
    case insert(Todo)
    case todo(id: String)
    case list(TodoQuery)
    case upcoming(from: CalendarDay, through: CalendarDay)
    case update(id: String, change: TodoChange, condition: RevisionCondition, time: Timestamp)
    case remove(id: String, condition: RevisionCondition)
    case removeAll
    case statistics

    /// The method's name, for tests that check only the sequence.
    var name: String {
        switch self {
        case .insert: "insert"
        case .todo: "todo"
        case .list: "list"
        case .upcoming: "upcoming"
        case .update: "update"
        case .remove: "remove"
        case .removeAll: "removeAll"
        case .statistics: "statistics"
        }
    }

    var description: String {
        switch self {
        case .list(let query): "list(\(query.offset),\(query.limit))"
        default: name
        }
    }
}

/// A store that records what it was given, can fail, and can hold its answers back until the test
/// releases them (as a networked store completing later on the loop would). It keeps the store
/// contract: per-to-do revisions (1 on insert, +1 per change that changes something), conditions
/// evaluated against the stored to-do, the upcoming range and order.
final class FakeTodoStore: TodoStore, @unchecked Sendable {
    private let todos = Mutex<[String: Todo]>([:])
    /// Answers held back; the tests that defer use the store from one thread.
    private var pending: [() -> Void] = []
    private let failure: StoreError?
    private let deferred: Bool
    let calls = Mutex<[StoreCall]>([])
    let changes = InMemoryTodoStore.processChangeLog(retaining: 100)

    /// Initial to-dos keep the revisions they were made with.
    init(_ initial: [Todo] = [], failure: StoreError? = nil, deferred: Bool = false) {
        self.failure = failure
        self.deferred = deferred
        todos.withTracedLock { for todo in initial { $0[todo.id] = todo } }
    }

    /// The owners `owned(by:)` was asked for, in order.
    let ownersAsked = Mutex<[Owner]>([])

    /// Itself, whatever the owner (one list), noting the owner in `ownersAsked`.
    func owned(by owner: Owner) -> any TodoStore {
        ownersAsked.withTracedLock { $0.append(owner) }
        return self
    }

    var count: Int { todos.withTracedLock { $0.count } }
    var stored: [String: Todo] { todos.withTracedLock { $0 } }
    /// The names of the calls so far, in order.
    var callNames: [String] { calls.withTracedLock { $0.map(\.name) } }

    /// Runs the answers held back so far; returns how many there were.
    @discardableResult
    func release() -> Int {
        let answers = pending
        pending = []
        answers.forEach { $0() }
        return answers.count
    }

    private func answer<T>(_ call: StoreCall, _ work: @escaping () -> T) -> Pending<Result<T, StoreError>> {
        calls.withTracedLock { $0.append(call) }
        let run = { [failure] () -> Result<T, StoreError> in
            if let failure { return .failure(failure) }
            return .success(work())
        }
        guard deferred else { return .ready(run()) }
        let promise = Promise<Result<T, StoreError>>()
        pending.append { promise.fulfil(run()) }
        return .later(promise)
    }

    func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>> {
        answer(.insert(todo)) {
            var todo = todo
            todo.revision = 1
            self.todos.withTracedLock { [todo] in $0[todo.id] = todo }
            return todo
        }
    }

    func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>> {
        answer(.list(query)) {
            let matching = self.todos.withTracedLock { $0.values.filter(query.includes) }.sorted(by: query.sort.areInIncreasingOrder)
            return TodoPage(items: Array(matching.dropFirst(query.offset).prefix(query.limit)), total: matching.count)
        }
    }

    func todo(id: String) -> Pending<Result<Todo?, StoreError>> {
        answer(.todo(id: id)) { self.todos.withTracedLock { $0[id] } }
    }

    func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>> {
        answer(.upcoming(from: from, through: through)) {
            self.todos.withTracedLock { todos in
                todos.values.filter { todo in
                    guard !todo.completed, let due = todo.dueDate else { return false }
                    return from <= due && due <= through
                }
            }.sorted { a, b in a.dueDate != b.dueDate ? a.dueDate! < b.dueDate! : TodoSort().areInIncreasingOrder(a, b) }
        }
    }

    func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp
    ) -> Pending<Result<StoreUpdate, StoreError>> {
        answer(.update(id: id, change: change, condition: condition, time: time)) {
            self.todos.withTracedLock { todos -> StoreUpdate in
                guard let stored = todos[id] else { return .notFound }
                if condition.failure(for: stored) != nil { return .conditionFailed(stored) }
                var changed = change.applied(to: stored)
                guard !changed.hasSameContent(as: stored) else { return .unchanged(stored) }
                changed.revision = stored.revision + 1
                changed.updatedAt = time
                todos[id] = changed
                return .updated(changed)
            }
        }
    }

    func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>> {
        answer(.remove(id: id, condition: condition)) {
            self.todos.withTracedLock { todos -> StoreRemoval in
                guard let todo = todos[id] else { return .notFound }
                if condition.failure(for: todo) != nil { return .conditionFailed(todo) }
                todos[id] = nil
                return .removed
            }
        }
    }

    func removeAll() -> Pending<Result<Void, StoreError>> {
        answer(.removeAll) { self.todos.withTracedLock { $0.removeAll() } }
    }

    func statistics() -> Pending<Result<StoreStatistics, StoreError>> {
        answer(.statistics) { StoreStatistics(count: self.count) }
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
