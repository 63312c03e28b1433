import HTTPValues

/// Where the pipeline hands a request's one answer: the connection's responder on the wire (its
/// conformance is in the wiring, `App/HTTPResponder+ResponseSink.swift`), a test's capture in process. `send` is called exactly once, on the thread the answer is ready on.
public protocol ResponseSink {
    /// Delivers `response`; `.connectionClosed` when nobody was left to take it.
    func send(_ response: HTTPResponse) -> HTTPDelivery
    /// Answers with a head now and a body written over time (instead of `send`), its writes judged
    /// by `backPressure` (and the connection's bound); nil when the connection closed already, or
    /// the sink cannot stream (then nothing was answered).
    func openStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure, onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> (any ResponseStreamWriter)?
}

/// A sink that hands the answer to a closure.
public struct ClosureSink: ResponseSink {
    private let body: (HTTPResponse) -> HTTPDelivery

    public init(_ body: @escaping (HTTPResponse) -> HTTPDelivery) {
        self.body = body
    }

    public func send(_ response: HTTPResponse) -> HTTPDelivery { body(response) }
}

/// A response body written over time (the live feed's event stream): what a module writes to after
/// the head went out. Used on the request's loop thread only.
public protocol ResponseStreamWriter {
    /// Queues `bytes` and writes them out as far as the client takes them; the answer is the
    /// stream's back-pressure (`HTTPStreamBackPressure`).
    @discardableResult
    func write(_ bytes: [UInt8]) -> HTTPStreamWrite
    /// Queues `bytes` without writing them yet: a batch goes out together at `flush()` (or as soon
    /// as it reaches the stream's pause mark).
    @discardableResult
    func queue(_ bytes: [UInt8]) -> HTTPStreamWrite
    /// Writes what is queued as far as the client takes it.
    func flush()
    /// Ends the body cleanly.
    func finish()
    /// Closes the connection without ending the body.
    func abort()
    /// Bytes queued and not yet taken by the client.
    var pendingBytes: Int { get }
}

/// Opens a streamed answer with `status` and `headers` (CORS and `X-Request-ID` added), its
/// writes judged by the back-pressure given: nil when the connection has closed already (or the
/// sink cannot stream). `onEvent` hears `.drained` and `.closed`.
public typealias StreamOpener = (
    _ status: Int, _ headers: HTTPHeaders, _ backPressure: HTTPStreamBackPressure, _ onEvent: @escaping (HTTPStreamEvent) -> Void
) -> (any ResponseStreamWriter)?

extension ResponseSink {
    public func openStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure, onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> (any ResponseStreamWriter)? {
        nil
    }
}
