/// The time limits of a PostgreSQL connection.
public struct PostgresTiming: Sendable, Equatable {
    /// A request not answered within this fails (`timedOut`) and its connection is dropped.
    public var requestTimeout: Duration
    /// A connection attempt not up within this counts as failed.
    public var connectTimeout: Duration
    /// The first delay before reconnecting; it doubles with each failed attempt up to `backoffCap`.
    public var backoffInitial: Duration
    public var backoffCap: Duration
    /// How long after a cancel request the server may take to end the cancelled statement before
    /// the connection is dropped (the server is then taken as frozen).
    public var cancelGrace: Duration
    /// How far past the request deadline the session's `statement_timeout` lies; nil: a tenth of
    /// the deadline, at least 100 ms.
    public var statementTimeoutMargin: Duration?
    /// How long a connection may hold requests without answering any before its loop's pool sends
    /// new requests to its next connection (`PostgresLoopPool`): longer than a backend waits for a
    /// CPU or a row lock under load (routing around those only queues behind the same CPU or lock),
    /// short enough to route around a statement that takes seconds.
    public var stallThreshold: Duration
    /// How long a loop's first answering connection, holding as many reads as it may pipeline,
    /// may go without answering before its loop's pool sends reads to its next connection with
    /// room (`PostgresLoopPool`). Zero: a read goes to any connection with room. Longer: reads stay
    /// on one busy backend per loop while it answers (a second busy backend on the same CPUs adds a
    /// few reads and lengthens the tail), and go elsewhere once it stops answering for this long
    /// (a statement that takes long, a backend waiting for a CPU).
    public var readSpillAfter: Duration

    public init(
        requestTimeout: Duration = .seconds(5), connectTimeout: Duration = .seconds(5),
        backoffInitial: Duration = .milliseconds(50), backoffCap: Duration = .seconds(1),
        cancelGrace: Duration = .seconds(1), statementTimeoutMargin: Duration? = nil,
        stallThreshold: Duration = .milliseconds(500), readSpillAfter: Duration = .milliseconds(20)
    ) {
        self.readSpillAfter = readSpillAfter
        self.statementTimeoutMargin = statementTimeoutMargin
        self.stallThreshold = stallThreshold
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.backoffInitial = backoffInitial
        self.backoffCap = backoffCap
        self.cancelGrace = cancelGrace
    }

    /// The session's `statement_timeout`, the database's own backstop should a cancel not arrive:
    /// a little above the request deadline (a tenth more, at least 100 ms, unless a margin is set).
    public var statementTimeout: Duration {
        requestTimeout + (statementTimeoutMargin ?? max(requestTimeout / 10, .milliseconds(100)))
    }

    /// The delay before the next attempt after `failures` failed ones in a row: the exponential step
    /// capped, then jittered into its upper half (`jitter` in 0...1), so that instances that lost the
    /// database together do not reconnect in lock-step.
    public func backoff(afterFailures failures: Int, jitter: Double) -> Duration {
        var step = backoffInitial
        for _ in 0..<min(failures, 30) where step < backoffCap { step *= 2 }
        step = min(step, backoffCap)
        return step / 2 + step / 2 * min(max(jitter, 0), 1)
    }
}
