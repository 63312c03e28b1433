/// When requests that one statement can answer together (inserts of rows) go to the database, and
/// how many at once: a pure machine, events in and actions out; its shell sends the batches and
/// tells it when each is answered.
///
/// A request goes at once, alone, while fewer than `maxInFlight` batches are in flight (so a quiet
/// server adds no wait). Past that, requests wait here, and when a batch is answered the ones
/// waiting go together, up to `maxBatch`, oldest first. Under load the batches grow by themselves
/// and the database does one statement, one trigger run and one commit for many rows
/// (docs/performance.md: 3.5 to 4 times the rows per second of single-row inserts at 16 to 32 a
/// statement). A request whose deadline passed while it waited is handed back as expired, never sent.
///
/// Invariant: requests wait only while `maxInFlight` batches are in flight.
public struct PostgresBatchStateMachine<Request> {
    public struct Batch {
        public let requests: [Request]
        /// The earliest deadline among them: the statement's.
        public let deadline: ContinuousClock.Instant
    }

    public enum Action {
        /// Nothing to send now.
        case wait
        /// Send these together.
        case send(Batch)
    }

    public let maxInFlight: Int
    public let maxBatch: Int
    private var waiting: [(request: Request, deadline: ContinuousClock.Instant)] = []
    /// The first of `waiting` not yet sent (taken ones are dropped in bulk, not one by one).
    private var head = 0
    public private(set) var inFlight = 0

    public init(maxInFlight: Int, maxBatch: Int) {
        self.maxInFlight = max(1, maxInFlight)
        self.maxBatch = max(1, maxBatch)
    }

    /// Requests waiting to be sent.
    public var waitingCount: Int { waiting.count - head }

    /// A request arrives, to be answered by `deadline`.
    public mutating func enqueue(_ request: Request, deadline: ContinuousClock.Instant) -> Action {
        guard inFlight < maxInFlight else {
            waiting.append((request, deadline))
            return .wait
        }
        inFlight += 1
        return .send(Batch(requests: [request], deadline: deadline))
    }

    /// A batch in flight was answered (or failed) at `now`: the requests that waited past their
    /// deadline (to fail, unsent), and the next batch to send, if any wait.
    public mutating func batchDone(now: ContinuousClock.Instant) -> (expired: [Request], action: Action) {
        assert(inFlight > 0, "a batch answered that was not in flight")
        inFlight -= 1
        var expired: [Request] = []
        var batch: [Request] = []
        var deadline: ContinuousClock.Instant?
        while head < waiting.count, batch.count < maxBatch {
            let next = waiting[head]
            head += 1
            if next.deadline <= now {
                expired.append(next.request)
                continue
            }
            batch.append(next.request)
            deadline = min(deadline ?? next.deadline, next.deadline)
        }
        compact()
        guard let deadline else { return (expired, .wait) }
        inFlight += 1
        return (expired, .send(Batch(requests: batch, deadline: deadline)))
    }

    /// Every request still waiting, to fail (the pool closes); later ones wait as before.
    public mutating func removeWaiting() -> [Request] {
        defer {
            waiting = []
            head = 0
        }
        return waiting[head...].map(\.request)
    }

    private mutating func compact() {
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
    }
}
