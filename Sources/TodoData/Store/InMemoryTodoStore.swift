import ChangeFeed
import EventLoops
import LockTracing
import Synchronization

/// The default store: compact records in slots (`TodoSlots`) behind a `Mutex`, safe under several
/// loop threads. Get by id is O(1) through an open-addressing table of slot numbers; a page of the
/// default order is O(limit) through `DefaultOrderIndex`, one of `sort=title` through
/// `TitleOrderIndex`, `q=` is answered by `SearchArena` (other sorts filter and sort); `upcoming`
/// reads a slice of `DueDateIndex`. The indexes hold slot numbers. A page crosses the seam as
/// `PackedTodos` read from the records (no string per to-do), a single to-do as a `Todo` made
/// from its record (with the caller's id string when it named a UUID); every call completes
/// before it returns.
public final class InMemoryTodoStore: TodoStore {
    private struct State {
        var slots = TodoSlots()
        var index = DefaultOrderIndex()
        var dueIndex = DueDateIndex()
        var titles = TitleOrderIndex()

        /// Stores `todo` (replacing the one with its id) and files it in the indexes: every write
        /// path, the journal's `apply` included, goes through here and `delete`. An index is
        /// touched only when what it orders by changed.
        mutating func put(_ todo: Todo) {
            guard let slot = slots.slot(of: todo.id) else {
                let slot = slots.add(todo)
                index.insert(slot, slots)
                dueIndex.insert(slot, slots)
                titles.insert(slot, slots)
                return
            }
            let old = slots[slot]
            let new = TodoRecord(fieldsOf: todo)
            let movesDefault = new.movesInDefaultOrder(from: old)
            let movesDue = DueDateIndex.moves(from: old, to: new)
            let movesTitle = new.createdAt != old.createdAt || !slots.titleEquals(slot, todo.title)
            // Out of the indexes while the record is as they filed it, back in once it changed.
            if movesDefault { index.remove(slot, slots) }
            if movesDue { dueIndex.remove(slot, slots) }
            if movesTitle { titles.remove(slot, slots) }
            slots.overwrite(slot, with: todo)
            if movesDefault { index.insert(slot, slots) }
            if movesDue { dueIndex.insert(slot, slots) }
            if movesTitle {
                titles.insert(slot, slots)
            } else if old.completed != new.completed {
                titles.completedChanged(slot, slots)
            }
        }

        mutating func delete(id: String) {
            guard let slot = slots.slot(of: id) else { return }
            index.remove(slot, slots)
            dueIndex.remove(slot, slots)
            titles.remove(slot, slots)
            slots.remove(slot)
        }

        /// The indexes of every stored to-do, built with one sort each.
        mutating func reindex() {
            index = DefaultOrderIndex(slots)
            dueIndex = DueDateIndex(slots)
            titles = TitleOrderIndex(slots)
        }
    }

    private let state = Mutex(State())
    /// Every change, in the order applied (appended under `state`'s lock, so that a page and the
    /// cursor it reports agree; its listeners are told once the lock is released).
    public let changes: ChangeLog
    /// Each named owner's to-dos, in a store of their own (its own records, indexes and change
    /// log, a sibling of this one's), made on first use: an owner's list costs what a store
    /// holding only that owner's to-dos costs. Only the shared list's store (the one the server
    /// makes) has them; an owner's store is reached through it.
    private let owners: Mutex<[Owner: InMemoryTodoStore]>
    /// In an owner's store: whose it is, and the store that holds it.
    private let owner: Owner
    private weak let parent: InMemoryTodoStore?

    /// A change log for a store that lives as long as the process: tagged at random, so that a
    /// cursor from an earlier life is unknown rather than misread.
    public static func processChangeLog(retaining capacity: Int) -> ChangeLog {
        var random = SystemRandomNumberGenerator()
        let tag = "m" + String(random.next() as UInt32, radix: 16)
        return ChangeLog(tag: tag, capacity: capacity, start: ChangePosition(major: 1, minor: 0))
    }

    /// A store holding `todos` exactly as given, revisions included: what recovery from disk builds.
    public init(
        restoring todos: [String: Todo],
        changes: ChangeLog = InMemoryTodoStore.processChangeLog(retaining: StoreDefaults.eventsRetained)
    ) {
        self.changes = changes
        owners = Mutex([:])
        owner = .shared
        parent = nil
        restore(todos)
    }

    /// Fills this store, empty and not yet read, with `todos` exactly as given, revisions
    /// included (recovery from disk, the shared list's and each owner's store).
    func restore(_ todos: [String: Todo]) {
        state.withTracedLock { state in
            for todo in todos.values { _ = state.slots.add(todo) }
            state.reindex()
        }
    }

    /// A store holding `initial`, each at revision 1; `changesRetained` changes kept for replay.
    public init(_ initial: [Todo] = [], changesRetained: Int = StoreDefaults.eventsRetained) {
        changes = Self.processChangeLog(retaining: changesRetained)
        owners = Mutex([:])
        owner = .shared
        parent = nil
        state.withTracedLock { state in
            for var todo in initial {
                todo.revision = 1
                state.put(todo)
            }
        }
    }

