import EventHTTP
import Glibc
import Logging

/// The in-memory store made durable: every change is appended to a journal in the data directory
/// before it is answered, and start-up rebuilds the to-dos from the snapshot and journal there.
/// Reads never touch the disk.
public final class DurableTodoStore: TodoStore {
    private let memory: InMemoryTodoStore
    private let journal: Journal
    private let lockFD: Int32

    /// Opens (creating if needed) `directory`, replays what it holds and continues its journal.
    public init(
        directory: String, fsync: FsyncPolicy, compactionBytes: Int, logger: Logger
    ) throws(JournalError) {
        try FileIO.makeDirectory(directory)
        lockFD = try FileIO.lockFile(directory + "/LOCK")
        let recovered: JournalRecovery.Recovered
        do {
            recovered = try JournalRecovery.recover(directory: directory)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
        let memory = InMemoryTodoStore(restoring: recovered.todos, revision: recovered.revision)
        self.memory = memory
        report = recovered.report
        journal = Journal(
            directory: directory, fd: recovered.fd, generation: recovered.report.generation,
            fileBytes: recovered.fileBytes, policy: fsync, compactionBytes: compactionBytes, logger: logger,
            snapshotSource: { memory.snapshot() })
    }

    /// What start-up recovered.
    public let report: RecoveryReport

    public var count: Int { memory.count }

    public func todo(id: String, completion: @escaping (Result<Todo?, StoreError>) -> Void) {
        memory.todo(id: id, completion: completion)
    }

    public func list(_ query: TodoQuery, completion: @escaping (Result<TodoPage, StoreError>) -> Void) {
        memory.list(query, completion: completion)
    }

    public func allTodos(completion: @escaping (Result<[Todo], StoreError>) -> Void) {
        memory.allTodos(completion: completion)
    }

    public func insert(_ todo: Todo, completion: @escaping (Result<Todo, StoreError>) -> Void) {
        commit(completion: completion) {
            let stored = memory.insertNow(todo)
            return (stored, [.put(stored)])
        }
    }

    public func update(
        id: String, change: @escaping @Sendable (inout Todo) -> Bool,
        completion: @escaping (Result<StoreUpdate, StoreError>) -> Void
    ) {
        commit(completion: completion) {
            let outcome = memory.updateNow(id: id, change: change)
            guard case .updated(let todo) = outcome else { return (outcome, []) }
            return (outcome, [.put(todo)])
        }
    }

    public func remove(
        id: String, precondition: (@Sendable (Todo) -> Bool)?,
        completion: @escaping (Result<StoreRemoval, StoreError>) -> Void
    ) {
        commit(completion: completion) {
            let (removal, revision) = memory.removeNow(id: id, precondition: precondition)
            return (removal, revision.map { [.remove(id: id, revision: $0)] } ?? [])
        }
    }

    public func removeAll(completion: @escaping (Result<Void, StoreError>) -> Void) {
        commit(completion: completion) { ((), [.removeAll(revision: memory.removeAllNow())]) }
    }

    /// Syncs and closes the journal; call once the loops have stopped.
    public func close() {
        journal.close()
        Glibc.close(lockFD)
    }

    /// Applies `change` and journals its records, then answers once they are durable, on the
    /// calling loop.
    private func commit<T>(
        completion: @escaping (Result<T, StoreError>) -> Void, _ change: () -> (T, [JournalRecord])
    ) {
        switch journal.record(change) {
        case .failure(let error):
            completion(.failure(error))
        case .success(let (result, sequence)):
            journal.whenDurable(sequence, on: LoopExecutor.current) { failure in
                completion(failure.map { .failure($0) } ?? .success(result))
            }
        }
    }
}
