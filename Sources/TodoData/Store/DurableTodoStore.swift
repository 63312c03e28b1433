import ChangeFeed
import EventLoops
import Glibc
import LockTracing
import Logging
import Synchronization

/// The in-memory store made durable: every change is written to a journal in the data directory
/// before it becomes visible and is answered (write-ahead), and start-up rebuilds the to-dos from
/// the snapshot and journal there. Reads never touch the disk; writes never block a loop.
///
/// Owners: the store the server opens acts on the shared list; `owned(by:)` answers a store of
/// the same journal acting on one owner's to-dos (read from that owner's in-memory store, written
/// to the one journal in records that carry the owner, applied to that owner's store and change
/// log at the journal's positions).
public final class DurableTodoStore: TodoStore {
    /// This store's owner's to-dos (the shared list's store, which holds every owner's store, for
    /// the store the server opens).
    private let memory: InMemoryTodoStore
    private let owner: Owner
    private let journal: Journal
    private let lock: DirectoryLock
    /// The store the server opened, in an owner's store (nil in that one).
    private weak let root: DurableTodoStore?
    /// Owners' stores, made on first use (in the store the server opened).
    private let ownerStores = Mutex<[Owner: DurableTodoStore]>([:])

    /// Opens (creating if needed) `directory`, replays what it holds and continues its journal.
    /// Damage that would lose changes stops it (`JournalError`) unless `recovery` is `truncate`.
    public convenience init(
        directory: String, fsync: FsyncPolicy, compactionBytes: Int, recovery: RecoveryMode = .off,
        changesRetained: Int = StoreDefaults.eventsRetained, logger: Logger
    ) throws(JournalError) {
        try self.init(
            directory: directory, fsync: fsync, compactionBytes: compactionBytes, recovery: recovery,
            changesRetained: changesRetained, logger: logger, faults: .none)
    }

    /// The same with a fault-injection seam on the journal's writes and fsyncs (tests).
    init(
        directory: String, fsync: FsyncPolicy, compactionBytes: Int, recovery: RecoveryMode = .off,
        changesRetained: Int = StoreDefaults.eventsRetained, logger: Logger, faults: JournalFaults
    ) throws(JournalError) {
        try FileIO.makeDirectory(directory)
        let lockFD = try FileIO.lockFile(directory + "/LOCK")
        let recovered: JournalRecovery.Recovered
        let tag: String
        do {
            tag = try FeedIdentity.tag(directory: directory)
            recovered = try JournalRecovery.recover(directory: directory, mode: recovery)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
        lock = DirectoryLock(fd: lockFD)
        // The journal's positions outlive the process: a client resumes across a restart from
        // what the journals since the last snapshot hold; tagged with the directory's own name.
        // Each owner's changes go to that owner's log (siblings of the shared list's: one
        // position order, one retention budget), in journal order.
        let changes = ChangeLog(tag: tag, capacity: changesRetained, start: recovered.changesFloor)
        let memory = InMemoryTodoStore(restoring: recovered.todos.shared, changes: changes)
        for (owner, todos) in recovered.todos.owners where !todos.isEmpty { memory.store(of: owner).restore(todos) }
        var start = 0
        let replayed = recovered.changes
        while start < replayed.count {
            let owner = replayed[start].owner
            var end = start + 1
            while end < replayed.count, replayed[end].owner == owner { end += 1 }
            memory.store(of: owner).changes.append(replayed[start..<end].map(\.change))
            start = end
        }
        self.memory = memory
        owner = .shared
        root = nil
        report = recovered.report
        journal = Journal(
            directory: directory, fd: recovered.fd, generation: recovered.report.generation,
            fileBytes: recovered.fileBytes, records: recovered.records, policy: fsync, compactionBytes: compactionBytes,
            memory: memory, logger: logger, faults: faults)
    }

    /// `owner`'s store on `root`'s journal.
    private init(owner: Owner, of root: DurableTodoStore) {
        memory = root.memory.store(of: owner)
        self.owner = owner
        journal = root.journal
        lock = root.lock
        report = root.report
        self.root = root
    }

    /// This list's changes, in journal order (an owner's: theirs only, at the journal's positions).
    public var changes: ChangeLog { memory.changes }

    /// `owner`'s to-dos on the same journal: this store for its own owner, else the owner's store
    /// (made on first use, then kept).
    public func owned(by owner: Owner) -> any TodoStore { store(of: owner) }

    /// `owner`'s store (`owned(by:)`, typed).
    public func store(of owner: Owner) -> DurableTodoStore {
        if owner == self.owner { return self }
        guard let root else {
            return ownerStores.withTracedLock { stores in
                if let store = stores[owner] { return store }
                let store = DurableTodoStore(owner: owner, of: self)
                stores[owner] = store
                return store
            }
        }
        return root.store(of: owner)
    }

    /// What start-up recovered.
    public let report: RecoveryReport

    /// The number of to-dos in this list, read without waiting.
    public var count: Int { memory.count }

    /// Every owner's to-dos together (the shared list's store); this owner's (an owner's store).
    public func statistics() -> Pending<Result<StoreStatistics, StoreError>> {
        memory.statistics()
    }

    /// Why changes are refused now (the disk failed a write or fsync), nil while they are not.
    public var writeRefusal: String? { journal.refusal }

    public func todo(id: String) -> Pending<Result<Todo?, StoreError>> {
        memory.todo(id: id)
    }

    public func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>> {
        memory.list(query)
    }

    public func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>> {
        memory.upcoming(from: from, through: through)
    }

    public func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>> {
        submit { _ in
            var stored = todo
            stored.revision = 1
            return (stored, [.put(stored)])
        }
    }

    public func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp
    ) -> Pending<Result<StoreUpdate, StoreError>> {
        submit { projected in
            let outcome = StoreUpdate.decide(
                stored: projected.todo(id: id), change: change, condition: condition, at: time,
                nextRevision: { projected.nextRevision(after: $0) })
            guard case .updated(let todo) = outcome else { return (outcome, []) }
            return (outcome, [.put(todo)])
        }
    }

