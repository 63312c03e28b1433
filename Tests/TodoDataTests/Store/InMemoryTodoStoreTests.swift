import Foundation
import TestSupport
import Testing

import protocol ChangeFeed.ChangeListener

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("InMemoryTodoStore")
struct InMemoryTodoStoreTests {
    private func sync<T>(_ call: (@escaping (Result<T, StoreError>) -> Void) -> Void) throws -> T {
        var answer: Result<T, StoreError>?
        call { answer = $0 }
        return try #require(answer).get()
    }

    /// 2026-11-22T11:00:00.000Z: when the tests' changes happen.
    private let later = FakeClock.timestamp("2026-11-22T11:00:00.000Z")

    @Test("inserts, finds, updates and removes by id; revisions are per to-do; conditions are values")
    func crud() throws {
        let store = InMemoryTodoStore()
        #expect(try sync { store.insert(makeTodo("a", title: "A"), completion: $0) }.revision == 1)
        #expect(try sync { store.insert(makeTodo("b", title: "B"), completion: $0) }.revision == 1, "each to-do starts at 1")
        #expect(store.count == 2)
        #expect(try sync { store.statistics(completion: $0) } == StoreStatistics(count: 2))
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A")
        #expect(try sync { store.todo(id: "zz", completion: $0) } == nil)
        let updated = try sync { store.update(id: "a", change: TodoChange(title: "A2"), condition: .none, at: later, completion: $0) }
        var expected = makeTodo("a", title: "A2", revision: 2)
        expected.updatedAt = later
        #expect(updated == .updated(expected))
        #expect(try sync { store.todo(id: "a", completion: $0) } == expected)
        #expect(try sync { store.todo(id: "b", completion: $0) }?.revision == 1, "another to-do's change leaves b's revision")
        let same = try sync {
            store.update(
                id: "a", change: TodoChange(title: "A2", order: .clear), condition: .none,
                at: FakeClock.timestamp("2026-11-23T00:00:00.000Z"), completion: $0)
        }
        #expect(same == .unchanged(expected), "a change that changes nothing keeps revision and updatedAt")
        let refused = try sync {
            store.update(
                id: "a", change: TodoChange(title: "never"), condition: RevisionCondition(ifMatch: .oneOf([1])), at: later, completion: $0)
        }
        #expect(refused == .conditionFailed(expected))
        #expect(try sync { store.todo(id: "a", completion: $0) } == expected)
        #expect(
            try sync { store.update(id: "zz", change: TodoChange(title: "x"), condition: .none, at: later, completion: $0) } == .notFound)
        #expect(
            try sync {
                store.update(
                    id: "zz", change: TodoChange(title: "x"), condition: RevisionCondition(ifMatch: .any), at: later, completion: $0)
            } == .notFound, "a missing to-do is notFound whatever the condition")
        let refusedRemoval = try sync { store.remove(id: "a", condition: RevisionCondition(ifMatch: .oneOf([99])), completion: $0) }
        #expect(refusedRemoval == .conditionFailed(expected))
        #expect(try sync { store.remove(id: "a", condition: RevisionCondition(ifMatch: .oneOf([1, 2])), completion: $0) } == .removed)
        #expect(try sync { store.remove(id: "a", condition: .none, completion: $0) } == .notFound)
        #expect(try sync { store.list(TodoQuery(), completion: $0) }.items.map(\.id) == ["b"])
        try sync { store.removeAll(completion: $0) }
        #expect(store.count == 0)
        let page = try sync { store.list(TodoQuery(), completion: $0) }
        #expect(page.items == TodoPage(items: [], total: 0).items && page.total == 0)
        // The page's cursor is the change log's head: the clear was the last change.
        #expect(page.lastChange == store.changes.head)
        #expect(store.changes.replay(after: store.changes.head) == .changes([], end: store.changes.head))
    }

    @Test("upcoming answers the open to-dos due in the range, by due date, order (unset last), createdAt, id")
    func upcoming() throws {
        let store = InMemoryTodoStore([
            makeTodo("before", due: "2026-11-22"),
            makeTodo("first", due: "2026-11-23"),
            makeTodo("done", completed: true, due: "2026-11-24"),
            makeTodo("no-due"),
            makeTodo("z-unordered", due: "2026-11-24"),
            makeTodo("a-unordered", due: "2026-11-24"),
            makeTodo("ordered", order: 5, due: "2026-11-24"),
            makeTodo("early", due: "2026-11-24", created: "2026-11-21T09:00:00.000Z"),
            makeTodo("last", due: "2026-11-30"),
            makeTodo("after", due: "2026-12-01"),
        ])
        let range = { (from: String, through: String) in
            try self.sync { store.upcoming(from: CalendarDay(from)!, through: CalendarDay(through)!, completion: $0) }.map(\.id)
        }
        #expect(try range("2026-11-23", "2026-11-30") == ["first", "ordered", "early", "a-unordered", "z-unordered", "last"])
        #expect(try range("2026-11-24", "2026-11-24") == ["ordered", "early", "a-unordered", "z-unordered"])
        #expect(try range("2026-11-25", "2026-11-29") == [])
        #expect(try range("2026-12-02", "2026-11-01") == [], "an empty range")
        // Completing, re-dating and clearing move to-dos in and out of the range.
        _ = try sync { store.update(id: "first", change: TodoChange(completed: true), condition: .none, at: later, completion: $0) }
        _ = try sync { store.update(id: "done", change: TodoChange(completed: false), condition: .none, at: later, completion: $0) }
        _ = try sync {
            store.update(
                id: "after", change: TodoChange(dueDate: .set(CalendarDay("2026-11-23")!)), condition: .none, at: later, completion: $0)
        }
        _ = try sync { store.update(id: "last", change: TodoChange(dueDate: .clear), condition: .none, at: later, completion: $0) }
        _ = try sync { store.remove(id: "early", condition: .none, completion: $0) }
        #expect(try range("2026-11-23", "2026-11-30") == ["after", "ordered", "a-unordered", "done", "z-unordered"])
    }

    @Test("lists a filtered, sorted page with the total")
    func list() throws {
        let store = InMemoryTodoStore([
            makeTodo("a", title: "Buy milk", completed: false, order: 2),
            makeTodo("b", title: "buy bread", completed: true, order: 1),
            makeTodo("c", title: "Call mum", completed: false),
            makeTodo("d", title: "BUY eggs", completed: false, order: 3),
        ])
        let page = try sync { store.list(TodoQuery(completed: false, titleContains: "buy", limit: 1, offset: 1), completion: $0) }
        #expect(page.items.map(\.id) == ["d"])
        #expect(page.total == 2)
        #expect(page.items.map(\.revision) == [1])
        let all = try sync { store.list(TodoQuery(sort: TodoSort(.title, descending: true)), completion: $0) }
        #expect(all.items.map(\.id) == ["c", "a", "d", "b"])
    }

    @Test("keeps every insert from 8 threads")
    func concurrentInserts() async {
        let store = InMemoryTodoStore()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<1000 { store.insert(makeTodo("\(thread)-\(index)")) { _ in } }
                }
            }
        }
        #expect(store.count == 8000)
    }

    /// Reads the store's count each time it is told of a change: a store that told it while
    /// holding its own lock would stop here (its lock is not reentrant).
    final class ReadingListener: ChangeListener, @unchecked Sendable {
        let store: InMemoryTodoStore
        var counts: [Int] = []
        init(store: InMemoryTodoStore) { self.store = store }
        func changesAppended() { counts.append(store.count) }
    }

    @Test("tells the change log's listeners of each change once its own lock is released")
    func listenersAreToldOutsideTheLock() throws {
        let store = InMemoryTodoStore()
        let listener = ReadingListener(store: store)
        store.changes.listen(listener)
        _ = try sync { store.insert(makeTodo("a"), completion: $0) }
        _ = try sync { store.insert(makeTodo("b"), completion: $0) }
        _ = try sync { store.update(id: "a", change: TodoChange(title: "A2"), condition: .none, at: later, completion: $0) }
        _ = try sync { store.update(id: "a", change: TodoChange(title: "A2"), condition: .none, at: later, completion: $0) }
        _ = try sync { store.remove(id: "b", condition: .none, completion: $0) }
        _ = try sync { store.remove(id: "b", condition: .none, completion: $0) }
        try sync { store.removeAll(completion: $0) }
        #expect(listener.counts == [1, 2, 2, 1, 0], "one announcement per change, none for what changed nothing")
    }
}

