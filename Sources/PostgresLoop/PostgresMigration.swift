import EventLoops

/// One step of a database schema: applied once, in version order, in one transaction.
public struct PostgresMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    /// Statements run in order (one statement each: they go through the extended protocol).
    public let statements: [String]
    /// Rows rewritten by the application after `statements` (values SQL cannot compute), then
    /// `finally` run.
    public let rewrite: PostgresRowRewrite?
    public let finally: [String]
    /// The oldest schema version whose builds still run correctly once this migration has run:
    /// `version` (the default) when a build must know it; lower for a migration that only adds what
    /// older builds never use (a function, an index), so that such a build can be rolled back to.
    /// Recorded in `schema_migrations` and read by builds that lack the migration.
    public let compatibleFrom: Int

    public init(
        version: Int, name: String, statements: [String], rewrite: PostgresRowRewrite? = nil, finally: [String] = [],
        compatibleFrom: Int? = nil
    ) {
        precondition(compatibleFrom.map { $0 <= version } ?? true, "a migration cannot be compatible from a later version")
        self.version = version
        self.name = name
        self.statements = statements
        self.rewrite = rewrite
        self.finally = finally
        self.compatibleFrom = compatibleFrom ?? version
    }

    public static func == (a: PostgresMigration, b: PostgresMigration) -> Bool {
        a.version == b.version && a.name == b.name && a.statements == b.statements && a.finally == b.finally
            && (a.rewrite == nil) == (b.rewrite == nil) && a.compatibleFrom == b.compatibleFrom
    }
}

/// A rewrite of rows by the application inside a migration: `select` answers each row's key and
/// inputs; `transform` turns a row's values into the parameters of `update` (the key first).
public struct PostgresRowRewrite: Sendable {
    public let select: String
    public let update: String
    public let transform: @Sendable ([String?]) -> [String?]

    public init(select: String, update: String, transform: @escaping @Sendable ([String?]) -> [String?]) {
        self.select = select
        self.update = update
        self.transform = transform
    }
}

/// Brings a database to the newest schema at start-up. Safe when several instances start at once:
/// everything runs in one transaction that first takes a transaction-scoped advisory lock, so a
/// second migrator waits, then finds the versions applied and does nothing. Idempotent.
///
/// A database that holds versions newer than this build knows (a newer build migrated it) is
/// refused unless each of them was recorded as compatible with this build's newest version
/// (`PostgresMigration.compatibleFrom`): then this build runs on it (a rollback) and applies only
/// what it lacks of its own. Builds before the column `compatible_from` refused every newer version.
public struct PostgresMigrator: Sendable {
    public let migrations: [PostgresMigration]
    /// The advisory lock's key: the same for every instance of one application.
    public let lockKey: Int64

    public init(migrations: [PostgresMigration], lockKey: Int64) {
        precondition(Set(migrations.map(\.version)).count == migrations.count, "migration versions must differ")
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.lockKey = lockKey
    }

    /// The newest version this build knows.
    public var newestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations the database lacks over `connection` (a connection, not a pool: the
    /// transaction must stay on one session); answers the versions applied now. A database that
    /// holds a version newer than any of `migrations` (migrated by a newer build) and not compatible
    /// with this build is refused, and nothing is applied.
    @discardableResult
    public func migrate(_ connection: LoopBound<PostgresConnection>) async throws(PostgresMigrationError) -> [Int] {
        try await migrateReporting(connection).applied
    }

    /// `migrate`, answering also the newer versions the database holds that this build runs with
    /// (`compatibleFrom`), oldest first.
    public func migrateReporting(
        _ connection: LoopBound<PostgresConnection>
    ) async throws(PostgresMigrationError) -> (applied: [Int], newerCompatible: [Int]) {
        do {
            return try await apply(connection)
        } catch let error as PostgresMigrationError {
            throw error
        } catch let error as PostgresError {
            throw .database(error)
        } catch {
            throw .database(.server(ServerError(sqlState: "XX000", message: "\(error)")))
        }
    }

    private func apply(_ connection: LoopBound<PostgresConnection>) async throws -> (applied: [Int], newerCompatible: [Int]) {
        _ = try await connection.query("BEGIN")
        do {
            _ = try await connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(lockKey)])
            // Looked up first: `CREATE TABLE IF NOT EXISTS` needs the right to create in the schema
            // even when the table is there (PostgreSQL 15 grants it on `public` to its owner only),
            // and a role that only uses a database migrated by another need not have it.
            let table = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL")
            if table[0, 0] != "t" {
                _ = try await connection.query(
                    """
                    CREATE TABLE schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now(),
                        compatible_from integer)
                    """)
            }
            // NULL in rows written by builds before the column: they need a build that knows them.
            // Looked up first: `ALTER TABLE` needs the table's owner and its strongest lock even
            // when the column is there.
            let column = try await connection.query(
                """
                SELECT 1 FROM pg_attribute
                WHERE attrelid = 'schema_migrations'::regclass AND attname = 'compatible_from' AND NOT attisdropped
                """)
            if column.count == 0 {
                _ = try await connection.query("ALTER TABLE schema_migrations ADD COLUMN compatible_from integer")
            }
            let rows = try await connection.query("SELECT version, coalesce(compatible_from, version) FROM schema_migrations")
            let recorded = (0..<rows.count).compactMap { row -> (version: Int, compatibleFrom: Int)? in
                guard let version = rows[row, 0].flatMap({ Int($0) }), let from = rows[row, 1].flatMap({ Int($0) }) else { return nil }
                return (version, from)
            }
            let present = Set(recorded.map(\.version))
            let newer = recorded.filter { $0.version > newestVersion }
            if let newest = newer.map(\.version).max(), newer.contains(where: { $0.compatibleFrom > newestVersion }) {
                throw PostgresMigrationError.schemaNewer(database: newest, known: newestVersion)
            }
            var applied: [Int] = []
            for migration in migrations where !present.contains(migration.version) {
                for statement in migration.statements {
                    _ = try await connection.query(statement)
                }
                if let rewrite = migration.rewrite {
                    let rows = try await connection.query(rewrite.select)
                    for row in 0..<rows.count {
                        let values = (0..<rows.columns.count).map { rows[row, $0] }
                        _ = try await connection.query(rewrite.update, rewrite.transform(values))
                    }
                }
                for statement in migration.finally {
                    _ = try await connection.query(statement)
                }
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (version, name, compatible_from) VALUES ($1::integer, $2, $3::integer)",
                    [String(migration.version), migration.name, String(migration.compatibleFrom)])
                applied.append(migration.version)
            }
            _ = try await connection.query("COMMIT")
            return (applied, newer.map(\.version).sorted())
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }
}

/// Why the schema could not be brought up to date.
public enum PostgresMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A statement failed or the database could not be reached.
    case database(PostgresError)
    /// The database was migrated by a newer build, with a version this one cannot run with.
    case schemaNewer(database: Int, known: Int)

    public var description: String {
        switch self {
        case .database(let error): "\(error)"
        case .schemaNewer(let database, let known):
            "the database schema is version \(database), newer than version \(known), the newest this build knows: run a build that knows version \(database)"
        }
    }
}
