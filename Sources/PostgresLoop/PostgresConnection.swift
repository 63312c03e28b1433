import CLibpq
import EventLoops

/// One PostgreSQL connection driven by one event loop: libpq's asynchronous API in pipeline mode,
/// its socket watched by the loop, no blocking call. `PostgresConnectionStateMachine` decides; this
/// class carries its actions out with libpq and answers every request on the loop's thread.
///
/// Create it, call `execute` and `close` on its loop's thread only.
public final class PostgresConnection {
    public typealias Completion = (Result<PostgresRows, PostgresError>) -> Void

    struct Request {
        let query: PostgresQuery
        let parameters: [String?]
        let completion: Completion
        /// When `execute` took it, when it was sent and with how many requests ahead of it (for
        /// `onPhases`).
        let arrived: ContinuousClock.Instant
        var sent: ContinuousClock.Instant?
        var ahead = 0
    }

    let loop: EventLoop
    let configuration: PostgresConfiguration
    var machine: PostgresConnectionStateMachine
    /// The `PGconn` while connecting or connected.
    var connection: OpaquePointer?
    var watch: FileWatch?
    /// Output libpq could not write yet: wait for writable and flush.
    var flushPending = false
    var requests: [PostgresConnectionStateMachine.RequestID: Request] = [:]
    private var nextID: PostgresConnectionStateMachine.RequestID = 0
    private var deadlineTimer: LoopTimer?
    private var reconnectTimer: LoopTimer?
    let clock = ContinuousClock()
    private let jitter: @Sendable () -> Double
    /// The secret values of the connection string (never shown).
    let secrets: [String]
    /// libpq's `options` for this session: the connection string's, then `statement_timeout`.
    let sessionOptions: String
    /// A cancel request is being sent (`PostgresConnection+Cancel`).
    let cancelInFlight = SharedFlag()
    let cancelsSent = SharedCounter()
    /// When a result last arrived, or when the connection got a request with none in flight: with
    /// requests in flight and this long ago, the connection is stalled (`PostgresLoopPool`).
    public internal(set) var lastProgress: ContinuousClock.Instant
    /// Channels this session listens on (`listen`). `onListening` runs each time the session
    /// starts listening (again after every reconnect: notifications sent meanwhile were missed,
    /// so catch up then), `onNotification` with each notification's channel; both on the loop's
    /// thread.
    private(set) var listens: [String] = []
    public var onListening: (() -> Void)?
    public var onNotification: ((String) -> Void)?
    /// Told where each sent request's time went, after its completion ran, on the loop's thread.
    public var onPhases: ((PostgresRequestPhases) -> Void)?
    /// Told when a request left the pipeline (answered, abandoned one ended, or failed with the
    /// connection) or the connection came up: its pool may send it what it held back.
    public var onRoom: (() -> Void)?
    /// When the last answer (its sync) was read: the next request's turn began then.
    private var lastAnswerRead: ContinuousClock.Instant?

    /// `jitter` draws the back-off's random fraction (0...1).
    public init(
        loop: EventLoop, configuration: PostgresConfiguration,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.loop = loop
        self.configuration = configuration
        self.jitter = jitter
        let options = try? PostgresConnectionOptions.parse(configuration.connectionString)
        secrets = options?.secretValues ?? []
        sessionOptions = Self.sessionOptions(
            options?["options"], statementTimeout: configuration.timing.statementTimeout, settings: configuration.settings)
        machine = PostgresConnectionStateMachine(timing: configuration.timing)
        lastProgress = clock.now
        deadlineTimer = LoopTimer(loop: loop) { [unowned self] in
            perform(machine.timerFired(now: clock.now, jitter: jitter()))
            onRoom?()
        }
        reconnectTimer = LoopTimer(loop: loop) { [unowned self] in
            perform(machine.reconnectDue(now: clock.now))
        }
    }

    deinit {
        watch?.cancel()
        if let connection { PQfinish(connection) }
    }

    /// Starts connecting (requests also start it).
    public func start() {
        perform(machine.start(now: clock.now))
    }

    public var isReady: Bool { machine.isReady }
    public var pendingCount: Int { machine.pendingCount }
    /// Requests the server holds on this connection, answered ones being cancelled included.
    public var inFlightCount: Int { machine.inFlightCount }
    public var phase: PostgresConnectionStateMachine.Phase { machine.phase }

    /// Sends `query` with text `parameters` ($1, $2, …; nil is NULL) in the pipeline; `completion`
    /// runs once on this loop's thread. A serialization failure or deadlock is sent again up to the
    /// configured retry limit.
    public func execute(_ query: PostgresQuery, _ parameters: [String?] = [], completion: @escaping Completion) {
        execute(query, parameters, retriesLeft: configuration.retryLimit, completion: completion)
    }

    /// `execute` with the deadline the request got before (in its pool's queue, or the call it is
    /// part of) instead of `requestTimeout` from now; `arrived` is when it came (nil: a deadline
    /// before the deadline, as for a request that waited in its pool's queue).
    public func execute(
        _ query: PostgresQuery, _ parameters: [String?], deadline: ContinuousClock.Instant, arrived: ContinuousClock.Instant? = nil,
        completion: @escaping Completion
    ) {
        execute(
            query, parameters, retriesLeft: configuration.retryLimit, deadline: deadline, arrived: arrived, completion: completion)
    }

