import EventHTTP

/// Where the pipeline hands a request's one answer: the connection's responder on the wire, a test's
/// capture in process. `send` is called exactly once, on the thread the answer is ready on.
public protocol ResponseSink {
    /// Delivers `response`; `.connectionClosed` when nobody was left to take it.
    func send(_ response: HTTPResponse) -> HTTPResponder.Delivery
}

extension HTTPResponder: ResponseSink {}

/// A sink that hands the answer to a closure.
public struct ClosureSink: ResponseSink {
    private let body: (HTTPResponse) -> HTTPResponder.Delivery

    public init(_ body: @escaping (HTTPResponse) -> HTTPResponder.Delivery) {
        self.body = body
    }

    public func send(_ response: HTTPResponse) -> HTTPResponder.Delivery { body(response) }
}
