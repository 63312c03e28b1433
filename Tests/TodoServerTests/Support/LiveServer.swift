import Logging
import TestSupport

@testable import TodoData
@testable import TodoServer

/// A real `TodoApplication` on an ephemeral port with two loops, for end-to-end tests.
final class LiveServer {
    let application: TodoApplication
    let port: Int
    let store: any TodoStore

    init(
        configure: (inout ServerConfiguration) -> Void = { _ in }, store: any TodoStore = InMemoryTodoStore(),
        clock: any TodoClock = SystemClock(), keyRefreshClock: any TodoClock = SystemClock(), logHandler: (any LogHandler)? = nil,
        logLevel: Logger.Level = .info
    ) throws {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        configuration.shutdownGraceSeconds = 2
        configure(&configuration)
        var logger = Logger(label: "test") { _ in logHandler ?? SwiftLogNoOpLogHandler() }
        logger.logLevel = logLevel
        self.store = store
        application = try TodoApplication(
            configuration: configuration, logger: logger, store: store, clock: clock, keyRefreshClock: keyRefreshClock)
        port = try application.start()
    }

    deinit { application.stop() }

    func client() throws -> TestHTTPClient { try TestHTTPClient(port: port) }

    /// One request on a new connection.
    func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil
    ) throws -> HTTPResponseSnapshot {
        try client().request(method, target, headers: headers, body: body)
    }
}
