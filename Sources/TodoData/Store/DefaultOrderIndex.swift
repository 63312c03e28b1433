/// The to-dos' slots in the list's default order (`order` ascending with unset last, then
/// `createdAt`, then `id`), so that a page of the default list costs O(limit) instead of a sort of
/// every to-do. New to-dos without an order land at the end: an append. 4 bytes per to-do: the
/// fields compared are read from the records (`TodoSlots`).
struct DefaultOrderIndex {
    private(set) var slots: [Int32] = []

    init() {}

    /// The index of every live slot, built with one sort (inserting one by one would be quadratic).
    init(_ store: TodoSlots) {
        slots = Array(store.liveSlots)
        slots.sort { Self.precedes($0, $1, store) }
    }

    /// Whether the to-do in `a` comes before the one in `b` in the default order.
    static func precedes(_ a: Int32, _ b: Int32, _ store: TodoSlots) -> Bool {
        let x = store[a]
        let y = store[b]
        if x.hasOrder != y.hasOrder { return x.hasOrder }
        if x.order != y.order { return x.order < y.order }
        if x.createdAt != y.createdAt { return x.createdAt < y.createdAt }
        return store.compareIDs(a, b) < 0
    }

    /// Files `slot` (its record as it is now).
    mutating func insert(_ slot: Int32, _ store: TodoSlots) {
        slots.reserveGently()
        if let last = slots.last, !Self.precedes(slot, last, store) {
            slots.append(slot)
        } else {
            slots.insert(slot, at: firstIndex(notBefore: slot, store))
        }
    }

    /// Drops `slot` (its record as it was filed).
    mutating func remove(_ slot: Int32, _ store: TodoSlots) {
        let index = firstIndex(notBefore: slot, store)
        if index < slots.count, slots[index] == slot { slots.remove(at: index) }
    }

    /// The first position whose to-do is not before the one in `slot` (binary search).
    private func firstIndex(notBefore slot: Int32, _ store: TodoSlots) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if Self.precedes(slots[middle], slot, store) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
