import TodoData

/// An RFC 9457 problem: the body of every error response (`application/problem+json`).
public struct ProblemDetails: Error, Sendable, Equatable, JSONWritable {
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    /// Validation errors, one per bad field (422 only).
    public var errors: [FieldError]?

    public init(status: Int, title: String, detail: String, errors: [FieldError]? = nil, type: String = "about:blank") {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.errors = errors
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("detail")
        writer.string(detail)
        if let errors {
            writer.key("errors")
            errors.write(to: &writer)
        }
        writer.key("status")
        writer.int(status)
        writer.key("title")
        writer.string(title)
        writer.key("type")
        writer.string(type)
        writer.endObject()
    }

    public static func badRequest(_ detail: String) -> Self {
        Self(status: 400, title: "Bad Request", detail: detail)
    }

    public static func notFound(_ detail: String) -> Self {
        Self(status: 404, title: "Not Found", detail: detail)
    }

    public static func methodNotAllowed(_ detail: String) -> Self {
        Self(status: 405, title: "Method Not Allowed", detail: detail)
    }

    public static func contentTooLarge(limit: Int) -> Self {
        Self(status: 413, title: "Content Too Large", detail: "The request body is larger than the limit of \(limit) bytes.")
    }

    public static func uriTooLong(limit: Int) -> Self {
        Self(status: 414, title: "URI Too Long", detail: "The request target is longer than the limit of \(limit) bytes.")
    }

    public static func headerFieldsTooLarge(_ detail: String) -> Self {
        Self(status: 431, title: "Request Header Fields Too Large", detail: detail)
    }

    public static func unsupportedMediaType(_ contentType: String) -> Self {
        Self(
            status: 415, title: "Unsupported Media Type",
            detail: "Content-Type '\(contentType)' is not supported; send application/json.")
    }

    public static func unprocessable(_ errors: [FieldError]) -> Self {
        let fields = errors.map(\.field).joined(separator: ", ")
        return Self(
            status: 422, title: "Unprocessable Content",
            detail: "The body has invalid fields: \(fields).", errors: errors)
    }

    public static func serviceUnavailable(_ detail: String) -> Self {
        Self(status: 503, title: "Service Unavailable", detail: detail)
    }
}

/// One invalid field of a request body.
public struct FieldError: Sendable, Equatable, JSONWritable {
    public var field: String
    public var message: String

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("field")
        writer.string(field)
        writer.key("message")
        writer.string(message)
        writer.endObject()
    }
}

/// An error that knows its HTTP shape: a status and a problem body.
public protocol HTTPProblemConvertible: Error {
    var problem: ProblemDetails { get }
}

extension ProblemDetails: HTTPProblemConvertible {
    public var problem: ProblemDetails { self }
}

extension StoreError: HTTPProblemConvertible {
    public var problem: ProblemDetails { .serviceUnavailable("The to-do store is unavailable: \(reason)") }
}
