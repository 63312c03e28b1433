import HTTPValues

/// The one-shot answer channel of a request; use it on the request's loop thread only (asserted
/// in debug builds: the connection is the loop's, without a lock).
public struct HTTPResponder {
    let connection: HTTPConnection
    let request: ConnectionStateMachine.RequestID

    /// Which of the server's loops the request came in on (0-based): for per-loop state that needs no lock.
    public var loopIndex: Int { connection.server.index }

    /// The request came on a connection accepted while the server was at its connection limit: the
    /// transport's decision, handed beside the request (not in it). The handler answers with a
    /// refusal, and the connection closes after it.
    public let connectionOverLimit: Bool

    /// What became of an answer (`HTTPDelivery`, in HTTPValues).
    public typealias Delivery = HTTPDelivery

    /// Writes `response`. A HEAD request gets the headers, including the `Content-Length` that the
    /// GET would have, and no body.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Delivery {
        assert(connection.server.loop.isCurrent, "an answer sent off its request's loop thread")
        return connection.answer(response, to: request)
    }
}
