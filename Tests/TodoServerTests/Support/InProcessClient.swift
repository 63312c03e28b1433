import HTTPValues
import LockTracing
import Logging
import Synchronization
import TestSupport

@testable import TodoServer

/// Sends requests through a `TodoApplication`'s whole pipeline in process, without a socket (the
/// idea of Hummingbird's `app.test(.router)`): route, screening, tokens, modules, CORS, request id,
/// conditional headers, metrics and the access log all run; only evhttp's framing does not.
struct InProcessClient {
    let application: TodoApplication
    /// What `send` answers the pipeline: `.connectionClosed` plays a client that hung up.
    var delivery = HTTPDelivery.sent

    init(
        configure: (inout ServerConfiguration) -> Void = { _ in }, store: any TodoStore = InMemoryTodoStore(),
        clock: any TodoClock = SystemClock(), ids: any IDGenerator = UUIDGenerator(),
        logHandler: (any LogHandler)? = nil, logLevel: Logger.Level = .info
    ) throws {
        var configuration = ServerConfiguration()
        configuration.threads = 1
        configure(&configuration)
        var logger = Logger(label: "test") { _ in logHandler ?? SwiftLogNoOpLogHandler() }
        logger.logLevel = logLevel
        application = try TodoApplication(configuration: configuration, logger: logger, store: store, clock: clock, ids: ids)
    }

    /// One request; returns its answer once the pipeline has delivered it.
    func request(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: String = "", client: String = "192.0.2.7:50312"
    ) async -> HTTPResponseSnapshot {
        var request = HTTPRequest(method: method, uri: target, headers: headers, body: Array(body.utf8))
        request.clientAddress = client
        let delivery = self.delivery
        return await withCheckedContinuation { continuation in
            application.pipeline.respond(to: request, sink: OneAnswer(continuation: continuation, delivery: delivery))
        }
    }

    /// Resumes the test with the answer; a second answer to one request stops the test run.
    private final class OneAnswer: ResponseSink, Sendable {
        private let continuation: Mutex<CheckedContinuation<HTTPResponseSnapshot, Never>?>
        private let delivery: HTTPDelivery

        init(continuation: CheckedContinuation<HTTPResponseSnapshot, Never>, delivery: HTTPDelivery) {
            self.continuation = Mutex(continuation)
            self.delivery = delivery
        }

        func send(_ response: HTTPResponse) -> HTTPDelivery {
            let waiting = continuation.withTracedLock { value in
                defer { value = nil }
                return value
            }
            guard let waiting else { preconditionFailure("the pipeline answered one request twice") }
            waiting.resume(returning: HTTPResponseSnapshot(response))
            return delivery
        }
    }
}
