/// The to-dos in `sort=title` order (the title key, then `createdAt`, then `id`), kept up to date
/// on every change, so that a `sort=title` page walks from its offset and stops after its limit (and
/// a `q=` page with many matches walks it keeping the matches, see `SearchArena+Pages`).
///
/// A B+ tree of height two: a list of sorted runs of at most `maxRun` slots, each with its
/// count of completed to-dos. A change costs a binary search over the runs and one inside a run,
/// and moves at most `maxRun` slots (O(log n) comparisons, a bounded move); finding the k-th
/// entry, with or without `completed=`, skips whole runs by their counts. An entry is the to-do's
/// slot (4 bytes): what it is compared by is read from the records (`TodoSlots`).
struct TitleOrderIndex {
    /// `<0`, `0` or `>0` as the to-do in `a` comes before, is, or comes after the one in `b` in
    /// ascending title order (as `TodoSort(.title).areInIncreasingOrder` orders them).
    static func compare(_ a: Int32, _ b: Int32, _ store: borrowing TodoSlots) -> Int {
        if a == b { return 0 }
        let title = store.compareTitles(a, b)
        if title != 0 { return title }
        let x = store[a].createdAt
        let y = store[b].createdAt
        if x != y { return x < y ? -1 : 1 }
        return store.compareIDs(a, b)
    }

    /// A sorted run of slots and how many of their to-dos are completed.
    struct Run {
        var entries: [Int32]
        var completedCount: Int

        init(_ entries: [Int32], _ store: borrowing TodoSlots) {
            self.entries = entries
            completedCount = entries.reduce(0) { $0 + (store[$1].completed ? 1 : 0) }
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

    /// The index of every live slot, built with one sort.
    init(_ store: TodoSlots) {
        var entries = Array(store.liveSlots)
        entries.sort { Self.compare($0, $1, store) < 0 }
        count = entries.count
        let half = Self.maxRun / 2
        runs = stride(from: 0, to: entries.count, by: half).map { Run(Array(entries[$0..<min($0 + half, entries.count)]), store) }
        completedCount = runs.reduce(0) { $0 + $1.completedCount }
    }

    /// How many to-dos pass `completed=` (nil: all), without a pass.
    func matching(_ completed: Bool?) -> Int {
        guard let completed else { return count }
        return completed ? completedCount : count - completedCount
    }

    /// Files `slot` (its record as it is now).
    mutating func insert(_ slot: Int32, _ store: borrowing TodoSlots) {
        let completed = store[slot].completed
        count += 1
        if completed { completedCount += 1 }
        guard !runs.isEmpty else {
            runs = [Run([slot], store)]
            return
        }
        let run = runIndex(for: slot, store)
        let position = runs[run].entries.firstIndex(notBefore: slot, store)
        runs[run].entries.reserveGently()
        runs[run].entries.insert(slot, at: position)
        if completed { runs[run].completedCount += 1 }
        if runs[run].entries.count > Self.maxRun {
            // Both halves in arrays of their size (the full run's grew to twice `maxRun`).
            let upper = Run(Array(runs[run].entries[(Self.maxRun / 2)...]), store)
            runs[run].entries = Array(runs[run].entries[..<(Self.maxRun / 2)])
            runs[run].completedCount -= upper.completedCount
            runs.insert(upper, at: run + 1)
        }
    }

    /// Drops `slot` (its record as it was filed).
    mutating func remove(_ slot: Int32, _ store: borrowing TodoSlots) {
        guard !runs.isEmpty else { return }
        let run = runIndex(for: slot, store)
        let position = runs[run].entries.firstIndex(notBefore: slot, store)
        guard position < runs[run].entries.count, runs[run].entries[position] == slot else { return }
        runs[run].entries.remove(at: position)
        count -= 1
        if store[slot].completed {
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

    /// Counts a change of `completed` of the to-do in `slot`, whose place did not change (its
    /// record already changed).
    mutating func completedChanged(_ slot: Int32, _ store: TodoSlots) {
        guard !runs.isEmpty else { return }
        let run = runIndex(for: slot, store)
        let position = runs[run].entries.firstIndex(notBefore: slot, store)
        guard position < runs[run].entries.count, runs[run].entries[position] == slot else { return }
        let change = store[slot].completed ? 1 : -1
        runs[run].completedCount += change
        completedCount += change
    }

    /// The run where `slot` is or belongs: the first whose last entry is not before it, else the
    /// last run (binary search).
    private func runIndex(for slot: Int32, _ store: borrowing TodoSlots) -> Int {
        var low = 0
        var high = runs.count - 1
        while low < high {
            let middle = (low + high) / 2
            if Self.compare(runs[middle].entries[runs[middle].entries.count - 1], slot, store) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}

extension Array where Element == Int32 {
    /// The first position whose to-do is not before the one in `slot` in title order (binary search).
    func firstIndex(notBefore slot: Int32, _ store: borrowing TodoSlots) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if TitleOrderIndex.compare(self[middle], slot, store) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
