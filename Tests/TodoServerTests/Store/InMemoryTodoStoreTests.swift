import Foundation
import Testing
@testable import TodoServer

@Suite("InMemoryTodoStore")
struct InMemoryTodoStoreTests {
    private func sync<T>(_ call: (@escaping (Result<T, StoreError>) -> Void) -> Void) throws -> T {
        var answer: Result<T, StoreError>?
        call { answer = $0 }
        return try #require(answer).get()
    }

    @Test("inserts, finds, updates and removes by id")
    func crud() throws {
        let store = InMemoryTodoStore()
        #expect(try sync { store.insert(makeTodo("a", title: "A"), completion: $0) }.revision == 1)
        #expect(try sync { store.insert(makeTodo("b", title: "B"), completion: $0) }.revision == 2)
        #expect(store.count == 2)
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A")
        #expect(try sync { store.todo(id: "zz", completion: $0) } == nil)
        let updated = try sync { store.update(id: "a", change: { $0.title = "A2"; return true }, completion: $0) }
        #expect(updated == .updated(makeTodo("a", title: "A2", revision: 3)))
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A2")
        let refused = try sync { store.update(id: "a", change: { $0.title = "never"; return false }, completion: $0) }
        #expect(refused == .unchanged(makeTodo("a", title: "A2", revision: 3)))
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A2")
        #expect(try sync { store.update(id: "zz", change: { _ in true }, completion: $0) } == .notFound)
        let refusedRemoval = try sync { store.remove(id: "a", precondition: { $0.revision == 99 }, completion: $0) }
        #expect(refusedRemoval == .preconditionFailed(makeTodo("a", title: "A2", revision: 3)))
        #expect(try sync { store.remove(id: "a", precondition: { $0.revision == 3 }, completion: $0) } == .removed)
        #expect(try sync { store.remove(id: "a", precondition: nil, completion: $0) } == .notFound)
        #expect(try sync { store.allTodos(completion: $0) }.map(\.id) == ["b"])
        try sync { store.removeAll(completion: $0) }
        #expect(store.count == 0)
        #expect(try sync { store.list(TodoQuery(), completion: $0) } == TodoPage(items: [], total: 0, revision: 5))
    }

    @Test("lists a filtered, sorted page with the total and the store revision")
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
        #expect(page.revision == 4)
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
}

@Suite("InMemoryTodoStore default-order index")
struct DefaultOrderIndexTests {
    @Test("random inserts, updates and removes: indexed pages equal a filtered sort of everything")
    func matchesSort() throws {
        let seed = ProcessInfo.processInfo.environment["TODO_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        print("InMemoryTodoStoreTests: seed \(seed) (TODO_TEST_SEED repeats it)")
        var generator = SplitMix64(seed: seed)
        let store = InMemoryTodoStore()
        var ids: [String] = []
        for step in 0..<3000 {
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll < 6 || ids.isEmpty {
                let id = "t\(step)"
                let order: Int? = Bool.random(using: &generator) ? Int.random(in: -5...5, using: &generator) : nil
                let created = Int64.random(in: 0...50, using: &generator) * 1000
                let todo = Todo(
                    id: id, title: ["Buy", "call", "BUY milk"].randomElement(using: &generator)!, completed: Bool.random(using: &generator),
                    order: order, dueDate: nil, createdAt: Timestamp(millisecondsSinceEpoch: created),
                    updatedAt: Timestamp(millisecondsSinceEpoch: created))
                store.insert(todo) { _ in }
                ids.append(id)
            } else if roll < 9 {
                let id = ids.randomElement(using: &generator)!
                let order: Int? = Bool.random(using: &generator) ? Int.random(in: -5...5, using: &generator) : nil
                store.update(id: id, change: { $0.order = order; return true }) { _ in }
            } else {
                let index = Int.random(in: 0..<ids.count, using: &generator)
                store.remove(id: ids.remove(at: index), precondition: nil) { _ in }
            }
        }
        var everything: [Todo] = []
        store.allTodos { everything = (try? $0.get()) ?? [] }
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