    /// An owner's store in `parent`.
    private init(owner: Owner, of parent: InMemoryTodoStore) {
        changes = parent.changes.sibling()
        owners = Mutex([:])
        self.owner = owner
        self.parent = parent
    }

    /// `owner`'s to-dos: this store for the shared list, else the owner's own store (made now if
    /// the owner has none yet).
    public func owned(by owner: Owner) -> any TodoStore { store(of: owner) }

    /// `owner`'s store (`owned(by:)`, typed).
    public func store(of owner: Owner) -> InMemoryTodoStore {
        if owner == self.owner { return self }
        if let parent { return parent.store(of: owner) }
        return owners.withTracedLock { owners in
            if let store = owners[owner] { return store }
            let store = InMemoryTodoStore(owner: owner, of: self)
            owners[owner] = store
            return store
        }
    }

    /// Every owner's store (the shared list's not included).
    var ownerStores: [InMemoryTodoStore] { owners.withTracedLock { Array($0.values) } }

    /// The number of to-dos in this list, read without waiting.
    public var count: Int { state.withTracedLock { $0.slots.liveCount } }

    /// The number of to-dos of every owner together (what the shared list's store reports in its
    /// statistics: `/metrics` and `/healthz` show the server's, never an owner's).
    public var totalCount: Int { ownerStores.reduce(count) { $0 + $1.count } }

    public func statistics() -> Pending<Result<StoreStatistics, StoreError>> {
        .ready(.success(StoreStatistics(count: parent == nil ? totalCount : count)))
    }

    public func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>> {
        var todo = todo
        todo.revision = 1
        state.withTracedLock { [todo, changes] state in
            state.put(todo)
            return changes.appendNextUnannounced(.created(todo)).announcement
        }.announce()
        return .ready(.success(todo))
    }

    public func todo(id: String) -> Pending<Result<Todo?, StoreError>> {
        .ready(.success(state.withTracedLock { state in state.slots.slot(of: id).map { state.slots.todo($0, named: id) } }))
    }

    public func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>> {
        // One lock: the search arena answers searches, the title index title orders, the
        // default-order index the default order, and any other order filters and sorts.
        .ready(
            .success(
                state.withTracedLock { [changes] state in
                    var page = Self.page(query, state)
                    page.lastChange = changes.head
                    return page
                }))
    }

    private static func page(_ query: TodoQuery, _ state: State) -> TodoPage {
        do {
            let slots = state.slots
            if let needle = query.titleContains, !needle.isEmpty {
                let page = SearchArena.page(
                    query, search: TitleSearch(needle), store: slots, defaultOrder: state.index, titles: state.titles)
                return TodoPage(items: slots.packed(page.slots), total: page.total)
            }
            if let page = state.titles.page(query, slots) {
                return TodoPage(items: slots.packed(page.slots), total: page.total)
            }
            return query.sort == TodoSort() ? Self.indexedPage(query, state) : Self.sortedPage(query, state)
        }
    }

    /// A page in any other order. Only the to-dos up to the end of the page are put in order, and
    /// only the page is read out: the others are compared in place, by their records.
    private static func sortedPage(_ query: TodoQuery, _ state: State) -> TodoPage {
        let slots = state.slots
        // (A non-empty `q=` is answered by the search arena: only `completed=` filters here.)
        let matching = slots.liveSlots.filter { query.completed == nil || slots[$0].completed == query.completed }
        guard query.offset < matching.count else { return TodoPage(items: PackedTodos(), total: matching.count) }
        let (end, overflow) = query.offset.addingReportingOverflow(query.limit)
        let sort = query.sort
        let first = matching.smallest(overflow ? matching.count : min(end, matching.count)) {
            slots.areInIncreasingOrder(sort, $0, $1)
        }
        return TodoPage(items: slots.packed(first.dropFirst(query.offset).prefix(query.limit)), total: matching.count)
    }

    /// A page in the default order from the index: O(limit) without filters, one pass with them.
    private static func indexedPage(_ query: TodoQuery, _ state: State) -> TodoPage {
        let order = state.index.slots
        let slots = state.slots
        guard let completed = query.completed else {
            let end = min(order.count, query.offset.addingReportingOverflow(query.limit).partialValue)
            let page = query.offset < end ? order[query.offset..<end] : order[0..<0]
            return TodoPage(items: slots.packed(page), total: order.count)
        }
        var page: [Int32] = []
        page.reserveCapacity(min(query.limit, order.count))
        var total = 0
        for slot in order where slots[slot].completed == completed {
            if total >= query.offset && page.count < query.limit { page.append(slot) }
            total += 1
        }
        return TodoPage(items: slots.packed(page), total: total)
    }

    public func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>> {
        .ready(
            .success(
                state.withTracedLock { state in
                    state.dueIndex.range(from: from, through: through, state.slots).map { state.slots.todo($0) }
                }))
    }

