import ChangeFeed
import HTTPValues
import Logging
import Prometheus
import TodoData

/// What the modules are built from: the store and the services around it.
public struct ModuleDependencies: Sendable {
    public var store: any TodoStore
    public var clock: any TodoClock
    public var ids: any IDGenerator
    public var defaultTimeZone: IANATimeZone
    public var metricsRegistry: PrometheusCollectorRegistry
    public var metricsFactory: PrometheusMetricsFactory
    /// Open connections, read at scrape time.
    public var openConnections: @Sendable () -> Int
    public var openAPIDocument: [UInt8]
    /// Log lines dropped because standard output was not read, read at scrape time.
    public var droppedLogLines: @Sendable () -> Int
    /// Where live feed subscriptions run (the server's loops).
    public var feedScheduler: any FeedScheduler
    /// The version of the libevent the transport runs on, for the service index (the wiring asks
    /// the transport; empty where there is none, in process).
    public var libeventVersion: String
    /// The live feed's subscribers, limit and metrics.
    public var feedHub: FeedHub

    public init(
        store: any TodoStore, clock: any TodoClock = SystemClock(), ids: any IDGenerator = UUIDGenerator(),
        defaultTimeZone: IANATimeZone = .utc,
        metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        openConnections: @escaping @Sendable () -> Int = { 0 }, openAPIDocument: [UInt8] = Array("{}".utf8),
        droppedLogLines: @escaping @Sendable () -> Int = { 0 },
        feedScheduler: any FeedScheduler = EventLoopFeedScheduler(), maxFeedSubscribers: Int = 1_000,
        libeventVersion: String = ""
    ) {
        self.store = store
        self.libeventVersion = libeventVersion
        self.feedScheduler = feedScheduler
        self.clock = clock
        self.ids = ids
        self.defaultTimeZone = defaultTimeZone
        self.metricsRegistry = metricsRegistry
        var factory = PrometheusMetricsFactory(registry: metricsRegistry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        factory.valueHistogramBuckets[PostgresPhaseMetrics.aheadLabel] = PostgresPhaseMetrics.aheadBuckets
        factory.durationHistogramBuckets[PostgresPhaseMetrics.phaseLabel] = PostgresPhaseMetrics.phaseBuckets
        metricsFactory = factory
        feedHub = FeedHub(maxSubscribers: maxFeedSubscribers, factory: factory)
        self.openConnections = openConnections
        self.openAPIDocument = openAPIDocument
        self.droppedLogLines = droppedLogLines
    }
}

/// The to-dos module as the router builds it: view, presenter and interactor, each calling the
/// next directly.
public typealias TodosModule = TodosView<TodosPresenter<TodosInteractor>>

/// The upcoming module as the router builds it.
public typealias UpcomingModule = UpcomingView<UpcomingPresenter<UpcomingInteractor>>

/// The wireframe: maps method and path to a module, and answers what no module owns
/// (404, 405 with `Allow`, 413, 414, 415, CORS preflight). Built once, at start-up.
public struct AppRouter: Sendable {
    private let todos: TodosModule
    private let upcoming: UpcomingModule
    private let system: SystemView
    private let metrics: MetricsView
    private let feed: FeedView
    private let screening: RequestScreening
    private let cors: CORSPolicy
    private let authentication: BearerAuthentication
    private let serializer: JSONSerializer

