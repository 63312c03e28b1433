import EventLoops
import PostgresLoop

extension TodoSchema {
    /// Brings the database of `configuration` to the newest schema before the server accepts
    /// requests: one connection on a loop of its own, closed afterwards. Waiting for another
    /// instance's migration (the advisory lock) may take up to `patience`; the database not reachable
    /// within the connect time-out fails (`PostgresError.unavailable`). Answers the versions applied,
    /// and the newer ones (a newer build's) this build runs with (`PostgresMigration.compatibleFrom`).
    /// A session that starts at another isolation level than read committed is refused
    /// (`TodoSchemaError.isolationLevel`) before anything is migrated.
    @discardableResult
    public static func migrate(
        _ configuration: PostgresConfiguration, patience: Duration = .seconds(60)
    ) async throws -> (applied: [Int], newerCompatible: [Int]) {
        var configuration = configuration
        configuration.timing.requestTimeout = max(configuration.timing.requestTimeout, patience)
        configuration.retryLimit = 0
        let loopThread = try LoopThread()
        let loop = loopThread.loop
        let settings = configuration
        let connection = await LoopBound.make(on: loop) {
            let connection = PostgresConnection(loop: loop, configuration: settings)
            connection.start()
            return connection
        }
        defer {
            connection.withValue { $0.close() }
            loopThread.shutdown()
        }
        // Checked first: a database this server cannot run on is left as it was.
        let level = try await isolationLevel(connection)
        guard level == "read committed" else { throw TodoSchemaError.isolationLevel(level) }
        return try await migrator.migrateReporting(connection)
    }

    /// The isolation level the connection's transactions start at.
    private static func isolationLevel(_ connection: LoopBound<PostgresConnection>) async throws(PostgresMigrationError) -> String {
        let rows: PostgresRows
        do {
            rows = try await connection.query("SELECT current_setting('transaction_isolation')")
        } catch {
            throw .database(error)
        }
        return rows[0, 0] ?? ""
    }
}

/// Why a database that was reached and migrated cannot keep this server's to-dos.
public enum TodoSchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Its sessions start at another isolation level than read committed (`default_transaction_isolation`
    /// from the URL's `options`, the role's or the database's settings). The statements rely on read
    /// committed: an `UPDATE` checks its condition again on a row changed meanwhile
    /// (`TodoSQL.changing`), and each statement of a function reads with a snapshot of its own
    /// (`TodoSQL+UpdateOrRead.swift`, `TodoSQL+RemoveAll.swift`).
    case isolationLevel(String)

    public var description: String {
        switch self {
        case .isolationLevel(let level):
            "the database's sessions start at isolation level '\(level)' (default_transaction_isolation, set in the URL's options or for the role or database), and this server needs 'read committed'"
        }
    }
}
