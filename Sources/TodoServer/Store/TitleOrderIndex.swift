/// The to-dos in `sort=title` order (the title key, then `createdAt`, then `id`), kept up to date
/// on every change, so that a `sort=title` page walks from its offset and stops after its limit (and
/// a `q=` page with many matches walks it keeping the matches, see `SearchArena+Pages`).
///
/// A B+ tree of height two: a list of sorted runs of at most `maxRun` entries, each with its
/// count of completed to-dos. A change costs a binary search over the runs and one inside a run,
/// and moves at most `maxRun` entries (O(log n) comparisons, a bounded move); finding the k-th
/// entry, with or without `completed=`, skips whole runs by their counts. An entry holds
/// references to the strings the to-do already has (its id and title key) and no copy of them.
struct TitleOrderIndex {
    /// One to-do's place: what the title order compares, and whether it is completed.
    struct Entry {
        let key: TitleKey
        var completed: Bool
        let createdAt: Timestamp
        let id: String

        init(_ todo: Todo) {
            key = todo.titleKey
            completed = todo.completed
            createdAt = todo.createdAt
            id = todo.id
        }

        /// `<0`, `0` or `>0` as `a` comes before, is, or comes after `b` in ascending title order
        /// (as `TodoSort(.title).areInIncreasingOrder` orders their to-dos).
        static func compare(_ a: Entry, _ b: Entry) -> Int {
            let title = TitleKey.compare(a.key, b.key)
            if title != 0 { return title }
            if a.createdAt != b.createdAt { return a.createdAt < b.createdAt ? -1 : 1 }
            return a.id == b.id ? 0 : (a.id < b.id ? -1 : 1)
        }
    }

    /// A sorted run of entries and how many of them are completed.
    struct Run {
        var entries: [Entry]
        var completedCount: Int

        init(_ entries: [Entry]) {
            self.entries = entries
            completedCount = entries.reduce(0) { $0 + ($1.completed ? 1 : 0) }
        }

        /// How many entries pass `completed=` (nil: all).
        func matching(_ completed: Bool?) -> Int {
            guard let completed else { return entries.count }
            return completed ? completedCount : entries.count - completedCount
        }
    }

    /// A run splits in two when it grows past this.
    static let maxRun = 512

    private(set) var runs: [Run] = []
    private(set) var count = 0
    private(set) var completedCount = 0

    init() {}

    /// The index of `todos`, built with one sort.
    init(_ todos: some Sequence<Todo>) {
        var entries = todos.map(Entry.init)
        entries.sort { Entry.compare($0, $1) < 0 }
        count = entries.count
        let half = Self.maxRun / 2
        runs = stride(from: 0, to: entries.count, by: half).map { Run(Array(entries[$0..<min($0 + half, entries.count)])) }
        completedCount = runs.reduce(0) { $0 + $1.completedCount }
    }

    /// How many to-dos pass `completed=` (nil: all), without a pass.
    func matching(_ completed: Bool?) -> Int {
        guard let completed else { return count }
        return completed ? completedCount : count - completedCount
    }

    mutating func insert(_ todo: Todo) {
        let entry = Entry(todo)
        count += 1
        if entry.completed { completedCount += 1 }
        guard !runs.isEmpty else { return runs = [Run([entry])] }
        let run = runIndex(for: entry)
        let position = runs[run].entries.firstIndex(notBefore: entry)
        runs[run].entries.insert(entry, at: position)
        if entry.completed { runs[run].completedCount += 1 }
        if runs[run].entries.count > Self.maxRun {
            let upper = Run(Array(runs[run].entries[(Self.maxRun / 2)...]))
            runs[run].entries.removeSubrange((Self.maxRun / 2)...)
            runs[run].completedCount -= upper.completedCount
            runs.insert(upper, at: run + 1)
        }
    }

    mutating func remove(_ todo: Todo) {
        let entry = Entry(todo)
        guard !runs.isEmpty else { return }
        let run = runIndex(for: entry)
        let position = runs[run].entries.firstIndex(notBefore: entry)
        guard position < runs[run].entries.count, runs[run].entries[position].id == entry.id else { return }
        let removed = runs[run].entries.remove(at: position)
        count -= 1
        if removed.completed {
            completedCount -= 1
            runs[run].completedCount -= 1
        }
        if runs[run].entries.isEmpty {
            runs.remove(at: run)
        } else if run + 1 < runs.count, runs[run].entries.count + runs[run + 1].entries.count <= Self.maxRun / 2 {
            // Two small neighbours become one, so that removals cannot leave many tiny runs.
            let next = runs.remove(at: run + 1)
            runs[run].entries.append(contentsOf: next.entries)
            runs[run].completedCount += next.completedCount
        }
    }

    /// Files a changed to-do: in place when only `completed` changed, else moved.
    mutating func replace(_ old: Todo, with new: Todo) {
        let before = Entry(old)
        let after = Entry(new)
        guard Entry.compare(before, after) == 0 else {
            remove(old)
            return insert(new)
        }
        guard before.completed != after.completed, !runs.isEmpty else { return }
        let run = runIndex(for: before)
        let position = runs[run].entries.firstIndex(notBefore: before)
        guard position < runs[run].entries.count, runs[run].entries[position].id == before.id else { return }
        runs[run].entries[position].completed = after.completed
        let change = after.completed ? 1 : -1
        runs[run].completedCount += change
        completedCount += change
    }

    /// The run where `entry` is or belongs: the first whose last entry is not before it, else the
    /// last run (binary search).
    private func runIndex(for entry: Entry) -> Int {
        var low = 0
        var high = runs.count - 1
        while low < high {
            let middle = (low + high) / 2
            if Entry.compare(runs[middle].entries[runs[middle].entries.count - 1], entry) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension Array where Element == TitleOrderIndex.Entry {
    /// The first position whose entry is not before `entry` (binary search).
    func firstIndex(notBefore entry: Element) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if Element.compare(self[middle], entry) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
