/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, CustomStringConvertible, Equatable {
    case cannotResolve(host: String, reason: String)
    case cannotBind(host: String, port: Int, reason: String)
    case cannotCreateLoop
    case alreadyStarted

    public var description: String {
        switch self {
        case .cannotResolve(let host, let reason): "cannot resolve host '\(host)': \(reason)"
        case .cannotBind(let host, let port, let reason): "cannot listen on \(host):\(port): \(reason)"
        case .cannotCreateLoop: "cannot create a libevent loop"
        case .alreadyStarted: "the server was already started"
        }
    }
}
