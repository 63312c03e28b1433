import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("TodoSlots: compact records, 16-byte ids, slot reuse, titles stored once")
struct TodoSlotsTests {
    private static func randomUUID(_ generator: inout SplitMix64) -> String {
        let hex = Array("0123456789abcdef")
        var id = ""
        for position in 0..<36 {
            id.append([8, 13, 18, 23].contains(position) ? "-" : hex[Int.random(in: 0..<16, using: &generator)])
        }
        return id
    }

    @Test("a lower-case UUID is 16 bytes that format back to it and order as the strings do; others are not")
    func uuidIDs() {
        let seed = ProcessInfo.processInfo.environment["TODO_SLOTS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("TodoSlotsTests.uuidIDs seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let ids =
            (0..<500).map { _ in Self.randomUUID(&generator) } + [
                "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
            ]
        for id in ids {
            let parsed = TodoID16(id)
            #expect(parsed?.string == id, "seed \(seed)")
        }
        for _ in 0..<2000 {
            let a = ids.randomElement(using: &generator)!
            let b = ids.randomElement(using: &generator)!
            #expect((TodoID16(a)! < TodoID16(b)!) == (a < b), "seed \(seed): \(a) \(b)")
        }
        #expect(TodoID16("0A1B2C3D-0000-0000-0000-000000000000") == nil, "upper case is another id")
        #expect(TodoID16("0a1b2c3d-0000-0000-0000-00000000000") == nil)
        #expect(TodoID16("0a1b2c3d00000-0000-0000-000000000000") == nil)
        #expect(TodoID16("0a1b2c3g-0000-0000-0000-000000000000") == nil)
        #expect(TodoID16("a") == nil)
    }

    @Test("every byte other than 0-9 and a-f, at every digit place, makes the id another id; every hex digit is read")
    func uuidDigitsOneByOne() {
        let base = Array("01234567-89ab-cdef-0123-456789abcdef".utf8)
        let hex = Set("0123456789abcdef".utf8)
        var refused = 0
        for place in base.indices where base[place] != UInt8(ascii: "-") {
            for byte in UInt8.min...UInt8.max {
                var bytes = base
                bytes[place] = byte
                let id = String(decoding: bytes, as: UTF8.self)
                let parsed = TodoID16(id)
                if hex.contains(byte) {
                    #expect(parsed?.string == id, "\(id)")
                } else {
                    #expect(parsed == nil, "byte \(byte) at \(place)")
                    refused += 1
                }
            }
        }
        #expect(refused == 32 * 240)
    }

    @Test("a removed to-do's slot is reused; ids of every kind are found and answered as given")
    func slotReuseAndIDs() {
        var slots = TodoSlots()
        let uuid = "5f0c8a2e-1b3d-4c5e-8f70-9a1b2c3d4e5f"
        let upper = "5F0C8A2E-1B3D-4C5E-8F70-9A1B2C3D4E5F"
        let a = slots.add(makeTodo(uuid, title: "First thing"))
        let b = slots.add(makeTodo(upper, title: "Second"))
        let c = slots.add(makeTodo("plain-id", title: "Café crème", order: 3, due: "2026-11-30"))
        #expect([a, b, c] == [0, 1, 2])
        #expect(slots.slot(of: uuid) == a && slots.slot(of: upper) == b && slots.slot(of: "plain-id") == c)
        #expect(slots.slot(of: "5f0c8a2e-1b3d-4c5e-8f70-9a1b2c3d4e50") == nil)
        #expect(slots.todo(a) == makeTodo(uuid, title: "First thing"))
        #expect(slots.todo(b) == makeTodo(upper, title: "Second"))
        #expect(slots.todo(c) == makeTodo("plain-id", title: "Café crème", order: 3, due: "2026-11-30"))
        #expect(slots.otherIDs == [b: upper, c: "plain-id"])
        #expect(slots.sideTitles.keys.sorted() == [c], "only the non-ASCII title is kept beside")
        #expect(String(decoding: slots.titleBytes, as: UTF8.self) == "First thingSecond")
        slots.remove(b)
        #expect(slots.liveCount == 2 && slots.slot(of: upper) == nil && slots.otherIDs == [c: "plain-id"])
        #expect(slots.garbageBytes == 6)
        let d = slots.add(makeTodo("d", title: "Fourth"))
        #expect(d == b, "the freed slot is taken first")
        #expect(slots.slotCount == 3)
        #expect(slots.todo(d) == makeTodo("d", title: "Fourth"))
        slots.overwrite(c, with: makeTodo("plain-id", title: "Plain now", completed: true))
        #expect(slots.sideTitles.isEmpty)
        #expect(slots.todo(c) == makeTodo("plain-id", title: "Plain now", completed: true))
        #expect(Array(slots.liveSlots) == [0, 1, 2])
    }

    @Test("titles: a changed title's bytes become garbage, a compaction keeps the live ones in slot order")
    func titleCompaction() {
        var slots = TodoSlots(compactionFloor: 1_000_000)
        let a = slots.add(makeTodo("a", title: "Alpha"))
        let b = slots.add(makeTodo("b", title: "Beta", completed: true))
        let c = slots.add(makeTodo("c", title: "Gamma"))
        slots.overwrite(b, with: makeTodo("b", title: "Delta", completed: true))
        slots.overwrite(c, with: makeTodo("c", title: "Gamma", completed: true))
        slots.remove(a)
        #expect(String(decoding: slots.titleBytes, as: UTF8.self) == "AlphaBetaGammaDelta")
        #expect(slots.garbageBytes == 9, "an unchanged title keeps its bytes")
        slots.compactTitles()
        #expect(String(decoding: slots.titleBytes, as: UTF8.self) == "DeltaGamma")
        #expect(slots.garbageBytes == 0)
        #expect(slots.todo(b).title == "Delta" && slots.todo(c).title == "Gamma")
        #expect(slots.todo(b).titleKey == TitleKey("Delta"))
        // Past the floor, half garbage compacts by itself.
        var small = TodoSlots(compactionFloor: 8)
        let x = small.add(makeTodo("x", title: "xxxxxxxx"))
        _ = small.add(makeTodo("y", title: "yyyy"))
        small.remove(x)
        #expect(String(decoding: small.titleBytes, as: UTF8.self) == "yyyy" && small.garbageBytes == 0)
        #expect(small.todo(small.slot(of: "y")!).title == "yyyy")
    }

    @Test(
        "the title buffer grows by an eighth up to 16 KiB (an owner's store), then at least doubles: 20,000 30-byte titles, at most 7 new buffers past 16 KiB (growing by an eighth all the way made 48)"
    )
    func titleBufferGrowth() {
        var slots = TodoSlots()
        var capacities: [Int] = []
        for number in 0..<20_000 {
            _ = slots.add(makeTodo("t\(number)", title: "a thirty character title here!"))
            if slots.titleBytes.capacity != capacities.last { capacities.append(slots.titleBytes.capacity) }
        }
        #expect(slots.titleBytes.count == 600_000)
        let large = capacities.filter { $0 >= GentleGrowth.limit }
        // 16 KiB, 32, 64, 128, 256, 512 KiB, 1 MiB (or one fewer, as the allocator rounds).
        #expect((6...7).contains(large.count), "\(capacities)")
        for (before, after) in zip(capacities, capacities.dropFirst()) {
            if before >= GentleGrowth.limit {
                #expect(after >= 2 * before, "\(capacities)")
            } else {
                // An eighth or 64 bytes, whichever is more, of what it held (up to 29 bytes short of
                // its room), rounded up by the allocator.
                #expect(after >= before + max(before / 8, 64) - 36, "\(capacities)")
                #expect(after <= before + max(before / 8, 64) + 30 + 24, "\(capacities)")
            }
        }
    }

    @Test("a title changed to a canonically equivalent one keeps the new bytes, both ways (KELVIN SIGN and K, é composed and not)")
    func canonicallyEquivalentRename() {
        var slots = TodoSlots()
        for (before, after) in [("\u{212A}", "K"), ("K", "\u{212A}"), ("caf\u{E9}", "cafe\u{301}"), ("cafe\u{301}", "caf\u{E9}")] {
            #expect(before == after, "Swift's == holds for canonically equivalent strings")
            let slot = slots.add(makeTodo("t-\(before.unicodeScalars.map(\.value))", title: before))
            slots.overwrite(slot, with: makeTodo("t-\(before.unicodeScalars.map(\.value))", title: after))
            #expect(
                Array(slots.todo(slot).title.utf8) == Array(after.utf8),
                "\(before.unicodeScalars.map(\.value)) -> \(after.unicodeScalars.map(\.value))")
            #expect(slots.todo(slot).titleKey.isPlainASCII == TitleKey(after).isPlainASCII)
        }
    }

