import Foundation
import PostgresLoop
import Testing
@testable import TodoServer

/// Start-up with `databaseUrl`, as an operator runs the server: the schema is migrated before the
/// server listens, and a database that cannot be reached is a clear error and exit status 4.
@Suite(.serialized)
struct DatabaseStartupEndToEndTests {
    @Test func anUnreachableDatabaseStopsStartUpWithStatus4AndAMaskedUrl() throws {
        let socketDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-no-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: socketDirectory) }
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1"],
            environment: ["TODO_DATABASE_URL": "host=\(socketDirectory) port=5999 dbname=todo user=todo password=s3cret"])
        #expect(server.waitForExit() == 4)
        let line = try #require(server.lines(containing: "cannot reach the database").first)
        #expect(line.contains("password=***"), "\(line)")
        #expect(!line.contains("s3cret"), "\(line)")
        #expect(server.lines(containing: "listening").isEmpty)
    }

    @Test(.enabled(if: PostgresTestCluster.isAvailable))
    func theSchemaIsMigratedBeforeTheServerListensAndTheToDosGoToTheDatabase() async throws {
        let cluster = PostgresTestCluster.shared!
        let database = "startup_\(UInt32.random(in: 0...UInt32.max))"
        try cluster.createDatabase(database)
        let server = try ServerProcess(
            arguments: ["--port", "0", "--host", "127.0.0.1", "--database-url", cluster.connectionString(database: database)])
        defer { server.signal(SIGTERM) }
        let port = try server.waitForPort()
        #expect(try server.waitForLine(containing: "store: PostgreSQL at host=").contains("dbname=\(database)"))
        let ready = try #require(server.lines(containing: "database schema ready").first)
        #expect(ready.contains("applied=1,2"), "\(ready)")
        let session = try await PostgresTestSession.open(cluster, database: database)
        defer { session.close() }
        let versions = try await session.connection.query("SELECT version FROM schema_migrations ORDER BY version")
        #expect(versions.values == ["1", "2"])
        let created = try TestHTTPClient(port: port).request("POST", "/todos", headers: [("Content-Type", "application/json")], body: #"{"title":"in the database"}"#)
        #expect(created.status == 201)
        let rows = try await session.connection.query("SELECT id::text, title, revision FROM todos")
        #expect(rows.values == [created.object["id"] as? String, "in the database", "1"])
    }
}
