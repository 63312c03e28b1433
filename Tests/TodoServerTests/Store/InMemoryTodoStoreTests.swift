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
        try sync { store.insert(makeTodo("a", title: "A"), completion: $0) }
        try sync { store.insert(makeTodo("b", title: "B"), completion: $0) }
        #expect(store.count == 2)
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A")
        #expect(try sync { store.todo(id: "zz", completion: $0) } == nil)
        let updated = try sync { store.update(id: "a", change: { $0.title = "A2"; return true }, completion: $0) }
        #expect(updated == .updated(makeTodo("a", title: "A2")))
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A2")
        let refused = try sync { store.update(id: "a", change: { $0.title = "never"; return false }, completion: $0) }
        #expect(refused == .unchanged(makeTodo("a", title: "never")))
        #expect(try sync { store.todo(id: "a", completion: $0) }?.title == "A2")
        #expect(try sync { store.update(id: "zz", change: { _ in true }, completion: $0) } == .notFound)
        #expect(try sync { store.remove(id: "a", completion: $0) } == true)
        #expect(try sync { store.remove(id: "a", completion: $0) } == false)
        #expect(try sync { store.allTodos(completion: $0) }.map(\.id) == ["b"])
        try sync { store.removeAll(completion: $0) }
        #expect(store.count == 0)
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