    public func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>> {
        submit { projected in
            guard let todo = projected.todo(id: id) else { return (.notFound, []) }
            if condition.failure(for: todo) != nil { return (.conditionFailed(todo), []) }
            return (.removed, [.remove(id: id, revision: projected.nextRevision(after: todo))])
        }
    }

    public func removeAll() -> Pending<Result<Void, StoreError>> {
        submit { _ in ((), [.removeAll(revision: 0)]) }
    }

    /// Syncs and closes the journal (every owner's: there is one); call once the loops have
    /// stopped. Gives up after `seconds` when the disk stalls; answers whether the journal was closed.
    @discardableResult
    public func close(waitingAtMost seconds: Double = 30) -> Bool {
        let closed = journal.close(waitingAtMost: seconds)
        lock.release()
        return closed
    }

    /// Hands the change to the journal's writer, which prepares it on the store as the changes
    /// before it leave it, and answers on the calling loop once its records are written (under
    /// `always`: synced) and applied (or at once, when the journal refuses it).
    private func submit<T>(_ prepare: @escaping (inout ProjectedStore) -> (T, [JournalRecord])) -> Pending<Result<T, StoreError>> {
        Pending { promise in
            journal.submit(
                Journal.Change(
                    owner: owner,
                    prepare: { projected in
                        let (result, records) = prepare(&projected)
                        return (records, { failure in promise.fulfil(failure.map { .failure($0) } ?? .success(result)) })
                    },
                    refuse: { promise.fulfil(.failure($0)) },
                    loop: EventLoop.current))
        }
    }
}

/// The data directory's `LOCK`, held open while the store is (one for the store and its owners' stores).
private final class DirectoryLock: Sendable {
    private let fd: Int32
    /// Whether `release` has closed it.
    private let released = Atomic<Bool>(false)

    init(fd: Int32) {
        self.fd = fd
    }

    /// Closes the lock's file, once only: a second close(2) of its number would close whatever
    /// file reused it.
    func release() {
        if !released.exchange(true, ordering: .acquiringAndReleasing) { Glibc.close(fd) }
    }
}
