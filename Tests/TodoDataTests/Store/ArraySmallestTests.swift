import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("Array.smallest: the first elements of a sort without sorting the rest")
struct ArraySmallestTests {
    @Test("equals sorted().prefix(k) for every k, on random arrays with duplicates broken by index")
    func matchesSort() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ArraySmallestTests.matchesSort seed \(seed)")
        var generator = SplitMix64(seed: seed)
        for size in [0, 1, 2, 3, 7, 40, 41, 500] {
            // (value, index): many equal values, a strict total order all the same.
            let elements = (0..<size).map { (Int.random(in: 0..<max(1, size / 3), using: &generator), $0) }
            let order: ((Int, Int), (Int, Int)) -> Bool = { $0 < $1 }
            let sorted = elements.sorted(by: order)
            for k in Set([0, 1, 2, size / 8, size / 4 - 1, size / 4, size / 2, size, size + 5]) where k >= 0 {
                #expect(elements.smallest(k, by: order).map(\.1) == sorted.prefix(k).map(\.1), "seed \(seed), size \(size), k \(k)")
            }
        }
    }

    @Test("the store's sorted pages equal a full sort's, at every offset")
    func storePages() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ArraySmallestTests.storePages seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let todos = (0..<300).map { index in
            makeTodo(
                "t\(index)", title: ["Milk", "milk", "bread", "Eggs", "éclair", "e\u{301}clair"].randomElement(using: &generator)!,
                created: "2026-11-22T10:00:0\(Int.random(in: 0...3, using: &generator)).000Z")
        }
        let store = InMemoryTodoStore(todos)
        for sort in [TodoSort(.title), TodoSort(.title, descending: true), TodoSort(.createdAt, descending: true)] {
            let all = todos.sorted(by: sort.areInIncreasingOrder).map(\.id)
            for (offset, limit) in [(0, 10), (0, 1000), (5, 50), (70, 10), (290, 50), (300, 5), (Int.max, 10)] {
                var page: TodoPage?
                store.list(TodoQuery(sort: sort, limit: limit, offset: offset)) { page = try? $0.get() }
                let expected = offset >= all.count ? [] : Array(all[offset..<min(all.count, offset + limit)])
                #expect(try #require(page).items.map(\.id) == expected, "seed \(seed), \(sort), offset \(offset)")
                #expect(page?.total == 300)
            }
        }
    }
}
