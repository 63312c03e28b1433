import EventLoops
import Glibc
import Logging
import Synchronization

/// The in-memory store made durable: every change is written to a journal in the data directory
/// before it becomes visible and is answered (write-ahead), and start-up rebuilds the to-dos from
/// the snapshot and journal there. Reads never touch the disk; writes never block a loop.
public final class DurableTodoStore: TodoStore {
    private let memory: InMemoryTodoStore
    private let journal: Journal
    private let lockFD: Int32

    /// Opens (creating if needed) `directory`, replays what it holds and continues its journal.
    /// Damage that would lose changes stops it (`JournalError`) unless `recovery` is `truncate`.
    public convenience init(
        directory: String, fsync: FsyncPolicy, compactionBytes: Int, recovery: RecoveryMode = .off,
        changesRetained: Int = 10_000, logger: Logger
    ) throws(JournalError) {
        try self.init(
            directory: directory, fsync: fsync, compactionBytes: compactionBytes, recovery: recovery,
            changesRetained: changesRetained, logger: logger, faults: .none)
    }

    /// The same with a fault-injection seam on the journal's writes and fsyncs (tests).
    init(
        directory: String, fsync: FsyncPolicy, compactionBytes: Int, recovery: RecoveryMode = .off,
        changesRetained: Int = 10_000, logger: Logger, faults: JournalFaults
    ) throws(JournalError) {
        try FileIO.makeDirectory(directory)
        lockFD = try FileIO.lockFile(directory + "/LOCK")
        let recovered: JournalRecovery.Recovered
        let tag: String
        do {
            tag = try FeedIdentity.tag(directory: directory)
            recovered = try JournalRecovery.recover(directory: directory, mode: recovery)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
        // The journal's positions outlive the process: a client resumes across a restart from
        // what the journals since the last snapshot hold; tagged with the directory's own name.
        let changes = ChangeLog(tag: tag, capacity: changesRetained, start: recovered.changesFloor)
        changes.append(recovered.changes)
        let memory = InMemoryTodoStore(restoring: recovered.todos, changes: changes)
        self.memory = memory
        report = recovered.report
        journal = Journal(
            directory: directory, fd: recovered.fd, generation: recovered.report.generation,
            fileBytes: recovered.fileBytes, records: recovered.records, policy: fsync, compactionBytes: compactionBytes,
            memory: memory, logger: logger, faults: faults)
    }

    /// Every change, in journal order.
    public var changes: ChangeLog { memory.changes }

    /// The shared list only, for now: the configuration refuses owners with a data directory
    /// until the journal records owners.
    public func owned(by owner: Owner) -> any TodoStore {
        precondition(owner.isShared, "owners are not journaled yet: the configuration refuses owners with dataDir")
        return self
    }

    /// What start-up recovered.
    public let report: RecoveryReport

    /// The number of to-dos, read without waiting.
    public var count: Int { memory.count }

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

    /// Syncs and closes the journal; call once the loops have stopped. Gives up after `seconds`
    /// when the disk stalls; answers whether the journal was closed.
    @discardableResult
    public func close(waitingAtMost seconds: Double = 30) -> Bool {
        let closed = journal.close(waitingAtMost: seconds)
        // Once only: a second close(2) of the lock's number would close whatever file reused it.
        if !lockReleased.exchange(true, ordering: .acquiringAndReleasing) { Glibc.close(lockFD) }
        return closed
    }

    /// Whether `close` has released the data directory's lock.
    private let lockReleased = Atomic<Bool>(false)

    /// Hands the change to the journal's writer, which prepares it on the store as the changes
    /// before it leave it, and answers on the calling loop once its records are written (under
    /// `always`: synced) and applied (or at once, when the journal refuses it).
    private func submit<T>(_ prepare: @escaping (inout ProjectedStore) -> (T, [JournalRecord])) -> Pending<Result<T, StoreError>> {
        Pending { promise in
            journal.submit(
                Journal.Change(
                    prepare: { projected in
                        let (result, records) = prepare(&projected)
                        return (records, { failure in promise.fulfil(failure.map { .failure($0) } ?? .success(result)) })
                    },
                    refuse: { promise.fulfil(.failure($0)) },
                    loop: EventLoop.current))
        }
    }
}
