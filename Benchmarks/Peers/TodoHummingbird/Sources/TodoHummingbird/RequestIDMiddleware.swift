import HTTPTypes
import Hummingbird

/// Echoes the client's `X-Request-ID` or answers with Hummingbird's own request id, and logs
/// under the echoed one; errors thrown further in get the header too.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id: String
        if let sent = request.headers[.requestID], !sent.isEmpty, sent.utf8.count <= 200 {
            id = sent
            context.logger[metadataKey: "hb.request.id"] = .string(sent)
        } else {
            id = context.id
        }
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = id
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.requestID] = id
            return response
        }
    }
}
