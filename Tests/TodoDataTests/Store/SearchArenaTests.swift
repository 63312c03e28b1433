import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("SearchArena: q= over the stored titles in slot order")
struct SearchArenaTests {
    private static let pieces = [
        "a", "B", "ab", "z", " ", "é", "e\u{301}", "ß", "SS", "K", "\u{212A}", "Σ", "ς", "😀", "\u{301}", "Q", "\t",
    ]
    private static let needles = ["a", "ab", "b", "z", "zz", "é", "e", "ss", "k", "σ", "\u{301}", "😀", "a b", "Q", "qa", "AB", "bz"]

    private static func randomTitle(_ generator: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// The ids the arena finds, and the ids a filter of every live to-do finds.
    private static func check(_ slots: TodoSlots, _ todos: [String: Todo], seed: UInt64) {
        for needle in needles {
            let search = TitleSearch(needle)
            for completed in [nil, true, false] as [Bool?] {
                let found = SearchArena.matches(slots, search, completed: completed).map { slots.id($0) }
                let wanted = todos.values.filter { todo in
                    (completed == nil || todo.completed == completed) && todo.titleKey.contains(search)
                }.map(\.id)
                #expect(
                    Set(found) == Set(wanted) && found.count == wanted.count, "seed \(seed): \(needle) \(String(describing: completed))")
            }
        }
    }

    @Test("inserts, title and completed changes, removals and compactions keep the answers of a filter")
    func randomizedAgainstReference() {
        let seed = ProcessInfo.processInfo.environment["SEARCH_ARENA_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("SearchArenaTests.randomizedAgainstReference seed \(seed)")
        var generator = SplitMix64(seed: seed)
        var slots = TodoSlots(compactionFloor: 8)
        var todos: [String: Todo] = [:]
        var compactions = 0
        for step in 0..<3000 {
            let id = "id-\(Int.random(in: 0..<60, using: &generator))"
            let before = slots.titleBytes.count
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let todo = makeTodo(id, title: Self.randomTitle(&generator), completed: Bool.random(using: &generator))
                if todos.updateValue(todo, forKey: id) != nil {
                    slots.overwrite(slots.slot(of: id)!, with: todo)
                } else {
                    _ = slots.add(todo)
                }
            case 4..<6:
                guard var todo = todos[id] else { continue }
                todo.completed.toggle()
                todos[id] = todo
                slots.overwrite(slots.slot(of: id)!, with: todo)
            default:
                guard todos.removeValue(forKey: id) != nil else { continue }
                slots.remove(slots.slot(of: id)!)
            }
            if slots.titleBytes.count < before { compactions += 1 }
            #expect(slots.liveCount == todos.count)
            #expect(slots.slotCount <= 60, "freed slots are reused")
            // Never more than half garbage once past the floor.
            if slots.titleBytes.count >= 8 {
                #expect(slots.garbageBytes * 2 <= slots.titleBytes.count, "seed \(seed) step \(step)")
            }
            if step % 10 == 0 { Self.check(slots, todos, seed: seed) }
        }
        Self.check(slots, todos, seed: seed)
        for (id, todo) in todos { #expect(slots.todo(slots.slot(of: id)!) == todo, "seed \(seed)") }
        #expect(compactions > 10, "seed \(seed): \(compactions) compactions")
    }

    @Test("ASCII titles are searched as given, case folded on the fly; others through their keys")
    func foldingSearch() {
        var slots = TodoSlots()
        _ = slots.add(makeTodo("1", title: "Buy MILK and Bread"))
        _ = slots.add(makeTodo("2", title: "call Bob", completed: true))
        _ = slots.add(makeTodo("3", title: "Straße fegen"))
        _ = slots.add(makeTodo("4", title: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB"))
        let ids = { (needle: String, completed: Bool?) in
            SearchArena.matches(slots, TitleSearch(needle), completed: completed).map { slots.id($0) }
        }
        #expect(ids("milk", nil) == ["1"])
        #expect(ids("B", nil) == ["1", "2", "4"])
        #expect(ids("b", false) == ["1", "4"])
        #expect(ids("ẞE", nil) == ["3"])
        #expect(ids("ss", nil) == ["3"], "case folding: ß is ss")
        #expect(ids("aab", nil) == ["4"], "a match past the first 16 positions, in the last lane")
        #expect(ids("aaa", nil) == ["4"])
        #expect(ids("[", nil) == [], "'[' is not a folded 'Z'+1")
    }
}