    /// Builds and wires every module once around the shared dependencies.
    public static func makeRouter(
        dependencies: ModuleDependencies, screening: RequestScreening, cors: CORSPolicy,
        authentication: BearerAuthentication = BearerAuthentication(), feed: FeedSettings = .defaults
    ) -> AppRouter {
        let serializer = JSONSerializer()
        let store = dependencies.store
        return AppRouter(
            todos: TodosView(
                presenter: TodosPresenter(
                    interactor: TodosInteractor(
                        store: store, clock: dependencies.clock, ids: dependencies.ids, ownersOn: authentication.hasOwners)),
                serializer: serializer),
            upcoming: UpcomingView(
                presenter: UpcomingPresenter(
                    interactor: UpcomingInteractor(store: store, clock: dependencies.clock, defaultTimeZone: dependencies.defaultTimeZone)),
                serializer: serializer),
            system: SystemView(
                interactor: SystemInteractor(
                    store: store, document: dependencies.openAPIDocument, startedAt: dependencies.clock.now(),
                    libeventVersion: dependencies.libeventVersion),
                serializer: serializer),
            metrics: MetricsView(
                interactor: MetricsInteractor(
                    registry: dependencies.metricsRegistry, factory: dependencies.metricsFactory, store: store,
                    openConnections: dependencies.openConnections, droppedLogLines: dependencies.droppedLogLines),
                serializer: serializer),
            feed: FeedView(
                presenter: FeedPresenter(
                    interactor: FeedInteractor(
                        log: store.changes, store: store, scheduler: dependencies.feedScheduler, hub: dependencies.feedHub,
                        settings: feed, clock: dependencies.clock)),
                serializer: serializer, maxBufferedBytes: feed.maxBufferedBytes),
            screening: screening, cors: cors, authentication: authentication, serializer: serializer)
    }

    private init(
        todos: TodosModule, upcoming: UpcomingModule, system: SystemView,
        metrics: MetricsView, feed: FeedView, screening: RequestScreening, cors: CORSPolicy,
        authentication: BearerAuthentication, serializer: JSONSerializer
    ) {
        self.feed = feed
        self.todos = todos
        self.upcoming = upcoming
        self.system = system
        self.metrics = metrics
        self.screening = screening
        self.cors = cors
        self.authentication = authentication
        self.serializer = serializer
    }

    /// The route `request`'s path names, if any (the pipeline labels its metrics with it too).
    public func route(for request: HTTPRequest) -> Route? {
        Route(path: request.path)
    }

    /// Answers `request` through `respond`, exactly once; `route` is `route(for: request)`. Screening
    /// and token decisions are logged at debug level through the request's logger.
    public func routeRequest(
        _ request: HTTPRequest, to route: Route?, context: RequestContext, openStream: @escaping StreamOpener = { _, _, _, _ in nil },
        respond: @escaping Respond
    ) {
        routeRequest(
            request, to: route, access: access(for: request, route: route, context: context), context: context, openStream: openStream,
            respond: respond)
    }

    /// What `request`'s credential allows on `route` (the pipeline asks first, to log the owner).
    public func access(for request: HTTPRequest, route: Route?, context: RequestContext) -> BearerAuthentication.Decision {
        authentication.decide(
            method: request.method, route: route, authorization: Self.authorization(of: request, route: route, context: context))
    }

    /// `routeRequest` with the credential's decision already made (`access(for:route:context:)`).
    public func routeRequest(
        _ request: HTTPRequest, to route: Route?, access: BearerAuthentication.Decision, context: RequestContext,
        openStream: @escaping StreamOpener = { _, _, _, _ in nil }, respond: @escaping Respond
    ) {
        if let (problem, headers) = refusal(of: request, route: route, access: access, context: context, hasContent: !request.body.isEmpty)
        {
            return routeProblem(problem, headers: headers, respond: respond)
        }
        // The owner whose to-dos every module acts on (the shared list unless an owner's token says).
        var context = context
        if case .owner(let owner, let expiresAt) = access {
            context.owner = owner
            context.credentialExpiry = expiresAt.map { Timestamp(millisecondsSinceEpoch: $0 * 1000) }
        }
        if request.method == .options, request.path == "*" {
            // The server in general (RFC 9110 §9.3.7): every method some route allows.
            return respond(HTTPResponse(status: 204, headers: ["Allow": Route.allMethodsAllow]))
        }
        guard let route else {
            return routeProblem(.notFound("No route matches '\(request.path)'."), respond: respond)
        }
        if request.method == .options {
            var headers = cors.preflightHeaders(
                requestedHeaders: request.headers["Access-Control-Request-Headers"], origin: request.headers["Origin"])
            headers.add("Allow", route.allow)
            return respond(HTTPResponse(status: 204, headers: headers))
        }
        if route == .events { return feed.handleSubscription(request, context: context, openStream: openStream, respond: respond) }
        // Not `whenReady(respond)`: an answer there now goes out with no closure around `respond`.
        switch answer(route, request: request, context: context) {
        case .ready(let response): respond(response)
        case .later(let promise): promise.whenReady(respond)
        }
    }

