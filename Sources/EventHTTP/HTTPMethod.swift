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
}