@Suite("InMemoryTodoStore default-order and due-date indexes")
struct DefaultOrderIndexTests {
    @Test("random inserts, updates and removes: indexed pages and upcoming ranges equal a filtered sort of everything")
    func matchesSort() throws {
        let seed = testSeed("InMemoryTodoStoreTests")
        var generator = SplitMix64(seed: seed)
        let store = InMemoryTodoStore()
        var ids: [String] = []
        for step in 0..<3000 {
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 6 || ids.isEmpty {
                let id = "t\(step)"
                let order: Int? = Bool.random(using: &generator) ? Int.random(in: -5...5, using: &generator) : nil
                let created = Int64.random(in: 0...50, using: &generator) * 1000
                let due: CalendarDay? =
                    Bool.random(using: &generator) ? CalendarDay(daysSinceEpoch: Int.random(in: 20_000...20_010, using: &generator)) : nil
                let todo = Todo(
                    id: id, title: ["Buy", "call", "BUY milk"].randomElement(using: &generator)!, completed: Bool.random(using: &generator),
                    order: order, dueDate: due, createdAt: Timestamp(millisecondsSinceEpoch: created),
                    updatedAt: Timestamp(millisecondsSinceEpoch: created))
                store.insert(todo) { _ in }
                ids.append(id)
            } else if roll < 9 {
                let id = ids.randomElement(using: &generator)!
                let order: Int? = Bool.random(using: &generator) ? Int.random(in: -5...5, using: &generator) : nil
                let due: TodoChange.Field<CalendarDay> = [
                    .keep, .clear, .set(CalendarDay(daysSinceEpoch: Int.random(in: 20_000...20_010, using: &generator))),
                ]
                .randomElement(using: &generator)!
                let completed: Bool? = [nil, true, false].randomElement(using: &generator)!
                let change = TodoChange(completed: completed, order: order.map { .set($0) } ?? .clear, dueDate: due)
                store.update(id: id, change: change, condition: .none, at: Timestamp(millisecondsSinceEpoch: 99_000)) { _ in }
            } else {
                let index = Int.random(in: 0..<ids.count, using: &generator)
                store.remove(id: ids.remove(at: index), condition: .none) { _ in }
            }
        }
        // Everything, read through the other (sorting) path.
        var everything: [Todo] = []
        store.list(TodoQuery(sort: TodoSort(.createdAt), limit: Int.max)) { result in
            everything = ((try? result.get().items) ?? PackedTodos()).map { data in
                Todo(
                    id: data.id, title: data.title, completed: data.completed, order: data.order, dueDate: data.dueDate,
                    createdAt: data.createdAt, updatedAt: data.updatedAt, revision: data.revision)
            }
        }
        #expect(everything.count == ids.count)
        for (from, through) in [(20_000, 20_010), (20_003, 20_003), (20_002, 20_007), (19_000, 19_999)] {
            var upcoming: [Todo]?
            store.upcoming(from: CalendarDay(daysSinceEpoch: from), through: CalendarDay(daysSinceEpoch: through)) {
                upcoming = try? $0.get()
            }
            let expected = everything.filter { todo in
                guard !todo.completed, let due = todo.dueDate?.daysSinceEpoch else { return false }
                return (from...through).contains(due)
            }.sorted { a, b in a.dueDate != b.dueDate ? a.dueDate! < b.dueDate! : TodoSort().areInIncreasingOrder(a, b) }
            #expect(upcoming?.map(\.id) == expected.map(\.id), "upcoming \(from)...\(through)")
        }
        for query in [
            TodoQuery(), TodoQuery(limit: 7, offset: 11), TodoQuery(completed: true, limit: 5, offset: 3),
            TodoQuery(titleContains: "buy", limit: 1000), TodoQuery(offset: 5000),
        ] {
            var page: TodoPage?
            store.list(query) { page = try? $0.get() }
            let expected = everything.filter(query.includes).sorted(by: TodoSort().areInIncreasingOrder)
            #expect(page?.items.map(\.id) == Array(expected.dropFirst(query.offset).prefix(query.limit)).map(\.id))
            #expect(page?.total == expected.count)
        }
    }
}

@Suite("UUIDGenerator")
struct UUIDGeneratorTests {
    @Test("lower-case RFC 9562 version 4 UUIDs, all different")
    func format() {
        let ids = (0..<1000).map { _ in UUIDGenerator().makeID() }
        #expect(Set(ids).count == 1000)
        for id in ids.prefix(50) {
            #expect(id.count == 36)
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id)
            #expect(Array(id)[14] == "4")
        }
    }
}
