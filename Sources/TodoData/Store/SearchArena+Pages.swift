/// `q=` pages: the matches are found by one sequential scan (`SearchArena.matches`), then put in
/// the query's order. When they are many (at least one in `denseFraction` of the to-dos), the
/// order's index is walked from its start, keeping matches until the end of the page (the default
/// order through `DefaultOrderIndex`, the title order through `TitleOrderIndex`); otherwise, and
/// for any other order, only the matches are ordered, and only up to the end of the page.
extension SearchArena {
    static let denseFraction = 8

    /// The slots of the page `query` (with a non-empty `q=`, prepared as `search`) asks for, with
    /// its total.
    static func page(
        _ query: TodoQuery, search: TitleSearch, store: TodoSlots, defaultOrder: DefaultOrderIndex, titles: TitleOrderIndex
    ) -> (slots: [Int32], total: Int) {
        let found = matches(store, search, completed: query.completed)
        guard query.offset < found.count else { return ([], found.count) }
        let limit = min(query.limit, found.count - query.offset)
        let sort = query.sort
        let isDefault = sort == TodoSort()
        if found.count * Self.denseFraction >= store.liveCount && (isDefault || sort.field == .title) {
            var isMatch = [Bool](repeating: false, count: store.slotCount)
            for slot in found { isMatch[Int(slot)] = true }
            let matching = { (slot: Int32) in isMatch[Int(slot)] }
            let slots: [Int32]
            if isDefault {
                slots = Self.walk(defaultOrder.slots, offset: query.offset, limit: limit, matching)
            } else if !sort.descending {
                slots = Self.walk(titles.runs.lazy.flatMap(\.entries), offset: query.offset, limit: limit, matching)
            } else {
                slots = Self.descending(titles, store, offset: query.offset, limit: limit, matching)
            }
            return (slots, found.count)
        }
        let end = query.offset + limit
        let first = found.smallest(end) { store.areInIncreasingOrder(sort, $0, $1) }
        return (Array(first[query.offset..<end]), found.count)
    }

    /// The slots in `order` that pass `matching`, after skipping the first `offset` of them, until
    /// `limit`.
    private static func walk(
        _ order: some Sequence<Int32>, offset: Int, limit: Int, _ matching: (Int32) -> Bool
    ) -> [Int32] {
        var slots: [Int32] = []
        slots.reserveCapacity(limit)
        var skip = offset
        for slot in order where matching(slot) {
            if skip > 0 {
                skip -= 1
                continue
            }
            slots.append(slot)
            if slots.count == limit { break }
        }
        return slots
    }

    /// `sort=-title` over the matches: groups of equal titles from the last, each in ascending
    /// `createdAt`, `id` (the tie-break does not turn with the direction).
    private static func descending(
        _ titles: TitleOrderIndex, _ store: TodoSlots, offset: Int, limit: Int, _ matching: (Int32) -> Bool
    ) -> [Int32] {
        var slots: [Int32] = []
        slots.reserveCapacity(limit)
        var skip = offset
        var group: [Int32] = []  // the matches of the current group, last first
        var groupKey: Int32?
        func flush() {
            for slot in group.reversed() where slots.count < limit {
                if skip > 0 { skip -= 1 } else { slots.append(slot) }
            }
            group.removeAll(keepingCapacity: true)
        }
        for run in titles.runs.indices.reversed() {
            let entries = titles.runs[run].entries
            for entry in entries.reversed() {
                if let key = groupKey, store.compareTitles(key, entry) != 0 {
                    flush()
                    if slots.count == limit { return slots }
                }
                groupKey = entry
                if matching(entry) { group.append(entry) }
            }
        }
        flush()
        return slots
    }
}
