import PostgresLoop

/// An update in as few and as cheap statements as its answer allows.
///
/// Usually one round trip (`TodoSQL.updateOrRead`): a plain `UPDATE` and its event
/// (`TodoSQL.changing`: under read committed its `WHERE` is checked again on the newest version of
/// a row changed meanwhile, which is what the condition must pass on), and when it changed nothing,
/// the to-do as stored right after, which decides as in memory (`StoreUpdate.decide`): missing, a
/// failed condition or nothing to change are answered as of that read. If the read shows a change
/// to make after all (another request changed the to-do between the two), the change is tried
/// again; after `updateAttempts` such turns, the locking statement (`TodoSQL.update`) decides on
/// the locked row. Every answer is one a single statement could have given at some point during
/// the request.
///
/// Why not the locking statement every time: its `SELECT … FOR UPDATE` in a CTE is a plan of many
/// nodes that PostgreSQL builds on every execution, and builds again for each row version it waits
/// for (issue 22: a PATCH cost PostgreSQL ~558,000 instructions that way, ~368,000 with the plain
/// `UPDATE` and migration 7; docs/performance.md).
extension PostgresTodoStore {
    /// How many times `TodoSQL.updateOrRead` runs for one update at most (it runs again when its
    /// read found a change to make); then the locking statement decides. All of an update's
    /// statements share one request deadline, from when the update began: one that goes the whole
    /// way (three statements, each of which can wait for the row's lock) fails as any statement
    /// would, once the deadline has passed.
    static let updateAttempts = 2

    public func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp
    ) -> Pending<Result<StoreUpdate, StoreError>> {
        update(id: id, change: change, condition: condition, at: time, owner: .shared)
    }

    /// `update` of one of `owner`'s to-dos.
    func update(
        id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp, owner: Owner
    ) -> Pending<Result<StoreUpdate, StoreError>> {
        guard TodoSQL.isTodoID(id) else { return .ready(.success(.notFound)) }
        let request = UpdateRequest(
            id: id, change: change, condition: condition, time: time,
            deadline: ContinuousClock.now + client.configuration.timing.requestTimeout,
            parameters: TodoSQL.updateParameters(
                id: id, title: change.title, completed: change.completed, order: Self.fieldChange(change.order),
                dueDate: Self.fieldChange(change.dueDate), condition: Self.condition(condition), at: time, owner: owner))
        return Pending { promise in self.change(request, attemptsLeft: Self.updateAttempts, promise) }
    }

    /// One update as its statements need it.
    struct UpdateRequest {
        let id: String
        let change: TodoChange
        let condition: RevisionCondition
        let time: Timestamp
        /// The update's deadline, every statement's.
        let deadline: ContinuousClock.Instant
        /// `TodoSQL.updateParameters`, for `updateOrRead` and `update` alike.
        let parameters: [String?]
    }

    /// `TodoSQL.updateOrRead`; when it changed nothing, the to-do it read decides: a change to make
    /// after all goes round again, or to the locking statement when no attempt is left.
    private func change(_ request: UpdateRequest, attemptsLeft: Int, _ promise: Promise<Result<StoreUpdate, StoreError>>) {
        run(
            TodoSQL.updateOrRead, request.parameters, until: request.deadline,
            completion: { [self] (result: Result<UpdateOrRead, StoreError>) in
                switch result {
                case .success(.updated(let todo)):
                    feed.pollSoon()
                    promise.fulfil(.success(.updated(todo)))
                case .success(.current(let stored)):
                    let outcome = StoreUpdate.decide(
                        stored: stored, change: request.change, condition: request.condition, at: request.time,
                        nextRevision: { $0.revision + 1 })
                    guard case .updated = outcome else { return promise.fulfil(.success(outcome)) }
                    if attemptsLeft > 1 {
                        change(request, attemptsLeft: attemptsLeft - 1, promise)
                    } else {
                        lockAndDecide(request, promise)
                    }
                case .failure(let error):
                    promise.fulfil(.failure(error))
                }
            }, decode: Self.updateOrRead)
    }

    /// What `TodoSQL.updateOrRead` answers: the to-do as changed, or as stored (nil: none).
    enum UpdateOrRead {
        case updated(Todo)
        case current(Todo?)
    }

    static func updateOrRead(_ rows: PostgresRows) -> UpdateOrRead? {
        guard rows.count == 1 else { return rows.count == 0 ? .current(nil) : nil }
        guard let todo = TodoRowDecoder.todo(rows, row: 0, first: 1) else { return nil }
        return switch rows[0, 0] {
        case "updated": .updated(todo)
        case "current": .current(todo)
        default: nil
        }
    }

    /// `TodoSQL.update`: decides on the locked row.
    private func lockAndDecide(_ request: UpdateRequest, _ promise: Promise<Result<StoreUpdate, StoreError>>) {
        run(
            TodoSQL.update, request.parameters, until: request.deadline,
            completion: { [self] (result: Result<StoreUpdate, StoreError>) in
                if case .success(.updated) = result { feed.pollSoon() }
                promise.fulfil(result)
            }, decode: Self.updateOutcome)
    }

    /// `TodoSQL.update`'s answer.
    static func updateOutcome(_ rows: PostgresRows) -> StoreUpdate? {
        guard rows.count == 1 else { return rows.count == 0 ? .notFound : nil }
        guard let todo = TodoRowDecoder.todo(rows, row: 0, first: 1) else { return nil }
        return switch rows[0, 0] {
        case "updated": .updated(todo)
        case "unchanged": .unchanged(todo)
        case "failed": .conditionFailed(todo)
        default: nil
        }
    }
}
