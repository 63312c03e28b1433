import HTTPValues

/// What an `HTTPServer` calls for every request, on the loop thread that read it.
///
/// The handler answers through the responder exactly once, either before returning or later on
/// the same loop thread (a store that completes asynchronously on the loop).
public protocol HTTPHandler: Sendable {
    /// Answers `request` through `responder`. Whether the request came over the connection limit is
    /// the transport's to decide: `responder.connectionOverLimit` says so (the request value
    /// carries nothing of its connection).
    func handle(_ request: HTTPRequest, responder: HTTPResponder)

    /// The answer to a stream the framing refused before any handler saw a request (a malformed
    /// request line or header, framing or limits: `status` and `detail` say which), sent with
    /// `Connection: close`. `origin` is the refused request's `Origin`, when its head was read.
    /// nil sends the detail as plain text.
    func replacementForWireError(status: Int, detail: String?, origin: String?) -> HTTPResponse?

    /// The final answer to a request whose client holds its body back until `100 Continue`
    /// (`Expect: 100-continue`, RFC 9110 §10.1.1), when the handler refuses the request from its
    /// head alone (`head` has no body; `connectionOverLimit` as `HTTPResponder.connectionOverLimit`
    /// for `handle`). It is
    /// sent at once with `Connection: close` and no 100; the body is never read (if the client
    /// sends it anyway, it is discarded while the connection lingers). nil — the default — sends
    /// `100 Continue`, and `handle` gets the whole request. Called on the loop thread, synchronously.
    func answer(toHead head: HTTPRequest, loopIndex: Int, connectionOverLimit: Bool) -> HTTPResponse?

    /// Something a loop reports about itself (accept paused at the descriptor limit, a libevent
    /// message), on that loop's thread: for the handler to log. Ignored unless implemented.
    func serverEvent(_ event: HTTPServerEvent)
}

extension HTTPHandler {
    public func replacementForWireError(status: Int, detail: String?, origin: String?) -> HTTPResponse? { nil }
    public func answer(toHead head: HTTPRequest, loopIndex: Int, connectionOverLimit: Bool) -> HTTPResponse? { nil }
    public func serverEvent(_ event: HTTPServerEvent) {}
}
