/// Where one request's time went on its connection, measured on its loop: what a latency tail is
/// made of. Reported for every request that was sent, after its completion ran
/// (`PostgresClient(phases:)`).
public struct PostgresRequestPhases: Sendable, Equatable {
    /// From `execute` until it was written to the connection (waiting for the connection to be up).
    public var queued: Duration
    /// From being sent until its turn: until the answer of the request before it on the connection
    /// was read (the server runs a connection's statements one at a time, in order).
    public var inPipeline: Duration
    /// From its turn until its own answer was read: the server's work on it, plus any time the loop
    /// took to come round to the connection's socket.
    public var statement: Duration
    /// How long its completion ran (decoding and writing the HTTP answer, on the loop).
    public var answer: Duration
    /// Requests in flight ahead of it on its connection when it was sent.
    public var ahead: Int

    public init(queued: Duration, inPipeline: Duration, statement: Duration, answer: Duration, ahead: Int) {
        self.queued = queued
        self.inPipeline = inPipeline
        self.statement = statement
        self.answer = answer
        self.ahead = ahead
    }

    /// The phases of a request that arrived at `arrived`, was sent at `sent` with `ahead` requests
    /// before it, whose turn began at the later of `sent` and `previousAnswer` (the time the answer
    /// before it on the connection was read), answered at `answered`, its completion done at `done`.
    public init(
        arrived: ContinuousClock.Instant, sent: ContinuousClock.Instant, ahead: Int, previousAnswer: ContinuousClock.Instant?,
        answered: ContinuousClock.Instant, done: ContinuousClock.Instant
    ) {
        let turn = min(max(sent, previousAnswer ?? sent), answered)
        self.init(queued: sent - arrived, inPipeline: turn - sent, statement: answered - turn, answer: done - answered, ahead: ahead)
    }
}
