import Logging
import TodoData

/// What a module needs to know of a request besides its use-case input.
public struct RequestContext: Sendable {
    /// Scheme, host and port that absolute URLs start with (`http://localhost:8080`), no slash at the end.
    public var baseURL: String
    /// The request id echoed in `X-Request-ID` and the access log.
    public var requestID: String
    /// The decoded query parameters.
    public var query: QueryParameters
    /// The request's path, still percent-encoded (for links to other pages of it).
    public var path: String
    /// `If-Match`, when sent.
    public var ifMatch: EntityTagCondition?
    /// `If-None-Match`, when sent.
    public var ifNoneMatch: EntityTagCondition?
    /// Whose to-dos the request acts on: the router sets it from the request's token (the shared
    /// list unless an owner's token, or a JSON Web Token, names an owner).
    public var owner = Owner.shared
    /// When the request's credential ends (a JSON Web Token's `exp`), nil when it does not: a live
    /// feed stream opened with it ends then.
    public var credentialExpiry: Timestamp?
    /// The server's logger, which `logger` adds the request id to.
    private let baseLogger: Logger

    /// The request's logger: its lines carry `request_id`. Whatever logs on behalf of the request
    /// (router, presenters, interactors) logs through it. Made when asked for, so that a request
    /// nothing logs for pays nothing (the access log line names its request id itself).
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "request_id"] = .string(requestID)
        return logger
    }

    /// Whether `logger` writes lines of `level`: ask before building a line that costs something.
    public func logs(at level: Logger.Level) -> Bool { baseLogger.logLevel <= level }

    /// A logger that drops everything (the default of contexts that tests build by hand).
    public static let silentLogger = Logger(label: "todo-server", factory: { _ in SwiftLogNoOpLogHandler() })

    public init(
        baseURL: String, requestID: String = "test", query: QueryParameters = QueryParameters(), path: String = "/",
        ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil, logger: Logger = RequestContext.silentLogger
    ) {
        self.baseURL = baseURL
        self.requestID = requestID
        self.query = query
        self.path = path
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        baseLogger = logger
    }
}