    /// The answer to a request whose connection is over the connection limit (the transport's
    /// decision): 503 with `Retry-After` and `Connection: close`, whatever the request.
    public func connectionLimitRefusal(context: RequestContext) -> HTTPResponse {
        let refusal = screening.connectionLimitRefusal
        context.logger.debug(
            "screening refused the request", metadata: ["status": "\(refusal.problem.status)", "reason": "\(refusal.problem.detail)"])
        return serializer.display(ResponseViewModel(problem: refusal.problem, headers: refusal.headers))
    }

    /// The answer to a request whose client holds its body back (`Expect: 100-continue`) when the
    /// router refuses it from its head alone — screening, tokens, no route, a method the route does
    /// not allow, or a declared `Content-Length` body of a type the API does not read — exactly as
    /// `routeRequest` answers the whole request; nil when the answer depends on the body or the
    /// module. A chunked body may turn out empty (and then its type does not matter): its type is
    /// judged once it is read.
    public func refusal(ofHead head: HTTPRequest, route: Route?, context: RequestContext) -> HTTPResponse? {
        let declared = head.headers["Content-Length"].flatMap { Int($0) }.map { $0 > 0 } ?? false
        var access = authentication.decide(
            method: head.method, route: route, authorization: Self.authorization(of: head, route: route, context: context))
        // A token whose key a fetch of the set may bring is judged with the whole request, after
        // the fetch; when none would follow (the last started too recently), it is refused now.
        if case .invalidJWT(.unknownKey) = access, authentication.wouldAwaitNewerKeys { access = .open }
        guard let (problem, headers) = refusal(of: head, route: route, access: access, context: context, hasContent: declared)
        else { return nil }
        return serializer.display(ResponseViewModel(problem: problem, headers: headers))
    }

    /// Why `request` is refused before its module sees it (the problem and the headers that go
    /// with it), in the order the checks run: screening, tokens, no route (`OPTIONS *` excepted), a
    /// method the route does not allow (`OPTIONS` is a preflight), a body (`hasContent`) of a type
    /// the API does not read. Nothing here reads the body.
    private func refusal(
        of request: HTTPRequest, route: Route?, access: BearerAuthentication.Decision, context: RequestContext, hasContent: Bool
    ) -> (ProblemDetails, HTTPHeaders)? {
        if let refusal = screening.refusal(of: request) {
            context.logger.debug(
                "screening refused the request", metadata: ["status": "\(refusal.problem.status)", "reason": "\(refusal.problem.detail)"])
            return (refusal.problem, refusal.headers)
        }
        if let denial = denial(of: request, access: access, context: context) { return denial }
        if request.method == .options, request.path == "*" { return nil }
        guard let route else { return (.notFound("No route matches '\(request.path)'."), [:]) }
        if request.method == .options { return nil }
        guard route.allowedMethods.contains(request.method) else {
            let allow = route.allow
            let method = request.method == .unrecognized ? "A method this server does not know" : request.method.rawValue
            return (.methodNotAllowed("\(method) is not allowed on \(route.template); use \(allow)."), ["Allow": allow])
        }
        if [.post, .put, .patch].contains(request.method), hasContent,
            let type = request.headers["Content-Type"], !RequestScreening.acceptsBody(ofType: type)
        {
            return (.unsupportedMediaType(type), [:])
        }
        return nil
    }