    private func execute(
        _ query: PostgresQuery, _ parameters: [String?], retriesLeft: Int, deadline: ContinuousClock.Instant? = nil,
        arrived: ContinuousClock.Instant? = nil, completion: @escaping Completion
    ) {
        if parameters.contains(where: { $0?.utf8.contains(0) == true }) {
            completion(.failure(.server(ServerError(sqlState: "22021", message: "a text parameter contains a NUL character"))))
            return
        }
        nextID &+= 1
        let id = nextID
        let finish: Completion = { [unowned self] result in
            if case .failure(let error) = result, error.isRetryable, retriesLeft > 0 {
                execute(query, parameters, retriesLeft: retriesLeft - 1, completion: completion)
            } else {
                completion(result)
            }
        }
        let now = clock.now
        // A request that waited in its pool's queue arrived a deadline before its deadline.
        let arrived = arrived ?? deadline.map { $0 - configuration.timing.requestTimeout } ?? now
        requests[id] = Request(query: query, parameters: parameters, completion: finish, arrived: arrived)
        let statement: String? = if case .prepared(let statement) = query { statement.name } else { nil }
        if machine.inFlightCount == 0 { lastProgress = now }
        perform(machine.request(id, statement: statement, now: now, deadline: deadline))
    }

    /// Fails every request with `closed` and closes the connection for good.
    public func close() {
        perform(machine.close())
        deadlineTimer?.cancel()
        reconnectTimer?.cancel()
    }

    func perform(_ actions: [PostgresConnectionStateMachine.Action]) {
        var sent = false
        for action in actions {
            switch action {
            case .connect:
                startConnecting()
            case .send(let id, let prepare):
                sent = send(id, prepare: prepare) || sent
            case .succeed(let id, let rows):
                answer(id, .success(rows))
            case .fail(let id, let error):
                answer(id, .failure(error))
            case .closeConnection:
                dropConnection()
            case .scheduleReconnect(let delay):
                reconnectTimer?.schedule(after: delay)
            case .armTimer(let instant):
                deadlineTimer?.schedule(after: instant - clock.now)
            case .cancel:
                sendCancel()
            }
        }
        if sent { flush() }
    }

    /// Runs the request's completion, then tells `onPhases` where its time went.
    private func answer(_ id: PostgresConnectionStateMachine.RequestID, _ result: Result<PostgresRows, PostgresError>) {
        guard let request = requests.removeValue(forKey: id) else { return }
        guard let onPhases, let sent = request.sent else { return request.completion(result) }
        let answered = clock.now
        request.completion(result)
        onPhases(
            PostgresRequestPhases(
                arrived: request.arrived, sent: sent, ahead: request.ahead, previousAnswer: lastAnswerRead, answered: answered,
                done: clock.now))
    }

    func lost(_ reason: String) {
        perform(machine.connectionLost(reason: reason, now: clock.now, jitter: jitter()))
        onRoom?()
    }

    func received(_ incoming: PostgresConnectionStateMachine.Incoming) {
        let now = clock.now
        perform(machine.received(incoming, now: now, jitter: jitter()))
        if incoming == .sync {
            lastAnswerRead = now
            onRoom?()
        }
    }

    func connectFailed(_ reason: String) {
        perform(machine.connectFailed(reason: reason, now: clock.now, jitter: jitter()))
        onRoom?()
    }

    func connected() {
        // A new session has made no progress to judge yet: the stall clock starts now, not at the
        // last result of the session before (or the connection's creation).
        let now = clock.now
        lastProgress = now
        lastAnswerRead = nil
        perform(machine.connected(now: now))
        for channel in listens { sendListen(channel) }
        onRoom?()
    }

    /// Listens on `channel` (`LISTEN`) from now on, and again after every reconnect.
    public func listen(_ channel: String) {
        guard !listens.contains(channel) else { return }
        listens.append(channel)
        if machine.isReady { sendListen(channel) }
    }

    private func sendListen(_ channel: String) {
        execute(.unprepared("LISTEN \(Self.quotedIdentifier(channel))")) { [weak self] result in
            if case .success = result { self?.onListening?() }
        }
    }

    /// `identifier` as a quoted SQL identifier.
    static func quotedIdentifier(_ identifier: String) -> String {
        var quoted = "\""
        for character in identifier {
            if character == "\"" { quoted.append("\"") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// The session's options (command-line options for the server): `settings` first, then the
    /// connection string's `options` (a setting given there wins), then `-c statement_timeout=…ms`,
    /// so that the backstop wins.
    static func sessionOptions(_ given: String?, statementTimeout: Duration, settings: [String: String] = [:]) -> String {
        let (seconds, attoseconds) = statementTimeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        var parts = settings.sorted { $0.key < $1.key }.map { "-c \(optionWord($0.key))=\(optionWord($0.value))" }
        if let given, !given.allSatisfy(\.isWhitespace) { parts.append(given) }
        parts.append("-c statement_timeout=\(milliseconds)")
        return parts.joined(separator: " ")
    }

    /// A word of libpq's `options`: spaces and backslashes escaped with a backslash.
    static func optionWord(_ word: String) -> String {
        var result = ""
        for character in word {
            if character == " " || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// libpq's last error message for this connection, any secret of the connection string in it
    /// masked (it becomes a log line, a `/healthz` reason, a 503's detail).
    var errorMessage: String {
        guard let connection, let message = PQerrorMessage(connection) else { return "no connection" }
        let text = String(cString: message).trimmingTrailingNewlines
        return text.isEmpty ? "connection closed" : PostgresConnectionString.scrubbed(text, secrets: secrets)
    }
}
