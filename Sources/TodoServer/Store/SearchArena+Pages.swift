/// `q=` pages from the search arena: the matches are found by one sequential scan, then put in the
/// query's order. When they are many (at least one in `denseFraction` of the to-dos), the order's
/// index is walked from its start, keeping matches until the end of the page (the default order
/// through `DefaultOrderIndex`, the title order through `TitleOrderIndex`); otherwise, and for any
/// other order, only the matches are ordered, and only up to the end of the page.
extension SearchArena {
    static let denseFraction = 8

    /// The page `query` (with a non-empty `q=`, prepared as `search`) asks for, with its total,
    /// taking each to-do by id from `todo`.
    func page(
        _ query: TodoQuery, search: TitleSearch, defaultOrder: DefaultOrderIndex, titles: TitleOrderIndex,
        todo: (String) -> Todo
    ) -> (items: [Todo], total: Int) {
        let found = matches(search, completed: query.completed)
        guard query.offset < found.count else { return ([], found.count) }
        let limit = min(query.limit, found.count - query.offset)
        let sort = query.sort
        let isDefault = sort == TodoSort()
        if found.count * Self.denseFraction >= liveCount && (isDefault || sort.field == .title) {
            var isMatch = [Bool](repeating: false, count: slots.count)
            for slot in found { isMatch[slot] = true }
            let matching = { (id: String) in isMatch[slotOf[id]!] }
            let ids: [String]
            if isDefault {
                ids = Self.walk(defaultOrder.keys.lazy.map(\.id), offset: query.offset, limit: limit, matching)
            } else if !sort.descending {
                ids = Self.walk(titles.runs.lazy.flatMap(\.entries).map(\.id), offset: query.offset, limit: limit, matching)
            } else {
                ids = Self.descending(titles, offset: query.offset, limit: limit, matching)
            }
            return (ids.map(todo), found.count)
        }
        let todos = found.map { todo(slots[$0].id) }
        let end = query.offset + limit
        let first = todos.smallest(end) { sort.areInIncreasingOrder($0, $1) }
        return (Array(first[query.offset..<end]), found.count)
    }

    /// The ids in `order` that pass `matching`, after skipping the first `offset` of them, until
    /// `limit`.
    private static func walk(
        _ order: some Sequence<String>, offset: Int, limit: Int, _ matching: (String) -> Bool
    ) -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(limit)
        var skip = offset
        for id in order where matching(id) {
            if skip > 0 {
                skip -= 1
                continue
            }
            ids.append(id)
            if ids.count == limit { break }
        }
        return ids
    }

    /// `sort=-title` over the matches: groups of equal titles from the last, each in ascending
    /// `createdAt`, `id` (the tie-break does not turn with the direction).
    private static func descending(
        _ titles: TitleOrderIndex, offset: Int, limit: Int, _ matching: (String) -> Bool
    ) -> [String] {
        var ids: [String] = []
        ids.reserveCapacity(limit)
        var skip = offset
        var group: [String] = []  // the matches of the current group, last first
        var groupKey: TitleKey?
        func flush() {
            for id in group.reversed() where ids.count < limit {
                if skip > 0 { skip -= 1 } else { ids.append(id) }
            }
            group.removeAll(keepingCapacity: true)
        }
        for run in titles.runs.indices.reversed() {
            let entries = titles.runs[run].entries
            for entry in entries.reversed() {
                if let key = groupKey, TitleKey.compare(key, entry.key) != 0 {
                    flush()
                    if ids.count == limit { return ids }
                }
                groupKey = entry.key
                if matching(entry.id) { group.append(entry.id) }
            }
        }
        flush()
        return ids
    }
}
