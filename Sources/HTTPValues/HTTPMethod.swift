/// An HTTP request method, as read from the request line.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"
    case trace = "TRACE"
    case connect = "CONNECT"
    /// A token this server does not know (`QUERY`, `PROPFIND`); its name is not kept,
    /// so logs and metrics show `UNKNOWN`.
    case unrecognized = "UNKNOWN"
}
