/// List pages answered from the title index: `sort=title` and `sort=-title` (with or without
/// `completed=`) walk it from the offset (`q=` is answered by `SearchArena`).
extension TitleOrderIndex {
    /// An entry's place: its run and its index in the run; `end` is one past the last entry.
    struct Position: Comparable {
        var run: Int
        var index: Int

        static func < (a: Position, b: Position) -> Bool {
            (a.run, a.index) < (b.run, b.index)
        }
    }

    /// The slots of the page `query` (without `q=`) asks for, with its total; nil when the index
    /// does not answer this query (an order other than the title).
    func page(_ query: TodoQuery, _ store: TodoSlots) -> (slots: [Int32], total: Int)? {
        guard query.sort.field == .title else { return nil }
        let total = matching(query.completed)
        guard query.offset < total else { return ([], total) }
        var ids: [Int32] = []
        ids.reserveCapacity(min(query.limit, total - query.offset))
        if query.sort.descending {
            descending(completed: query.completed, total: total, offset: query.offset, limit: query.limit, into: &ids, store)
        } else {
            var skip = query.offset
            forward(
                from: Position(run: 0, index: 0), to: end, completed: query.completed, skip: &skip, limit: query.limit, into: &ids,
                store)
        }
        return (ids, total)
    }

    subscript(position: Position) -> Int32 { runs[position.run].entries[position.index] }

    var end: Position { Position(run: runs.count, index: 0) }

    /// Appends the slots of the entries from `start` to `end` (excluded) that pass `completed=`,
    /// after skipping the first `skip` of them, until `ids` holds `limit`. Whole runs are skipped
    /// by their counts.
    func forward(
        from start: Position, to end: Position, completed: Bool?, skip: inout Int, limit: Int, into ids: inout [Int32],
        _ store: TodoSlots
    ) {
        var run = start.run
        var index = start.index
        while ids.count < limit && run < runs.count && Position(run: run, index: index) < end {
            let matching = runs[run].matching(completed)
            if index == 0 && run < end.run && matching <= skip {
                skip -= matching
                run += 1
                continue
            }
            let stop = run == end.run ? end.index : runs[run].entries.count
            while index < stop && ids.count < limit {
                let entry = runs[run].entries[index]
                if completed == nil || store[entry].completed == completed {
                    if skip > 0 { skip -= 1 } else { ids.append(entry) }
                }
                index += 1
            }
            run += 1
            index = 0
        }
    }

    /// `sort=-title`: groups of equal titles from the last, each in ascending `createdAt`, `id`
    /// (the tie-break does not turn with the direction).
    private func descending(completed: Bool?, total: Int, offset: Int, limit: Int, into ids: inout [Int32], _ store: TodoSlots) {
        // The entry that would be at `offset` if the whole order were reversed is in the first
        // group to read; the groups after it are skipped whole, then part of this one.
        let first = position(ofMatching: total - 1 - offset, completed: completed, store)
        let key = self[first]
        var start = bound(key, after: false, store)
        let groupEnd = bound(key, after: true, store)
        var skip = offset - (total - rank(groupEnd, completed: completed, store))
        forward(from: start, to: groupEnd, completed: completed, skip: &skip, limit: limit, into: &ids, store)
        while ids.count < limit, let last = lastMatching(before: start, completed: completed, store) {
            let groupStart = bound(self[last], after: false, store)
            var none = 0
            forward(from: groupStart, to: after(last), completed: completed, skip: &none, limit: limit, into: &ids, store)
            start = groupStart
        }
    }

    /// The position after `position`.
    private func after(_ position: Position) -> Position {
        position.index + 1 < runs[position.run].entries.count
            ? Position(run: position.run, index: position.index + 1) : Position(run: position.run + 1, index: 0)
    }

    /// The position of the `k`-th (from 0) entry that passes `completed=`; `k` < their number.
    private func position(ofMatching k: Int, completed: Bool?, _ store: TodoSlots) -> Position {
        var remaining = k
        var run = 0
        while remaining >= runs[run].matching(completed) {
            remaining -= runs[run].matching(completed)
            run += 1
        }
        var index = 0
        while true {
            if completed == nil || store[runs[run].entries[index]].completed == completed {
                if remaining == 0 { return Position(run: run, index: index) }
                remaining -= 1
            }
            index += 1
        }
    }

    /// How many entries before `position` pass `completed=`.
    private func rank(_ position: Position, completed: Bool?, _ store: TodoSlots) -> Int {
        var rank = 0
        for run in 0..<min(position.run, runs.count) { rank += runs[run].matching(completed) }
        guard position.run < runs.count else { return rank }
        for index in 0..<position.index where completed == nil || store[runs[position.run].entries[index]].completed == completed {
            rank += 1
        }
        return rank
    }

    /// The last entry before `position` that passes `completed=`, skipping runs without any.
    private func lastMatching(before position: Position, completed: Bool?, _ store: TodoSlots) -> Position? {
        var run = min(position.run, runs.count)
        var index = run < runs.count ? position.index : 0
        while true {
            if index == 0 {
                run -= 1
                while run >= 0 && runs[run].matching(completed) == 0 { run -= 1 }
                guard run >= 0 else { return nil }
                index = runs[run].entries.count
            }
            index -= 1
            if completed == nil || store[runs[run].entries[index]].completed == completed { return Position(run: run, index: index) }
        }
    }

    /// The first position whose title is not before the title of the to-do in `key` (`after`:
    /// after it), by binary search.
    private func bound(_ key: Int32, after: Bool, _ store: TodoSlots) -> Position {
        func isBefore(_ entry: Int32) -> Bool {
            let order = entry == key ? 0 : store.compareTitles(entry, key)
            return after ? order <= 0 : order < 0
        }
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(runs[middle].entries[runs[middle].entries.count - 1]) { low = middle + 1 } else { high = middle }
        }
        guard low < runs.count else { return end }
        let entries = runs[low].entries
        var first = 0
        var last = entries.count
        while first < last {
            let middle = (first + last) / 2
            if isBefore(entries[middle]) { first = middle + 1 } else { last = middle }
        }
        return Position(run: low, index: first)
    }
}
