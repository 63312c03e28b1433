import Foundation
import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Owners in PostgreSQL (migration 10, `TodoOwnersSchema`): every statement scoped by owner on
/// an index that leads with it, a database of the previous schema carried into the shared list,
/// and the previous build still running, on the shared list only, on a database this build migrated.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresOwnersTests {
    let cluster = PostgresTestCluster.shared!
    let alice = Owner(name: "alice")!
    let bob = Owner(name: "bob")!

    // MARK: plans

    /// The plan PostgreSQL runs for `statement` (a generic plan, as the store's sessions use:
    /// `plan_cache_mode = force_generic_plan`), as JSON; `analyze`: run (a read), so that the
    /// parts it never ran (`Actual Loops` 0: the `q=` count's branch of a page without `q=`) are
    /// told apart.
    private func plan(_ session: PostgresTestSession, _ statement: String, _ parameters: [String?], analyze: Bool = false) async throws
        -> [String: Any]
    {
        _ = try await session.connection.query("DEALLOCATE ALL")
        _ = try await session.connection.query("PREPARE explained AS \(statement)")
        let literals = parameters.map { $0.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
        let arguments = literals.isEmpty ? "" : "(\(literals.joined(separator: ", ")))"
        let text = try #require(
            try await session.connection.query("EXPLAIN (\(analyze ? "ANALYZE, " : "")FORMAT JSON) EXECUTE explained\(arguments)")[0, 0])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        return try #require(json.first?["Plan"] as? [String: Any])
    }

    /// Every node of `plan`, depth first.
    private func nodes(_ plan: [String: Any]) -> [[String: Any]] {
        [plan] + ((plan["Plans"] as? [[String: Any]]) ?? []).flatMap(nodes)
    }

    /// The scans of `todo_rows` in `plan`: node type, index (nil for a scan of the table), index
    /// condition and filter.
    private func scans(_ plan: [String: Any], ownerLeading: Set<String>, of table: String = "todo_rows")
        -> [(type: String, index: String?, condition: String, filter: String)]
    {
        nodes(plan).compactMap { node in
            let type = node["Node Type"] as? String ?? ""
            let index = node["Index Name"] as? String
            let onTable = node["Relation Name"] as? String == table
            // A bitmap index scan names its index, not its table.
            let bitmapOfTable = type == "Bitmap Index Scan" && index.map { ownerLeading.contains($0) || $0.hasPrefix(table) } == true
            guard type != "ModifyTable", type != "Bitmap Heap Scan", onTable || bitmapOfTable else { return nil }
            if let loops = node["Actual Loops"] as? Int, loops == 0 { return nil }
            return (type, index, node["Index Cond"] as? String ?? "", node["Filter"] as? String ?? "")
        }
    }

    /// Who holds the to-dos: 100 owners of 30 each and 30 shared ones; or (skewed) the caller 10,
    /// the shared list 10 and one other owner 3,010, where plans made for the average owner (a
    /// third of the table) scanned the table: the store plans those statements for their owner
    /// (`TodoSQL.list(_:owner:)`, the clear's `EXECUTE`).
    static let distributions = [
        ("many owners", "CASE WHEN g % 101 = 0 THEN '' ELSE 'owner' || (g % 101) END"),
        ("skewed", "CASE WHEN g % 303 = 7 THEN 'owner7' WHEN g % 303 = 0 THEN '' ELSE 'big' END"),
    ]

    @Test(arguments: distributions.map(\.0))
    func everyOwnerScopedStatementReadsAnIndexThatLeadsWithTheOwnerOrOneRowByItsKey(distribution: String) async throws {
        let owners = try #require(Self.distributions.first { $0.0 == distribution }?.1)
        let session = try await cluster.migratedSession(database: try cluster.freshDatabase("owners_explain"))
        defer { session.close() }
        _ = try await session.connection.query(
            """
            INSERT INTO todo_rows (owner, id, title, title_key, title_nfc, completed, "order", due_date, created_at, updated_at, revision)
            SELECT \(owners),
                ('00000000-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 't' || g, 't' || g, 't' || g, g % 3 = 0,
                CASE WHEN g % 4 = 0 THEN NULL ELSE g END, DATE '2026-11-01' + (g % 60), now(), now(), 1
            FROM generate_series(1, 3030) AS g
            """)
        _ = try await session.connection.query("ANALYZE todo_rows")
        _ = try await session.connection.query("ANALYZE todo_tally_rows")
        _ = try await session.connection.query("SET plan_cache_mode = force_generic_plan")
        let leading = try await session.connection.query(
            """
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
            WHERE i.indrelid = 'todo_rows'::regclass AND a.attname = 'owner' ORDER BY c.relname
            """)
        let ownerLeading = Set(leading.values.compactMap { $0 })
        #expect(ownerLeading == ["todo_rows_default_order", "todo_rows_title_key", "todo_rows_upcoming"])

        let owner = Owner(name: "owner7")!
        let id = SQLFixtures.id(7)
        var statements: [(String, String, [String?])] = []
        // The shared list keeps the generic plans it had before owners; with many owners they
        // read its range too. (With a few owners, one holding nearly every row, a generic plan of
        // the shared list's `q=` count may scan: docs/stores.md.)
        for who in distribution == "skewed" ? [owner] : [owner, .shared] {
            for field in TodoSort.Field.allCases {
                for descending in [false, true] {
                    let sort = TodoSort(field, descending: descending)
                    for search in [nil, "t1"] {
                        var query = TodoQuery()
                        query.sort = sort
                        query.titleContains = search
                        // As the store sends it (planned for its owner, or prepared).
                        let (statement, parameters, unprepared) = TodoSQL.list(query, owner: who)
                        #expect(unprepared == (!who.isShared && (search != nil || !TodoSQL.servedByAnIndex(sort))))
                        statements.append(("list \(who) \(sort) q=\(search ?? "-")", statement.sql, parameters))
                    }
                }
            }
        }
        statements += [
            (
                "upcoming", TodoSQL.upcoming.sql,
                TodoSQL.upcomingParameters(from: CalendarDay("2026-11-02")!, through: CalendarDay("2026-11-09")!, owner: owner)
            ),
            // The clear's `DELETE` (in `todo_owner_remove_all`, planned for its owner by `EXECUTE`).
            ("clear", "DELETE FROM todo_rows WHERE owner = \(TodoSQL.literal(owner.name))", []),
        ]
        for (name, statement, parameters) in statements {
            let found = scans(try await plan(session, statement, parameters, analyze: name != "clear"), ownerLeading: ownerLeading)
            #expect(!found.isEmpty, "\(name) reads the table")
            for scan in found {
                #expect(scan.type != "Seq Scan", "\(name): \(scan)")
                #expect(scan.index.map(ownerLeading.contains) == true, "\(name): \(scan)")
                #expect(
                    scan.condition.contains("(owner = $") || scan.condition.contains("(owner = '\(owner.name)'::text)")
                        || scan.condition.contains("(owner = ''::text)"),
                    "\(name): the owner bounds the index range: \(scan)")
            }
        }

        // By id: the one row with the id (primary key), kept only if it is the owner's.
        let condition = TodoSQL.Condition()
        let byID: [(String, String, [String?])] = [
            ("get", TodoSQL.get.sql, [id, owner.name]),
            (
                "update (the function's UPDATE)", TodoSQL.updateChanging.sql,
                TodoSQL.updateParameters(
                    id: id, title: "x", completed: nil, order: nil, dueDate: nil, condition: condition,
                    at: Timestamp(millisecondsSinceEpoch: 1),
                    owner: owner)
            ),
            (
                "update (locking)", TodoSQL.update.sql,
                TodoSQL.updateParameters(
                    id: id, title: "x", completed: nil, order: nil, dueDate: nil, condition: condition,
                    at: Timestamp(millisecondsSinceEpoch: 1),
                    owner: owner)
            ),
            ("remove", TodoSQL.remove.sql, TodoSQL.removeParameters(id: id, condition: condition, owner: owner)),
        ]
        for (name, statement, parameters) in byID {
            let found = scans(try await plan(session, statement, parameters), ownerLeading: ownerLeading)
            #expect(!found.isEmpty, "\(name) reads the table")
            #expect(found.contains { $0.condition == "(id = $1)" }, "\(name)")
            for scan in found {
                #expect(scan.type == "Index Scan" && scan.index == "todo_rows_pkey", "\(name): \(scan)")
                // The id given, kept only if the owner's; or (the CTE's `DELETE` / `UPDATE`) the
                // row that step chose, by its id.
                let byGivenID = scan.condition == "(id = $1)" && scan.filter.hasPrefix("((owner = $") || scan.filter.hasPrefix("(owner = $")
                #expect(byGivenID || ["(id = c.id)", "(id = d.id)"].contains(scan.condition), "\(name): \(scan)")
            }
        }
        // The kept counts: the owner's slots, by the primary key (owner, slot); a table of one page
        // (a few owners' 16 slots each) may be read whole, as it is with many owners in no case.
        let pages = try await session.connection.query("SELECT relpages FROM pg_class WHERE relname = 'todo_tally_rows'")
        let onePage = pages[0, 0].flatMap { Int($0) }.map { $0 <= 1 } == true
        #expect(onePage == (distribution == "skewed"))
        for (name, statement, parameters) in [
            ("owner count", TodoSQL.ownerCount.sql, [owner.name]),
            ("list total", TodoSQL.list(TodoSort(.order, descending: false)).sql, TodoSQL.listParameters(TodoQuery(), owner: owner)),
        ] {
            let found = scans(try await plan(session, statement, parameters), ownerLeading: ["todo_tally_rows_pkey"], of: "todo_tally_rows")
            #expect(!found.isEmpty, "\(name)")
            for scan in found {
                let byKey = scan.index == "todo_tally_rows_pkey" && scan.condition.contains("(owner = $")
                #expect(byKey || (onePage && scan.type == "Seq Scan"), "\(name): \(scan)")
            }
        }
    }

    // MARK: the store

    private func wait<Value: Sendable>(_ pending: Pending<Result<Value, StoreError>>) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in pending.whenReady { continuation.resume(with: $0) } }
    }

    @Test func anOwnersCallsReachTheirRowsOnlyAndTheRootCountsEveryone() async throws {
        let configuration = try await ContractStore.freshDatabase("owners_store")
        let store = try PostgresTodoStore(configuration: configuration)
        defer { store.close() }
        // A value: an owner's store is held inline by `any TodoStore` (no box is allocated).
        #expect(MemoryLayout<PostgresOwnedTodoStore>.size <= 3 * MemoryLayout<Int>.size)
        #expect(store.owned(by: .shared) as? PostgresTodoStore === store)
        let alices = store.owned(by: alice), bobs = store.owned(by: bob)
        _ = try await wait(alices.insert(SQLFixtures.todo(1, title: "alice one", due: CalendarDay("2026-11-24"))))
        _ = try await wait(alices.insert(SQLFixtures.todo(2, title: "alice two", completed: true)))
        _ = try await wait(bobs.insert(SQLFixtures.todo(3, title: "bob one", due: CalendarDay("2026-11-24"))))
        _ = try await wait(store.insert(SQLFixtures.todo(4, title: "shared one")))

        func titles(_ of: any TodoStore, _ query: TodoQuery = TodoQuery()) async throws -> ([String], Int) {
            let page = try await wait(of.list(query))
            return (page.items.map(\.title), page.total)
        }
        #expect(try await titles(alices) == (["alice one", "alice two"], 2))
        #expect(try await titles(bobs) == (["bob one"], 1))
        #expect(try await titles(store) == (["shared one"], 1))
        var search = TodoQuery()
        search.titleContains = "one"
        #expect(try await titles(alices, search) == (["alice one"], 1))
        var done = TodoQuery()
        done.completed = true
        #expect(try await titles(bobs, done) == ([], 0))
        let week = (CalendarDay("2026-11-23")!, CalendarDay("2026-11-30")!)
        #expect(try await wait(alices.upcoming(from: week.0, through: week.1)).map(\.title) == ["alice one"])
        #expect(try await wait(store.upcoming(from: week.0, through: week.1)).isEmpty)

        // Alice's to-do by id, from anyone else: nothing, and nothing changes.
        let alicesID = SQLFixtures.id(1)
        for other in [bobs, store as any TodoStore] {
            #expect(try await wait(other.todo(id: alicesID)) == nil)
            #expect(
                try await wait(
                    other.update(
                        id: alicesID, change: TodoChange(title: "taken"), condition: .none, at: Timestamp(millisecondsSinceEpoch: 9)))
                    == .notFound)
            #expect(try await wait(other.remove(id: alicesID, condition: .none)) == .notFound)
        }
        #expect(try await wait(alices.todo(id: alicesID))?.title == "alice one")
        let changed = try await wait(
            alices.update(id: alicesID, change: TodoChange(title: "alice uno"), condition: .none, at: Timestamp(millisecondsSinceEpoch: 9)))
        guard case .updated(let todo) = changed else { throw Failure("alice's own update: \(changed)") }
        #expect(todo.title == "alice uno" && todo.revision == 2)

        // Counts: the root counts everyone, an owner's store its owner's.
        #expect(try await wait(store.statistics()).count == 4)
        #expect(try await wait(alices.statistics()).count == 2)
        // Bob's clear removes bob's to-dos only; its change carries bob.
        try await wait(bobs.removeAll())
        #expect(try await titles(bobs) == ([], 0))
        #expect(try await titles(alices) == (["alice uno", "alice two"], 2))
        #expect(try await wait(store.statistics()).count == 3)
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        let events = try await session.connection.query("SELECT owner, kind::text FROM todo_event_rows ORDER BY xid, seq")
        #expect(events.values == ["alice", "c", "alice", "c", "bob", "c", "", "c", "alice", "u", "bob", "x"])
        let tallies = try await session.connection.query(
            "SELECT owner, sum(total)::bigint, sum(done)::bigint FROM todo_tally_rows GROUP BY owner ORDER BY owner")
        #expect(tallies.values == ["", "1", "0", "alice", "2", "1", "bob", "0", "0"])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: the migration and the previous build

    /// The previous build's statements (before migration 10), as it sends them: on `todos`,
    /// `todo_events` and `todo_tallies`, with no owner.
    enum Previous {
        static let insert = """
            WITH inserted AS (
                INSERT INTO todos (id, title, title_key, title_nfc, completed, "order", due_date, created_at, updated_at, revision)
                VALUES ($1::uuid, $2, $3, $9, $4::boolean, $5::bigint, $6::date, \(TodoSQL.timestamp(7)), \(TodoSQL.timestamp(8)), 1)
                RETURNING *
            ), event AS (
                \(TodoSQL.recordEvent(TodoEventsSchema.created, from: "inserted", owned: false))
            )
            SELECT \(TodoSQL.columns) FROM inserted
            """
        static let get = "SELECT \(TodoSQL.columns) FROM todos WHERE id = $1::uuid"
        static let remove = """
            WITH cur AS (
                SELECT id, title, completed, "order", due_date, created_at, updated_at, revision,
                    \(TodoSQL.condition(match: 2, noneAny: 3, none: 4)) AS allowed
                FROM todos WHERE id = $1::uuid FOR UPDATE
            ), removed AS (
                DELETE FROM todos t USING cur c WHERE t.id = c.id AND c.allowed RETURNING t.id
            ), event AS (
                INSERT INTO todo_events (kind, id) SELECT '\(TodoEventsSchema.deleted)', id FROM removed
            )
            SELECT CASE WHEN allowed THEN 'removed' ELSE 'failed' END AS outcome, \(TodoSQL.columns) FROM cur
            """
        /// The default order's page, as the previous build's `TodoSQL.list` wrote it.
        static let list = TodoSQL.list(TodoSort(.order, descending: false)).sql
            .replacingOccurrences(of: "FROM todo_tally_rows WHERE owner = $5::text", with: "FROM todo_tallies")
            .replacingOccurrences(of: "owner = $5::text AND ", with: "")
            .replacingOccurrences(of: "todo_rows", with: "todos")
        static let updateOrRead = "SELECT * FROM todo_update_or_read(\((1...13).map { "$\($0)" }.joined(separator: ", ")))"
        static let count = "SELECT coalesce(sum(total), 0)::bigint FROM todo_tallies"
        static let events = "SELECT kind::text, id::text FROM todo_events e ORDER BY e.xid, e.seq"
    }

    /// A fresh database migrated to the previous build's schema (versions 1 to 9), and a session on it.
    private func previousSchema(_ label: String) async throws -> (database: String, session: PostgresTestSession) {
        let database = try cluster.freshDatabase(label)
        let session = try await PostgresTestSession.open(cluster, database: database)
        let previous = PostgresMigrator(migrations: TodoSchema.migrations.filter { $0.version <= 9 }, lockKey: TodoSchema.migrationLockKey)
        #expect(try await previous.migrate(session.connection) == Array(1...9))
        return (database, session)
    }

    /// A role granted the previous tables one by one (not the owner, no right to create) keeps
    /// its rights through migration 10: on the new table of kept counts (its triggers write there
    /// as the role) and on the views that keep the old names (for a rollback).
    @Test func aRoleGrantedThePreviousTablesOneByOneRunsBothBuildsAfterTheMigration() async throws {
        let (database, session) = try await previousSchema("owners_grants")
        defer { session.close() }
        let role = "app_\(UInt32.random(in: 0...UInt32.max))"
        _ = try await session.connection.query("CREATE ROLE \(role) LOGIN")
        for table in ["todos", "todo_events", "todo_tallies", "todo_event_floor"] {
            _ = try await session.connection.query("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table) TO \(role)")
        }
        _ = try await session.connection.query("GRANT USAGE ON SEQUENCE todo_events_seq TO \(role)")
        // What its start-up reads (the versions applied).
        _ = try await session.connection.query("GRANT SELECT ON schema_migrations TO \(role)")
        let configuration = PostgresConfiguration(connectionString: cluster.connectionString(database: database))
        #expect(try await TodoSchema.migrate(configuration).applied == [10])

        var asRole = configuration
        asRole.connectionString = configuration.connectionString.replacing("user=postgres", with: "user=\(role)")
        #expect(try await TodoSchema.migrate(asRole).applied == [])
        let store = try PostgresTodoStore(configuration: asRole)
        defer { store.close() }
        _ = try await wait(store.owned(by: alice).insert(SQLFixtures.todo(1, title: "alice's")))
        _ = try await wait(store.insert(SQLFixtures.todo(2, title: "shared")))
        #expect(try await wait(store.owned(by: alice).list(TodoQuery())).items.map(\.title) == ["alice's"])
        #expect(try await wait(store.statistics()).count == 2)
        try await wait(store.owned(by: alice).removeAll())
        #expect(try await wait(store.statistics()).count == 1)
        // The previous build, as the role, on the views.
        let user = try await PostgresTestSession.open(asRole)
        defer { user.close() }
        _ = try await user.connection.query(
            Previous.insert, Array(TodoSQL.insertParameters(SQLFixtures.todo(3, title: "old build's")).dropLast()))
        let page = try await user.connection.query(Previous.list, Array(TodoSQL.listParameters(TodoQuery()).dropLast()))
        #expect(try #require(TodoRowDecoder.todos(page, first: 2)).map(\.title) == ["shared", "old build's"])
        #expect(try await user.connection.query(Previous.count).values == ["2"])
    }

    @Test func aDatabaseOfThePreviousSchemaIsTheSharedListAndThePreviousBuildStillRunsOnItSeeingOnlyThat() async throws {
        let (database, session) = try await previousSchema("owners_migration")
        defer { session.close() }
        func run(_ statement: String, _ parameters: [String?] = []) async throws -> PostgresRows {
            try await session.connection.query(statement, parameters)
        }
        func previousInsert(_ todo: Todo) async throws {
            _ = try await run(Previous.insert, Array(TodoSQL.insertParameters(todo).dropLast()))
        }
        for number in 1...3 { try await previousInsert(SQLFixtures.todo(number, title: "old \(number)", completed: number == 2)) }

        // This build's start-up migrates it, once.
        let configuration = PostgresConfiguration(connectionString: cluster.connectionString(database: database))
        #expect(try await TodoSchema.migrate(configuration).applied == [10])
        #expect(try await TodoSchema.migrate(configuration).applied == [])
        #expect(try await run("SELECT owner, count(*) FROM todo_rows GROUP BY owner").values == ["", "3"])
        #expect(try await run("SELECT owner, count(*) FROM todo_event_rows GROUP BY owner").values == ["", "3"])
        #expect(
            try await run("SELECT owner, sum(total)::bigint, sum(done)::bigint FROM todo_tally_rows GROUP BY owner").values == [
                "", "3", "1",
            ])

        let store = try PostgresTodoStore(configuration: configuration)
        defer { store.close() }
        let shared = try await wait(store.list(TodoQuery()))
        #expect(shared.items.map(\.title) == ["old 1", "old 2", "old 3"])
        #expect(shared.total == 3)
        #expect(try await wait(store.owned(by: alice).list(TodoQuery())).total == 0)
        _ = try await wait(store.owned(by: alice).insert(SQLFixtures.todo(4, title: "alice's")))

        // Rolled back: the previous build's statements see the shared list only.
        #expect(try await run(Previous.get, [SQLFixtures.id(4)]).count == 0)
        #expect(try await run(Previous.get, [SQLFixtures.id(1)]).count == 1)
        let page = try await run(Previous.list, Array(TodoSQL.listParameters(TodoQuery()).dropLast()))
        #expect(try #require(TodoRowDecoder.todos(page, first: 2)).map(\.title) == ["old 1", "old 2", "old 3"])
        #expect(page[0, 0] == "3")
        #expect(try await run(Previous.count).values == ["3"])
        try await previousInsert(SQLFixtures.todo(5, title: "old build's"))
        #expect(try await run("SELECT owner FROM todo_rows WHERE id = $1::uuid", [SQLFixtures.id(5)]).values == [""])
        func previousUpdate(_ number: Int) async throws -> PostgresRows {
            let parameters = TodoSQL.updateParameters(
                id: SQLFixtures.id(number), title: "renamed", completed: nil, order: nil, dueDate: nil, condition: TodoSQL.Condition(),
                at: Timestamp(millisecondsSinceEpoch: 1_800_000_000_000))
            return try await run(Previous.updateOrRead, Array(parameters.dropLast()))
        }
        #expect(try await previousUpdate(1)[0, 0] == "updated")
        #expect(try await previousUpdate(4).count == 0)
        let removal = TodoSQL.removeParameters(id: SQLFixtures.id(4), condition: TodoSQL.Condition())
        #expect(try await run(Previous.remove, Array(removal.dropLast())).count == 0)
        // Its clear (migration 9's function, now on the view) clears the shared list, not alice's.
        _ = try await run("SELECT todo_remove_all(1000)")
        #expect(try await run("SELECT owner, title FROM todo_rows").values == ["alice", "alice's"])
        #expect(try await run(Previous.count).values == ["0"])
        // Its feed reads the shared list's changes only.
        let events = try await run(Previous.events)
        #expect(
            events.values == [
                "c", SQLFixtures.id(1), "c", SQLFixtures.id(2), "c", SQLFixtures.id(3), "c", SQLFixtures.id(5), "u",
                SQLFixtures.id(1), "x", nil,
            ])
        // And this build goes on: the shared list is empty, alice's to-do is hers.
        #expect(try await wait(store.list(TodoQuery())).total == 0)
        #expect(try await wait(store.owned(by: alice).list(TodoQuery())).items.map(\.title) == ["alice's"])
        #expect(try await wait(store.statistics()).count == 1)
    }
}
