import Logging
import ServiceLifecycle
import TodoData
import TodoServer

/// The PostgreSQL store as a service: its connections closed at graceful shutdown, after the HTTP
/// service has drained.
struct PostgresStoreService: Service, CustomStringConvertible {
    let store: PostgresTodoStore
    let logger: Logger

    var description: String { "PostgresStoreService" }

    func run() async throws {
        try? await gracefulShutdown()
        store.close()
        logger.info("database connections closed")
    }
}