    /// The module's answer to a request on `route`; not the live feed's, which answers through the
    /// stream it opens.
    private func answer(_ route: Route, request: HTTPRequest, context: RequestContext) -> Pending<HTTPResponse> {
        switch (route, request.method) {
        case (.events, _): preconditionFailure("the live feed answers through its stream: routeRequest hands it over first")
        case (.index, _): system.handleIndex(context: context)
        case (.health, _):
            system.handleHealth(detailed: authentication.showsDetails(authorization: request.headers["Authorization"]), context: context)
        case (.openAPI, _): system.handleOpenAPIDocument(context: context)
        case (.metrics, _): metrics.handleMetrics(context: context)
        case (.upcoming, _): upcoming.handleUpcoming(context: context)
        case (.todos, .post): todos.handleCreation(request, context: context)
        case (.todos, .delete): todos.handleDeletionOfAll(context: context)
        case (.todos, _): todos.handleList(context: context)
        case (.todo(let id), .patch): todos.handlePatch(id: id, request, context: context)
        case (.todo(let id), .put): todos.handleReplacement(id: id, request, context: context)
        case (.todo(let id), .delete): todos.handleDeletion(id: id, context: context)
        case (.todo(let id), _): todos.handleTodo(id: id, context: context)
        }
    }

    /// The 401 or 403 for a request whose token does not allow it, if tokens are on.
    private func denial(
        of request: HTTPRequest, access decision: BearerAuthentication.Decision, context: RequestContext
    ) -> (ProblemDetails, HTTPHeaders)? {
        if authentication.isEnabled, context.logs(at: .debug) {
            context.logger.debug(
                "token check", metadata: ["decision": "\(decision)", "method": "\(request.method.rawValue)", "path": "\(request.path)"])
        }
        switch decision {
        case .open, .readWrite, .readOnly, .owner:
            return nil
        // RFC 6750 §3.1: an error code only when the request carried a bearer token.
        case .missingToken:
            return (
                .unauthorized("This server requires a bearer token: send Authorization: Bearer <token>."), ["WWW-Authenticate": "Bearer"]
            )
        case .otherScheme:
            return (
                .unauthorized("The Authorization header carries no bearer token: send Authorization: Bearer <token>."),
                ["WWW-Authenticate": "Bearer"]
            )
        case .unknownToken:
            return (
                .unauthorized("The Authorization header does not carry a bearer token this server accepts."),
                ["WWW-Authenticate": #"Bearer error="invalid_token""#]
            )
        case .writeWithReadToken:
            return (.forbidden("The token may only read (GET, HEAD); \(request.method.rawValue) needs a read-write token."), [:])
        case .invalidJWT(let refusal):
            // The reason is the verifier's fixed text (no part of the token): safe in a quoted-string.
            let reason = refusal.description.filter { $0 != "\"" && $0 != "\\" }
            return (
                .unauthorized("The bearer token is not accepted: \(reason)."),
                ["WWW-Authenticate": "Bearer error=\"invalid_token\", error_description=\"" + reason + "\""]
            )
        case .insufficientScope(let scope):
            return (
                .forbidden("The token's scopes do not allow \(request.method.rawValue): it needs \(scope)."),
                ["WWW-Authenticate": "Bearer error=\"insufficient_scope\", scope=\"" + scope + "\""]
            )
        case .ownerOnOperations:
            return (
                .forbidden("An owner's token does not read the server's metrics: they need an operator's token (authTokens, readTokens)."),
                [:]
            )
        }
    }

    /// `Authorization`, or on the live feed (which `EventSource` cannot send headers to) the
    /// `access_token=` query parameter as a bearer token (RFC 6750 §2.3).
    private static func authorization(of request: HTTPRequest, route: Route?, context: RequestContext) -> String? {
        if let header = request.headers["Authorization"] { return header }
        guard route == .events, let token = context.query["access_token"] else { return nil }
        return "Bearer " + token
    }

    private func routeProblem(_ problem: ProblemDetails, headers: HTTPHeaders = [:], respond: Respond) {
        respond(serializer.display(ResponseViewModel(problem: problem, headers: headers)))
    }
}
