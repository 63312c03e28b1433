/// The not-completed to-dos with a due date, in the upcoming order (due date, then `order` with
/// unset last, then `createdAt`, then `id`), so that a range of days is a binary search and a
/// slice: `upcoming` reads only the to-dos it answers.
struct DueDateIndex {
    /// One to-do's place: its due day, then the default order's fields.
    struct Key: Comparable {
        let day: Int
        let rest: DefaultOrderIndex.Key

        /// nil for a to-do the index does not hold (completed, or without a due date).
        init?(_ todo: Todo) {
            guard !todo.completed, let due = todo.dueDate else { return nil }
            day = due.daysSinceEpoch
            rest = DefaultOrderIndex.Key(todo)
        }

        static func < (a: Key, b: Key) -> Bool {
            a.day != b.day ? a.day < b.day : a.rest < b.rest
        }
    }

    private(set) var keys: [Key] = []

    init() {}

    /// The index of `todos`, built with one sort.
    init(_ todos: some Sequence<Todo>) {
        keys = todos.compactMap(Key.init)
        keys.sort()
    }

    mutating func insert(_ todo: Todo) {
        guard let key = Key(todo) else { return }
        keys.insert(key, at: firstIndex { $0 < key })
    }

    mutating func remove(_ todo: Todo) {
        guard let key = Key(todo) else { return }
        let index = firstIndex { $0 < key }
        if index < keys.count, keys[index] == key { keys.remove(at: index) }
    }

    /// Moves, files or drops a to-do whose due date, completion or ordering fields may have changed.
    mutating func replace(_ old: Todo, with new: Todo) {
        guard Key(old) != Key(new) else { return }
        remove(old)
        insert(new)
    }

    /// The ids due on a day in `from...through`, in the index's order.
    func ids(from: CalendarDay, through: CalendarDay) -> some Collection<String> {
        let start = firstIndex { $0.day < from.daysSinceEpoch }
        let end = firstIndex { $0.day <= through.daysSinceEpoch }
        return keys[start..<max(start, end)].lazy.map(\.rest.id)
    }

    /// The first position whose key `isBefore` no longer holds for (binary search; `isBefore`
    /// holds for a prefix of the keys).
    private func firstIndex(where isBefore: (Key) -> Bool) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(keys[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
