import Foundation
import PostgresLoop
import TestSupport
import Testing
import TodoServer

@testable import TodoData

/// Start-up with `databaseUrl`, as an operator runs the server: the schema is migrated before the
/// server listens, and a database that cannot be reached is a clear error and exit status 4.
@Suite(.serialized, .tags(.endToEnd, .postgres))
struct DatabaseStartupEndToEndTests {
    @Test func anUnreachableDatabaseStopsStartUpWithStatus4AndAMaskedUrl() throws {
        let socketDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-no-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: socketDirectory) }
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1"],
            environment: [
                "TODO_DATABASE_URL": "host=\(socketDirectory) port=5999 dbname=todo user=todo password=s3cret sslpassword=hunter2"
            ])
        #expect(server.waitForExit() == 4)
        let line = try #require(server.lines(containing: "cannot reach the database").first)
        #expect(line.contains("password=*** sslpassword=***"), "\(line)")
        #expect(!line.contains("s3cret"), "\(line)")
        #expect(!line.contains("hunter2"), "\(line)")
        #expect(server.lines(containing: "listening").isEmpty)
    }

    /// libpq quotes a string it cannot parse in its message: the start-up error says only what is
    /// wrong, on standard error and in no other line.
    @Test(arguments: ["POSTGRESQL://todo:hunter2@127.0.0.1/todo", "postgresql://todo:hunter2@[::1/todo"])
    func anUnparsableUrlStopsStartUpWithStatus64NeverEchoingIt(url: String) throws {
        let server = try ServerProcess(arguments: ["--port", "0"], environment: ["TODO_DATABASE_URL": url])
        #expect(server.waitForExit() == 64)
        let errors = server.standardError
        #expect(errors.contains("'databaseUrl' is (a value not shown)"), "\(errors)")
        #expect(errors.contains("cannot be parsed"), "\(errors)")
        #expect(!errors.contains("hunter2"), "\(errors)")
        #expect(!server.remainingOutput.contains("hunter2"))
    }

    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func theSchemaIsMigratedBeforeTheServerListensAndTheToDosGoToTheDatabase() async throws {
        let cluster = PostgresTestCluster.shared!
        let database = try cluster.freshDatabase("startup")
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1", "--database-url", cluster.connectionString(database: database)])
        defer { server.signal(SIGTERM) }
        let port = try server.waitForPort()
        #expect(try server.waitForLine(containing: "store: PostgreSQL at host=").contains("dbname=\(database)"))
        let ready = try #require(server.lines(containing: "database schema ready").first)
        let every = TodoSchema.migrations.map { String($0.version) }
        #expect(ready.contains("applied=\(every.joined(separator: ","))"), "\(ready)")
        let session = try await PostgresTestSession.open(cluster, database: database)
        defer { session.close() }
        let versions = try await session.connection.query("SELECT version FROM schema_migrations ORDER BY version")
        #expect(versions.values == every)
        let created = try TestHTTPClient(port: port).request(
            "POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"in the database"}"#)
        #expect(created.status == 201)
        let rows = try await session.connection.query("SELECT id::text, title, revision FROM todos")
        #expect(rows.values == [created.object["id"] as? String, "in the database", "1"])
    }

    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func aSchemaNewerThanThisBuildKnowsStopsStartUpWithStatus4NamingBothVersions() async throws {
        let known = TodoSchema.migrator.newestVersion
        let (server, session) = try await Self.startedAfterANewerBuild("newer", version: known + 97, compatibleFrom: nil)
        defer { session.close() }
        #expect(server.waitForExit() == 4)
        let line = try #require(server.lines(containing: "the database schema is newer than this build").first)
        #expect(
            line.contains("the database schema is version \(known + 97), newer than version \(known), the newest this build knows"),
            "\(line)")
        #expect(server.lines(containing: "listening").isEmpty)
        let versions = try await session.connection.query("SELECT max(version) FROM schema_migrations")
        #expect(versions.values == [String(known + 97)])
    }

    /// The server process started on a fresh database migrated by this build, then recorded as
    /// migrated to `version` by a newer build (`compatibleFrom` nil: as builds before the column
    /// wrote it); and a session on that database.
    static func startedAfterANewerBuild(
        _ label: String, version: Int, compatibleFrom: Int?
    ) async throws -> (server: ServerProcess, session: PostgresTestSession) {
        let cluster = PostgresTestCluster.shared!
        let database = try cluster.freshDatabase(label)
        let session = try await PostgresTestSession.open(cluster, database: database)
        try await TodoSchema.migrator.migrate(session.connection)
        _ = try await session.connection.query(
            "INSERT INTO schema_migrations (version, name, compatible_from) VALUES ($1::integer, 'from a newer build', $2::integer)",
            [String(version), compatibleFrom.map(String.init)])
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1", "--database-url", cluster.connectionString(database: database)])
        return (server, session)
    }

    /// A rollback: a database a newer build migrated with versions recorded as compatible with this
    /// build starts it; the start-up line names them, and the to-dos are served.
    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func aSchemaANewerBuildMigratedCompatiblyStartsThisBuildAndSaysSo() async throws {
        let known = TodoSchema.migrator.newestVersion
        let (server, session) = try await Self.startedAfterANewerBuild("rollback", version: known + 1, compatibleFrom: known)
        defer { session.close() }
        defer { server.signal(SIGTERM) }
        let port = try server.waitForPort()
        let ready = try #require(server.lines(containing: "database schema ready").first)
        #expect(ready.contains("applied= ") || ready.hasSuffix("applied="), "\(ready)")
        #expect(ready.contains("newer=\(known + 1)") && ready.contains("known=\(known)"), "\(ready)")
        let created = try TestHTTPClient(port: port).request(
            "POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"after a rollback"}"#)
        #expect(created.status == 201)
    }

    /// The statements rely on read committed: sessions that start at another isolation level (here
    /// from the URL's options) stop start-up with status 4, naming the level, before the server
    /// listens.
    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func sessionsAtAnotherIsolationLevelStopStartUpWithStatus4() async throws {
        let cluster = PostgresTestCluster.shared!
        let database = try cluster.freshDatabase("isolation")
        let url = cluster.connectionString(database: database) + " options='-c default_transaction_isolation=serializable'"
        let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--database-url", url])
        #expect(server.waitForExit() == 4)
        let line = try #require(server.lines(containing: "the database's isolation level is not read committed").first)
        #expect(line.contains("start at isolation level 'serializable'"), "\(line)")
        #expect(server.lines(containing: "listening").isEmpty)
        // Refused before anything was migrated.
        let session = try await PostgresTestSession.open(cluster, database: database)
        defer { session.close() }
        let tables = try await session.connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'schema_migrations'")
        #expect(tables.values == ["0"])
    }
}
