import Foundation
import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

import struct ChangeFeed.ChangeCursor
import struct ChangeFeed.ChangePosition

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The suites that wait for the PostgreSQL change feed, one test at a time, on their own cluster
/// (`PostgresTestCluster.feeds`). The feed delivers a change once every older transaction of the
/// cluster has finished; a test that waits for it blocks one of the few threads that Swift
/// Testing runs tests on, and a migration on the same cluster (an open transaction) needs such a
/// thread to finish: two such waits at once waited for each other's migration.
@Suite(.serialized, .tags(.postgres))
enum LiveFeedOnPostgres {}

/// The PostgreSQL store's change log, read from `todo_events` by the store's own poller.
extension LiveFeedOnPostgres {
    @Suite(.enabled(if: PostgresTestCluster.isAvailable))
    struct PostgresChangeFeedTests {
        /// Inserts `todo` through `store`, waiting for the answer.
        static func insert(_ todo: Todo, into store: PostgresTodoStore) async throws {
            _ = try await withCheckedThrowingContinuation { continuation in
                store.insert(todo) { continuation.resume(with: $0) }
            }
        }

        /// Waits for `count` changes after `cursor` in `log`.
        private func changes(in log: ChangeLog, after cursor: ChangeCursor, count: Int) -> [StoreChange] {
            eventually {
                guard case .changes(let changes, _) = log.replay(after: cursor), changes.count >= count else { return nil }
                return changes
            } ?? []
        }

