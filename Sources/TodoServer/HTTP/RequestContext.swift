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

    public init(
        baseURL: String, requestID: String = "test", query: QueryParameters = QueryParameters(), path: String = "/",
        ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil
    ) {
        self.baseURL = baseURL
        self.requestID = requestID
        self.query = query
        self.path = path
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }
}
