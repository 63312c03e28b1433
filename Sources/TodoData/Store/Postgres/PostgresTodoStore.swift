import ChangeFeed
import EventLoops
import LockTracing
import PostgresLoop
import Synchronization

/// To-dos in PostgreSQL: each call is one prepared statement (`TodoSQL`; an update, one to five:
/// `PostgresTodoStore+Update.swift`) sent by the pool of the calling event loop (`PostgresClient`),
/// answered on that loop with no thread hop. A call not
/// answered within the configured deadline, or made while the database cannot be reached, fails
/// with `StoreError(retryAfter:)` (503 + `Retry-After`); `writeRefusal` says the database is
/// unavailable until a statement succeeds again.
public final class PostgresTodoStore: TodoStore {
    let client: PostgresClient
    /// For calls made off the loops' threads (tools, tests): a loop of the store's own.
    private let fallback: LoopThread
    let health: PostgresStoreHealth

    /// The store's own loop (the change feed's, and calls made off the loops' threads).
    var ownLoop: EventLoop { fallback.loop }

    /// Seconds a client is told to wait when the database is unavailable (down or reconnecting:
    /// a loop tries again within 1 s); past the deadline it is `PostgresLoad.retryAfterSeconds`.
    public static let retryAfterSeconds = 1

    /// `owner`'s to-dos: this store for the shared list, else a value that sends every statement
    /// with `owner` as its owner parameter (`PostgresOwnedTodoStore`: nothing is allocated).
    public func owned(by owner: Owner) -> any TodoStore {
        owner.isShared ? self : PostgresOwnedTodoStore(store: self, owner: owner)
    }

    /// Reads the change feed's table into `changes`.
    let feed: PostgresChangeFeed
    /// How long `removeAll` waits for the table's lock (`TodoSQL+RemoveAll.swift`).
    let clearLockWait: Duration
    /// The most to-dos one insert statement makes (`PostgresInsertBatcher`; 1: each alone).
    let insertBatch: Int
    /// Each loop's inserts, batched.
    private let inserts = LoopLocal<PostgresInsertBatcher>()

    /// `changesRetained` changes are kept for replay (in the table and in memory); the table is read
    /// for changes made through other instances every `changesPollInterval`, and reads start at
    /// least `changesReadGap` apart (`PostgresChangeFeed`), timed by `now`. `removeAll` waits up to
    /// `clearLockWait` for writes in progress to end (zero: up to the request deadline). Inserts
    /// that wait for a loop's connections go together, up to `insertBatch` a statement.
    public init(
        configuration: PostgresConfiguration, changesRetained: Int = StoreDefaults.eventsRetained,
        changesPollInterval: Duration = .milliseconds(StoreDefaults.eventsPollMilliseconds),
        changesReadGap: Duration = .milliseconds(StoreDefaults.eventsReadGapMilliseconds),
        clearLockWait: Duration = .seconds(1), insertBatch: Int = StoreDefaults.databaseInsertBatch,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) throws {
        self.clearLockWait = clearLockWait
        self.insertBatch = max(1, insertBatch)
        client = PostgresClient(configuration: Self.withGenericPlans(configuration))
        fallback = try LoopThread()
        health = PostgresStoreHealth()
        feed = PostgresChangeFeed(
            client: client, loop: fallback.loop, capacity: changesRetained, interval: changesPollInterval, gap: changesReadGap, now: now)
        feed.start()
    }

    /// The shared list's changes made through any instance, in the database's change order (each
    /// owner's are in a log of its own, a sibling of this one: `PostgresChangeFeed.log(of:)`).
    public var changes: ChangeLog { feed.log }

    /// `statement`'s answer, which comes later on the calling loop (see `run`); a statement that
    /// is `changing` asks the feed to read its change soon once it is made.
    private func answer<Value>(
        _ statement: PostgresStatement, _ parameters: [String?], changing: Bool = false, unprepared: Bool = false,
        decode: @escaping (PostgresRows) -> Value?
    ) -> Pending<Result<Value, StoreError>> {
        let feed = changing ? feed : nil
        return Pending { promise in
            run(
                statement, parameters, unprepared: unprepared,
                completion: { result in
                    if case .success = result { feed?.pollSoon() }
                    promise.fulfil(result)
                }, decode: decode)
        }
    }

