/// What became of an answer handed to the transport.
public enum HTTPDelivery: Sendable, Equatable {
    /// Handed to the connection for writing.
    case sent
    /// The connection had closed before the answer (its time-out fired or the client hung up
    /// while the handler was working): nothing was sent.
    case connectionClosed
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
    /// Queued, but the client is not taking the output: more than `maxOutputBytes` wait. Write
    /// nothing more until `.drained` (or cut the stream off).
    case overBound
    /// The stream is over (finished or closed): nothing was queued.
    case closed
}
