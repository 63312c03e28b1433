import ChangeFeed
import Dispatch
import EventLoops
import Glibc
import LockTracing
import Logging
import Synchronization

/// When the journal forces its writes to the disk.
public enum FsyncPolicy: String, Sendable, CaseIterable {
    /// A change becomes visible and is answered once its record is on disk; many changes share
    /// one fsync (group commit).
    case always
    /// A change becomes visible once its record reaches the OS; an fsync at most every second
    /// (power loss: ≤ ~1 s lost).
    case interval
    /// A change becomes visible once its record reaches the OS; the OS decides when it reaches the disk.
    case never
}

/// The write-ahead log behind `DurableTodoStore`.
///
/// Every change goes to one writer thread (a serial queue; the loops never touch the disk). The
/// writer takes all changes queued so far as one batch, prepares each against the store as the
/// changes before it leave it (`ProjectedStore`), writes the batch's records with one `write`, syncs
/// them when the policy is `always` (group commit), and only then applies them to memory and
/// answers them, each on its own loop. A write or fsync that fails fails the whole batch: nothing
/// of it is applied, the file is cut back to the last good record, and the revisions it took
/// from its to-dos are never handed out again while the store runs. Changes after a failure first repair the journal; the first
/// batch written whole ends the refusal (no restart needed).
final class Journal: Sendable {
    /// One change waiting for the writer. Its closures run on the writer thread; the answer is
    /// carried to the change's loop: hence unchecked.
    struct Change: @unchecked Sendable {
        /// Whose to-dos the change acts on: it is prepared against the projection of that owner's
        /// to-dos alone, and its records carry the owner.
        let owner: Owner
        /// Computes the change on `projected`; answers its records and what to run once they are
        /// written and applied (nil) or cannot be (the error).
        let prepare: (inout ProjectedStore) -> (records: [JournalRecord], finish: (StoreError?) -> Void)
        /// Answers the change that was never prepared (the journal is closed or refusing).
        let refuse: (StoreError) -> Void
        /// The loop to answer on; nil: on the writer thread.
        let loop: EventLoop?

        func deliver(_ work: @escaping () -> Void) {
            guard let loop else { return work() }
            let carried = UncheckedWork(work: work)
            loop.execute { carried.work() }
        }
    }

    private struct UncheckedWork: @unchecked Sendable {
        let work: () -> Void
    }

    /// What the loops share with the writer.
    private struct Inbox {
        var changes: [Change] = []
        var closed = false
        /// Why changes are refused (nil: they are not); for health.
        var refusal: String?
    }

    /// Why the journal refuses changes: a write failed (the file is cut back to `goodLength`),
    /// or an fsync did (what the file holds is unknown: a new journal with a snapshot repairs it).
    private enum Failure {
        case write(StoreError)
        case sync(StoreError)

        var error: StoreError {
            switch self {
            case .write(let error), .sync(let error): error
            }
        }
    }

    /// What only the writer thread touches (behind a lock that nothing else contends).
    private struct Writer {
        var fd: Int32
        var generation: UInt64
        /// Bytes of whole, written records in the current journal.
        var fileBytes: Int
        /// Records written to the current journal: the next one's position is (generation, this + 1).
        var records: UInt64
        var unsynced = false
        /// The last revision a failed batch took from a to-do, by owner and id (until a write
        /// gives the to-do a later one): never handed out again.
        var burned: [Owner: [String: UInt64]] = [:]
        var failure: Failure?
        var buffer: [UInt8] = []
    }

    let directory: String
    let policy: FsyncPolicy
    private let compactionBytes: Int
    private let logger: Logger
    private let memory: InMemoryTodoStore
    private let faults: JournalFaults
    private let inbox = Mutex(Inbox())
    private let writer: Mutex<Writer>
    private let compacting = Atomic<Bool>(false)
    private let writerQueue = DispatchQueue(label: "todo-server.journal.writer")
    private let compactionQueue = DispatchQueue(label: "todo-server.journal.compaction", qos: .utility)

