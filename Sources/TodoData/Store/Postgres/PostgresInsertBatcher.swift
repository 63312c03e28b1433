import PostgresLoop

/// One loop's inserts (`PostgresTodoStore.insert`), sent one at a time while the loop has fewer than
/// its connections' count in flight and together past that (`PostgresBatchStateMachine`): one
/// statement (`TodoSQL.insertMany`) for as many as `maxBatch` to-dos. The shell of the machine: it
/// sends what the machine says and tells it when each batch is answered. Use it on its loop only.
final class PostgresInsertBatcher {
    struct Request {
        let todo: Todo
        let owner: Owner
        let completion: (Result<Todo, StoreError>) -> Void
    }

    private var machine: PostgresBatchStateMachine<Request>
    private let pool: PostgresLoopPool
    private let timeout: Duration
    private let clock = ContinuousClock()
    /// A statement's outcome as the store sees it (its health told, errors as `StoreError`s).
    private let outcome: (Result<PostgresRows, PostgresError>, PostgresLoopPool) -> Result<PostgresRows, StoreError>
    /// Told after a statement wrote rows (the change feed reads them soon).
    private let changed: () -> Void

    init(
        pool: PostgresLoopPool, maxBatch: Int, timeout: Duration,
        outcome: @escaping (Result<PostgresRows, PostgresError>, PostgresLoopPool) -> Result<PostgresRows, StoreError>,
        changed: @escaping () -> Void
    ) {
        self.pool = pool
        self.timeout = timeout
        self.outcome = outcome
        self.changed = changed
        machine = PostgresBatchStateMachine(maxInFlight: pool.connections.count, maxBatch: maxBatch)
    }

    func insert(_ request: Request) {
        run(machine.enqueue(request, deadline: clock.now + timeout))
    }

    private func run(_ action: PostgresBatchStateMachine<Request>.Action) {
        guard case .send(let batch) = action else { return }
        if batch.requests.count == 1 {
            send(batch.requests[0], deadline: batch.deadline) { self.batchDone() }
            return
        }
        let rows = batch.requests.map { (todo: $0.todo, owner: $0.owner) }
        pool.executeOnLeastBusy(.prepared(TodoSQL.insertMany), TodoSQL.insertManyParameters(rows), deadline: batch.deadline) {
            [self]
            result in
            batchDone()
            if case .failure(.server) = result {
                // One row the database refused fails the statement: each is tried alone, so
                // that only the request that caused it gets the error.
                for request in batch.requests { send(request, deadline: batch.deadline) {} }
                return
            }
            answer(batch.requests, with: outcome(result, pool))
        }
    }

    /// One request alone (`TodoSQL.insert`), as without batches.
    private func send(_ request: Request, deadline: ContinuousClock.Instant, then done: @escaping () -> Void) {
        pool.executeOnLeastBusy(.prepared(TodoSQL.insert), TodoSQL.insertParameters(request.todo, owner: request.owner), deadline: deadline)
        { [self] result in
            done()
            answer([request], with: outcome(result, pool))
        }
    }

    /// The machine told a batch is over, the requests that waited too long failed, the next sent.
    private func batchDone() {
        let (expired, next) = machine.batchDone(now: clock.now)
        run(next)
        guard !expired.isEmpty else { return }
        let failure = outcome(.failure(.timedOut), pool)
        for request in expired {
            if case .failure(let error) = failure { request.completion(.failure(error)) }
        }
    }

    /// Each request's to-do from the statement's rows (found by id), or its failure.
    private func answer(_ requests: [Request], with result: Result<PostgresRows, StoreError>) {
        let rows: PostgresRows
        switch result {
        case .failure(let error):
            for request in requests { request.completion(.failure(error)) }
            return
        case .success(let answered): rows = answered
        }
        changed()
        if requests.count == 1, rows.count == 1, let todo = TodoRowDecoder.todo(rows, row: 0) {
            requests[0].completion(.success(todo))
            return
        }
        var byID: [String: Todo] = [:]
        for row in 0..<rows.count {
            if let todo = TodoRowDecoder.todo(rows, row: row) { byID[todo.id] = todo }
        }
        for request in requests {
            if let todo = byID[request.todo.id] ?? byID[request.todo.id.lowercased()] {
                request.completion(.success(todo))
            } else {
                request.completion(.failure(StoreError(reason: "the database answered rows this server cannot read")))
            }
        }
    }
}
