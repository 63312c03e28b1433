import TestSupport

@testable import TodoServer

/// Captures what a module responds, for unit tests that run without a socket.
final class ResponseCapture: @unchecked Sendable {
    private(set) var responses: [HTTPResponseSnapshot] = []

    var respond: TodoServer.Respond {
        { [self] response in responses.append(HTTPResponseSnapshot(response)) }
    }

    var only: HTTPResponseSnapshot? { responses.count == 1 ? responses[0] : nil }
}
