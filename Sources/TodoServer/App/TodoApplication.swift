import CSupport
import ChangeFeed
import Dispatch
import EventHTTP
import HTTPValues
import LockTracing
import Logging
import Synchronization
import TodoData

/// The whole server: configuration, the router with its modules, and the HTTP loops.
public final class TodoApplication: HTTPHandler {
    public let configuration: ServerConfiguration
    /// The whole answer to a request, from request value to response value; `handle` feeds it.
    public let pipeline: RequestPipeline
    private let cors: CORSPolicy
    private let identity: RequestIdentity
    private let serializer = JSONSerializer()
    let logger: Logger
    private let state = StateBox()
    /// The live feed's subscribers: their streams end at a stop.
    private let feedHub: FeedHub
    private let boundPort = BoundPort()
    /// JSON Web Tokens, when `jwtJwksFile` or `jwtJwksUrl` is set (`JWTAuthentication`).
    let jwt: JWTAuthentication?

    /// The port `start` bound, for base URLs when a request names no host.
    private final class BoundPort: Sendable {
        let value = Atomic<Int>(0)
    }

    /// The loops once started, and whether a stop came first; shared with the metrics module.
    private final class StateBox: Sendable {
        private let value = Mutex<(server: HTTPServer?, stopRequested: Bool)>((nil, false))

        func withTracedLock<T>(_ body: (inout (server: HTTPServer?, stopRequested: Bool)) -> T) -> T {
            value.withTracedLock { body(&$0) }
        }
    }

    /// Wires the modules around `store`; `clock` and `ids` are injectable for tests, and so is
    /// `keyRefreshClock`, which paces the JWT key set's looks and fetches.
    public init(
        configuration: ServerConfiguration, logger: Logger, store: any TodoStore = InMemoryTodoStore(),
        clock: any TodoClock = SystemClock(), ids: any IDGenerator = UUIDGenerator(), keyRefreshClock: any TodoClock = MonotonicClock(),
        droppedLogLines: @escaping @Sendable () -> Int = { 0 }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        cors = CORSPolicy(configuration: configuration)
        identity = RequestIdentity(publicURL: configuration.publicURL)
        let state = self.state
        let dependencies = ModuleDependencies(
            store: store, clock: clock, ids: ids,
            defaultTimeZone: IANATimeZone(identifier: configuration.timeZone) ?? .utc,
            openConnections: { state.withTracedLock { $0.server }?.openConnections ?? 0 },
            openAPIDocument: OpenAPIDocument.load(), droppedLogLines: droppedLogLines,
            maxFeedSubscribers: configuration.eventsMaxSubscribers, libeventVersion: HTTPServer.libeventVersion)
        feedHub = dependencies.feedHub
        (store as? PostgresTodoStore)?.recordPhases(into: dependencies.metricsFactory)
        let boundPort = self.boundPort
        if let verification = configuration.jwtVerification, let file = configuration.jwtJwksFile {
            do {
                jwt = try JWTAuthentication(
                    verifier: JWTVerifier(verification), jwksFile: file, clock: clock, refreshClock: keyRefreshClock, logger: logger)
            } catch {
                // The configuration read it a moment ago: it changed since.
                throw ConfigurationError(
                    key: "jwtJwksFile", problem: "'jwtJwksFile' is '\(file)' but must be a JWK Set (\(error.description))",
                    source: configuration.provenance.sources["jwtJwksFile"])
            }
        } else if let verification = configuration.jwtVerification, let url = configuration.jwtKeySetURL {
            jwt = JWTAuthentication(
                verifier: JWTVerifier(verification), jwksURL: url, clock: clock, refreshClock: keyRefreshClock, logger: logger)
        } else {
            jwt = nil
        }
        pipeline = RequestPipeline(
            configuration: configuration, dependencies: dependencies, jwt: jwt, logger: logger,
            fallbackBaseURL: { "http://localhost:\(boundPort.value.load(ordering: .relaxed))" })
    }

    /// What the loops apply to every connection's wire, from the server's settings.
    static func wireConfiguration(_ configuration: ServerConfiguration) -> HTTPServerConfiguration {
        var wire = HTTPServerConfiguration(
            host: configuration.host, port: configuration.port, loopCount: configuration.effectiveThreads,
            maxHeaderBytes: configuration.hardHeaderLimit,
            timeoutSeconds: Double(configuration.timeoutSeconds), maxConnections: configuration.maxConnections,
            maxBodyBytes: configuration.maxBodyBytes, maxChunkLineBytes: configuration.maxHeaderBytes,
            maxPipelinedRequests: configuration.maxPipelinedRequests, maxOutputBytes: configuration.maxOutputBytes)
        wire.minBodyBytesPerSecond = configuration.minBodyBytesPerSecond
        wire.bodyRateGracePeriod = .seconds(configuration.bodyRateGraceSeconds)
        wire.writesAtTurnEnd = configuration.writeAtTurnEnd
        return wire
    }

