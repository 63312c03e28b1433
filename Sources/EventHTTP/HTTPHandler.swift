/// What an `HTTPServer` calls for every request, on the loop thread that read it.
///
/// The handler answers through the responder exactly once, either before returning or later on
/// the same loop thread (a store that completes asynchronously on the loop).
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, responder: HTTPResponder)

    /// The answer to a stream the framing refused before any handler saw a request (a malformed
    /// request line or header, framing or limits: `status` and `detail` say which), sent with
    /// `Connection: close`. `origin` is the refused request's `Origin`, when its head was read.
    /// nil sends the detail as plain text.
    func replacementForWireError(status: Int, detail: String?, origin: String?) -> HTTPResponse?

    /// Something a loop reports about itself (accept paused at the descriptor limit, a libevent
    /// message), on that loop's thread: for the handler to log. Ignored unless implemented.
    func serverEvent(_ event: HTTPServerEvent)
}

extension HTTPHandler {
    public func replacementForWireError(status: Int, detail: String?, origin: String?) -> HTTPResponse? { nil }
    public func serverEvent(_ event: HTTPServerEvent) {}
}
