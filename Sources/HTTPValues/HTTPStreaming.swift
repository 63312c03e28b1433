/// What became of an answer handed to the transport.
public enum HTTPDelivery: Sendable, Equatable {
    /// Handed to the connection for writing.
    case sent
    /// The connection had closed before the answer (its time-out fired or the client hung up
    /// while the handler was working): nothing was sent.
    case connectionClosed
    /// The request had its answer already (sent, or a streamed one started): a second answer is
    /// not sent. A handler's mistake: the first answer stands.
    case alreadyAnswered
}

/// What a streamed answer learns about its connection, on the loop's thread.
public enum HTTPStreamEvent: Sendable, Equatable {
    /// The output fell back under half its bound after a write found it over: write again.
    case drained
    /// The connection closed (the client left, its time-out passed, the server stopped): stop
    /// writing; the stream is over.
    case closed
    /// The client ended its side of the connection (a read found the end of what it sends), told
    /// once. A client may half-close and still read its answer, so the stream goes on unless its
    /// writer ends it; a writer whose client sends nothing after its request and reads until it
    /// leaves (an event stream: `EventSource.close()` closes the connection) ends it here, not at
    /// the write that finds the client gone (a heartbeat or two later).
    case clientEnded
}

/// What became of a write to a streamed answer.
public enum HTTPStreamWrite: Sendable, Equatable {
    /// Queued; the output is within its bound.
    case accepted
    /// Queued, but the client is not taking the output: more than `maxOutputBytes` wait, or as
    /// many as the stream's `HTTPStreamBackPressure.pauseAt`. Write nothing more until `.drained`.
    case overBound
    /// Queued, and the output reached the stream's `HTTPStreamBackPressure.cutOffAt`: the
    /// connection was closed (without the body's end). Told by this answer only, not by `.closed`.
    case cutOff
    /// The stream is over (finished or closed): nothing was queued.
    case closed
}

/// The back-pressure a streamed answer asks for when it starts: the connection keeps it (its state
/// machine answers each write and tells `.drained`). By default a write waits once the connection's
/// output is over its bound (`maxOutputBytes`) and hears `.drained` at half of it; a stream that
/// follows a client for long (the live feed's) sets marks of its own. The connection's bound holds
/// whatever the marks.
public struct HTTPStreamBackPressure: Sendable, Equatable {
    /// Pending bytes at which a write answers `.overBound`; a queued write that reaches it is first
    /// written out as far as the socket takes it, then judged. Nil: the connection's bound only.
    public var pauseAt: Int?
    /// Pending bytes at or below which a write that answered `.overBound` at `pauseAt` hears
    /// `.drained` (nil: half the connection's bound).
    public var resumeAt: Int?
    /// Pending bytes at which the stream is cut off (`HTTPStreamWrite.cutOff`); nil: never.
    public var cutOffAt: Int?

    /// The connection's bound alone.
    public static let connection = HTTPStreamBackPressure()

    public init(pauseAt: Int? = nil, resumeAt: Int? = nil, cutOffAt: Int? = nil) {
        self.pauseAt = pauseAt
        self.resumeAt = resumeAt
        self.cutOffAt = cutOffAt
    }
}
