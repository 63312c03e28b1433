import LockTracing
import Synchronization

/// The one grace period of a shutdown: it starts when the first SIGTERM or SIGINT asks for a
/// graceful shutdown, and every step after it (the HTTP drain, closing the journal, writing the
/// last log lines) waits only for what is left of it, so that the process ends within
/// `shutdownGraceSeconds` even when the disk under the journal has stalled.
final class ShutdownDeadline: Sendable {
    /// The shortest wait a step gets, even past the deadline: closing a healthy journal (a last
    /// fsync) takes milliseconds, and is worth them.
    static let floorSeconds = 0.1

    private let graceSeconds: Double
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    init(graceSeconds: Int) {
        self.graceSeconds = Double(graceSeconds)
    }

    /// Starts the grace period now, unless it has started already.
    func start() {
        deadline.withTracedLock { deadline in
            if deadline == nil { deadline = .now + .milliseconds(Int64(graceSeconds * 1000)) }
        }
    }

    /// Seconds left of the grace period (all of it before it has started), at least `floorSeconds`.
    var remainingSeconds: Double {
        guard let end = deadline.withTracedLock({ $0 }) else { return max(graceSeconds, Self.floorSeconds) }
        let left = end - .now
        return max(Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18, Self.floorSeconds)
    }
}
