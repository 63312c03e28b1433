import Dispatch
import EventHTTP
import Glibc
import Logging
import Synchronization

/// When the journal forces its writes to the disk.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// Each response waits until its record is on disk; many requests share one fsync (group commit).
    case always
    /// Records reach the OS before the response; an fsync at most every second (power loss: ≤ ~1 s lost).
    case interval
    /// Records reach the OS before the response; the OS decides when they reach the disk.
    case never
}

/// The append-only log of changes behind `DurableTodoStore`: writes records in change order,
/// makes them durable by its policy, and compacts itself into a snapshot in the background.
final class Journal: Sendable {
    /// Work to run once a record is durable (nil) or cannot be (the error), with the loop to run
    /// it on (nil: on the sync thread). Only carried, never run, off that loop: hence unchecked.
    private struct Waiter: @unchecked Sendable {
        let sequence: UInt64
        let executor: LoopExecutor?
        let work: (StoreError?) -> Void

        func deliver(_ failure: StoreError?) {
            guard let executor else { return work(failure) }
            executor.execute { [self] in work(failure) }
        }
    }

    private struct State {
        var fd: Int32
        var generation: UInt64
        var fileBytes: Int
        /// Records written to the OS so far, and how many of them are known to be on disk.
        var written: UInt64 = 0
        var synced: UInt64 = 0
        var syncScheduled = false
        var waiters: [Waiter] = []
        /// Descriptors of journals replaced by compaction, still to sync and close.
        var retired: [(fd: Int32, path: String)] = []
        var compacting = false
        var failure: StoreError?
        var buffer: [UInt8] = []
    }

    let directory: String
    let policy: FsyncPolicy
    private let compactionBytes: Int
    private let logger: Logger
    private let state: Mutex<State>
    private let snapshotSource: @Sendable () -> (todos: [String: Todo], revision: UInt64)
    private let syncQueue = DispatchQueue(label: "todo-server.journal.sync")
    private let compactionQueue = DispatchQueue(label: "todo-server.journal.compaction", qos: .utility)

    /// Continues journal `generation`, open for appending at `fd` with `fileBytes` in it.
    init(
        directory: String, fd: Int32, generation: UInt64, fileBytes: Int, policy: FsyncPolicy, compactionBytes: Int,
        logger: Logger, snapshotSource: @escaping @Sendable () -> (todos: [String: Todo], revision: UInt64)
    ) {
        self.directory = directory
        self.policy = policy
        self.compactionBytes = compactionBytes
        self.logger = logger
        self.snapshotSource = snapshotSource
        state = Mutex(State(fd: fd, generation: generation, fileBytes: fileBytes))
        if policy == .interval { scheduleIntervalSync() }
    }

