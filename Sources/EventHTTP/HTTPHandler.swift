/// What an `HTTPServer` calls for every request, on the loop thread that read it.
///
/// The handler answers through the responder exactly once, either before returning or later on
/// the same loop thread (a store that completes asynchronously on the loop).
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, responder: HTTPResponder)
}
