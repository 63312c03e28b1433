import EventLoops
import HTTPValues
import LockTracing
import Logging
import Synchronization
import TestSupport

@testable import TodoData
@testable import TodoServer

/// Sends requests through a `TodoApplication`'s whole pipeline in process, without a socket (the
/// idea of Hummingbird's `app.test(.router)`): route, screening, tokens, modules, CORS, request id,
/// conditional headers, metrics and the access log all run; only evhttp's framing does not.
///
/// Each request runs on a loop thread of the client's own, as the pipeline's loop 0 (the number it
/// is passed), as the server runs a request on the loop it came in on: a store that answers later
/// (PostgreSQL, the journal) answers on that loop too, so the loop's own state (its metrics) is
/// only ever touched there. Called from the test's thread, a request raced the store's answers
/// for the same loop (a ThreadSanitizer finding, issue 35); `LoopAffinity` now stops that at once.
struct InProcessClient {
    let application: TodoApplication
    /// What `send` answers the pipeline: `.connectionClosed` plays a client that hung up.
    var delivery = HTTPDelivery.sent
    /// The thread that runs loop 0; it stops when the last copy of the client goes.
    private let loopThread: ClientLoop

    /// Owns the loop thread: stops it (after the work queued on it) when released.
    private final class ClientLoop: Sendable {
        let thread: LoopThread
        init() throws { thread = try LoopThread() }
        deinit { thread.shutdown() }
    }

    /// The loop the requests run on.
    var loop: EventLoop { loopThread.thread.loop }

    init(
        configure: (inout ServerConfiguration) -> Void = { _ in }, store: any TodoStore = InMemoryTodoStore(),
        clock: any TodoClock = SystemClock(), ids: any IDGenerator = UUIDGenerator(), keyRefreshClock: any TodoClock = MonotonicClock(),
        logHandler: (any LogHandler)? = nil, logLevel: Logger.Level = .info
    ) throws {
        var configuration = ServerConfiguration()
        configuration.threads = 1
        configure(&configuration)
        var logger = Logger(label: "test") { _ in logHandler ?? SwiftLogNoOpLogHandler() }
        logger.logLevel = logLevel
        application = try TodoApplication(
            configuration: configuration, logger: logger, store: store, clock: clock, ids: ids, keyRefreshClock: keyRefreshClock)
        loopThread = try ClientLoop()
    }

    /// One request; returns its answer once the pipeline has delivered it.
    func request(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: String = "", client: String = "192.0.2.7:50312"
    ) async -> HTTPResponseSnapshot {
        var request = HTTPRequest(method: method, uri: target, headers: headers, body: Array(body.utf8))
        request.clientAddress = client
        let delivery = self.delivery
        let pipeline = application.pipeline
        return await withCheckedContinuation { [request] continuation in
            let sink = OneAnswer(continuation: continuation, delivery: delivery)
            loop.execute { pipeline.respond(to: request, loop: 0, sink: sink) }
        }
    }

    /// The pipeline's answer to `head` alone (`RequestPipeline.answer(toHead:)`), asked on the
    /// client's loop as the wire asks it before `100 Continue`.
    func answer(toHead head: HTTPRequest, connectionOverLimit: Bool = false) async -> HTTPResponse? {
        let pipeline = application.pipeline
        return await withCheckedContinuation { continuation in
            loop.execute {
                continuation.resume(returning: pipeline.answer(toHead: head, loop: 0, connectionOverLimit: connectionOverLimit))
            }
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
