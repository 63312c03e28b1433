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
