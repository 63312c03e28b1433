/// The one-shot answer channel of a request; use it on the request's loop thread only.
public struct HTTPResponder {
    let connection: HTTPConnection
    let request: ConnectionStateMachine.RequestID

    /// Which of the server's loops the request came in on (0-based): for per-loop state that needs no lock.
    public var loopIndex: Int { connection.loop.index }

    /// What became of an answer.
    public enum Delivery: Sendable, Equatable {
        /// Handed to the connection for writing.
        case sent
        /// The connection had closed before the answer (its time-out fired or the client hung up
        /// while the handler was working): nothing was sent.
        case connectionClosed
    }

    /// Writes `response`. A HEAD request gets the headers, including the `Content-Length` that the
    /// GET would have, and no body.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Delivery {
        connection.answer(response, to: request)
    }
}
