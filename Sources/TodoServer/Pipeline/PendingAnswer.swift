import HTTPValues

/// One request's answer while the router works on it (`RequestPipeline.answer`): what finishing
/// the answer needs, kept once. The router gets `finish` and `openStream` as closures over this one
/// object, where two closures each held their own copy of the request and of the rest (two
/// allocations a request, and every field retained and released twice).
final class PendingAnswer<Sink: ResponseSink> {
    private let request: HTTPRequest
    private let route: Route?
    private let requestID: String
    private let owner: String?
    private let loop: Int
    private let started: ContinuousClock.Instant
    private let sink: Sink
    private let cors: CORSPolicy
    private let metrics: RequestMetrics
    private let accessLog: AccessLog

    init(
        request: HTTPRequest, route: Route?, requestID: String, owner: String?, loop: Int, started: ContinuousClock.Instant,
        sink: Sink, cors: CORSPolicy, metrics: RequestMetrics, accessLog: AccessLog
    ) {
        self.request = request
        self.route = route
        self.requestID = requestID
        self.owner = owner
        self.loop = loop
        self.started = started
        self.sink = sink
        self.cors = cors
        self.metrics = metrics
        self.accessLog = accessLog
    }

    /// Sends `response` with the CORS headers and `X-Request-ID`, then counts and logs it.
    func finish(_ response: consuming HTTPResponse) {
        var response = response
        cors.apply(to: &response.headers, requestOrigin: request.headers["Origin"])
        response.headers.add("X-Request-ID", requestID)
        let delivery = sink.send(response)
        let duration = ContinuousClock.now - started
        guard delivery == .sent else {
            accessLog.recordUndelivered(
                delivery, method: request.method, path: request.path, status: response.status, duration: duration, requestID: requestID)
            return
        }
        metrics.record(
            loop: loop, route: route?.template ?? "unmatched", method: request.method, status: response.status, duration: duration)
        accessLog.record(request: request, response: response, duration: duration, requestID: requestID, owner: owner)
    }

    /// Opens a streamed answer (`StreamOpener`) with the CORS headers and `X-Request-ID`, counted
    /// and logged when its head goes out.
    func openStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure, onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> (any ResponseStreamWriter)? {
        var headers = headers
        cors.apply(to: &headers, requestOrigin: request.headers["Origin"])
        headers.add("X-Request-ID", requestID)
        guard let stream = sink.openStream(status: status, headers: headers, backPressure: backPressure, onEvent: onEvent) else {
            return nil
        }
        let duration = ContinuousClock.now - started
        let response = HTTPResponse(status: status, headers: headers)
        metrics.record(loop: loop, route: route?.template ?? "unmatched", method: request.method, status: status, duration: duration)
        accessLog.record(request: request, response: response, duration: duration, requestID: requestID, owner: owner)
        return stream
    }
}
