import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("TitleOrderIndex: sort=title pages and q= from a maintained index", .tags(.singleThreaded))
struct TitleOrderIndexTests {
    private func sync<T>(_ call: (@escaping (Result<T, StoreError>) -> Void) -> Void) throws -> T {
        var answer: Result<T, StoreError>?
        call { answer = $0 }
        return try #require(answer).get()
    }

    /// The page as a straightforward filter of every to-do, already in the query's sort order, computes
    /// it (the order is total, ties end on the id: filtering a sorted list gives the sorted filtered list).
    private static func page(of sorted: [Todo], _ query: TodoQuery) -> (ids: [String], total: Int) {
        let matching = sorted.filter(query.includes)
        return (Array(matching.dropFirst(query.offset).prefix(query.limit).map(\.id)), matching.count)
    }

    private func list(_ store: InMemoryTodoStore, _ query: TodoQuery) throws -> (ids: [String], total: Int) {
        let page = try sync { store.list(query, completion: $0) }
        return (page.items.map(\.id), page.total)
    }

    /// Case, canonical equivalence, non-ASCII and control characters; few enough that titles
    /// repeat (ties) and needles are found.
    private static let pieces = [
        "a", "A", "b", "B", "ab", "z", " ", "1", "é", "e\u{301}", "É", "ß", "SS", "İ", "ı", "K", "\u{212A}", "Å",
        "A\u{30A}", "Σ", "σ", "ς", "😀", "漢", "\u{301}", "-", "\t",
    ]

