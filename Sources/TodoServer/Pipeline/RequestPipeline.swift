import EventLoops
import HTTPValues
import Logging
import TodoData

/// The whole answer to one request, without a socket: request id and per-request logger (its
/// `RequestContext.logger`, `request_id` in its metadata), route
/// matching, screening, tokens and the module (through the router), then the CORS headers and
/// `X-Request-ID`, delivery, metrics and the access log line.
///
/// `TodoApplication` feeds it what the wire read and hands the answer back to the wire; tests and fuzzers
/// feed it request values and read the answer in process.
public struct RequestPipeline: Sendable {
    private let router: AppRouter
    private let cors: CORSPolicy
    private let identity: RequestIdentity
    /// Each loop's last base URL built from `Host`.
    private let baseURLs: BaseURLCache
    /// Per loop; `internal` for the tests that check whose loop touches it.
    let metrics: RequestMetrics
    private let accessLog: AccessLog
    /// The server's logger; each request's `RequestContext.logger` adds its `request_id`.
    private let logger: Logger
    /// Base URL when neither `publicURL` nor `Host` gives one (HTTP/1.0 without `Host`).
    private let fallbackBaseURL: @Sendable () -> String
    /// JSON Web Tokens: a token whose key the set does not know waits for a fetch of the set.
    private let jwt: JWTAuthentication?

    /// Wires the modules around `dependencies` with the limits, CORS and tokens of `configuration`;
    /// lines go to `logger` (nowhere by default), each request's with its `request_id`.
    public init(
        configuration: ServerConfiguration, dependencies: ModuleDependencies, jwt: JWTAuthentication? = nil,
        logger: Logger = RequestContext.silentLogger,
        fallbackBaseURL: @escaping @Sendable () -> String = { "http://localhost" }
    ) {
        cors = CORSPolicy(configuration: configuration)
        identity = RequestIdentity(publicURL: configuration.publicURL)
        baseURLs = BaseURLCache(loopCount: configuration.effectiveThreads)
        metrics = RequestMetrics(factory: dependencies.metricsFactory, loopCount: configuration.effectiveThreads)
        self.logger = logger
        accessLog = AccessLog(logger: logger)
        self.fallbackBaseURL = fallbackBaseURL
        self.jwt = jwt
        router = AppRouter.makeRouter(
            dependencies: dependencies,
            screening: RequestScreening(
                maxBodyBytes: configuration.maxBodyBytes, maxURIBytes: configuration.maxURIBytes,
                maxHeaderBytes: configuration.maxHeaderBytes, maxHeaderCount: configuration.maxHeaderCount,
                maxConnections: configuration.maxConnections),
            cors: cors,
            authentication: BearerAuthentication(
                authTokens: configuration.authTokens, readTokens: configuration.readTokens, ownerTokens: configuration.ownerTokens,
                jwt: jwt,
                metricsPublic: configuration.metricsPublic),
            feed: FeedSettings(configuration: configuration))
    }

    /// Answers `request` through `sink`, exactly once (later, when the store answers later).
    /// `loop` is the event loop the request came in on, for the metrics' per-loop state;
    /// `connectionOverLimit`, the transport's decision that the request's connection is over the
    /// connection limit: then it is refused (503, `Connection: close`) before anything else.
    public func respond<Sink: ResponseSink>(
        to request: HTTPRequest, loop: Int = 0, connectionOverLimit: Bool = false, sink: Sink
    ) {
        let started = ContinuousClock.now
        let requestID = identity.requestID(for: request)
        let context = context(for: request, requestID: requestID, loop: loop)
        let route = router.route(for: request)
        accessLog.trace(request, requestID: requestID)
        let access = router.access(for: request, route: route, context: context)
        // A JSON Web Token signed by a key the set does not have yet (the provider rotated its
        // keys): the request waits on the loop for a fetch of the set (one under way, or one
        // started now unless one started less than jwtJwksMinRefreshSeconds ago), then is decided
        // again with the keys then in effect, and answered whatever they say.
        if let jwt, !connectionOverLimit, case .invalidJWT(.unknownKey) = access, let eventLoop = EventLoop.current {
            let waiting = SinkOnLoop(sink: sink)
            let waits = jwt.awaitNewerKeys { [self] in
                eventLoop.execute {
                    let access = router.access(for: request, route: route, context: context)
                    answer(
                        request, route: route, access: access, context: context, requestID: requestID, loop: loop, started: started,
                        sink: waiting.sink)
                }
            }
            if waits { return }
        }
        if connectionOverLimit {
            return answer(
                request, route: route, access: access, context: context, requestID: requestID, loop: loop, started: started, sink: sink,
                overLimit: true)
        }
        answer(request, route: route, access: access, context: context, requestID: requestID, loop: loop, started: started, sink: sink)
    }

