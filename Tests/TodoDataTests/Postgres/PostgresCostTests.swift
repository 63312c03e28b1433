import TestSupport
import Testing

@testable import PostgresLoop
@testable import TodoData
@testable import TodoDataTestSupport

/// What the store's statements cost PostgreSQL (issue 22): the list is planned once per connection,
/// not on every execution; marking a to-do done touches no index.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresCostTests {
    let cluster = PostgresTestCluster.shared!

    @Test func theSessionSettingsComeFirstSoThatTheConnectionStringsOwnOptionsWin() {
        #expect(
            PostgresConnection.sessionOptions(
                nil, statementTimeout: .milliseconds(2200), settings: ["plan_cache_mode": "force_generic_plan"])
                == "-c plan_cache_mode=force_generic_plan -c statement_timeout=2200")
        #expect(
            PostgresConnection.sessionOptions(
                "-c plan_cache_mode=auto", statementTimeout: .milliseconds(110),
                settings: ["plan_cache_mode": "force_generic_plan", "application_name": "todo server"])
                == #"-c application_name=todo\ server -c plan_cache_mode=force_generic_plan -c plan_cache_mode=auto -c statement_timeout=110"#
        )
        let configuration = PostgresConfiguration(connectionString: "host=/tmp")
        #expect(PostgresTodoStore.withGenericPlans(configuration).settings == ["plan_cache_mode": "force_generic_plan"])
        var own = configuration
        own.settings["plan_cache_mode"] = "auto"
        #expect(PostgresTodoStore.withGenericPlans(own).settings == ["plan_cache_mode": "auto"])
    }

    @Test func theListStatementIsPlannedOncePerConnection() async throws {
        let database = try cluster.freshDatabase("plans")
        let configuration = PostgresTodoStore.withGenericPlans(
            PostgresConfiguration(
                connectionString: cluster.connectionString(database: database)))
        let session = try await PostgresTestSession.open(configuration)
        defer { session.close() }
        try await TodoSchema.migrator.migrate(session.connection)
        #expect(try await session.connection.query("SHOW plan_cache_mode")[0, 0] == "force_generic_plan")
        let statement = TodoSQL.list(TodoSort(.order, descending: false))
        for index in 0..<12 {
            let query = TodoQuery(completed: index % 3 == 0 ? true : nil, titleContains: index % 4 == 0 ? "x" : nil, limit: 20, offset: 0)
            _ = try await session.connection.query(.prepared(statement), TodoSQL.listParameters(query))
        }
        let plans = try await session.connection.query(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1", [statement.name])
        #expect(plans.values == ["12", "0"])
    }

    /// Version 5: a PATCH of `completed` (the store's own statement) writes no index entry.
    @Test func markingAToDoDoneOrNotDoneIsAHotUpdate() async throws {
        let session = try await cluster.migratedSession(database: try cluster.freshDatabase("hot"))
        defer { session.close() }
        let id = "8f0c2f1e-0000-4000-8000-000000000001"
        let todo = Todo(
            id: id, title: "hot", completed: false, order: 3, dueDate: CalendarDay("2026-11-30"),
            createdAt: Timestamp(millisecondsSinceEpoch: 1_763_812_800_000),
            updatedAt: Timestamp(millisecondsSinceEpoch: 1_763_812_800_000),
            revision: 1)
        _ = try await session.connection.query(.prepared(TodoSQL.insert), TodoSQL.insertParameters(todo))
        for (index, completed) in [true, false, true, false, true, false].enumerated() {
            let rows = try await session.connection.query(
                .prepared(TodoSQL.update),
                TodoSQL.updateParameters(
                    id: id, title: nil, completed: completed, order: nil, dueDate: nil, condition: TodoSQL.Condition(),
                    at: Timestamp(millisecondsSinceEpoch: 1_763_812_800_001 + Int64(index))))
            #expect(rows[0, 0] == "updated")
        }
        _ = try await session.connection.query("SELECT pg_stat_force_next_flush()")
        let counts = try await session.connection.query(
            "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'todo_rows'")
        #expect(counts.values == ["6", "6"])
        // The done one is not upcoming; the open one is, from the index.
        let monday = CalendarDay("2026-11-23")!
        let upcoming = try await session.connection.query(
            .prepared(TodoSQL.upcoming), TodoSQL.upcomingParameters(from: monday, through: monday.adding(days: 7)))
        #expect(TodoRowDecoder.todos(upcoming)?.map(\.id) == [id])
        _ = try await session.connection.query(
            .prepared(TodoSQL.update),
            TodoSQL.updateParameters(
                id: id, title: nil, completed: true, order: nil, dueDate: nil, condition: TodoSQL.Condition(),
                at: Timestamp(millisecondsSinceEpoch: 1_763_812_900_000)))
        let none = try await session.connection.query(
            .prepared(TodoSQL.upcoming), TodoSQL.upcomingParameters(from: monday, through: monday.adding(days: 7)))
        #expect(TodoRowDecoder.todos(none)?.isEmpty == true)
    }

    /// Version 6: a PATCH that changes `completed` updates one kept-count row, from a row trigger;
    /// one that changes another field updates none (version 2 updated two rows per change of
    /// `completed`, from a statement trigger that ran on every update). Since version 7 the trigger
    /// runs for every update and tests the change itself (a `WHEN` cost every statement more).
    @Test func aChangeOfCompletedUpdatesOneKeptCountRowAndOtherChangesNone() async throws {
        let session = try await cluster.migratedSession(database: try cluster.freshDatabase("tallies"))
        defer { session.close() }
        _ = try await session.connection.query("SET track_functions = 'pl'")
        let id = "8f0c2f1e-0000-4000-8000-000000000002"
        let created = Timestamp(millisecondsSinceEpoch: 1_763_812_800_000)
        let todo = Todo(
            id: id, title: "tally", completed: false, order: nil, dueDate: nil, createdAt: created, updatedAt: created, revision: 1)
        _ = try await session.connection.query(.prepared(TodoSQL.insert), TodoSQL.insertParameters(todo))
        var completed = false
        for index in 0..<9 {
            // Six changes of `completed`, three of the title only.
            let flip = index % 3 != 2
            if flip { completed.toggle() }
            let rows = try await session.connection.query(
                .prepared(TodoSQL.update),
                TodoSQL.updateParameters(
                    id: id, title: flip ? nil : "tally \(index)", completed: flip ? completed : nil, order: nil, dueDate: nil,
                    condition: TodoSQL.Condition(), at: Timestamp(millisecondsSinceEpoch: 1_763_812_800_001 + Int64(index))))
            #expect(rows[0, 0] == "updated", "\(index)")
        }
        _ = try await session.connection.query("SELECT pg_stat_force_next_flush()")
        let updates = try await session.connection.query(
            "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'todo_tally_rows'")
        // One for the insert, one for each change of `completed`.
        #expect(updates.values == ["7"])
        let calls = try await session.connection.query(
            "SELECT funcname, calls FROM pg_stat_user_functions WHERE funcname LIKE 'todo_tallies%' ORDER BY funcname")
        #expect(calls.values == ["todo_tallies_insert", "1", "todo_tallies_update", "9"])
        let tallies = try await session.connection.query("SELECT sum(total)::bigint, sum(done)::bigint FROM todo_tallies")
        let stored = try await session.connection.query("SELECT count(*), count(*) FILTER (WHERE completed) FROM todos")
        #expect(tallies.values == stored.values)
    }
}
