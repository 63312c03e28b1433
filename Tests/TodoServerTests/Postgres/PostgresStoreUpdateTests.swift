import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import PostgresLoop
@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The store's update: a plain `UPDATE` and, when that changed nothing, the to-do read and decided
/// on as in memory, in one call (`TodoSQL.updateOrRead`); a second try, then `TodoSQL.update` on the
/// locked row. Under contention for one to-do, every answer must still be
/// one a single statement could have given.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresStoreUpdateTests {
    static func update(
        _ store: PostgresTodoStore, _ id: String, completed: Bool, condition: RevisionCondition, at time: Int64
    ) async throws -> StoreUpdate {
        try await withCheckedThrowingContinuation { continuation in
            store.update(
                id: id, change: TodoChange(completed: completed), condition: condition,
                at: Timestamp(millisecondsSinceEpoch: time)
            ) { continuation.resume(with: $0) }
        }
    }

    /// A clear waiting for the table's lock (a transaction holds the table) does not hold up the
    /// reads of its loop: it goes away from the reads' connection (`awayFromReads`). (A change-feed
    /// read in flight on the first connection would send it to the second anyway: the pool's own
    /// test, `onAnIdlePoolAWriteAwayFromReads…`, is the one that always tells.)
    @Test func aClearWaitingForTheTableDoesNotHoldUpReads() async throws {
        let configuration = try await ContractStore.freshDatabase("clear_reads")
        let store = try PostgresTodoStore(configuration: configuration, clearLockWait: .zero)
        defer { store.close() }
        _ = try await withCheckedThrowingContinuation { continuation in
            store.insert(SQLFixtures.todo(1)) { continuation.resume(with: $0) }
        }
        let holder = try await PostgresTestSession.open(configuration)
        defer { holder.close() }
        _ = try holder.blockingQuery("BEGIN")?.get()
        _ = try holder.blockingQuery("LOCK TABLE todos IN ROW EXCLUSIVE MODE")?.get()
        let cleared = Mutex<Result<Void, StoreError>?>(nil)
        store.removeAll { result in cleared.withTracedLock { $0 = result } }
        #expect(eventually { SQLFixtures.tableLocksWaiting(holder) == 1 }, "the clear waits for the table")
        let read = Mutex<Result<Todo?, StoreError>?>(nil)
        store.todo(id: SQLFixtures.id(1)) { result in read.withTracedLock { $0 = result } }
        let answered = eventually { read.withTracedLock { $0 } }
        #expect(cleared.withTracedLock { $0 } == nil, "the clear still waits")
        #expect(answered.flatMap { try? $0.get() }??.id == SQLFixtures.id(1))
        _ = try holder.blockingQuery("COMMIT")?.get()
        let result = try #require(eventually { cleared.withTracedLock { $0 } })
        _ = try result.get()
    }

    /// Two stores (two loops, two connections each) change one to-do at once, half of the
    /// requests with an `If-Match` of a revision seen earlier: each answer agrees with what it
    /// asked for, the revisions given out are exactly 2...final, and the events and kept counts
    /// match the changes made.
    @Test func manyChangesOfOneToDoAtOnceGiveAnswersOneStatementCouldHaveGiven() async throws {
        let configuration = try await ContractStore.freshDatabase("update_race")
        let stores = try [PostgresTodoStore(configuration: configuration), PostgresTodoStore(configuration: configuration)]
        defer { for store in stores { store.close() } }
        let todo = SQLFixtures.todo(1)
        _ = try await withCheckedThrowingContinuation { continuation in stores[0].insert(todo) { continuation.resume(with: $0) } }
        let seen = LatestRevision()
        let answers = try await withThrowingTaskGroup(of: (Bool, UInt64?, StoreUpdate).self) { group in
            for index in 0..<400 {
                group.addTask {
                    let completed = index % 2 == 0
                    let tag: UInt64? = index % 4 < 2 ? seen.value.load(ordering: .relaxed) : nil
                    let answer = try await Self.update(
                        stores[index % 2], todo.id, completed: completed,
                        condition: tag.map { RevisionCondition(ifMatch: .oneOf([$0])) } ?? .none, at: 1_800_000_000_000 + Int64(index))
                    switch answer {
                    case .updated(let todo), .unchanged(let todo), .conditionFailed(let todo):
                        seen.value.store(todo.revision, ordering: .relaxed)
                    case .notFound: break
                    }
                    return (completed, tag, answer)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var revisions: [UInt64] = []
        for (completed, tag, answer) in answers {
            switch answer {
            case .updated(let todo):
                #expect(todo.completed == completed)
                if let tag { #expect(todo.revision == tag + 1) }
                revisions.append(todo.revision)
            case .unchanged(let todo):
                #expect(todo.completed == completed)
                if let tag { #expect(todo.revision == tag) }
            case .conditionFailed(let todo):
                #expect(tag != nil && todo.revision != tag)
            case .notFound:
                Issue.record("the to-do exists")
            }
        }
        let stored = try #require(
            try await withCheckedThrowingContinuation { continuation in stores[0].todo(id: todo.id) { continuation.resume(with: $0) } })
        #expect(revisions.sorted() == Array(2...stored.revision))
        #expect(revisions.count >= 1)
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        let events = try await session.connection.query("SELECT count(*) FROM todo_events WHERE kind = 'u'")
        #expect(events.values == [String(revisions.count)])
        let tallies = try await session.connection.query("SELECT sum(total)::bigint, sum(done)::bigint FROM todo_tallies")
        #expect(tallies.values == ["1", stored.completed ? "1" : "0"])
    }

    /// The newest revision an answer showed, for the next requests' `If-Match`.
    final class LatestRevision: Sendable {
        let value = Atomic<UInt64>(1)
    }
}
