import EventLoops
import PostgresLoop

extension TodoSchema {
    /// Brings the database of `configuration` to the newest schema before the server accepts
    /// requests: one connection on a loop of its own, closed afterwards. Waiting for another
    /// instance's migration (the advisory lock) may take up to `patience`; the database not reachable
    /// within the connect time-out fails (`PostgresError.unavailable`). Answers the versions applied,
    /// and the newer ones (a newer build's) this build runs with (`PostgresMigration.compatibleFrom`).
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
        return try await migrator.migrateReporting(connection)
    }
}