    public func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp
    ) -> Pending<Result<StoreUpdate, StoreError>> {
        let (outcome, announcement) = state.withTracedLock { [changes] state in
            let stored = state.slots.slot(of: id).map { state.slots.todo($0, named: id) }
            let outcome = StoreUpdate.decide(
                stored: stored, change: change, condition: condition, at: time, nextRevision: { $0.revision + 1 })
            guard case .updated(let todo) = outcome else { return (outcome, ChangeAnnouncement.none) }
            state.put(todo)
            return (outcome, changes.appendNextUnannounced(.updated(todo)).announcement)
        }
        announcement.announce()
        return .ready(.success(outcome))
    }

    public func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>> {
        let (removal, announcement) = state.withTracedLock { [changes] state -> (StoreRemoval, ChangeAnnouncement) in
            guard let slot = state.slots.slot(of: id) else { return (.notFound, .none) }
            let todo = state.slots.todo(slot, named: id)
            if condition.failure(for: todo) != nil { return (.conditionFailed(todo), .none) }
            state.delete(id: id)
            return (.removed, changes.appendNextUnannounced(.deleted(id: id)).announcement)
        }
        announcement.announce()
        return .ready(.success(removal))
    }

    /// Removes every to-do. The freed pages go back to the OS (the allocator keeps them otherwise),
    /// so an emptied store shrinks the process: this thread's at once, every loop's at its next
    /// sweep (`MemoryRelease`).
    public func removeAll() -> Pending<Result<Void, StoreError>> {
        var old = State()
        state.withTracedLock { [changes] state in
            swap(&state, &old)
            return changes.appendNextUnannounced(.cleared).announcement
        }.announce()
        old = State()  // frees the old to-dos here, outside the lock, before the trim
        MemoryRelease.release()
        return .ready(.success(()))
    }

    /// Applies changes the journal has written, with the revisions they took (the durable store
    /// prepares them on a `ProjectedStore` and applies them only once they are written), each at its
    /// position in the journal (`positions[i]` is `records[i]`'s) and to its owner's store: in
    /// runs of one owner's records, in journal order, so that the sibling logs take them in the
    /// order of their positions. The shared list's records are this store's (called on the shared
    /// list's store). Answers the announcements of what the logs took, for the caller to make once
    /// it let go of its own lock (the journal's writer's).
    func apply(_ records: [OwnedRecord], at positions: [ChangePosition]) -> [ChangeAnnouncement] {
        var announcements: [ChangeAnnouncement] = []
        var start = 0
        while start < records.count {
            let owner = records[start].owner
            var end = start + 1
            while end < records.count, records[end].owner == owner { end += 1 }
            let announcement = store(of: owner).applyOwn(records[start..<end], at: positions[start..<end])
            // One that tells nobody (no subscriber) is not kept: nothing is allocated for it.
            if !announcement.isEmpty { announcements.append(announcement) }
            start = end
        }
        return announcements
    }

    /// Applies records of this store's owner (`apply`); answers the announcement of them.
    private func applyOwn(_ records: ArraySlice<OwnedRecord>, at positions: ArraySlice<ChangePosition>) -> ChangeAnnouncement {
        var cleared: [State] = []
        let announcement = state.withTracedLock { [changes] state in
            var applied: [StoreChange] = []
            applied.reserveCapacity(records.count)
            for (owned, position) in zip(records, positions) {
                let record = owned.record
                switch record {
                case .put(let todo): state.put(todo)
                case .remove(let id, _): state.delete(id: id)
                case .removeAll:
                    var old = State()
                    swap(&state, &old)
                    cleared.append(old)
                }
                applied.append(StoreChange(position: position, kind: record.changeKind))
            }
            return changes.appendUnannounced(applied)
        }
        guard !cleared.isEmpty else { return announcement }
        cleared = []  // frees the old to-dos here, outside the lock, before the trim
        MemoryRelease.release()
        return announcement
    }

    /// Every to-do, as one consistent picture: the records are copied under the lock
    /// (copy-on-write: O(1) there, a change pays for copying the one chunk it writes), the to-dos
    /// made from them after it.
    func snapshot() -> [String: Todo] {
        let slots = state.withTracedLock { $0.slots }
        var todos: [String: Todo] = [:]
        todos.reserveCapacity(slots.liveCount)
        for slot in slots.liveSlots {
            let todo = slots.todo(slot)
            todos[todo.id] = todo
        }
        return todos
    }

    /// Every owner's to-dos (`snapshot` of the shared list's store and of each owner's), for a
    /// journal's snapshot: consistent while nothing but the caller changes the stores (the
    /// journal's writer, which alone applies changes to a durable store's memory).
    func snapshots() -> OwnedTodos {
        var todos = OwnedTodos(shared: snapshot())
        for (owner, store) in owners.withTracedLock({ $0 }) {
            let owned = store.snapshot()
            if !owned.isEmpty { todos.owners[owner] = owned }
        }
        return todos
    }
}