    private static func randomText(_ generator: inout SplitMix64, _ range: ClosedRange<Int>) -> String {
        (0..<Int.random(in: range, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    private static func randomTodo(_ generator: inout SplitMix64, _ index: Int) -> Todo {
        makeTodo(
            "id-\(Int.random(in: 0...99, using: &generator))-\(index)", title: randomText(&generator, 1...4),
            completed: Bool.random(using: &generator),
            order: Bool.random(using: &generator) ? Int.random(in: -3...3, using: &generator) : nil,
            due: Bool.random(using: &generator) ? "2026-11-2\(Int.random(in: 0...3, using: &generator))" : nil,
            created: "2026-11-22T10:00:0\(Int.random(in: 0...3, using: &generator)).000Z")
    }

    private static func randomQuery(_ generator: inout SplitMix64, _ todos: [Todo]) -> TodoQuery {
        let needle: String?
        switch Int.random(in: 0...5, using: &generator) {
        case 0, 1: needle = nil
        case 2:
            // A piece of a stored title, in another case: found at least there.
            let title = todos.randomElement(using: &generator)?.title ?? "a"
            let characters = Array(title)
            let start = Int.random(in: 0..<characters.count, using: &generator)
            let piece = String(characters[start..<min(characters.count, start + Int.random(in: 1...3, using: &generator))])
            needle = Bool.random(using: &generator) ? piece.uppercased() : piece
        case 3:
            needle = ["ab", "AB", "b a", "z", "é", "E\u{301}", "s", "ss", "ß", "σ", "😀", "\t", "k", "å", "zzz", ""].randomElement(
                using: &generator)!
        default: needle = randomText(&generator, 1...2)
        }
        return TodoQuery(
            completed: [nil, true, false].randomElement(using: &generator)!, titleContains: needle,
            sort: TodoSort(TodoSort.Field.allCases.randomElement(using: &generator)!, descending: Bool.random(using: &generator)),
            limit: Int.random(in: 1...40, using: &generator),
            offset: Bool.random(using: &generator) ? 0 : Int.random(in: 0...(todos.count + 3), using: &generator))
    }

    @Test("pages equal a filter and sort of every to-do, over random to-dos and random changes")
    func randomizedAgainstReference() throws {
        let seed = ProcessInfo.processInfo.environment["TITLE_INDEX_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("TitleOrderIndexTests.randomizedAgainstReference seed \(seed)")
        var generator = SplitMix64(seed: seed)
        var expected: [String: Todo] = [:]
        let store = InMemoryTodoStore()
        var next = 0
        func check(_ store: InMemoryTodoStore, queries: Int) throws {
            let todos = Array(expected.values)
            // Each sort order once per check rather than once per query (the test's cost: ~1,000
            // sorts of thousands of titles compared Unicode-aware, minutes under the sanitizers).
            var sortedBy: [String: [Todo]] = [:]
            for _ in 0..<queries {
                let query = Self.randomQuery(&generator, todos)
                let actual = try list(store, query)
                let order = "\(query.sort.field)\(query.sort.descending)"
                let sorted = sortedBy[order] ?? todos.sorted(by: query.sort.areInIncreasingOrder)
                sortedBy[order] = sorted
                let wanted = Self.page(of: sorted, query)
                #expect(actual.ids == wanted.ids && actual.total == wanted.total, "seed \(seed): \(query)")
                if actual.ids != wanted.ids || actual.total != wanted.total { return }
            }
        }
        for round in 0..<6 {
            // Inserts, then changes (title, completed, order), removals and, once, removing all.
            for _ in 0..<(round == 0 ? 3000 : 600) {
                let todo = store.insertNow(Self.randomTodo(&generator, next))
                next += 1
                expected[todo.id] = todo
            }
            for _ in 0..<800 {
                guard let id = expected.keys.randomElement(using: &generator) else { break }
                switch Int.random(in: 0...3, using: &generator) {
                case 0:
                    let title = Self.randomText(&generator, 1...4)
                    if case .updated(let todo) = store.updateNow(id: id, change: TodoChange(title: title)) { expected[id] = todo }
                case 1:
                    if case .updated(let todo) = store.updateNow(id: id, change: TodoChange(completed: !(expected[id]?.completed ?? false)))
                    {
                        expected[id] = todo
                    }
                case 2:
                    let order = Int.random(in: -3...3, using: &generator)
                    if case .updated(let todo) = store.updateNow(id: id, change: TodoChange(order: .set(order))) { expected[id] = todo }
                default:
                    #expect(store.removeNow(id: id) == .removed)
                    expected[id] = nil
                }
            }
            if round == 3 {
                // Most to-dos go: runs empty out and merge.
                for id in expected.keys.shuffled(using: &generator).dropFirst(150) {
                    _ = store.removeNow(id: id)
                    expected[id] = nil
                }
            }
            if round == 4 {
                store.removeAllNow()
                expected = [:]
                try check(store, queries: 20)
            }
            try check(store, queries: 150)
        }
        // The index built in one go on recovery answers the same.
        let restored = InMemoryTodoStore(restoring: expected)
        try check(restored, queries: 150)
    }

    @Test("sort=-title: equal titles keep ascending createdAt and id, also across an offset and completed=")
    func descendingTies() throws {
        let store = InMemoryTodoStore([
            makeTodo("a1", title: "Same", completed: true, created: "2026-11-22T10:00:01.000Z"),
            makeTodo("a2", title: "same", completed: false, created: "2026-11-22T10:00:00.000Z"),
            makeTodo("a3", title: "Same", completed: true, created: "2026-11-22T10:00:00.000Z"),
            makeTodo("b", title: "beta", completed: true),
            makeTodo("z", title: "Zulu", completed: false),
            makeTodo("a0", title: "Same", completed: true, created: "2026-11-22T10:00:00.000Z"),
        ])
        // "same" < "Same"? No: the folded titles tie, then the exact ones: "Same" < "same".
        #expect(try list(store, TodoQuery(sort: TodoSort(.title))).ids == ["b", "a0", "a3", "a1", "a2", "z"])
        #expect(try list(store, TodoQuery(sort: TodoSort(.title, descending: true))).ids == ["z", "a2", "a0", "a3", "a1", "b"])
        let middle = try list(store, TodoQuery(sort: TodoSort(.title, descending: true), limit: 2, offset: 2))
        #expect(middle.ids == ["a0", "a3"])
        #expect(middle.total == 6)
        let completed = try list(store, TodoQuery(completed: true, sort: TodoSort(.title, descending: true), limit: 2, offset: 1))
        #expect(completed.ids == ["a3", "a1"])
        #expect(completed.total == 4)
        let open = try list(store, TodoQuery(completed: false, sort: TodoSort(.title, descending: true), limit: 5))
        #expect(open.ids == ["z", "a2"])
        #expect(open.total == 2)
        let found = try list(store, TodoQuery(titleContains: "AM", sort: TodoSort(.title, descending: true), limit: 3, offset: 1))
        #expect(found.ids == ["a0", "a3", "a1"])
        #expect(found.total == 4)
    }

    @Test("totals follow completed changes, title changes and removals without a pass")
    func countsFollowChanges() throws {
        let store = InMemoryTodoStore(
            (0..<1500).map { makeTodo(String(format: "t%04d", $0), title: "T \($0 % 7)", completed: $0 % 3 == 0) })
        #expect(try list(store, TodoQuery(completed: true, sort: TodoSort(.title), limit: 1)).total == 500)
        _ = store.updateNow(id: "t0001", change: TodoChange(completed: true))
        _ = store.updateNow(id: "t0003", change: TodoChange(title: "a first"))
        _ = store.removeNow(id: "t0006")
        let completed = try list(store, TodoQuery(completed: true, sort: TodoSort(.title), limit: 2))
        #expect(completed.total == 500)
        #expect(completed.ids == ["t0003", "t0000"])
        let open = try list(store, TodoQuery(completed: false, sort: TodoSort(.title), limit: 1, offset: 998))
        #expect(open.total == 999)
        #expect(open.ids == ["t1490"])
        #expect(try list(store, TodoQuery(sort: TodoSort(.title), limit: 1, offset: 1499)).ids == [])
        #expect(try list(store, TodoQuery(sort: TodoSort(.title), limit: 1, offset: 1498)).ids == ["t1497"])
    }

    @Test("q= keeps character semantics: a letter with a combining accent is not the letter; case and NFC fold")
    func searchSemantics() throws {
        let store = InMemoryTodoStore([
            makeTodo("plain", title: "Buy Coffee"),
            makeTodo("decomposed", title: "Paq\u{301} to go"),
            makeTodo("composed", title: "CAFÉ au lait"),
            makeTodo("nfc", title: "Cafe\u{301} noir"),
            makeTodo("sharp", title: "Straße"),
        ])
        // "aq" occurs in the bytes of "paq\u{301}" (q has no precomposed form) but not as characters.
        #expect(try list(store, TodoQuery(titleContains: "AQ", sort: TodoSort(.title))).ids == [])
        #expect(try list(store, TodoQuery(titleContains: "Q\u{301}", sort: TodoSort(.title))).ids == ["decomposed"])
        #expect(try list(store, TodoQuery(titleContains: "café", sort: TodoSort(.title))).ids == ["composed", "nfc"])
        #expect(
            try list(store, TodoQuery(titleContains: "E\u{301} ", sort: TodoSort(.title, descending: true))).ids == ["nfc", "composed"])
        // Case folding, not lower case: ß is ss (issue 21).
        #expect(try list(store, TodoQuery(titleContains: "SSE", sort: TodoSort(.title))).ids == ["sharp"])
        #expect(try list(store, TodoQuery(titleContains: "ẞe")).ids == ["sharp"])
        #expect(try list(store, TodoQuery(titleContains: "fee")).ids == ["plain"])
        let page = try list(store, TodoQuery(titleContains: "a", sort: TodoSort(.createdAt, descending: true), limit: 2, offset: 1))
        #expect(page.total == 4)
        #expect(page.ids == ["decomposed", "nfc"])
    }
}

/// The in-memory store answers every call before it returns: its answers, by return.
extension InMemoryTodoStore {
    fileprivate func insertNow(_ todo: Todo) -> Todo {
        var stored = todo
        insert(todo) { if case .success(let todo) = $0 { stored = todo } }
        return stored
    }

    fileprivate func updateNow(id: String, change: TodoChange) -> StoreUpdate {
        var outcome = StoreUpdate.notFound
        update(id: id, change: change, condition: .none, at: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)) {
            if case .success(let answer) = $0 { outcome = answer }
        }
        return outcome
    }

    fileprivate func removeNow(id: String) -> StoreRemoval {
        var outcome = StoreRemoval.notFound
        remove(id: id, condition: .none) { if case .success(let answer) = $0 { outcome = answer } }
        return outcome
    }

    fileprivate func removeAllNow() {
        removeAll { _ in }
    }
}