    /// `configuration` with `plan_cache_mode=force_generic_plan` unless it sets a plan mode itself
    /// (in `settings`, or in the connection string's `options`, which wins). Every statement of
    /// `TodoSQL` is written for a generic plan: the list's page reads its order's index whatever the
    /// parameters, and the `q=` count is a scan either way. Left to PostgreSQL, the list statement is
    /// planned again on every execution (a custom plan folds the `CASE` of the `q=` count away, so it
    /// always looks cheaper than the generic one). A generic plan is made once per connection.
    static func withGenericPlans(_ configuration: PostgresConfiguration) -> PostgresConfiguration {
        var configuration = configuration
        if configuration.settings["plan_cache_mode"] == nil { configuration.settings["plan_cache_mode"] = "force_generic_plan" }
        return configuration
    }

    /// A to-do, or nil for no row (`TodoSQL.get`).
    static func optionalTodo(_ rows: PostgresRows) -> Todo?? {
        rows.count == 0 ? .some(nil) : rows.count == 1 ? TodoRowDecoder.todo(rows, row: 0).map { .some($0) } : nil
    }

    /// Closes every connection; later calls fail.
    public func close() {
        feed.close()
        client.close()
        fallback.shutdown()
    }

    // The shared list's to-dos (owner ''); `PostgresOwnedTodoStore` calls the same with its owner.

    public func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>> { insert(todo, owner: .shared) }
    public func todo(id: String) -> Pending<Result<Todo?, StoreError>> { todo(id: id, owner: .shared) }
    public func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>> { list(query, owner: .shared) }
    public func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>> {
        upcoming(from: from, through: through, owner: .shared)
    }
    public func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>> {
        remove(id: id, condition: condition, owner: .shared)
    }
    public func removeAll() -> Pending<Result<Void, StoreError>> { removeAll(owner: .shared) }

    func insert(_ todo: Todo, owner: Owner) -> Pending<Result<Todo, StoreError>> {
        guard insertBatch > 1 else {
            return answer(TodoSQL.insert, TodoSQL.insertParameters(todo, owner: owner), changing: true) { rows in
                rows.count == 1 ? TodoRowDecoder.todo(rows, row: 0) : nil
            }
        }
        return Pending { promise in
            let request = PostgresInsertBatcher.Request(todo: todo, owner: owner, completion: promise.fulfil)
            if let loop = EventLoop.current {
                insert(request, on: loop)
            } else {
                onFallbackLoop { [self] loop in insert(request, on: loop) }
            }
        }
    }

    /// `request` to `loop`'s insert batcher (made on its first insert).
    private func insert(_ request: PostgresInsertBatcher.Request, on loop: EventLoop) {
        let batcher = inserts.value(on: loop) { loop in
            let feed = self.feed
            return PostgresInsertBatcher(
                pool: client.pool(on: loop), maxBatch: insertBatch, timeout: client.configuration.timing.requestTimeout,
                outcome: { [health] result, pool in Self.outcome(result, pool: pool, health: health) },
                changed: { feed.pollSoon() })
        }
        batcher.insert(request)
    }

    func todo(id: String, owner: Owner) -> Pending<Result<Todo?, StoreError>> {
        guard TodoSQL.isTodoID(id) else { return .ready(.success(nil)) }
        return answer(TodoSQL.get, [id, owner.name], decode: Self.optionalTodo)
    }

    func list(_ query: TodoQuery, owner: Owner) -> Pending<Result<TodoPage, StoreError>> {
        if let needle = query.titleContains, !TodoSQL.canMatchATitle(needle) { return .ready(.success(TodoPage(items: [], total: 0))) }
        let (statement, parameters, unprepared) = TodoSQL.list(query, owner: owner)
        return answer(statement, parameters, unprepared: unprepared) { rows in
            guard rows.count >= 1, let total = rows[0, 0].flatMap({ Int($0) }),
                let seen = rows[0, 1].flatMap({ TransactionSnapshot(postgresText: $0) }),
                let items = TodoRowDecoder.packed(rows, first: 2)
            else { return nil }
            return TodoPage(items: items, total: total, lastChange: PostgresChangeFeed.cursor(ofListing: seen))
        }
    }

    func upcoming(from: CalendarDay, through: CalendarDay, owner: Owner) -> Pending<Result<[Todo], StoreError>> {
        answer(TodoSQL.upcoming, TodoSQL.upcomingParameters(from: from, through: through, owner: owner)) {
            TodoRowDecoder.todos($0)
        }
    }

