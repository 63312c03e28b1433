/// An HTTP request method, as evhttp parsed it from the request line.
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
    /// A token evhttp does not know (`QUERY`, `PROPFIND`); libevent 2.1 does not keep its name,
    /// so logs and metrics show `UNKNOWN`.
    case unrecognized = "UNKNOWN"
}
