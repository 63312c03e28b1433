import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport

/// Schema migrations against a real PostgreSQL: idempotent, and safe when two instances start at once.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresMigratorTests {
    let cluster = PostgresTestCluster.shared!

    @Test func theTodoSchemaIsAppliedOnceWithItsIndexes() async throws {
        let session = try await PostgresTestSession.open(cluster, database: try cluster.freshDatabase("schema"))
        defer { session.close() }
        #expect(try await TodoSchema.migrator.migrate(session.connection) == TodoSchema.migrations.map(\.version))
        #expect(try await TodoSchema.migrator.migrate(session.connection) == [])

        let indexes = try await session.connection.query(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'todo_rows' ORDER BY indexname")
        let definitions = Dictionary(uniqueKeysWithValues: (0..<indexes.count).map { (indexes[$0, 0]!, indexes[$0, 1]!) })
        #expect(definitions.keys.sorted() == ["todo_rows_default_order", "todo_rows_pkey", "todo_rows_title_key", "todo_rows_upcoming"])
        // Version 10: each leads with the owner; the primary key stays the id (unique across owners).
        #expect(definitions["todo_rows_pkey"]?.hasSuffix("USING btree (id)") == true)
        #expect(
            definitions["todo_rows_default_order"]?.hasSuffix(#"USING btree (owner, (("order" IS NULL)), "order", created_at, id)"#) == true
        )
        // Version 5: no `completed` in the predicate, so that marking a to-do done is a HOT update.
        #expect(definitions["todo_rows_upcoming"]?.hasSuffix("USING btree (owner, due_date) WHERE (due_date IS NOT NULL)") == true)
        #expect(definitions["todo_rows_title_key"]?.hasSuffix("USING btree (owner, title_key, title_nfc, created_at, id)") == true)
        // The names builds before owners use are views of the shared list.
        let views = try await session.connection.query(
            "SELECT table_name FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1")
        #expect(views.values == ["todo_events", "todo_tallies", "todos"])

        let title = "Ärger mit ÖL"
        _ = try await session.connection.query(
            """
            INSERT INTO todos (id, title, title_key, title_nfc, "order", due_date, created_at, updated_at, revision)
            VALUES ($1, $2, $3, $2, NULL, '2026-11-30', now(), now(), 1)
            """,
            ["8f0c2f1e-0000-4000-8000-000000000001", title, TodoTitleKey.fold(title)])
        let row = try await session.connection.query("SELECT title, title_key, completed, revision FROM todos")
        #expect(row.values == [title, "ärger mit öl", "f", "1"])
        // A second insert with the same id is refused by the primary key.
        await #expect(throws: PostgresError.self) {
            try await session.connection.query(
                "INSERT INTO todos (id, title, title_key, title_nfc, created_at, updated_at, revision) VALUES ($1, 'x', 'x', 'x', now(), now(), 1)",
                ["8f0c2f1e-0000-4000-8000-000000000001"])
        }
        let versions = try await session.connection.query("SELECT version, name FROM schema_migrations ORDER BY version")
        #expect(versions.values == TodoSchema.migrations.flatMap { [String($0.version), $0.name] })
        #expect(Array(versions.values.prefix(6)) == ["1", "todos", "2", "todo_counts", "3", "title_case_folding"])
        #expect(
            versions.values.suffix(10) == [
                "6", "todo_tallies", "7", "todo_tallies_slot_once", "8", "todo_update_or_read", "9", "todo_remove_all", "10", "owners",
            ])
        // Inserts and deletes are counted per statement: a row-level trigger on them would make a
        // bulk insert or delete quadratic (`TodoTalliesSchema`).
        let triggers = try await session.connection.query(
            """
            SELECT trigger_name, event_manipulation, action_orientation FROM information_schema.triggers
            WHERE event_object_table = 'todo_rows' ORDER BY trigger_name, event_manipulation
            """)
        #expect(
            triggers.values == [
                "todo_tallies_delete", "DELETE", "STATEMENT", "todo_tallies_insert", "INSERT", "STATEMENT",
                "todo_tallies_update", "UPDATE", "ROW",
            ])
    }

    /// Version 3 re-keys the rows version 1 keyed by lower case, in the migration's transaction.
    @Test func version3RekeysTitlesWrittenByAnOlderBuild() async throws {
        let session = try await PostgresTestSession.open(cluster, database: try cluster.freshDatabase("rekey"))
        defer { session.close() }
        let older = PostgresMigrator(migrations: Array(TodoSchema.migrations.prefix(2)), lockKey: TodoSchema.migrationLockKey)
        #expect(try await older.migrate(session.connection) == [1, 2])
        let titles = ["ΟΔΟΣ", "Straße", "cafe\u{301}", "Plain Ascii"]
        for (index, title) in titles.enumerated() {
            _ = try await session.connection.query(
                "INSERT INTO todos (id, title, title_key, created_at, updated_at, revision) VALUES ($1, $2, lower($2), now(), now(), 1)",
                ["8f0c2f1e-0000-4000-8000-00000000000\(index)", title])
        }
        #expect(try await TodoSchema.migrator.migrate(session.connection) == TodoSchema.migrations.dropFirst(2).map(\.version))
        let rows = try await session.connection.query("SELECT title_key, title_nfc FROM todos ORDER BY id")
        #expect(rows.values == ["οδοσ", "ΟΔΟΣ", "strasse", "Straße", "caf\u{E9}", "caf\u{E9}", "plain ascii", "Plain Ascii"])
    }

    /// Version 6 carries the counts version 2's triggers kept over into `todo_tallies`, and its
    /// triggers (version 7's for a change of `completed`) keep them from then on.
    @Test func version6CarriesTheKeptCountsOver() async throws {
        let session = try await PostgresTestSession.open(cluster, database: try cluster.freshDatabase("tallies"))
        defer { session.close() }
        let older = PostgresMigrator(migrations: Array(TodoSchema.migrations.prefix(5)), lockKey: TodoSchema.migrationLockKey)
        #expect(try await older.migrate(session.connection) == [1, 2, 3, 4, 5])
        _ = try await session.connection.query(
            """
            INSERT INTO todos (id, title, title_key, title_nfc, completed, created_at, updated_at, revision)
            SELECT ('8f0c2f1e-0000-4000-8000-' || lpad(to_hex(g), 12, '0'))::uuid, 't', 't', 't', g % 3 = 0, now(), now(), 1
            FROM generate_series(1, 50) AS g
            """)
        #expect(try await TodoSchema.migrator.migrate(session.connection) == [6, 7, 8, 9, 10])
        let tallies = "SELECT sum(total)::bigint, sum(done)::bigint, count(*) FROM todo_tallies"
        #expect(try await session.connection.query(tallies).values == ["50", "16", "16"])
        _ = try await session.connection.query("UPDATE todos SET completed = NOT completed WHERE id::text LIKE '%1_'")
        _ = try await session.connection.query("DELETE FROM todos WHERE id::text LIKE '%2_'")
        let counted = try await session.connection.query("SELECT count(*), count(*) FILTER (WHERE completed), 16 FROM todos")
        #expect(try await session.connection.query(tallies).values == counted.values)
        let left = try await session.connection.query("SELECT count(*) FROM pg_class WHERE relname = 'todo_counts'")
        #expect(left.values == ["0"])
    }

    @Test func aDatabaseMigratedByANewerBuildIsRefusedNamingBothVersions() async throws {
        let session = try await PostgresTestSession.open(cluster, database: try cluster.freshDatabase("newer"))
        defer { session.close() }
        try await TodoSchema.migrator.migrate(session.connection)
        // The table as builds before `compatible_from` leave it: their versions need their build.
        _ = try await session.connection.query("ALTER TABLE schema_migrations DROP COLUMN compatible_from")
        _ = try await session.connection.query("INSERT INTO schema_migrations (version, name) VALUES (40, 'future')")
        await #expect(throws: PostgresMigrationError.schemaNewer(database: 40, known: TodoSchema.migrator.newestVersion)) {
            try await TodoSchema.migrator.migrate(session.connection)
        }
        let versions = try await session.connection.query("SELECT count(*) FROM schema_migrations")
        #expect(versions.values == [String(TodoSchema.migrations.count + 1)])
    }

    /// A rollback: a database that a newer build migrated is run with when each version this build
    /// lacks was recorded as compatible with it (nothing applied, nothing changed), and refused once
    /// one is not: a build must know it.
    @Test func aNewerSchemaRecordedAsCompatibleIsRunWithAndOneThatIsNotRefused() async throws {
        let session = try await PostgresTestSession.open(cluster, database: try cluster.freshDatabase("rollback"))
        defer { session.close() }
        let known = TodoSchema.migrator.newestVersion
        let additive = PostgresMigration(
            version: known + 1, name: "an index", statements: ["CREATE INDEX todo_rows_created ON todo_rows (created_at)"],
            compatibleFrom: known)
        let newer = PostgresMigrator(migrations: TodoSchema.migrations + [additive], lockKey: TodoSchema.migrationLockKey)
        #expect(try await newer.migrate(session.connection) == TodoSchema.migrations.map(\.version) + [known + 1])
        let back = try await TodoSchema.migrator.migrateReporting(session.connection)
        #expect(back.applied == [] && back.newerCompatible == [known + 1])
        let recorded = try await session.connection.query(
            "SELECT version, compatible_from FROM schema_migrations WHERE version >= 7 ORDER BY version")
        #expect(recorded.values == ["7", "7", "8", "7", "9", "7", "10", "9", String(known + 1), String(known)])
        let breaking = PostgresMigration(
            version: known + 2, name: "a column renamed", statements: [#"ALTER TABLE todo_rows RENAME COLUMN "order" TO position"#])
        let newest = PostgresMigrator(migrations: newer.migrations + [breaking], lockKey: TodoSchema.migrationLockKey)
        #expect(try await newest.migrate(session.connection) == [known + 2])
        await #expect(throws: PostgresMigrationError.schemaNewer(database: known + 2, known: known)) {
            try await TodoSchema.migrator.migrate(session.connection)
        }
        await #expect(throws: PostgresMigrationError.schemaNewer(database: known + 2, known: known + 1)) {
            try await newer.migrate(session.connection)
        }
        let versions = try await session.connection.query("SELECT count(*) FROM schema_migrations")
        #expect(versions.values == [String(TodoSchema.migrations.count + 2)])
    }

    /// A role that may use the tables but neither own them nor create in the schema (PostgreSQL 15's
    /// default for `public`) runs on a database its owner migrated: the migrator looks before it
    /// creates or alters, so it asks for neither.
    @Test func aRoleThatOnlyUsesTheTablesRunsOnADatabaseItsOwnerMigrated() async throws {
        let database = try cluster.freshDatabase("user_role")
        let owner = try await cluster.migratedSession(database: database)
        defer { owner.close() }
        let role = "app_\(UInt32.random(in: 0...UInt32.max))"
        for statement in [
            "CREATE ROLE \(role) LOGIN", "REVOKE CREATE ON SCHEMA public FROM PUBLIC", "GRANT USAGE ON SCHEMA public TO \(role)",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(role)",
            "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(role)",
        ] {
            _ = try await owner.connection.query(statement)
        }
        let user = try await PostgresTestSession.open(
            PostgresConfiguration(
                connectionString: cluster.connectionString(database: database).replacingOccurrences(
                    of: "user=postgres", with: "user=\(role)")))
        defer { user.close() }
        #expect(try await user.connection.query("SELECT current_user").values == [role])
        #expect(try await TodoSchema.migrator.migrate(user.connection) == [])
        // It may not create: what the migrator no longer asks for.
        await #expect(throws: PostgresError.self) { try await user.connection.query("CREATE TABLE t (x integer)") }
    }

    @Test func twoMigratorsStartingTogetherNeverFail() async throws {
        let migrator = PostgresMigrator(
            migrations: TodoSchema.migrations + [
                PostgresMigration(
                    version: TodoSchema.migrator.newestVersion + 1, name: "notes",
                    statements: ["ALTER TABLE todo_rows ADD COLUMN note text"])
            ], lockKey: TodoSchema.migrationLockKey)
        for round in 1...20 {
            let database = try cluster.freshDatabase("race")
            // The second waits on the first's advisory lock: the request time-out (5 s by default)
            // is a production limit, not what this test checks, and a loaded machine can exceed it.
            let patient = PostgresTiming(requestTimeout: .seconds(120))
            let first = try await PostgresTestSession.open(cluster, database: database, timing: patient)
            let second = try await PostgresTestSession.open(cluster, database: database, timing: patient)
            defer {
                first.close()
                second.close()
            }
            async let a = migrator.migrate(first.connection)
            async let b = migrator.migrate(second.connection)
            let (appliedByA, appliedByB): ([Int], [Int])
            do {
                (appliedByA, appliedByB) = try await (a, b)
            } catch {
                Issue.record("round \(round): \(error)")
                return
            }
            #expect((appliedByA + appliedByB).sorted() == migrator.migrations.map(\.version), "round \(round)")
            #expect(appliedByA.isEmpty || appliedByB.isEmpty, "round \(round)")
        }
    }
}