    func remove(id: String, condition: RevisionCondition, owner: Owner) -> Pending<Result<StoreRemoval, StoreError>> {
        guard TodoSQL.isTodoID(id) else { return .ready(.success(.notFound)) }
        let parameters = TodoSQL.removeParameters(id: id, condition: Self.condition(condition), owner: owner)
        return answer(TodoSQL.remove, parameters, changing: true) { rows in
            guard rows.count == 1 else { return rows.count == 0 ? .notFound : nil }
            return switch rows[0, 0] {
            case "removed": .removed
            case "failed": TodoRowDecoder.todo(rows, row: 0, first: 1).map { .conditionFailed($0) }
            default: nil
            }
        }
    }

    func removeAll(owner: Owner) -> Pending<Result<Void, StoreError>> {
        answer(TodoSQL.removeAll, TodoSQL.removeAllParameters(lockWait: clearLockWait, owner: owner), changing: true) { _ in () }
    }

    /// Every owner's to-dos together (`/metrics`, `/healthz`).
    public func statistics() -> Pending<Result<StoreStatistics, StoreError>> {
        answer(TodoSQL.count, [], decode: Self.statistics)
    }

    /// `owner`'s to-dos only.
    func statistics(owner: Owner) -> Pending<Result<StoreStatistics, StoreError>> {
        answer(TodoSQL.ownerCount, [owner.name], decode: Self.statistics)
    }

    private static func statistics(_ rows: PostgresRows) -> StoreStatistics? {
        rows.count == 1 ? rows[0, 0].flatMap { Int($0) }.map { StoreStatistics(count: $0) } : nil
    }

    public var writeRefusal: String? {
        let refusal = health.refusal
        if refusal != nil, health.shouldProbe(now: .now) { probe() }
        return refusal
    }

    /// Sends `statement` on the calling loop's pool (the store's own loop off the loops' threads)
    /// and answers `decode`'s value, or a `StoreError` (with `retryAfter` when the database is
    /// unavailable or too slow: trying again later may work). `until`: the deadline of the call
    /// the statement is a step of (nil: the request deadline from now).
    func run<Value>(
        _ statement: PostgresStatement, _ parameters: [String?], until callDeadline: ContinuousClock.Instant? = nil,
        unprepared: Bool = false, completion: @escaping (Result<Value, StoreError>) -> Void, decode: @escaping (PostgresRows) -> Value?
    ) {
        let health = self.health
        let spread = Self.writes.contains(statement.name)
        let query: PostgresQuery = unprepared ? .unprepared(statement.sql) : .prepared(statement)
        func send(on pool: PostgresLoopPool) {
            let answer: PostgresConnection.Completion = { [unowned pool] result in
                completion(
                    Self.outcome(result, pool: pool, health: health).flatMap { rows in
                        decode(rows).map { .success($0) }
                            ?? .failure(StoreError(reason: "the database answered rows this server cannot read"))
                    })
            }
            if spread {
                pool.executeOnLeastBusy(
                    query, parameters, deadline: callDeadline, awayFromReads: statement.name == TodoSQL.removeAll.name,
                    completion: answer)
            } else {
                pool.execute(query, parameters, deadline: callDeadline, completion: answer)
            }
        }
        // On a loop's thread the statement is sent from here, with no closure made for it.
        if let loop = EventLoop.current {
            send(on: client.pool(on: loop))
        } else {
            onFallbackLoop { [client] loop in send(on: client.pool(on: loop)) }
        }
    }

    /// Runs `body` on the store's own loop: for a caller off the loops' threads.
    private func onFallbackLoop(_ body: @escaping (EventLoop) -> Void) {
        let loop = fallback.loop
        let box = UncheckedBox(body)
        loop.execute { box.value(loop) }
    }

    /// A statement's outcome: `health` told whether the database answered, an error as the
    /// `StoreError` a request gets (with `retryAfter` from `pool`'s load when it may pass).
    static func outcome(
        _ result: Result<PostgresRows, PostgresError>, pool: PostgresLoopPool, health: PostgresStoreHealth
    ) -> Result<PostgresRows, StoreError> {
        switch result {
        case .success(let rows):
            health.succeeded()
            return .success(rows)
        case .failure(let error):
            if error.isUnavailable { health.failed(describe(error)) } else { health.succeeded() }
            let load = PostgresLoad(
                waiting: pool.pendingCount, connections: pool.connections.count, deadline: pool.requestTimeout)
            return .failure(storeError(error, load: load))
        }
    }

    /// The statements that take row locks: spread over a loop's connections
    /// (`PostgresLoopPool.executeOnLeastBusy`); the others go to its first connection. A clear,
    /// which may wait for the table's lock, goes away from the reads' connection when it can.
    static let writes: Set<String> = [
        TodoSQL.insert.name, TodoSQL.updateOrRead.name, TodoSQL.update.name, TodoSQL.remove.name, TodoSQL.removeAll.name,
    ]

