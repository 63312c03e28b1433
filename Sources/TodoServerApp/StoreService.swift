import Logging
import ServiceLifecycle
import TodoData
import TodoServer

/// The journaled store as a service: open while the server runs, closed (journal flushed and
/// synced) at graceful shutdown, which the group reaches after the HTTP service has drained.
struct StoreService: Service, CustomStringConvertible {
    let store: DurableTodoStore
    let logger: Logger
    /// The shutdown's grace period: closing waits for the journal's writer (a stalled disk) only
    /// for what the drain left of it, then gives up on it.
    let deadline: ShutdownDeadline

    func run() async throws {
        // Returns at graceful shutdown; throws when the group is cancelled instead (a service
        // failed): either way the store closes.
        try? await gracefulShutdown()
        close()
    }

    /// Closes the store, waiting for its journal only for what is left of the grace period.
    func close() {
        if store.close(waitingAtMost: deadline.remainingSeconds) {
            logger.info("store closed")
        } else {
            logger.error("the journal did not close within the grace period (a stalled disk); exiting without it")
        }
    }
}