    /// Continues journal `generation`, open for appending at `fd` with `fileBytes` in it, over
    /// `memory`.
    init(
        directory: String, fd: Int32, generation: UInt64, fileBytes: Int, records: UInt64 = 0, policy: FsyncPolicy,
        compactionBytes: Int, memory: InMemoryTodoStore, logger: Logger, faults: JournalFaults = .none
    ) {
        self.directory = directory
        self.policy = policy
        self.compactionBytes = compactionBytes
        self.logger = logger
        self.memory = memory
        self.faults = faults
        writer = Mutex(Writer(fd: fd, generation: generation, fileBytes: fileBytes, records: records))
        if policy == .interval { scheduleIntervalSync() }
    }

    /// Why changes are refused now (nil: they are not).
    var refusal: String? { inbox.withTracedLock { $0.refusal } }

    /// Queues `change` for the writer; it is answered on its loop once written (or refused).
    func submit(_ change: Change) {
        let (closed, first) = inbox.withTracedLock { inbox -> (Bool, Bool) in
            guard !inbox.closed else { return (true, false) }
            inbox.changes.append(change)
            return (false, inbox.changes.count == 1)
        }
        if closed { return change.refuse(Self.closedError) }
        if first { writerQueue.async { [self] in drain() } }
    }

    private static let closedError = StoreError(reason: "The journal is closed: the server is stopping.")

