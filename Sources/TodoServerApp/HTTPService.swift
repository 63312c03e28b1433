import EventLoops
import Logging
import ServiceLifecycle
import TodoServer

/// The HTTP server as a service: listens from `run` until graceful shutdown, then drains (stops
/// accepting, answers the requests in flight within the grace period) and returns once every
/// loop has exited.
struct HTTPService: Service, CustomStringConvertible {
    let application: TodoApplication
    let logger: Logger
    /// Started here, at the graceful shutdown: the steps after the drain wait only for what is left.
    let deadline: ShutdownDeadline

    func run() async throws {
        try application.start()
        await withGracefulShutdownHandler {
            await stopped()
        } onGracefulShutdown: {
            beginShutdown()
        }
    }

    /// Starts the grace period and the drain: stops accepting; each loop exits once its requests
    /// in flight are answered or the grace period is over.
    func beginShutdown() {
        deadline.start()
        logger.info("shutdown requested, draining")
        application.requestStop()
    }

    /// Waits for the loops to exit without holding a thread of the concurrency pool: the blocking
    /// join runs on a thread of its own.
    private func stopped() async {
        let application = self.application
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = DetachedThread.start {
                application.waitUntilStopped()
                continuation.resume()
            }
            // Without a thread (the system refused one), wait here rather than never.
            if !started {
                application.waitUntilStopped()
                continuation.resume()
            }
        }
    }
}
