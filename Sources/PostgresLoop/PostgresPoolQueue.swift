/// Requests a loop's pool holds back while no connection may take them (each it could use has as
/// many in flight as it may pipeline, `PostgresConfiguration.pipelineDepth`): a queue in arrival
/// order, each request with the deadline it got on arrival (the pool keeps one for reads and one
/// for writes). No I/O, no clock: time comes in with each call.
///
/// Why hold them here rather than in a connection's pipeline: a request sent on a connection waits
/// for every request sent before it there, however long the backend takes (waiting for a CPU, for
/// a row lock); a request held here goes to a connection once one may take it.
public struct PostgresPoolQueue<Element> {
    public typealias Instant = ContinuousClock.Instant

    private var entries: [(element: Element, deadline: Instant)] = []
    private var head = 0

    public init() {}

    public var count: Int { entries.count - head }
    public var isEmpty: Bool { head == entries.count }

    /// The oldest request (the next to send) and its deadline.
    public var first: (element: Element, deadline: Instant)? { isEmpty ? nil : entries[head] }

    /// The earliest deadline (the oldest request's: every request gets the same time).
    public var nextDeadline: Instant? { first?.deadline }

    public mutating func append(_ element: Element, deadline: Instant) {
        entries.append((element, deadline))
    }

    public mutating func removeFirst() -> (element: Element, deadline: Instant)? {
        guard let first else { return nil }
        head += 1
        compact()
        return first
    }

    /// Removes and answers, oldest first, the requests whose deadline is at or before `now`.
    public mutating func removeExpired(now: Instant) -> [Element] {
        var expired: [Element] = []
        while let first, first.deadline <= now {
            expired.append(first.element)
            head += 1
        }
        compact()
        return expired
    }

    /// Removes and answers every request, oldest first.
    public mutating func removeAll() -> [Element] {
        let all = entries[head...].map(\.element)
        entries = []
        head = 0
        return all
    }

    private mutating func compact() {
        entries.dropTaken(head: &head)
    }
}