    /// The `interval` policy's fsync, once a second while the journal is open.
    private func scheduleIntervalSync() {
        syncQueue.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, state.withLock(tracing: self, { $0.fd >= 0 }) else { return }
            syncNow()
            scheduleIntervalSync()
        }
    }

    private var currentPath: String { directory + "/" + JournalFormat.journalName(state.withLock(tracing: self) { $0.generation }) }

    /// Runs `change` with the journal locked and writes the records it returns before unlocking,
    /// so the file holds changes in the order they were made. Answers the change's result and the
    /// sequence number to pass to `whenDurable` (0: nothing was written).
    func record<T>(_ change: () -> (T, [JournalRecord])) -> Result<(T, UInt64), StoreError> {
        let (outcome, compact) = state.withLock(tracing: self) { state -> (Result<(T, UInt64), StoreError>, Bool) in
            if let failure = state.failure { return (.failure(failure), false) }
            let (result, records) = change()
            guard !records.isEmpty else { return (.success((result, 0)), false) }
            state.buffer.removeAll(keepingCapacity: true)
            for record in records { record.frame(into: &state.buffer) }
            let path = directory + "/" + JournalFormat.journalName(state.generation)
            do {
                try FileIO.writeAll(state.fd, state.buffer, path: path)
            } catch {
                let failure = StoreError(reason: "The journal cannot be written (\(error)); changes are refused until the server is restarted.")
                state.failure = failure
                return (.failure(failure), false)
            }
            state.written += UInt64(records.count)
            state.fileBytes += state.buffer.count
            let compact = state.fileBytes >= compactionBytes && !state.compacting
            if compact { state.compacting = true }
            return (.success((result, state.written)), compact)
        }
        if case .failure(let failure) = outcome { logger.error("journal write failed", metadata: ["reason": "\(failure.reason)"]) }
        if compact { startCompaction() }
        return outcome
    }

    /// Runs `work` once record `sequence` is durable under the policy: at once unless the policy
    /// is `always`; else on `executor`'s loop after the fsync that covers it, or with the error
    /// when that fsync fails (the change must then not be acknowledged).
    func whenDurable(_ sequence: UInt64, on executor: LoopExecutor?, _ work: @escaping (StoreError?) -> Void) {
        guard policy == .always, sequence > 0 else { return work(nil) }
        let waiter = Waiter(sequence: sequence, executor: executor, work: work)
        let now: StoreError?? = state.withLock(tracing: self) { state in
            guard state.synced < sequence else { return .some(nil) }
            if let failure = state.failure { return .some(failure) }
            state.waiters.append(waiter)
            if !state.syncScheduled {
                state.syncScheduled = true
                syncQueue.async { [self] in groupCommit() }
            }
            return .none
        }
        if let now { work(now) }
    }

    /// One fsync for every record written so far; answers the waiters it covers and goes again
    /// while more wait (the group commit of the `always` policy).
    private func groupCommit() {
        let done = syncNow()
        let (covered, again) = state.withLock(tracing: self) { state -> ([Waiter], Bool) in
            let covered = state.waiters.filter { $0.sequence <= state.synced }
            state.waiters.removeAll { $0.sequence <= state.synced }
            let again = !state.waiters.isEmpty && done
            state.syncScheduled = again
            return (covered, again)
        }
        for waiter in covered { waiter.deliver(nil) }
        if again { syncQueue.async { [self] in groupCommit() } }
    }

    /// Syncs the retired journals and the current one; on failure marks the journal failed and
    /// answers the waiters with it. Runs on the sync queue. Answers whether the sync succeeded.
    @discardableResult
    private func syncNow() -> Bool {
        let (target, fd, generation, retired) = state.withLock(tracing: self) { state in
            defer { state.retired = [] }
            return (state.written, state.fd, state.generation, state.retired)
        }
        do {
            for old in retired {
                defer { Glibc.close(old.fd) }
                if policy != .never { try FileIO.sync(old.fd, path: old.path) }
            }
            if state.withLock(tracing: self, { $0.synced < target }) {
                try FileIO.sync(fd, path: directory + "/" + JournalFormat.journalName(generation))
            }
            state.withLock(tracing: self) { $0.synced = max($0.synced, target) }
            return true
        } catch {
            logger.error("journal fsync failed", metadata: ["reason": "\(error)"])
            let failure = StoreError(reason: "The journal cannot be synced to disk (\(error)); changes are refused until the server is restarted.")
            let waiters = state.withLock(tracing: self) { state in
                state.failure = failure
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.deliver(failure) }
            return false
        }
    }

    /// Syncs what is written and closes the journal: the last call, after the loops have stopped.
    func close() {
        compactionQueue.sync {}
        syncQueue.sync { if policy != .never { syncNow() } }
        state.withLock(tracing: self) { state in
            for old in state.retired { Glibc.close(old.fd) }
            Glibc.close(state.fd)
            state.fd = -1
            state.failure = StoreError(reason: "The journal is closed.")
        }
    }
}

extension Journal {
    /// Starts journal generation + 1 and writes the state as of this moment into snapshot
    /// generation + 1 in the background; then the older files go.
    private func startCompaction() {
        let rotated = state.withLock(tracing: self) { state -> (generation: UInt64, picture: (todos: [String: Todo], revision: UInt64))? in
            let next = state.generation + 1
            let path = directory + "/" + JournalFormat.journalName(next)
            do {
                let fd = try FileIO.openForAppend(path, create: true)
                let header = JournalFormat.journalHeader(generation: next)
                try FileIO.writeAll(fd, header, path: path)
                state.retired.append((state.fd, directory + "/" + JournalFormat.journalName(state.generation)))
                state.fd = fd
                state.generation = next
                state.fileBytes = header.count
                return (next, snapshotSource())
            } catch {
                state.compacting = false
                logger.error("journal rotation failed; will retry at the next change", metadata: ["reason": "\(error)"])
                return nil
            }
        }
        guard let rotated else { return }
        compactionQueue.async { [self] in
            let started = ContinuousClock.now
            do {
                try SnapshotWriter.write(
                    rotated.picture.todos, revision: rotated.picture.revision, generation: rotated.generation,
                    directory: directory)
                try removeFiles(before: rotated.generation)
                logger.info(
                    "journal compacted",
                    metadata: [
                        "todos": "\(rotated.picture.todos.count)", "generation": "\(rotated.generation)",
                        "ms": "\((ContinuousClock.now - started).milliseconds)",
                    ])
            } catch {
                logger.error("snapshot failed; the journals stay", metadata: ["reason": "\(error)"])
            }
            state.withLock(tracing: self) { $0.compacting = false }
        }
    }

    /// Deletes journals and snapshots older than `generation`, once its snapshot is durable.
    private func removeFiles(before generation: UInt64) throws(JournalError) {
        for name in try FileIO.fileNames(in: directory) {
            let old = JournalFormat.generation(of: name, prefix: "journal-", suffix: ".log")
                ?? JournalFormat.generation(of: name, prefix: "snapshot-", suffix: ".bin")
            if let old, old < generation { unlink(directory + "/" + name) }
        }
        try FileIO.syncDirectory(directory)
    }
}

extension Duration {
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
