import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

@Suite("GentleGrowth: a small store's arrays grow by an eighth, a large one's double", .tags(.singleThreaded))
struct GentleGrowthTests {
    /// The benchmark's title (Benchmarks/owners/seed_owners.py): 30 printable ASCII bytes.
    private static let title = "a thirty character title here!"

    /// The UUID id of the `index`th to-do.
    private static func id(_ index: Int) -> String {
        let hex = String(index, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    /// A store of `count` to-dos with UUID ids and the benchmark's title.
    private static func slots(_ count: Int) -> TodoSlots {
        var slots = TodoSlots()
        for index in 0..<count { _ = slots.add(makeTodo(id(index), title: title)) }
        return slots
    }

    @Test("the room asked for: an eighth more, at least 64 bytes and one element, none while there is room or past 16 KiB")
    func policy() {
        #expect(GentleGrowth.capacity(needed: 101, count: 100, capacity: 100, stride: 64) == 112)
        #expect(GentleGrowth.capacity(needed: 3030, count: 3000, capacity: 3010, stride: 1) == 3375)
        #expect(GentleGrowth.capacity(needed: 11, count: 10, capacity: 10, stride: 4) == 26, "64 bytes: 16 slots")
        #expect(GentleGrowth.capacity(needed: 2, count: 1, capacity: 1, stride: 64) == 2, "one record")
        #expect(GentleGrowth.capacity(needed: 500, count: 10, capacity: 16, stride: 1) == 500, "a long append: what it needs")
        #expect(GentleGrowth.capacity(needed: 50, count: 49, capacity: 60, stride: 4) == nil, "room left")
        #expect(GentleGrowth.capacity(needed: 256, count: 255, capacity: 255, stride: 64) == 286, "just under 16 KiB")
        #expect(GentleGrowth.capacity(needed: 257, count: 256, capacity: 256, stride: 64) == nil, "16 KiB: it doubles")
        #expect(GentleGrowth.capacity(needed: 16385, count: 16384, capacity: 16384, stride: 1) == nil)
    }

    @Test("an owner's 100 to-dos: records, titles and the default order in room for at most an eighth more")
    func ownerSizedStore() {
        let slots = Self.slots(100)
        #expect(slots.chunks.count == 1)
        #expect(slots.chunks[0].count == 100)
        // Reserved whole, the chunk had room for 4,096 records; doubled, for 128.
        #expect((100...115).contains(slots.chunks[0].capacity), "\(slots.chunks[0].capacity)")
        #expect(slots.titleBytes.count == 3000)
        // Doubled: 4,096 or more.
        #expect((3000...3400).contains(slots.titleBytes.capacity), "\(slots.titleBytes.capacity)")
        var index = DefaultOrderIndex()
        var titles = TitleOrderIndex()
        var due = DueDateIndex()
        for slot in slots.allSlots {
            index.insert(slot, slots)
            titles.insert(slot, slots)
            due.insert(slot, slots)
        }
        #expect(index.slots == Array(0..<100))
        // Doubled: 128 or more.
        #expect((100...122).contains(index.slots.capacity), "\(index.slots.capacity)")
        #expect(titles.runs.count == 1 && titles.runs[0].entries.count == 100)
        #expect((100...122).contains(titles.runs[0].entries.capacity), "\(titles.runs[0].entries.capacity)")
        #expect(due.slots.isEmpty && due.slots.capacity == 0, "no due dates: nothing allocated")
    }

    @Test("the first chunk takes its whole room once it is 16 KiB; every later chunk is reserved whole")
    func largeStore() {
        var slots = Self.slots(255)
        #expect(slots.chunks[0].capacity < 300, "\(slots.chunks[0].capacity)")
        // Under 16 KiB it last asked for at most 286 (255 and an eighth).
        for index in 255..<300 { _ = slots.add(makeTodo(Self.id(index), title: Self.title)) }
        #expect(slots.chunks.count == 1)
        #expect(slots.chunks[0].capacity >= TodoSlots.chunkSize, "\(slots.chunks[0].capacity)")
        for index in 300...TodoSlots.chunkSize { _ = slots.add(makeTodo(Self.id(index), title: Self.title)) }
        #expect(slots.chunks.count == 2)
        #expect(slots.chunks[0].count == TodoSlots.chunkSize && slots.chunks[1].count == 1)
        #expect(slots.chunks[1].capacity >= TodoSlots.chunkSize)
        #expect(slots.liveCount == TodoSlots.chunkSize + 1)
        #expect(slots.slot(of: Self.id(TodoSlots.chunkSize)) == Int32(TodoSlots.chunkSize))
        #expect(slots.todo(0).title == Self.title)
    }
}
