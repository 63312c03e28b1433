import Foundation
import Testing
@testable import TodoServer

@Suite("SearchArena: q= over the folded titles back to back")
struct SearchArenaTests {
    private static let pieces = ["a", "B", "ab", "z", " ", "é", "e\u{301}", "ß", "SS", "K", "\u{212A}", "Σ", "ς", "😀", "\u{301}"]
    private static let needles = ["a", "ab", "b", "z", "zz", "é", "e", "ss", "k", "σ", "\u{301}", "😀", "a b"]

    private static func randomTitle(_ generator: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// The ids the arena finds, and the ids a filter of every live to-do finds.
    private static func check(_ arena: SearchArena, _ todos: [String: Todo], seed: UInt64) {
        for needle in needles {
            let search = TitleSearch(needle)
            for completed in [nil, true, false] as [Bool?] {
                let found = arena.matches(search, completed: completed).map { arena.slots[$0].id }
                let wanted = todos.values.filter { todo in
                    (completed == nil || todo.completed == completed) && todo.titleKey.contains(search)
                }.map(\.id)
                #expect(Set(found) == Set(wanted) && found.count == wanted.count, "seed \(seed): \(needle) \(String(describing: completed))")
            }
        }
    }

    @Test("inserts, title and completed changes, removals and compactions keep the answers of a filter")
    func randomizedAgainstReference() {
        let seed = ProcessInfo.processInfo.environment["SEARCH_ARENA_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("SearchArenaTests.randomizedAgainstReference seed \(seed)")
        var generator = SplitMix64(seed: seed)
        var arena = SearchArena(compactionFloor: 8)
        var todos: [String: Todo] = [:]
        var compactions = 0
        for step in 0..<3000 {
            let id = "id-\(Int.random(in: 0..<60, using: &generator))"
            let before = (arena.slots.count, arena.bytes.count)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let todo = makeTodo(id, title: Self.randomTitle(&generator), completed: Bool.random(using: &generator))
                if let old = todos.updateValue(todo, forKey: id) { arena.replace(old, with: todo) } else { arena.insert(todo) }
            case 4..<6:
                guard var todo = todos[id] else { continue }
                let old = todo
                todo.completed.toggle()
                todos[id] = todo
                arena.replace(old, with: todo)
            default:
                guard let old = todos.removeValue(forKey: id) else { continue }
                arena.remove(old)
            }
            if arena.slots.count < before.0 || arena.bytes.count < before.1 { compactions += 1 }
            #expect(arena.liveCount == todos.count)
            #expect(arena.slotOf.count == todos.count)
            // Never more than half garbage once past the floor.
            if arena.slots.count >= 8 {
                #expect(arena.garbageBytes * 2 <= arena.bytes.count && arena.deadSlots * 2 <= arena.slots.count, "seed \(seed) step \(step)")
            }
            if step % 10 == 0 { Self.check(arena, todos, seed: seed) }
        }
        Self.check(arena, todos, seed: seed)
        #expect(compactions > 10, "seed \(seed): \(compactions) compactions")
    }

    @Test("a compaction keeps the live titles, their slots in order and their bytes, and drops the rest")
    func compactionKeepsLiveTitles() {
        var arena = SearchArena(compactionFloor: 1_000_000)
        arena.insert(makeTodo("1", title: "Alpha"))
        arena.insert(makeTodo("2", title: "Beta", completed: true))
        arena.insert(makeTodo("3", title: "Gamma"))
        arena.replace(makeTodo("2", title: "Beta", completed: true), with: makeTodo("2", title: "Delta", completed: true))
        arena.remove(makeTodo("1", title: "Alpha"))
        #expect(String(decoding: arena.bytes, as: UTF8.self) == "alphabetagammadelta")
        #expect(arena.garbageBytes == 9 && arena.deadSlots == 2)
        arena.compact()
        #expect(String(decoding: arena.bytes, as: UTF8.self) == "gammadelta")
        #expect(arena.slots.map(\.id) == ["3", "2"] && arena.slots.map(\.offset) == [0, 5])
        #expect(arena.slotOf == ["3": 0, "2": 1])
        #expect(arena.garbageBytes == 0 && arena.deadSlots == 0)
        #expect(arena.matches(TitleSearch("TA"), completed: nil).map { arena.slots[$0].id } == ["2"])
        #expect(arena.matches(TitleSearch("a"), completed: true).map { arena.slots[$0].id } == ["2"])
        #expect(arena.matches(TitleSearch("alpha"), completed: nil).isEmpty)
    }
}
