import Synchronization

/// One loop's requests that have reached the handler and are not finished: answered and written
/// (evhttp's on-complete callback), or cut off because their connection closed first (a time-out
/// or a client that hung up while the handler was still working, or before the answer was out).
/// evhttp reports neither of the latter to the request, so without the connection's close they
/// would stay in flight for ever and every drain would wait its whole grace period.
/// Used on the loop's thread; `count` from any thread.
final class InFlightRequests: @unchecked Sendable {
    /// Each request in flight with its connection.
    private var requests: [OpaquePointer: OpaquePointer] = [:]
    private let published = Atomic<Int>(0)

    /// Requests in flight, from any thread.
    var count: Int { published.load(ordering: .relaxed) }

    var isEmpty: Bool { requests.isEmpty }

    func began(_ request: OpaquePointer, on connection: OpaquePointer?) {
        // A request without a connection cannot be cut off by one: keyed to itself.
        requests[request] = connection ?? request
        published.store(requests.count, ordering: .relaxed)
    }

    /// The answer to `request` was written.
    func completed(_ request: OpaquePointer) {
        guard requests.removeValue(forKey: request) != nil else { return }
        published.store(requests.count, ordering: .relaxed)
    }

    /// `connection` closed: its requests still in flight are over (their answers can no longer be
    /// delivered). Returns how many there were.
    @discardableResult
    func connectionClosed(_ connection: OpaquePointer) -> Int {
        let before = requests.count
        requests = requests.filter { $0.value != connection }
        published.store(requests.count, ordering: .relaxed)
        return before - requests.count
    }
}