        @Test func positionsFollowTransactionIdsAsNumbersAcrossADigitBoundary() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_digits", feeds: true)
            // Transaction ids up to 5 below the next multiple of 1,000: the changes' ids then go from
            // three digits to four (sorted as text, "1000" came before "996", and a reader lost changes).
            let session = try await PostgresTestSession.open(configuration)
            defer { session.close() }
            let current = try #require(try session.blockingQuery("SELECT pg_current_xact_id()::text")?.get()[0, 0].flatMap { UInt64($0) })
            let burn = (1_000 - Int(current % 1_000) - 5 + 1_000) % 1_000
            if burn > 0 {
                _ = try session.blockingQuery(
                    "DO $$ BEGIN FOR i IN 1..\(burn) LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$")?.get()
            }
            let store = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(20))
            defer { store.close() }
            let start = store.changes.head
            var ids: [String] = []
            for number in 0..<12 {
                let todo = SQLFixtures.todo(number, title: "n\(number)")
                _ = try await withCheckedThrowingContinuation { continuation in
                    store.insert(todo) { continuation.resume(with: $0) }
                }
                ids.append(todo.id)
            }
            let changes = changes(in: store.changes, after: start, count: 12)
            #expect(changes.count == 12)
            let created = changes.compactMap { change -> String? in
                if case .created(let todo) = change.kind { return todo.id }
                return nil
            }
            #expect(created == ids)
            #expect(changes.map(\.position) == changes.map(\.position).sorted())
            #expect(changes.contains { $0.position.major < 1_000 * (current / 1_000 + 1) })
            #expect(changes.contains { $0.position.major >= 1_000 * (current / 1_000 + 1) })
            // The reader's statement itself, over the whole boundary in one answer: in order.
            let rows = try #require(try session.blockingQuery(TodoSQL.eventsAfter.sql, ["0", "0", "1000"])?.get())
            let read = PostgresChangeFeed.changes(rows).map(\.position)
            #expect(read.count == 12)
            #expect(read == read.sorted())
        }

        @Test func aListingReportsItsSnapshotAndTheChangesAfterItAreExactlyThoseItDidNotSee() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_listing", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(20))
            defer { store.close() }
            func insert(_ number: Int) async throws { try await Self.insert(SQLFixtures.todo(number), into: store) }
            try await insert(1)
            let page = try await withCheckedThrowingContinuation { continuation in
                store.list(TodoQuery()) { continuation.resume(with: $0) }
            }
            let cursor = try #require(page.lastChange)
            #expect(page.items.count == 1)
            try await insert(2)
            try await insert(3)
            let after = changes(in: store.changes, after: cursor, count: 2)
            #expect(after.count == 2)
            #expect(after.map { if case .created(let todo) = $0.kind { todo.id } else { "" } } == [SQLFixtures.id(2), SQLFixtures.id(3)])
            // The token carries the cursor to any instance: the same one, read back.
            #expect(store.changes.cursor(fromToken: cursor.token(tag: store.changes.tag)) == cursor)
        }

        @Test func theTableIsPrunedToWhatIsRetainedAndOlderPositionsGetAResync() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_prune", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesRetained: 3, changesPollInterval: .milliseconds(10))
            defer { store.close() }
            let start = store.changes.head
            for number in 0..<8 {
                _ = try await withCheckedThrowingContinuation { continuation in
                    store.insert(SQLFixtures.todo(number)) { continuation.resume(with: $0) }
                }
            }
            // Pruned every 10 s of polls: here every 1,000 polls of 10 ms... wait for the table instead.
            let session = try await PostgresTestSession.open(configuration)
            defer { session.close() }
            _ = try session.blockingQuery("SELECT todo_events_prune(3)")?.get()
            let left = try session.blockingQuery("SELECT count(*) FROM todo_events")?.get()[0, 0]
            #expect(left == "3")
            let floor = try session.blockingQuery("SELECT seq FROM todo_event_floor")?.get()[0, 0]
            #expect(floor == "5")
            // Reads are paced (eventsReadGapMilliseconds): wait until the store has read all eight —
            // until its window holds the last three. A resync alone does not say so: the window is
            // reset to the table's floor before the retained changes are appended to it, and a
            // loaded machine (CI, 2026-12-06) checked in between (retained: 0).
            #expect(
                eventually {
                    guard case .resync = store.changes.replay(after: start) else { return false }
                    return store.changes.retainedCount == 3
                })
            #expect(store.changes.retainedCount == 3)
            #expect(store.changes.replay(after: start) == .resync(head: store.changes.head))
            // A store started now begins its window at the floor.
            let fresh = try PostgresTodoStore(configuration: configuration, changesRetained: 10)
            defer { fresh.close() }
            #expect(eventually { fresh.changes.retainedCount == 3 })
            if case .resync = fresh.changes.replay(after: start) {} else { Issue.record("a position before the floor must resync") }
        }

        /// Another instance pruned changes this one had not read yet (it was behind by more than
        /// the table retains): the reader starts its window again at the floor, so a position
        /// before it gets a resync, never the changes after the gap as if nothing were missing.
        /// The test's session writes eight changes and prunes to three in one transaction, so that
        /// the store, which polls once an hour, cannot read them before the prune, then tells it.
        @Test func aReaderBehindAPruneStartsItsWindowAgainAndOlderPositionsGetAResync() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_behind", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesRetained: 3, changesPollInterval: .seconds(3600))
            defer { store.close() }
            #expect(eventually { store.feed.readsEnded.load(ordering: .relaxed) >= 1 }, "the window and the first read")
            let start = store.changes.head
            let alice = store.feed.log(ofOwnerNamed: "alice")
            let session = try await PostgresTestSession.open(configuration)
            defer { session.close() }
            _ = try session.blockingQuery(
                """
                DO $$ BEGIN
                    FOR i IN 1..8 LOOP
                        INSERT INTO todo_event_rows (owner, kind) VALUES ('', '\(TodoEventsSchema.cleared)');
                    END LOOP;
                    -- 0: the store's own prune held the prune's lock; the test must not go on.
                    IF todo_events_prune(3) = 0 THEN RAISE EXCEPTION 'not pruned'; END IF;
                END $$
                """)?.get()
            let newest = try #require(
                try session.blockingQuery("SELECT xid::text, seq FROM todo_event_rows ORDER BY xid DESC, seq DESC LIMIT 1")?.get())
            let xid = try #require(newest[0, 0].flatMap { UInt64($0) })
            let seq = try #require(newest[0, 1].flatMap { UInt64($0) })
            // Told until it read them (a word sent before its listener listens is lost).
            #expect(
                try eventually {
                    _ = try session.blockingQuery("SELECT pg_notify('\(PostgresChangeFeed.channel)', '')")?.get()
                    return store.changes.head.after == ChangePosition(major: xid, minor: seq)
                })
            #expect(store.feed.windowsRestarted.load(ordering: .relaxed) == 1)
            #expect(store.changes.retainedCount == 3)
            #expect(store.changes.replay(after: start) == .resync(head: store.changes.head))
            // An owner's log, a sibling made before the prune, starts over there too.
            #expect(alice.replay(after: start) == .resync(head: alice.head))
            #expect(alice.head.after > start.after)
        }

        /// Reads start at least the gap apart: writes made within the gap after a read are read
        /// together by one read when the gap has passed, not one read each; a change after a quiet
        /// spell longer than the gap is read at once (issue 22: a read after every write cost the
        /// database and the feed's loop a fifth of the writes' own work). The feed's clock is moved
        /// on by the test, and the gap is an hour, so nothing here depends on how fast it runs.
        @Test func writesWithinTheGapAreReadTogetherAndAChangeAfterAQuietSpellAtOnce() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_gap", feeds: true)
            let skipped = Atomic<Int64>(0)
            let hour = Duration.seconds(3_600)
            let store = try PostgresTodoStore(
                configuration: configuration, changesPollInterval: .seconds(600), changesReadGap: hour,
                now: { ContinuousClock.now + .seconds(skipped.load(ordering: .relaxed)) })
            defer { store.close() }
            func insert(_ number: Int) async throws { try await Self.insert(SQLFixtures.todo(number), into: store) }
            func reads() -> Int { store.feed.reads.load(ordering: .relaxed) }
            let session = try await PostgresTestSession.open(configuration)
            defer { session.close() }
            // The window's first read at start.
            #expect(eventually { reads() >= 1 })
            let start = store.changes.head
            /// Until `count` changes after `start` are read: moves the feed's clock past the gap and
            /// asks for a read as another instance would (NOTIFY); answers the asks made. A read
            /// takes only the changes of transactions older than every running one, so a
            /// transaction elsewhere on the cluster (autovacuum's) can leave one read short.
            func readAfterTheGap(count: Int) -> Int {
                var asks = 0
                _ = eventually(interval: .milliseconds(500)) {
                    if case .changes(let read, _) = store.changes.replay(after: start), read.count >= count { return true }
                    skipped.add(7_200, ordering: .relaxed)
                    asks += 1
                    _ = try? session.blockingQuery(TodoSQL.eventsAnnounce.sql)?.get()
                    return false
                }
                return asks
            }

            // Two hours later by the feed's clock: the first change is read at once, not when the
            // gap timer fires (in an hour).
            let beforeFirst = reads()
            skipped.store(7_200, ordering: .relaxed)
            try await insert(0)
            #expect(eventually { reads() == beforeFirst + 1 })
            _ = readAfterTheGap(count: 1)
            // An ask of that loop may still bring a read at a clock past the gap, which would take
            // the next insert at once. So one more read, started now (every read that starts from
            // here on has the feed's clock as it stays), and nothing in flight before the inserts.
            skipped.add(7_200, ordering: .relaxed)
            let beforeSettling = reads()
            _ = try? session.blockingQuery(TodoSQL.eventsAnnounce.sql)?.get()
            #expect(eventually { reads() > beforeSettling })
            #expect(eventually { store.feed.readsEnded.load(ordering: .relaxed) == reads() })
            let afterFirst = reads()

            // Thirty more within the gap: none is read...
            for number in 1...30 { try await insert(number) }
            #expect(reads() == afterFirst)
            guard case .changes(let held, _) = store.changes.replay(after: start) else {
                Issue.record("no resync expected")
                return
            }
            #expect(held.count == 1)
            // ...until the gap has passed (the feed's clock: its timer keeps real time, so another
            // instance's NOTIFY asks): one read takes them all (one per ask at most).
            let asks = readAfterTheGap(count: 31)
            #expect(asks >= 1)
            #expect(reads() - afterFirst <= asks)
            #expect(store.feed.readsHeldBack.load(ordering: .relaxed) == 0)
        }

        /// A transaction that took its id earlier but changed the to-do later (here by hand; in
        /// production an `UPDATE` that waited for the row's lock) is read first: its change is the
        /// newer one, and the older change read after it is dropped, so the log ends on the to-do as
        /// stored; later changes are read as usual.
        @Test func aChangeReadAfterALaterChangeOfItsToDoIsDropped() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_row_order", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(20))
            defer { store.close() }
            func insert(_ number: Int) async throws { try await Self.insert(SQLFixtures.todo(number, title: "t\(number)"), into: store) }
            let start = store.changes.head
            try await insert(1)
            #expect(changes(in: store.changes, after: start, count: 1).count == 1)
            let afterInsert = store.changes.head
            let older = try await PostgresTestSession.open(configuration)
            defer { older.close() }
            let newer = try await PostgresTestSession.open(configuration)
            defer { newer.close() }
            func update(_ session: PostgresTestSession, title: String, at time: Int64) throws {
                let rows = try session.blockingQuery(
                    TodoSQL.updateChanging.sql,
                    TodoSQL.updateParameters(
                        id: SQLFixtures.id(1), title: title, completed: nil, order: nil, dueDate: nil, condition: .init(),
                        at: Timestamp(millisecondsSinceEpoch: time)))?.get()
                #expect(rows?.count == 1)
            }
            // The older transaction takes its id first; the newer one changes the to-do and commits,
            // then the older one changes it again and commits.
            _ = try older.blockingQuery("BEGIN")?.get()
            _ = try older.blockingQuery("SELECT pg_current_xact_id()")?.get()
            _ = try newer.blockingQuery("BEGIN")?.get()
            _ = try newer.blockingQuery("SELECT pg_current_xact_id()")?.get()
            try update(newer, title: "second", at: 1_800_000_000_002)
            _ = try newer.blockingQuery("COMMIT")?.get()
            try update(older, title: "third", at: 1_800_000_000_003)
            _ = try older.blockingQuery("COMMIT")?.get()
            #expect(changes(in: store.changes, after: afterInsert, count: 1).count == 1)
            // The change dropped is the last row read: reads go on after it, reading nothing.
            #expect(eventually { store.feed.rowsRead.load(ordering: .relaxed) >= 3 })
            let rowsRead = store.feed.rowsRead.load(ordering: .relaxed)
            let reads = store.feed.reads.load(ordering: .relaxed)
            #expect(eventually { store.feed.reads.load(ordering: .relaxed) >= reads + 3 })
            #expect(store.feed.rowsRead.load(ordering: .relaxed) == rowsRead)
            try await insert(2)
            let after = changes(in: store.changes, after: afterInsert, count: 2)
            let kept = after.map { change -> String in
                switch change.kind {
                case .created(let todo), .updated(let todo): "\(todo.title) \(todo.revision)"
                default: "other"
                }
            }
            #expect(kept == ["third 3", "t2 1"])
            // The table holds both, in the order of the transactions' ids.
            let table = try older.blockingQuery("SELECT title, revision FROM todo_events WHERE kind = 'u' ORDER BY xid, seq")?.get()
            #expect(table?.values == ["third", "3", "second", "2"])
        }

        /// A clear that waited for an insert in progress removed it and comes after it in the feed: a
        /// subscriber's view ends as the table does, empty. (Without the clear's table lock the
        /// to-do stayed in the table while the feed, `created` then `cleared`, said it was gone.)
        @Test func aClearComesAfterTheInsertItWaitedForAndRemovedIt() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_clear_order", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(20))
            defer { store.close() }
            let start = store.changes.head
            try await Self.insert(SQLFixtures.todo(1), into: store)
            let holder = try await PostgresTestSession.open(configuration)
            defer { holder.close() }
            _ = try holder.blockingQuery("BEGIN")?.get()
            _ = try holder.blockingQuery(TodoSQL.insert.sql, TodoSQL.insertParameters(SQLFixtures.todo(2)))?.get()
            let cleared = Mutex<Result<Void, StoreError>?>(nil)
            store.removeAll { result in cleared.withTracedLock { $0 = result } }
            #expect(eventually { SQLFixtures.tableLocksWaiting(holder) == 1 }, "the clear waits for the insert")
            _ = try holder.blockingQuery("COMMIT")?.get()
            let result = try #require(eventually { cleared.withTracedLock { $0 } })
            _ = try result.get()
            var view: Set<String> = []
            for change in changes(in: store.changes, after: start, count: 3) {
                switch change.kind {
                case .created(let todo), .updated(let todo): view.insert(todo.id)
                case .deleted(let id): view.remove(id)
                case .cleared: view.removeAll()
                }
            }
            let table = try holder.blockingQuery("SELECT id::text FROM todos")?.get()
            #expect(table?.count == 0)
            #expect(view.isEmpty)
            let kinds = changes(in: store.changes, after: start, count: 3).map { change -> String in
                switch change.kind {
                case .created(let todo): "created \(todo.id.suffix(1))"
                case .updated, .deleted: "other"
                case .cleared: "cleared"
                }
            }
            #expect(kinds == ["created 1", "created 2", "cleared"])
        }

        /// The read right after a write here can come too early to see it (an older transaction
        /// elsewhere is still running): the feed reads again soon rather than at its next interval
        /// (an hour here), so the change is read, and told to other instances, within a moment.
        @Test func aChangeTheFirstReadAfterItCouldNotSeeIsReadSoonAfter() async throws {
            let configuration = try await ContractStore.freshDatabase("feed_reread", feeds: true)
            let store = try PostgresTodoStore(configuration: configuration, changesPollInterval: .seconds(3_600))
            defer { store.close() }
            #expect(eventually { store.feed.reads.load(ordering: .relaxed) >= 1 })
            let start = store.changes.head
            let blocker = try await PostgresTestSession.open(configuration)
            defer { blocker.close() }
            // An older transaction, still running when the write commits and is read.
            _ = try blocker.blockingQuery("BEGIN")?.get()
            _ = try blocker.blockingQuery("SELECT pg_current_xact_id()")?.get()
            let reads = store.feed.reads.load(ordering: .relaxed)
            _ = try await withCheckedThrowingContinuation { continuation in
                store.insert(SQLFixtures.todo(1)) { continuation.resume(with: $0) }
            }
            #expect(eventually { store.feed.reads.load(ordering: .relaxed) > reads })
            _ = try blocker.blockingQuery("COMMIT")?.get()
            #expect(changes(in: store.changes, after: start, count: 1).count == 1)
        }
    }
}
