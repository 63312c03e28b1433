/// What an `HTTPServer` calls for every request, on the loop thread that read it.
///
/// The handler answers through the responder exactly once, either before returning or later on
/// the same loop thread (a store that completes asynchronously on the loop).
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, responder: HTTPResponder)

    /// The answer to send instead of evhttp's own HTML error page, for input evhttp refuses before
    /// any handler sees it (a malformed request line, headers or body framing past the hard
    /// limits, or a stream the strict framing refused, with `detail` saying why). nil keeps evhttp's
    /// page. The connection closes after it either way.
    func replacementForWireError(status: Int, detail: String?) -> HTTPResponse?

    /// Something a loop reports about itself (accept paused at the descriptor limit, a libevent
    /// message), on that loop's thread: for the handler to log. Ignored unless implemented.
    func serverEvent(_ event: HTTPServerEvent)
}

extension HTTPHandler {
    public func replacementForWireError(status: Int, detail: String?) -> HTTPResponse? { nil }
    public func serverEvent(_ event: HTTPServerEvent) {}
}