    /// The rest of `respond` once the credential is decided: the router's answer (or the
    /// connection limit's refusal, `overLimit`) through `sink`, with CORS, `X-Request-ID`,
    /// metrics and the access line.
    private func answer<Sink: ResponseSink>(
        _ request: HTTPRequest, route: Route?, access: BearerAuthentication.Decision, context: RequestContext, requestID: String,
        loop: Int, started: ContinuousClock.Instant, sink: Sink, overLimit: Bool = false
    ) {
        let pending = PendingAnswer(
            request: request, route: route, requestID: requestID, owner: access.actingOwner?.name, loop: loop, started: started,
            sink: sink, cors: cors, metrics: metrics, accessLog: accessLog)
        let finish: Respond = pending.finish
        if overLimit { return finish(router.connectionLimitRefusal(context: context)) }
        router.routeRequest(request, to: route, access: access, context: context, openStream: pending.openStream, respond: finish)
    }

    /// The final answer to a request whose client holds its body back until `100 Continue`
    /// (`Expect: 100-continue`), when it is refused from its head alone (`AppRouter.refusal(ofHead:)`:
    /// screening, tokens, route, method, a declared body's type): the answer `respond` gives the
    /// whole request, with the CORS headers and `X-Request-ID`, counted in the metrics and logged
    /// like it. nil when the answer depends on the body: the wire then sends `100 Continue`.
    /// `connectionOverLimit` as for `respond`.
    public func answer(toHead head: HTTPRequest, loop: Int = 0, connectionOverLimit: Bool = false) -> HTTPResponse? {
        let started = ContinuousClock.now
        let requestID = identity.requestID(for: head)
        let route = router.route(for: head)
        let context = context(for: head, requestID: requestID, loop: loop)
        guard
            var response = connectionOverLimit
                ? router.connectionLimitRefusal(context: context) : router.refusal(ofHead: head, route: route, context: context)
        else { return nil }
        accessLog.trace(head, requestID: requestID)
        cors.apply(to: &response.headers, requestOrigin: head.headers["Origin"])
        response.headers.add("X-Request-ID", requestID)
        let duration = ContinuousClock.now - started
        metrics.record(loop: loop, route: route?.template ?? "unmatched", method: head.method, status: response.status, duration: duration)
        accessLog.record(request: head, response: response, duration: duration, requestID: requestID)
        return response
    }

    /// What the modules know of `request`: its base URL, id, query, path, conditions and logger.
    private func context(for request: HTTPRequest, requestID: String, loop: Int) -> RequestContext {
        let baseURL: String
        if identity.publicURL == nil, let host = request.host {
            baseURL = baseURLs.url(loop: loop, host: host) { [identity] in identity.baseURL(host: $0) }
        } else {
            baseURL = identity.baseURL(for: request, fallback: fallbackBaseURL())
        }
        return RequestContext(
            baseURL: baseURL,
            requestID: requestID, query: QueryParameters(request.query), path: request.path,
            ifMatch: request.headers["If-Match"].map(EntityTagCondition.init),
            ifNoneMatch: request.headers["If-None-Match"].map(EntityTagCondition.init),
            logger: logger)
    }

    /// `respond(to:loop:sink:)` with a closure for the answer.
    public func respond(
        to request: HTTPRequest, loop: Int = 0, deliver: @escaping (HTTPResponse) -> HTTPDelivery
    ) {
        respond(to: request, loop: loop, sink: ClosureSink(deliver))
    }
}

/// A request's sink held while the request waits for a JWK Set fetch: taken back only on the
/// request's own loop (`EventLoop.execute`), the thread it belongs to.
private struct SinkOnLoop<Sink>: @unchecked Sendable {
    let sink: Sink
}
