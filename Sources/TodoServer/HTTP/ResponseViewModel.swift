import HTTPValues
import TodoData

/// What a presenter hands its view: status, headers, media type and the body's fields.
public struct ResponseViewModel<Body: JSONWritable & Sendable>: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var contentType: String
    public var body: Body?

    public init(status: Int, headers: HTTPHeaders = [:], contentType: String = "application/json", body: Body?) {
        self.status = status
        self.headers = headers
        self.contentType = contentType
        self.body = body
    }
}

/// A view model with no body (204).
public struct NoBody: JSONWritable, Sendable {
    public func write(to writer: inout JSONWriter) {}
}

/// A body that is already serialized (the Prometheus exposition, the OpenAPI document).
public struct RawBody: JSONWritable, Sendable, Equatable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public func write(to writer: inout JSONWriter) {
        writer.raw(bytes)
    }
}

extension ResponseViewModel where Body == ProblemDetails {
    /// The view model of an error response.
    public init(problem: ProblemDetails, headers: HTTPHeaders = [:]) {
        self.init(status: problem.status, headers: headers, contentType: "application/problem+json", body: problem)
    }

    /// The store's failure: 503 with its problem, and `Retry-After` when the store says when to
    /// try again (every module that reads the store answers its failure so).
    public init(storeFailure failure: StoreError) {
        var headers: HTTPHeaders = [:]
        headers.setRetryAfter(seconds: failure.retryAfter)
        self.init(problem: failure.problem, headers: headers)
    }
}

extension ResponseViewModel where Body == NoBody {
    /// A view model with a status and headers only.
    public init(status: Int, headers: HTTPHeaders = [:]) {
        self.init(status: status, headers: headers, body: nil)
    }
}

/// What a presenter answers when it may refuse: its view model, or a problem.
public enum ViewAnswer<Body: JSONWritable & Sendable>: Sendable {
    case model(ResponseViewModel<Body>)
    case problem(ResponseViewModel<ProblemDetails>)
}

/// Where the router writes the finished response; called once, on the request's loop thread.
public typealias Respond = (consuming HTTPResponse) -> Void
