/// How loaded a loop's database connections were when a request missed its deadline, and the
/// `Retry-After` that follows: the time the statements still waiting would take to drain if each
/// took the whole deadline, spread over the connections (at least 1 s, at most 60 s). A lone slow
/// statement gives 1 s; a queue of them a wait in proportion, so that clients told to retry do not
/// come back while the same queue is still being cancelled.
struct PostgresLoad: Sendable, Equatable {
    /// Requests still waiting for an answer on the loop's connections.
    let waiting: Int
    let connections: Int
    let deadline: Duration

    var retryAfterSeconds: Int {
        let perConnection = Double(waiting) / Double(max(connections, 1))
        let (seconds, attoseconds) = deadline.components
        let drain = perConnection * (Double(seconds) + Double(attoseconds) / 1e18)
        return min(60, max(1, Int(drain.rounded(.up))))
    }
}
