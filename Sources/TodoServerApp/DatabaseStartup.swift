import ArgumentParser
import Logging
import PostgresLoop
import TodoData
import TodoServer

/// Start-up with `databaseUrl`: the schema migrated before the server accepts a request, or a clear
/// error and exit status 4 when the database cannot be reached or migrated.
enum DatabaseStartup {
    static let unreachableExitCode: Int32 = 4

    /// The PostgreSQL store when `databaseUrl` is set, its schema migrated.
    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> PostgresTodoStore? {
        guard let postgres = configuration.postgres else { return nil }
        try await migrate(configuration, logger: logger)
        return try PostgresTodoStore(
            configuration: postgres, changesRetained: configuration.eventsRetained,
            changesPollInterval: .milliseconds(configuration.eventsPollMilliseconds),
            changesReadGap: .milliseconds(configuration.eventsReadGapMilliseconds),
            clearLockWait: .milliseconds(configuration.databaseClearLockWaitMilliseconds),
            insertBatch: configuration.databaseInsertBatch)
    }

    static func migrate(_ configuration: ServerConfiguration, logger: Logger) async throws {
        guard let postgres = configuration.postgres else { return }
        let database = configuration.maskedDatabaseURL ?? ""
        let started = ContinuousClock.now
        do {
            let (applied, newer) = try await TodoSchema.migrate(postgres)
            let elapsed = ContinuousClock.now - started
            var metadata: Logger.Metadata = [
                "database": "\(database)", "applied": "\(applied.map(String.init).joined(separator: ","))",
                "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
            ]
            if !newer.isEmpty {
                // A rollback: a newer build migrated the database, with versions this one runs with.
                metadata["newer"] = "\(newer.map(String.init).joined(separator: ","))"
                metadata["known"] = "\(TodoSchema.migrator.newestVersion)"
            }
            logger.info("database schema ready", metadata: metadata)
        } catch let error as PostgresMigrationError {
            let what =
                switch error {
                case .database(let error) where error.isUnavailable: "cannot reach the database"
                case .database: "cannot migrate the database schema"
                case .schemaNewer: "the database schema is newer than this build"
                }
            logger.critical("\(what)", metadata: ["database": "\(database)", "reason": "\(error)"])
            throw ExitCode(unreachableExitCode)
        } catch let error as TodoSchemaError {
            logger.critical(
                "the database's isolation level is not read committed", metadata: ["database": "\(database)", "reason": "\(error)"])
            throw ExitCode(unreachableExitCode)
        }
    }
}
