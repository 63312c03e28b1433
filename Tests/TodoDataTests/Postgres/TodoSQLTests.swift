import Foundation
import PostgresLoop
import TestSupport
import Testing

import struct ChangeFeed.TransactionSnapshot

@testable import TodoData
@testable import TodoDataTestSupport

/// The PostgreSQL store's statements (`TodoSQL`), run directly against a fresh database on the
/// throwaway test cluster: each answers what the in-memory store would.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct TodoSQLTests {
    let cluster = PostgresTestCluster.shared!

    /// A fresh migrated database and a session on it.
    func session(_ label: String) async throws -> PostgresTestSession {
        try await session(database: try cluster.freshDatabase(label))
    }

    func session(database: String) async throws -> PostgresTestSession {
        try await cluster.migratedSession(database: database)
    }

    func run(_ session: PostgresTestSession, _ statement: PostgresStatement, _ parameters: [String?]) async throws -> PostgresRows {
        try await session.connection.query(.prepared(statement), parameters)
    }

    func insert(_ session: PostgresTestSession, _ todo: Todo) async throws -> Todo? {
        TodoRowDecoder.todo(try await run(session, TodoSQL.insert, TodoSQL.insertParameters(todo)), row: 0)
    }

    func get(_ session: PostgresTestSession, _ number: Int) async throws -> Todo? {
        let rows = try await run(session, TodoSQL.get, [SQLFixtures.id(number), ""])
        return rows.count == 0 ? nil : TodoRowDecoder.todo(rows, row: 0)
    }

    func list(_ session: PostgresTestSession, _ query: TodoQuery) async throws -> (ids: [String], total: Int) {
        let rows = try await run(session, TodoSQL.list(query.sort), TodoSQL.listParameters(query))
        let todos = try #require(TodoRowDecoder.todos(rows, first: 2))
        #expect(rows[0, 1].flatMap { TransactionSnapshot(postgresText: $0) } != nil, "the list reports its snapshot")
        return (todos.map(\.id), Int(try #require(rows[0, 0]))!)
    }

    @Test func insertAndGetKeepEveryField() async throws {
        let session = try await session("sql_crud")
        defer { session.close() }
        let todo = SQLFixtures.todo(
            1, title: "Ärger mit ÖL ✓", completed: true, order: -7, due: CalendarDay("2026-02-28"), created: 1_763_812_800_123)
        #expect(try await insert(session, todo) == todo)
        #expect(try await get(session, 1) == todo)
        let bare = SQLFixtures.todo(2, title: "plain")
        #expect(try await insert(session, bare) == bare)
        #expect(try await get(session, 2) == bare)
        #expect(try await get(session, 3) == nil)
        let key = try await session.connection.query("SELECT title_key FROM todos WHERE id = $1", [SQLFixtures.id(1)])
        #expect(key.values == ["ärger mit öl ✓"])
        // The same id twice is refused by the primary key (23505), not stored twice.
        do {
            _ = try await insert(session, bare)
            Issue.record("a second insert with the same id was accepted")
        } catch let error as PostgresError {
            guard case .server(let server) = error else { throw error }
            #expect(server.sqlState == "23505")
        }
        #expect(TodoSQL.isTodoID(SQLFixtures.id(1)))
        #expect(!TodoSQL.isTodoID(SQLFixtures.id(1).uppercased().replacingOccurrences(of: "0000-4000", with: "0000-400A")))
        #expect(!TodoSQL.isTodoID("not-a-uuid"))
    }

    @Test func everyOrderAndFilterPagesAsTheInMemoryRulesSay() async throws {
        let session = try await session("sql_list")
        defer { session.close() }
        let seed = testSeed("TodoSQLTests")
        var generator = SplitMix64(seed: seed)
        let titles = ["Buy milk", "buy bread", "Call mum", "BUY eggs", "Äpfel kaufen", "äpfel", "Zebra", "zebra", "milk"]
        var all: [Todo] = []
        for number in 1...120 {
            let todo = SQLFixtures.todo(
                number, title: titles.randomElement(using: &generator)!, completed: Bool.random(using: &generator),
                order: Int.random(in: 0..<4, using: &generator) == 0 ? nil : Int.random(in: -3...3, using: &generator),
                due: Int.random(in: 0..<3, using: &generator) == 0
                    ? nil : CalendarDay(daysSinceEpoch: 20_400 + Int.random(in: 0...5, using: &generator)),
                created: 1_763_812_800_000 + Int64.random(in: 0...20, using: &generator))
            all.append(try #require(try await insert(session, todo)))
        }
        for field in TodoSort.Field.allCases {
            for descending in [false, true] {
                for completed in [nil, true, false] {
                    for search in [nil, "BUY", "äPF", "nothing"] as [String?] {
                        for (limit, offset) in [(500, 0), (7, 0), (7, 14), (10, 115), (5, 200)] {
                            let query = TodoQuery(
                                completed: completed, titleContains: search, sort: TodoSort(field, descending: descending),
                                limit: limit, offset: offset)
                            let expected = all.filter(query.includes).sorted(by: query.sort.areInIncreasingOrder)
                            let page = try await list(session, query)
                            #expect(page.total == expected.count, "\(query)")
                            #expect(page.ids == Array(expected.dropFirst(offset).prefix(limit)).map(\.id), "\(query)")
                        }
                    }
                }
            }
        }
    }

    @Test func upcomingIsTheOpenToDosDueInTheRangeInDueOrder() async throws {
        let session = try await session("sql_upcoming")
        defer { session.close() }
        let monday = CalendarDay("2026-11-23")!
        let todos = [
            SQLFixtures.todo(1, order: 2, due: monday.adding(days: 1)),
            SQLFixtures.todo(2, completed: true, due: monday.adding(days: 1)),
            SQLFixtures.todo(3, due: monday.adding(days: 1)),
            SQLFixtures.todo(4, order: 1, due: monday.adding(days: 1), created: 1_763_812_800_001),
            SQLFixtures.todo(5, due: monday),
            SQLFixtures.todo(6, due: monday.adding(days: 7)),
            SQLFixtures.todo(7),
            SQLFixtures.todo(8, due: monday.adding(days: -1)),
        ]
        for todo in todos { _ = try await insert(session, todo) }
        let rows = try await run(session, TodoSQL.upcoming, TodoSQL.upcomingParameters(from: monday, through: monday.adding(days: 6)))
        #expect(try #require(TodoRowDecoder.todos(rows)).map(\.id) == [5, 4, 1, 3].map(SQLFixtures.id))
    }

    /// `TodoSQL.updateParameters` for to-do `number`, no due date, the time in ms.
    static func updateParameters(
        _ number: Int, title: String? = nil, completed: Bool? = nil, order: TodoSQL.FieldChange<Int>? = nil,
        condition: TodoSQL.Condition = .init(), at time: Int64
    ) -> [String?] {
        TodoSQL.updateParameters(
            id: SQLFixtures.id(number), title: title, completed: completed, order: order, dueDate: nil, condition: condition,
            at: Timestamp(millisecondsSinceEpoch: time))
    }

    /// Runs `statement` (`TodoSQL.update`, `.updateChanging` or `.updateOrRead`) on to-do `number`.
    func runUpdate(
        _ statement: PostgresStatement, in session: PostgresTestSession, _ number: Int = 1, title: String? = nil,
        completed: Bool? = nil, order: TodoSQL.FieldChange<Int>? = nil, condition: TodoSQL.Condition = .init(), at time: Int64
    ) async throws -> PostgresRows {
        try await run(
            session, statement,
            Self.updateParameters(number, title: title, completed: completed, order: order, condition: condition, at: time))
    }

    /// `TodoSQL.update` (or `statement`, which answers the same columns) on to-do `number`: its
    /// outcome and the to-do, nil for no row.
    func update(
        _ session: PostgresTestSession, _ number: Int, title: String? = nil, completed: Bool? = nil,
        order: TodoSQL.FieldChange<Int>? = nil, condition: TodoSQL.Condition = .init(), at time: Int64,
        statement: PostgresStatement = TodoSQL.update
    ) async throws -> (outcome: String, todo: Todo)? {
        let rows = try await runUpdate(
            statement, in: session, number, title: title, completed: completed, order: order, condition: condition, at: time)
        #expect(rows.count <= 1)
        guard rows.count == 1 else { return nil }
        return (try #require(rows[0, 0]), try #require(TodoRowDecoder.todo(rows, row: 0, first: 1)))
    }

    /// A fresh migrated database holding to-do 1 ("a", order 5), a session on it, and that to-do
    /// as an update of its title to "b" at 2,000,000,000,000 ms leaves it (revision 2).
    func sessionWithToDoA(_ label: String) async throws -> (session: PostgresTestSession, retitledB: Todo) {
        let session = try await session(label)
        let original = SQLFixtures.todo(1, title: "a", order: 5)
        _ = try await insert(session, original)
        var expected = original
        expected.title = "b"
        expected.revision = 2
        expected.updatedAt = Timestamp(millisecondsSinceEpoch: 2_000_000_000_000)
        return (session, expected)
    }

    @Test func aConditionalUpdateTellsUpdatedUnchangedFailedAndMissingApart() async throws {
        let (session, expected) = try await sessionWithToDoA("sql_update")
        defer { session.close() }
        let updated = try await update(session, 1, title: "b", condition: .init(ifMatch: [1]), at: 2_000_000_000_000)
        #expect(updated?.outcome == "updated")
        #expect(updated?.todo == expected)

        // The same values again: unchanged, revision and updatedAt kept.
        let same = try await update(session, 1, title: "b", order: .init(value: 5), at: 2_100_000_000_000)
        #expect(same?.outcome == "unchanged")
        #expect(same?.todo == expected)
        // A stale tag: failed, nothing changed, the stored to-do answered.
        let stale = try await update(session, 1, title: "c", condition: .init(ifMatch: [1]), at: 2_200_000_000_000)
        #expect(stale?.outcome == "failed")
        #expect(stale?.todo == expected)
        // If-None-Match: * on an existing to-do fails; one of other revisions passes.
        #expect(try await update(session, 1, title: "c", condition: .init(ifNoneMatchAny: true), at: 1)?.outcome == "failed")
        #expect(try await update(session, 1, completed: true, condition: .init(ifNoneMatch: [2]), at: 1)?.outcome == "failed")
        let cleared = try await update(
            session, 1, order: .init(value: nil), condition: .init(ifMatch: [7, 2], ifNoneMatch: [1]), at: 2_300_000_000_000)
        #expect(cleared?.outcome == "updated")
        #expect(cleared?.todo.order == nil)
        #expect(cleared?.todo.revision == 3)
        #expect(try await get(session, 1) == cleared?.todo)
        // No such to-do: no row, whatever the condition.
        #expect(try await update(session, 2, title: "x", condition: .init(ifMatch: [1]), at: 1) == nil)
    }

    /// `updateChanging`: a row (the to-do as updated) and its change event only when the
    /// condition passes and a field changes; otherwise no row and nothing written (the store then
    /// reads the to-do).
    @Test func aPlainUpdateAnswersAndRecordsOnlyAChange() async throws {
        let (session, expected) = try await sessionWithToDoA("sql_update_changing")
        defer { session.close() }
        let changing = TodoSQL.updateChanging
        let changed = try await runUpdate(changing, in: session, title: "b", condition: .init(ifMatch: [1]), at: 2_000_000_000_000)
        #expect(changed.count == 1)
        #expect(TodoRowDecoder.todo(changed, row: 0) == expected)
        // The same values, a stale tag, If-None-Match: *, a missing to-do: no row.
        #expect(try await runUpdate(changing, in: session, title: "b", order: .init(value: 5), at: 2_100_000_000_000).count == 0)
        #expect(try await runUpdate(changing, in: session, title: "c", condition: .init(ifMatch: [1]), at: 2_200_000_000_000).count == 0)
        #expect(
            try await runUpdate(changing, in: session, title: "c", condition: .init(ifNoneMatchAny: true), at: 2_300_000_000_000).count == 0
        )
        #expect(try await runUpdate(changing, in: session, 2, title: "x", at: 2_400_000_000_000).count == 0)
        #expect(try await get(session, 1) == expected)
        // One event for the insert, one for the change; none for the rest.
        let events = try await session.connection.query("SELECT kind::text, title, revision FROM todo_events ORDER BY xid, seq")
        #expect(events.values == ["c", "a", "1", "u", "b", "2"])
    }

    /// `updateOrRead`: `updated` and the to-do as changed, with its event, when the condition passes
    /// and a field changes; otherwise `current` and the to-do as stored, nothing written; no row for
    /// a missing to-do.
    @Test func anUpdateOrReadAnswersTheChangeOrTheToDoAsStored() async throws {
        let (session, expected) = try await sessionWithToDoA("sql_update_or_read")
        defer { session.close() }
        func updateOrRead(
            _ number: Int = 1, title: String? = nil, condition: TodoSQL.Condition = .init(), at time: Int64
        ) async throws -> (outcome: String, todo: Todo)? {
            try await update(session, number, title: title, condition: condition, at: time, statement: TodoSQL.updateOrRead)
        }
        let changed = try #require(try await updateOrRead(title: "b", condition: .init(ifMatch: [1]), at: 2_000_000_000_000))
        #expect(changed.outcome == "updated" && changed.todo == expected)
        // The same values, a stale tag, If-None-Match: *: the to-do as stored; a missing one: no row.
        for (title, condition, time) in [
            ("b", TodoSQL.Condition(), Int64(2_100_000_000_000)), ("c", .init(ifMatch: [1]), 2_200_000_000_000),
            ("c", .init(ifNoneMatchAny: true), 2_300_000_000_000),
        ] {
            let answer = try #require(try await updateOrRead(title: title, condition: condition, at: time))
            #expect(answer.outcome == "current" && answer.todo == expected, "\(title) \(condition)")
        }
        #expect(try await updateOrRead(2, title: "x", at: 2_400_000_000_000) == nil)
        #expect(try await get(session, 1) == expected)
        let events = try await session.connection.query("SELECT kind::text, title, revision FROM todo_events ORDER BY xid, seq")
        #expect(events.values == ["c", "a", "1", "u", "b", "2"])
    }

    /// Migration 8's function is built from statement fragments, and a migrated database keeps the
    /// text it was given: an edit of a fragment that changes the text must come with a migration
    /// that replaces the function (then pin the new text here). FNV-1a of the text's bytes.
    /// The functions migrations 8 and 9 create are built from `TodoSQL`'s fragments, and those of
    /// migrations 4 and 7 share their text with migration 10's (`TodoEventsSchema.pruneFunction(owned:)`,
    /// `TodoTalliesSchema.completedTrigger`): an edit of one of those must come with a migration
    /// that replaces the function (FNV-1a of each text).
    @Test(arguments: [
        (4, TodoEventsSchema.pruneFunction, "ee663a8b51f7cfb2"), (7, TodoTalliesSchema.slotOnce[0], "2d6072ad8905948"),
        (8, TodoSQL.updateOrReadFunction, "dc2a40178cf3193b"), (9, TodoSQL.removeAllFunction, "a7896b9d43ae0475"),
        (10, TodoSQL.ownerUpdateOrReadFunction, "9ddc830863dbcb26"), (10, TodoSQL.ownerRemoveAllFunction, "b36337ad41bda4e"),
        (
            10,
            TodoOwnersSchema.insertTrigger + TodoOwnersSchema.deleteTrigger + TodoOwnersSchema.updateTrigger
                + TodoOwnersSchema.pruneFunction, "bef9ecf9708293de"
        ),
    ])
    func migrationFunctionTextsArePinned(version: Int, text: String, pinned: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        #expect(
            String(hash, radix: 16) == pinned,
            "migration \(version)'s function text changed: add a migration that replaces the function, then pin the new text")
    }

    /// The read after an `UPDATE` that changed nothing sees a change committed while the `UPDATE`
    /// waited for the row: in one SQL statement it would read the to-do as it was when the
    /// statement began (its one snapshot), before that change, and the update would go round again.
    @Test func anUpdateOrReadThatWaitedReadsTheChangeItWaitedFor() async throws {
        let database = try cluster.freshDatabase("sql_update_or_read_waits")
        let session = try await session(database: database)
        defer { session.close() }
        _ = try await insert(session, SQLFixtures.todo(1, title: "a"))
        let holder = try await PostgresTestSession.open(cluster, database: database)
        defer { holder.close() }
        _ = try holder.blockingQuery("BEGIN")?.get()
        _ = try holder.blockingQuery(TodoSQL.updateChanging.sql, Self.updateParameters(1, title: "b", at: 1_900_000_000_000))?.get()
        let holderPid = try #require(try holder.blockingQuery("SELECT pg_backend_pid()::text")?.get()[0, 0])
        // The same title: once the holder commits, it changes nothing. Sent on the session's loop,
        // not from a `Task`: the wait below blocks its thread, and with every cooperative thread
        // blocked so (tests in parallel under AddressSanitizer, CI 2026-12-07) a task never started
        // and the statement never came to wait.
        let waiting = session.send(.prepared(TodoSQL.updateOrRead), Self.updateParameters(1, title: "b", at: 1_900_000_000_001))
        #expect(
            eventually {
                guard
                    case .success(let rows) = holder.blockingQuery(
                        "SELECT count(*)::text FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [holderPid])
                else { return false }
                return rows[0, 0] == "1"
            })
        _ = try holder.blockingQuery("COMMIT")?.get()
        let rows = try #require(waiting.answer()).get()
        #expect(rows.count == 1 && rows[0, 0] == "current")
        let current = try #require(TodoRowDecoder.todo(rows, row: 0, first: 1))
        #expect(current.title == "b" && current.revision == 2)
    }

    /// An update that changed nothing is answered by the in-memory rules (`StoreUpdate.decide`) on
    /// the to-do as read: on every edge they must answer what the statements answer (the locking
    /// `update`, and whether `updateChanging` changes the row).
    @Test func theInMemoryRulesAnswerAsTheStatementsOnEveryEdge() async throws {
        let session = try await session("sql_decide")
        defer { session.close() }
        let cases: [(String, TodoChange, RevisionCondition)] = [
            ("the same title, byte for byte", TodoChange(title: "caf\u{E9}"), .none),
            ("the title decomposed (other bytes)", TodoChange(title: "cafe\u{301}"), .none),
            ("an absent due date cleared", TodoChange(dueDate: .clear), .none),
            ("the order set to what it is", TodoChange(order: .set(5)), .none),
            ("the order cleared", TodoChange(order: .clear), .none),
            ("completed as it is", TodoChange(completed: false), .none),
            ("completed changed", TodoChange(completed: true), .none),
            ("nothing at all", TodoChange(), .none),
            ("If-None-Match: *", TodoChange(title: "x"), RevisionCondition(ifNoneMatch: .any)),
            ("If-Match of a revision past bigint", TodoChange(title: "x"), RevisionCondition(ifMatch: .oneOf([UInt64.max]))),
            ("If-None-Match of a revision past bigint", TodoChange(title: "x"), RevisionCondition(ifNoneMatch: .oneOf([UInt64.max]))),
            ("If-Match: * and a change", TodoChange(title: "x"), RevisionCondition(ifMatch: .any)),
            ("If-Match of the revision, no change", TodoChange(order: .set(5)), RevisionCondition(ifMatch: .oneOf([1]))),
            ("If-None-Match of the revision", TodoChange(completed: true), RevisionCondition(ifNoneMatch: .oneOf([1]))),
        ]
        let time = Timestamp(millisecondsSinceEpoch: 1_800_000_000_000)
        for (index, (label, change, condition)) in cases.enumerated() {
            let parameters = { (number: Int) in
                TodoSQL.updateParameters(
                    id: SQLFixtures.id(number), title: change.title, completed: change.completed,
                    order: PostgresTodoStore.fieldChange(change.order), dueDate: PostgresTodoStore.fieldChange(change.dueDate),
                    condition: PostgresTodoStore.condition(condition), at: time)
            }
            let locking = 2 * index + 1, plain = 2 * index + 2
            func decided(_ number: Int) async throws -> StoreUpdate {
                let stored = try #require(try await insert(session, SQLFixtures.todo(number, title: "caf\u{E9}", order: 5)))
                return StoreUpdate.decide(stored: stored, change: change, condition: condition, at: time, nextRevision: { $0.revision + 1 })
            }
            let expected = try await decided(locking)
            let answer = PostgresTodoStore.updateOutcome(try await run(session, TodoSQL.update, parameters(locking)))
            #expect(answer == expected, "\(label)")
            let rules = try await decided(plain)
            let changing = try await run(session, TodoSQL.updateChanging, parameters(plain))
            if case .updated(let todo) = rules {
                #expect(changing.count == 1 && TodoRowDecoder.todo(changing, row: 0) == todo, "\(label)")
            } else {
                #expect(changing.count == 0, "\(label)")
            }
            // `updateOrRead` on a third copy: the change, or the to-do the rules then decide on.
            let third = 2 * cases.count + index + 1
            let rulesAgain = try await decided(third)
            let read = try #require(PostgresTodoStore.updateOrRead(try await run(session, TodoSQL.updateOrRead, parameters(third))))
            switch (rulesAgain, read) {
            case (.updated(let todo), .updated(let changed)): #expect(changed == todo, "\(label)")
            case (_, .current(let stored)):
                let again = StoreUpdate.decide(
                    stored: stored, change: change, condition: condition, at: time, nextRevision: { $0.revision + 1 })
                #expect(again == rulesAgain, "\(label)")
                if case .updated = again { Issue.record("\(label): read a change to make") }
            default: Issue.record("\(label): \(rulesAgain) against \(read)")
            }
        }
    }

    @Test func aConditionalRemoveTellsRemovedFailedAndMissingApart() async throws {
        let session = try await session("sql_remove")
        defer { session.close() }
        let todo = SQLFixtures.todo(1)
        _ = try await insert(session, todo)
        var rows = try await run(session, TodoSQL.remove, TodoSQL.removeParameters(id: SQLFixtures.id(1), condition: .init(ifMatch: [9])))
        #expect(rows[0, 0] == "failed")
        #expect(TodoRowDecoder.todo(rows, row: 0, first: 1) == todo)
        #expect(try await get(session, 1) == todo)
        rows = try await run(session, TodoSQL.remove, TodoSQL.removeParameters(id: SQLFixtures.id(1), condition: .init(ifMatch: [1])))
        #expect(rows[0, 0] == "removed")
        #expect(try await get(session, 1) == nil)
        rows = try await run(session, TodoSQL.remove, TodoSQL.removeParameters(id: SQLFixtures.id(1), condition: .init()))
        #expect(rows.count == 0)
    }

    @Test func theKeptCountsStayExactThroughInsertsUpdatesAndRemovals() async throws {
        let session = try await session("sql_counts")
        defer { session.close() }
        for number in 1...40 { _ = try await insert(session, SQLFixtures.todo(number, completed: number % 4 == 0)) }
        for number in 1...10 { _ = try await update(session, number, completed: true, at: 1) }
        for number in 35...40 {
            _ = try await run(session, TodoSQL.remove, TodoSQL.removeParameters(id: SQLFixtures.id(number), condition: .init()))
        }
        // A bulk statement: every open to-do completed at once.
        _ = try await session.connection.query("UPDATE todos SET completed = NOT completed WHERE id::text LIKE '%1'")
        let counted = try await session.connection.query(
            "SELECT completed, count(*) FROM todos GROUP BY completed ORDER BY completed")
        let kept = try await session.connection.query(
            "SELECT false, sum(total - done)::bigint FROM todo_tallies UNION ALL SELECT true, sum(done)::bigint FROM todo_tallies")
        #expect(kept.values == counted.values)
        #expect(try await list(session, TodoQuery(limit: 1)).total == 34)
        #expect(try await list(session, TodoQuery(completed: true, limit: 1)).total == Int(counted[1, 1]!)!)
        #expect(try await run(session, TodoSQL.count, []).values == ["34"])
        _ = try await run(session, TodoSQL.removeAll, TodoSQL.removeAllParameters(lockWait: .seconds(1)))
        #expect(try await run(session, TodoSQL.count, []).values == ["0"])
        #expect(try await list(session, TodoQuery()) == ([], 0))
    }

    /// Runs `body` on a fresh migrated database holding to-do 1, with a session on it and `holder`, a
    /// session whose open transaction has inserted to-do 2 (not committed); closes both after it.
    func withOpenInsert(
        _ label: String, _ body: (_ database: String, _ session: PostgresTestSession, _ holder: PostgresTestSession) async throws -> Void
    ) async throws {
        let database = try cluster.freshDatabase(label)
        let session = try await session(database: database)
        defer { session.close() }
        _ = try await insert(session, SQLFixtures.todo(1))
        let holder = try await PostgresTestSession.open(cluster, database: database)
        defer { holder.close() }
        _ = try holder.blockingQuery("BEGIN")?.get()
        _ = try holder.blockingQuery(TodoSQL.insert.sql, TodoSQL.insertParameters(SQLFixtures.todo(2)))?.get()
        try await body(database, session, holder)
    }

    /// A clear waits for a write in progress and removes what it wrote, and a write that comes while
    /// the clear waits goes after it: the feed's order (transaction ids) is the table's. Without the
    /// table lock the clear ran at once, past the uncommitted insert: the to-do stayed in the table
    /// with its `created` (the older id) read before `cleared`.
    @Test func aClearWaitsForWritesInProgressAndLaterWritesWaitForIt() async throws {
        try await withOpenInsert("sql_clear_order") { database, session, holder in
            let later = try await PostgresTestSession.open(cluster, database: database)
            defer { later.close() }
            let clear = session.send(.prepared(TodoSQL.removeAll), TodoSQL.removeAllParameters(lockWait: .zero))
            #expect(eventually { SQLFixtures.tableLocksWaiting(holder) == 1 }, "the clear waits for the insert in progress")
            let update = later.send(
                .unprepared(TodoSQL.updateChanging.sql), Self.updateParameters(1, title: "after", at: 1_900_000_000_000))
            #expect(eventually { SQLFixtures.tableLocksWaiting(holder) == 2 }, "the update waits for the clear")
            #expect(!clear.isAnswered && !update.isAnswered)
            _ = try holder.blockingQuery("COMMIT")?.get()
            _ = try #require(clear.answer()).get()
            #expect(try #require(update.answer()).get().count == 0, "the update finds the to-do removed")
            #expect(try await run(session, TodoSQL.count, []).values == ["0"])
            #expect(try await list(session, TodoQuery()) == ([], 0))
            let events = try await session.connection.query("SELECT kind::text, id::text FROM todo_events ORDER BY xid, seq")
            #expect(events.values == ["c", SQLFixtures.id(1), "c", SQLFixtures.id(2), "x", nil])
        }
    }

    /// A clear that cannot have the table within its wait (a transaction holds it open) fails with
    /// 55P03 (the store's 503 with `Retry-After`) and changes nothing; once the table is free it runs.
    @Test func aClearThatCannotHaveTheTableWithinItsWaitFailsAndChangesNothing() async throws {
        try await withOpenInsert("sql_clear_wait") { _, session, holder in
            let refused = try #require(
                session.send(.prepared(TodoSQL.removeAll), TodoSQL.removeAllParameters(lockWait: .milliseconds(50))).answer())
            guard case .failure(.server(let error)) = refused else {
                Issue.record("the clear did not fail on the lock: \(refused)")
                return
            }
            #expect(error.sqlState == PostgresTodoStore.lockNotAvailable)
            let mapped = PostgresTodoStore.storeError(.server(error), load: PostgresLoad(waiting: 0, connections: 1, deadline: .seconds(2)))
            #expect(mapped.retryAfter == 1)
            #expect(try await run(session, TodoSQL.count, []).values == ["1"])
            _ = try holder.blockingQuery("ROLLBACK")?.get()
            _ = try await run(session, TodoSQL.removeAll, TodoSQL.removeAllParameters(lockWait: .milliseconds(50)))
            #expect(try await run(session, TodoSQL.count, []).values == ["0"])
            let events = try await session.connection.query("SELECT kind::text FROM todo_events ORDER BY xid, seq")
            #expect(events.values == ["c", "x"])
        }
    }

    @Test func twoSessionsRacingOneTagGetExactlyOneUpdate() async throws {
        let database = try cluster.freshDatabase("sql_race")
        let first = try await session(database: database)
        defer { first.close() }
        let second = try await PostgresTestSession.open(cluster, database: database)
        defer { second.close() }
        for round in 1...30 {
            _ = try await insert(first, SQLFixtures.todo(round))
            async let a = run(
                first, TodoSQL.update,
                TodoSQL.updateParameters(
                    id: SQLFixtures.id(round), title: "a", completed: nil, order: nil, dueDate: nil, condition: .init(ifMatch: [1]),
                    at: Timestamp(millisecondsSinceEpoch: 5)))
            async let b = run(
                second, TodoSQL.update,
                TodoSQL.updateParameters(
                    id: SQLFixtures.id(round), title: "b", completed: nil, order: nil, dueDate: nil, condition: .init(ifMatch: [1]),
                    at: Timestamp(millisecondsSinceEpoch: 6)))
            let outcomes = try await [a[0, 0], b[0, 0]].compactMap { $0 }.sorted()
            #expect(outcomes == ["failed", "updated"], "round \(round)")
            #expect(try await get(first, round)?.revision == 2, "round \(round)")
        }
    }
}