    /// One statement on the store's own loop to learn whether the database is back.
    private func probe() {
        run(TodoSQL.count, [], completion: { (_: Result<Void, StoreError>) in }) { _ in () }
    }

    /// SQLSTATE 55P03: a lock not granted within `lock_timeout`.
    static let lockNotAvailable = "55P03"

    static func describe(_ error: PostgresError) -> String {
        switch error {
        case .unavailable(let reason): "the database is unavailable: \(reason)"
        case .connectionLost(let reason): "the connection to the database was lost: \(reason)"
        case .timedOut: "the database did not answer within the deadline"
        case .closed: "the database connections are closed"
        case .interrupted: "the statement was stopped by a cancel meant for an overdue one"
        case .server(let error): "the database refused the statement: \(error)"
        }
    }

    static func storeError(_ error: PostgresError, load: PostgresLoad) -> StoreError {
        if case .server(let server) = error, server.sqlState == lockNotAvailable {
            // A lock not had within its wait (a clear's, `TodoSQL+RemoveAll.swift`): later may work.
            return StoreError(reason: describe(error), retryAfter: load.retryAfterSeconds)
        }
        guard error.isUnavailable else { return StoreError(reason: describe(error)) }
        let wait =
            switch error {
            case .timedOut, .interrupted: load.retryAfterSeconds
            default: retryAfterSeconds
            }
        return StoreError(reason: describe(error), retryAfter: wait)
    }

    static func fieldChange<Value>(_ field: TodoChange.Field<Value>) -> TodoSQL.FieldChange<Value>? {
        switch field {
        case .keep: nil
        case .set(let value): TodoSQL.FieldChange(value: value)
        case .clear: TodoSQL.FieldChange(value: nil)
        }
    }

    /// The condition as the statement reads it. A revision past `bigint` (≥ 2^63, which a client
    /// may send in a tag) names no stored revision: it is left out here, never sent, so an `If-Match`
    /// of only such tags fails (412) and an `If-None-Match` of them passes, as in memory.
    static func condition(_ condition: RevisionCondition) -> TodoSQL.Condition {
        var result = TodoSQL.Condition()
        if case .oneOf(let revisions) = condition.ifMatch { result.ifMatch = TodoSQL.storable(revisions) }
        switch condition.ifNoneMatch {
        case .any: result.ifNoneMatchAny = true
        case .oneOf(let revisions): result.ifNoneMatch = TodoSQL.storable(revisions)
        case nil: break
        }
        return result
    }
}

/// `PostgresTodoStore.owned(by:)`: the store acting on one named owner's rows (the owner is every
/// statement's owner parameter) and reading that owner's change log. Two references' worth: held
/// inline by `any TodoStore`, made per request without an allocation.
struct PostgresOwnedTodoStore: TodoStore {
    let store: PostgresTodoStore
    let owner: Owner

    func insert(_ todo: Todo) -> Pending<Result<Todo, StoreError>> { store.insert(todo, owner: owner) }
    func todo(id: String) -> Pending<Result<Todo?, StoreError>> { store.todo(id: id, owner: owner) }
    func list(_ query: TodoQuery) -> Pending<Result<TodoPage, StoreError>> { store.list(query, owner: owner) }
    func upcoming(from: CalendarDay, through: CalendarDay) -> Pending<Result<[Todo], StoreError>> {
        store.upcoming(from: from, through: through, owner: owner)
    }
    func update(id: String, change: TodoChange, condition: RevisionCondition, at time: Timestamp) -> Pending<
        Result<StoreUpdate, StoreError>
    > {
        store.update(id: id, change: change, condition: condition, at: time, owner: owner)
    }
    func remove(id: String, condition: RevisionCondition) -> Pending<Result<StoreRemoval, StoreError>> {
        store.remove(id: id, condition: condition, owner: owner)
    }
    func removeAll() -> Pending<Result<Void, StoreError>> { store.removeAll(owner: owner) }
    /// The owner's count (the server's figures come from the store itself).
    func statistics() -> Pending<Result<StoreStatistics, StoreError>> { store.statistics(owner: owner) }
    func owned(by owner: Owner) -> any TodoStore { store.owned(by: owner) }
    var writeRefusal: String? { store.writeRefusal }
    var changes: ChangeLog { store.feed.log(of: owner) }
}

/// A value carried to a loop thread that alone uses it (a completion made for that loop).
struct UncheckedBox<Value>: @unchecked Sendable {
    package let value: Value
    init(_ value: Value) { self.value = value }
}
