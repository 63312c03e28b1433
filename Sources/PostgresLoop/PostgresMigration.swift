/// One step of a database schema: applied once, in version order, in one transaction.
public struct PostgresMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    /// Statements run in order (one statement each: they go through the extended protocol).
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// Brings a database to the newest schema at start-up. Safe when several instances start at once:
/// everything runs in one transaction that first takes a transaction-scoped advisory lock, so a
/// second migrator waits, then finds the versions applied and does nothing. Idempotent.
public struct PostgresMigrator: Sendable {
    public let migrations: [PostgresMigration]
    /// The advisory lock's key: the same for every instance of one application.
    public let lockKey: Int64

    public init(migrations: [PostgresMigration], lockKey: Int64) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "migration versions must differ")
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.lockKey = lockKey
    }

    /// Applies the migrations the database lacks over `connection` (a connection, not a pool: the
    /// transaction must stay on one session); answers the versions applied now.
    @discardableResult
    public func migrate(_ connection: LoopBound<PostgresConnection>) async throws(PostgresError) -> [Int] {
        _ = try await connection.query("BEGIN")
        do {
            _ = try await connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(lockKey)])
            _ = try await connection.query("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let rows = try await connection.query("SELECT version FROM schema_migrations")
            let present = Set((0..<rows.count).compactMap { rows[$0, 0].flatMap { Int($0) } })
            var applied: [Int] = []
            for migration in migrations where !present.contains(migration.version) {
                for statement in migration.statements {
                    _ = try await connection.query(statement)
                }
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1::integer, $2)",
                    [String(migration.version), migration.name])
                applied.append(migration.version)
            }
            _ = try await connection.query("COMMIT")
            return applied
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }
}