    @Test("title order over records equals TitleKey.compare, ASCII folded on the fly and keys kept beside")
    func titleComparison() {
        let titles = [
            "a", "A", "ab", "Ab", "aB", "b", "B", "é", "É", "e\u{301}", "z", "Z", "a b", "a\tb", "ß", "SS", "ss", "[", "_", "`", "@",
        ]
        var slots = TodoSlots()
        let numbers = titles.enumerated().map { slots.add(makeTodo("t\($0.offset)", title: $0.element)) }
        for (i, x) in numbers.enumerated() {
            for (j, y) in numbers.enumerated() {
                let expected = TitleKey.compare(TitleKey(titles[i]), TitleKey(titles[j])).signum()
                #expect(slots.compareTitles(x, y).signum() == expected, "\(titles[i]) \(titles[j])")
            }
        }
    }

    @Test("the store over slots: UUID ids found after churn and growth, nothing after removeAll, then filling again")
    func storeChurnAndRemoveAll() throws {
        let seed = ProcessInfo.processInfo.environment["TODO_SLOTS_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("TodoSlotsTests.storeChurnAndRemoveAll seed \(seed)")
        var generator = SplitMix64(seed: seed)
        let store = InMemoryTodoStore()
        func get(_ id: String) -> Todo? {
            var answer: Todo?
            store.todo(id: id) { if case .success(let todo) = $0 { answer = todo } }
            return answer
        }
        func insert(_ todo: Todo) { store.insert(todo) { _ in } }
        var live: [String: Todo] = [:]
        for round in 0..<3 {
            for index in 0..<3000 {
                let id = Self.randomUUID(&generator)
                let todo = makeTodo(
                    id, title: "Task \(round) \(index) MiXeD", completed: index % 3 == 0, order: index % 5 == 0 ? index : nil, revision: 1)
                insert(todo)
                live[id] = todo
            }
            for id in live.keys.shuffled(using: &generator).prefix(2000) {
                store.remove(id: id, condition: .none) { _ in }
                live[id] = nil
                #expect(get(id) == nil, "seed \(seed)")
            }
            #expect(store.count == live.count)
            for (id, todo) in live { #expect(get(id) == todo, "seed \(seed)") }
        }
        var page: TodoPage?
        store.list(TodoQuery(limit: 1000)) { page = try? $0.get() }
        #expect(page?.total == live.count)
        #expect(page?.items.map(\.id) == live.values.sorted(by: TodoSort().areInIncreasingOrder).prefix(1000).map(\.id), "seed \(seed)")
        store.removeAll { _ in }
        #expect(store.count == 0)
        for id in live.keys.prefix(100) { #expect(get(id) == nil) }
        let again = makeTodo(live.keys.first!, title: "Back", revision: 1)
        insert(again)
        #expect(get(again.id) == again && store.count == 1)
    }
}
