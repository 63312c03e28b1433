import TestSupport

@testable import TodoData

extension TestServer {
    /// A CORS preflight: `OPTIONS target` from `origin` for `method`, asking for `requestHeaders`
    /// (`Access-Control-Request-Headers`) when given.
    func preflight(_ target: String, from origin: String, method: String, requestHeaders: String? = nil) async throws
        -> HTTPResponseSnapshot
    {
        var headers = [("Origin", origin), ("Access-Control-Request-Method", method)]
        if let requestHeaders { headers.append(("Access-Control-Request-Headers", requestHeaders)) }
        return try await request("OPTIONS", target, headers: headers)
    }
}