    /// Binds the port and starts the loops; returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws -> Int {
        todo_configure_allocator()
        let http = HTTPServer(configuration: Self.wireConfiguration(configuration), handler: self)
        let stopRequested = state.withTracedLock { state in
            state.server = http
            return state.stopRequested
        }
        // Before the port opens: a token that comes first then waits for the first fetch.
        jwt?.startKeyRefresh()
        let port: Int
        do {
            port = try http.start()
        } catch {
            jwt?.stopKeyRefresh()
            throw error
        }
        boundPort.value.store(port, ordering: .relaxed)
        StartupBanner(configuration: configuration, port: port).log(to: logger)
        if stopRequested { requestStop() }
        return port
    }

    /// Stops accepting; each loop exits once its requests in flight are answered or the grace
    /// period is over. Returns at once; safe from any thread (a signal handler's), even before `start`.
    public func requestStop() {
        let http = state.withTracedLock { state in
            state.stopRequested = true
            return state.server
        }
        http?.shutdown(gracePeriodSeconds: Double(configuration.shutdownGraceSeconds))
        jwt?.stopKeyRefresh()
        // Open event streams end cleanly (their clients reconnect elsewhere); answers in flight
        // finish first, as their connections are not streams.
        feedHub.endAll()
    }

    /// Connections open across the loops (0 before `start`): what `/metrics` reports.
    public var openConnections: Int { state.withTracedLock { $0.server }?.openConnections ?? 0 }

    /// Blocks until every loop has exited; call from one thread.
    public func waitUntilStopped() {
        state.withTracedLock { $0.server }?.waitUntilStopped()
        // The server's loops hold this application as their handler: let go of them once they have
        // exited, so that neither keeps the other (and the store) alive.
        state.withTracedLock { $0.server = nil }
        logger.info("stopped")
    }

    /// What the framing and the connection budgets saw (zero before `start`).
    public var wireStatistics: WireStatistics {
        state.withTracedLock { $0.server }?.wireStatistics ?? .zero
    }

    /// `requestStop`, then `waitUntilStopped`.
    public func stop() {
        requestStop()
        waitUntilStopped()
    }

    /// Refusals on the wire (the strict framing's, with `detail`) as problem+json with the CORS
    /// headers for the request's origin, like every other answer.
    public func replacementForWireError(status: Int, detail: String?, origin: String?) -> HTTPResponse? {
        let problem: ProblemDetails =
            switch status {
            case _ where detail != nil: ProblemDetails(status: status, title: HTTPStatus.reasonPhrase(status), detail: detail!)
            case 413: .contentTooLarge(limit: configuration.maxBodyBytes)
            case 400:
                .badRequest(
                    "The request could not be read as HTTP/1.1: a malformed request line or header field, "
                        + "or a request line and headers over \(configuration.hardHeaderLimit) bytes.")
            default: ProblemDetails(status: status, title: HTTPStatus.reasonPhrase(status), detail: "The request could not be read.")
            }
        var response = serializer.display(ResponseViewModel(problem: problem))
        cors.apply(to: &response.headers, requestOrigin: origin)
        let requestID = identity.newRequestID()
        response.headers.add("X-Request-ID", requestID)
        logger.info("request refused before parsing", metadata: ["status": "\(status)", "request_id": "\(requestID)"])
        return response
    }

    /// The wire's request into the pipeline, the pipeline's answer back to the wire; the wire's
    /// facts about the connection (its loop, whether it is over the connection limit) beside it.
    public func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        pipeline.respond(
            to: request, loop: responder.loopIndex, connectionOverLimit: responder.connectionOverLimit, sink: responder)
    }

    /// A head whose client waits for `100 Continue`: the pipeline's refusal from the head alone, if
    /// it refuses it (then no 100 is sent and the body is never read).
    public func answer(toHead head: HTTPRequest, loopIndex: Int, connectionOverLimit: Bool) -> HTTPResponse? {
        pipeline.answer(toHead: head, loop: loopIndex, connectionOverLimit: connectionOverLimit)
    }
}
