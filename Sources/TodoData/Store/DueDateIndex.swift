/// The slots of the not-completed to-dos with a due date, in the upcoming order (due date, then
/// `order` with unset last, then `createdAt`, then `id`), so that a range of days is a binary
/// search and a slice: `upcoming` reads only the to-dos it answers.
struct DueDateIndex {
    private(set) var slots: [Int32] = []

    init() {}

    /// The index of every live slot, built with one sort.
    init(_ store: TodoSlots) {
        slots = store.liveSlots.filter { store[$0].isUpcoming }
        slots.sort { Self.precedes($0, $1, store) }
    }

    static func precedes(_ a: Int32, _ b: Int32, _ store: TodoSlots) -> Bool {
        let x = store[a].dueDays
        let y = store[b].dueDays
        return x != y ? x < y : DefaultOrderIndex.precedes(a, b, store)
    }

    /// Files `slot` if its to-do is upcoming (its record as it is now).
    mutating func insert(_ slot: Int32, _ store: TodoSlots) {
        guard store[slot].isUpcoming else { return }
        slots.reserveGently()
        slots.insert(slot, at: firstIndex { Self.precedes($0, slot, store) })
    }

    /// Drops `slot` (its record as it was filed).
    mutating func remove(_ slot: Int32, _ store: TodoSlots) {
        guard store[slot].isUpcoming else { return }
        let index = firstIndex { Self.precedes($0, slot, store) }
        if index < slots.count, slots[index] == slot { slots.remove(at: index) }
    }

    /// Whether a change from `old` to `new` (same slot) moves the to-do in or out of the index, or
    /// within it.
    static func moves(from old: TodoRecord, to new: TodoRecord) -> Bool {
        guard old.isUpcoming || new.isUpcoming else { return false }
        return old.isUpcoming != new.isUpcoming || old.dueDays != new.dueDays || new.movesInDefaultOrder(from: old)
    }

    /// The slots due on a day in `from...through`, in the index's order.
    func range(from: CalendarDay, through: CalendarDay, _ store: TodoSlots) -> ArraySlice<Int32> {
        let start = firstIndex { store[$0].dueDays < Int32(truncatingIfNeeded: from.daysSinceEpoch) }
        let end = firstIndex { store[$0].dueDays <= Int32(truncatingIfNeeded: through.daysSinceEpoch) }
        return slots[start..<max(start, end)]
    }

    /// The first position whose slot `isBefore` no longer holds for (binary search; `isBefore`
    /// holds for a prefix of the slots).
    private func firstIndex(where isBefore: (Int32) -> Bool) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(slots[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
