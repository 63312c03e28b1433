import Synchronization

/// What the framing and the connection budgets saw, across the server's loops: for tests and
/// operators checking that hostile clients stay within their bounds.
public struct WireStatistics: Sendable, Equatable {
    /// Request heads accepted by the framing.
    public var requestHeads: Int
    /// Streams refused by the framing.
    public var refusedStreams: Int
    /// The most bytes ever buffered in one connection's input.
    public var largestInputBytes: Int
    /// Connections whose reading is stopped now because their client does not take its answers.
    public var throttledConnections: Int
    /// The most answer bytes ever queued and not yet written on one connection.
    public var largestOutputBytes: Int

    public init(requestHeads: Int, refusedStreams: Int, largestInputBytes: Int, throttledConnections: Int, largestOutputBytes: Int = 0) {
        self.requestHeads = requestHeads
        self.refusedStreams = refusedStreams
        self.largestInputBytes = largestInputBytes
        self.throttledConnections = throttledConnections
        self.largestOutputBytes = largestOutputBytes
    }

    /// Nothing seen yet.
    public static let zero = WireStatistics(requestHeads: 0, refusedStreams: 0, largestInputBytes: 0, throttledConnections: 0)
}

/// One loop's counters, written on its thread and readable from any thread.
final class WireCounters: Sendable {
    let requestHeads = Atomic<Int>(0)
    let refusedStreams = Atomic<Int>(0)
    let largestInputBytes = Atomic<Int>(0)
    let throttledConnections = Atomic<Int>(0)
    let largestOutputBytes = Atomic<Int>(0)

    func noteInput(_ length: Int) {
        if length > largestInputBytes.load(ordering: .relaxed) { largestInputBytes.store(length, ordering: .relaxed) }
    }

    func noteOutput(_ length: Int) {
        if length > largestOutputBytes.load(ordering: .relaxed) { largestOutputBytes.store(length, ordering: .relaxed) }
    }

    static func sum(_ counters: [WireCounters]) -> WireStatistics {
        counters.reduce(WireStatistics.zero) {
            WireStatistics(
                requestHeads: $0.requestHeads + $1.requestHeads.load(ordering: .relaxed),
                refusedStreams: $0.refusedStreams + $1.refusedStreams.load(ordering: .relaxed),
                largestInputBytes: max($0.largestInputBytes, $1.largestInputBytes.load(ordering: .relaxed)),
                throttledConnections: $0.throttledConnections + $1.throttledConnections.load(ordering: .relaxed),
                largestOutputBytes: max($0.largestOutputBytes, $1.largestOutputBytes.load(ordering: .relaxed)))
        }
    }
}