    /// The `interval` policy's fsync, once a second while the journal is open; on the writer thread.
    private func scheduleIntervalSync() {
        writerQueue.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self, !inbox.withTracedLock({ $0.closed }) else { return }
            writer.withTracedLock { writer in
                guard writer.unsynced, writer.failure == nil, writer.fd >= 0 else { return }
                do {
                    try sync(&writer)
                } catch {
                    fail(
                        &writer, .sync(StoreError(reason: "The journal cannot be synced to disk (\(error)).")), goodLength: writer.fileBytes
                    )
                }
            }
            scheduleIntervalSync()
        }
    }

    /// Writes every queued change as one batch; runs on the writer thread.
    private func drain() {
        let (batch, closed) = inbox.withTracedLock { inbox in
            defer { inbox.changes = [] }
            return (inbox.changes, inbox.closed)
        }
        guard !batch.isEmpty else { return }
        if closed {
            for change in batch { change.deliver { change.refuse(Self.closedError) } }
            return
        }
        var compact = false
        // The changes' announcements, made once the writer's lock is released.
        var announcements: [ChangeAnnouncement] = []
        let outcome = writer.withTracedLock { writer -> BatchOutcome in
            if writer.failure != nil, let failure = repair(&writer) { return .refused(failure) }
            // Each owner's changes are prepared on a projection of that owner's to-dos alone: a
            // change never sees another owner's, even one earlier in the same batch.
            var shared = ProjectedStore(memory: memory, burned: writer.burned.isEmpty ? [:] : writer.burned[.shared] ?? [:])
            var owned: [Owner: ProjectedStore] = [:]
            var records: [OwnedRecord] = []
            var finishes: [(StoreError?) -> Void] = []
            finishes.reserveCapacity(batch.count)
            for change in batch {
                let owner = change.owner
                let prepared: (records: [JournalRecord], finish: (StoreError?) -> Void)
                if owner.isShared {
                    prepared = change.prepare(&shared)
                    for record in prepared.records { shared.apply(record) }
                } else {
                    prepared = change.prepare(
                        &owned[owner, default: ProjectedStore(memory: memory.store(of: owner), burned: writer.burned[owner] ?? [:])])
                    for record in prepared.records { owned[owner]?.apply(record) }
                }
                for record in prepared.records { records.append(OwnedRecord(record, of: owner)) }
                finishes.append(prepared.finish)
            }
            guard !records.isEmpty else { return .prepared(finishes, nil) }
            if let failure = append(records, &writer) {
                // Handed out for good, though never written: a revision never names two contents.
                for (owner, projected) in [(Owner.shared, shared)] + owned.map({ ($0.key, $0.value) })
                where !projected.handedOut.isEmpty {
                    writer.burned[owner, default: [:]].merge(projected.handedOut) { max($0, $1) }
                }
                return .prepared(finishes, failure)
            }
            // Written: the to-dos now hold (or removed) revisions above what was burned.
            if !writer.burned.isEmpty {
                for (owner, projected) in [(Owner.shared, shared)] + owned.map({ ($0.key, $0.value) }) {
                    for id in projected.handedOut.keys { writer.burned[owner]?[id] = nil }
                    if writer.burned[owner]?.isEmpty == true { writer.burned[owner] = nil }
                }
            }
            let first = writer.records + 1
            writer.records += UInt64(records.count)
            let positions = (first...writer.records).map { ChangePosition(major: writer.generation, minor: $0) }
            announcements = memory.apply(records, at: positions)
            compact = writer.fileBytes >= compactionBytes && !compacting.load(ordering: .acquiring)
            return .prepared(finishes, nil)
        }
        for announcement in announcements { announcement.announce() }
        switch outcome {
        case .refused(let failure):
            for change in batch { change.deliver { change.refuse(failure) } }
        case .prepared(let finishes, let failure):
            for (change, finish) in zip(batch, finishes) { change.deliver { finish(failure) } }
        }
        if compact { startCompaction() }
    }

    /// What became of a batch: refused unprepared (the journal could not be repaired), or
    /// prepared and then written (nil) or failed (the error), each change with its answer.
    private enum BatchOutcome {
        case refused(StoreError)
        case prepared([(StoreError?) -> Void], StoreError?)
    }

    /// Writes `records` (and syncs them under `always`); on failure cuts the file back, marks the
    /// journal failed and answers the error. A success ends an earlier refusal.
    private func append(_ records: [OwnedRecord], _ writer: inout Writer) -> StoreError? {
        writer.buffer.removeAll(keepingCapacity: true)
        for record in records { record.frame(into: &writer.buffer) }
        let goodLength = writer.fileBytes
        let path = currentPath(writer)
        do {
            if let code = faults.before(.write) { throw JournalError.io(path: path, operation: "write", errno: code) }
            try FileIO.writeAll(writer.fd, writer.buffer, path: path)
        } catch {
            return fail(&writer, .write(StoreError(reason: "The journal cannot be written (\(error)).")), goodLength: goodLength)
        }
        writer.fileBytes += writer.buffer.count
        writer.unsynced = true
        if policy == .always {
            do {
                try sync(&writer)
            } catch {
                return fail(&writer, .sync(StoreError(reason: "The journal cannot be synced to disk (\(error)).")), goodLength: goodLength)
            }
        }
        if writer.buffer.capacity > 1 << 20 { writer.buffer = [] }
        let wasRefusing = inbox.withTracedLock { inbox in
            defer { inbox.refusal = nil }
            return inbox.refusal != nil
        }
        if wasRefusing {
            logger.notice("journal writes resumed", metadata: ["journal": "\(path)"])
        }
        return nil
    }

    private func sync(_ writer: inout Writer) throws(JournalError) {
        let path = currentPath(writer)
        if let code = faults.before(.sync) { throw .io(path: path, operation: "fsync", errno: code) }
        try FileIO.sync(writer.fd, path: path)
        writer.unsynced = false
    }

    /// Marks the journal failed: cuts off what the failed batch may have left in the file
    /// (best effort; the repair does it again) and refuses changes until a repair and a write succeed.
    @discardableResult
    private func fail(_ writer: inout Writer, _ failure: Failure, goodLength: Int) -> StoreError {
        writer.failure = failure
        writer.fileBytes = goodLength
        _ = ftruncate(writer.fd, off_t(goodLength))
        let reason = failure.error.reason + " Changes are refused until the disk accepts writes again."
        inbox.withTracedLock { $0.refusal = reason }
        logger.error("journal failed; refusing changes", metadata: ["reason": "\(failure.error.reason)"])
        return StoreError(reason: reason)
    }

    /// Gets a failed journal ready to take records again: after a failed write, the file cut back
    /// to its last whole record (and synced); after a failed fsync, whose effect on the file is
    /// unknown, a new journal whose snapshot holds exactly what memory holds. Answers the error
    /// if that fails too.
    private func repair(_ writer: inout Writer) -> StoreError? {
        guard let failure = writer.failure else { return nil }
        do {
            switch failure {
            case .write:
                let path = currentPath(writer)
                guard ftruncate(writer.fd, off_t(writer.fileBytes)) == 0 else {
                    throw JournalError.io(path: path, operation: "truncate", errno: errno)
                }
                if policy != .never { try sync(&writer) }
            case .sync:
                compactionQueue.sync {}
                try rotate(&writer, snapshotInBackground: false)
            }
            writer.failure = nil
            logger.notice("journal repaired; retrying changes", metadata: ["generation": "\(writer.generation)"])
            return nil
        } catch {
            let reason = "The journal cannot be repaired (\(error)); changes are refused until the disk accepts writes again."
            inbox.withTracedLock { $0.refusal = reason }
            logger.error("journal repair failed", metadata: ["reason": "\(error)"])
            return StoreError(reason: reason)
        }
    }

    private func currentPath(_ writer: Writer) -> String {
        directory + "/" + JournalFormat.journalName(writer.generation)
    }

    /// Refuses new changes, finishes the writer's work and syncs and closes the journal: the last
    /// call, after the loops have stopped. Gives up after `seconds` (a stalled disk): answers
    /// whether the journal was closed.
    @discardableResult
    func close(waitingAtMost seconds: Double) -> Bool {
        inbox.withTracedLock { $0.closed = true }
        let done = DispatchSemaphore(value: 0)
        writerQueue.async { [self] in
            drain()
            compactionQueue.sync {}
            writer.withTracedLock { writer in
                guard writer.fd >= 0 else { return }
                if policy != .never, writer.unsynced, writer.failure == nil { try? sync(&writer) }
                Glibc.close(writer.fd)
                writer.fd = -1
            }
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success
    }
}

extension Journal {
    /// Starts journal generation + 1 and writes the state as of this moment (memory holds every
    /// record written so far) into snapshot generation + 1, in the background; then the older
    /// files go. On the writer thread.
    private func startCompaction() {
        compacting.store(true, ordering: .releasing)
        writer.withTracedLock { writer in
            do {
                try rotate(&writer, snapshotInBackground: true)
            } catch {
                compacting.store(false, ordering: .releasing)
                logger.error("journal rotation failed; will retry at the next change", metadata: ["reason": "\(error)"])
            }
        }
    }

    /// Switches to journal generation + 1 (its header written first, so that a snapshot never
    /// exists without its journal) and writes snapshot generation + 1 of memory, now (a repair:
    /// throws if it fails) or in the background (compaction).
    private func rotate(_ writer: inout Writer, snapshotInBackground: Bool) throws(JournalError) {
        let next = writer.generation + 1
        let path = directory + "/" + JournalFormat.journalName(next)
        unlink(path)  // a header left by a rotation that failed
        let fd = try FileIO.openForAppend(path, create: true)
        let header = JournalFormat.journalHeader(generation: next)
        do {
            try FileIO.writeAll(fd, header, path: path)
        } catch {
            Glibc.close(fd)
            unlink(path)
            throw error
        }
        let old = writer.fd
        if snapshotInBackground, policy != .never, writer.unsynced {
            do { try FileIO.sync(old, path: currentPath(writer)) } catch {
                logger.error("journal fsync before rotation failed; the snapshot will hold its records", metadata: ["reason": "\(error)"])
            }
        }
        Glibc.close(old)
        writer.fd = fd
        writer.generation = next
        writer.records = 0
        writer.fileBytes = header.count
        writer.unsynced = true
        let picture = memory.snapshots()
        guard snapshotInBackground else {
            try SnapshotWriter.write(picture, generation: next, directory: directory)
            try removeFiles(before: next)
            return
        }
        compactionQueue.async { [self] in
            let started = ContinuousClock.now
            do {
                try SnapshotWriter.write(picture, generation: next, directory: directory)
                try removeFiles(before: next)
                logger.info(
                    "journal compacted",
                    metadata: [
                        "todos": "\(picture.count)", "generation": "\(next)",
                        "ms": "\((ContinuousClock.now - started).milliseconds)",
                    ])
            } catch {
                logger.error("snapshot failed; the journals stay", metadata: ["reason": "\(error)"])
            }
            compacting.store(false, ordering: .releasing)
        }
    }

    /// Deletes journals and snapshots older than `generation`, once its snapshot is durable.
    private func removeFiles(before generation: UInt64) throws(JournalError) {
        for name in try FileIO.fileNames(in: directory) {
            let old =
                JournalFormat.generation(of: name, prefix: "journal-", suffix: ".log")
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
