import Foundation
import HTTPValues
import Logging
import TestSupport

@testable import TodoData
@testable import TodoServer

/// A `TodoApplication` under test, reached in process or over a socket, so that a suite's requests
/// are written once whatever the mode (Hummingbird's `app.test(.router)` and `app.test(.live)`).
///
/// In process (`InProcessClient`) every request runs the application's whole `RequestPipeline` on
/// a loop thread, with no socket: route, screening, tokens, modules, CORS, request id,
/// conditions, metrics and the access log; the JWT key set is refreshed as `start()` does; each
/// answer goes to the OpenAPI check's recording as the wire would frame it. Live (`LiveServer`),
/// the application listens on a port and every request is a connection of its own.
///
/// Suites whose subject is not the wire run in process (`Mode.standard`); `TODO_TEST_SERVER=live`
/// sends theirs over sockets too, to see both give the same answers. What only the wire does
/// (framing, `Connection: close`, a feed's stream, the connection count) stays in the suites
/// tagged `.endToEnd`, on `LiveServer` or `.live`.
///
/// The shared fixture: a suite whose tests all want the same server holds it, `let server:
/// TestServer` made in its `init()` (Swift Testing makes a suite anew for every test, so each test
/// has a fresh server and store); one whose tests differ makes one per test.
final class TestServer {
    enum Mode: String, Sendable {
        case inProcess, live

        /// In process, unless the environment's `TODO_TEST_SERVER` is `live`.
        static let standard: Mode = ProcessInfo.processInfo.environment["TODO_TEST_SERVER"] == "live" ? .live : .inProcess
    }

    private enum Reach {
        case inProcess(InProcessClient)
        case live(LiveServer)
    }

    private let reach: Reach
    let application: TodoApplication
    let store: any TodoStore

    var mode: Mode {
        switch reach {
        case .inProcess: .inProcess
        case .live: .live
        }
    }

    /// The server on its port, for what only a socket carries (a feed's stream); nil in process.
    var live: LiveServer? {
        guard case .live(let server) = reach else { return nil }
        return server
    }

    init(
        _ mode: Mode = .standard, configure: (inout ServerConfiguration) -> Void = { _ in }, store: any TodoStore = InMemoryTodoStore(),
        clock: any TodoClock = SystemClock(), keyRefreshClock: any TodoClock = SystemClock(), logHandler: (any LogHandler)? = nil,
        logLevel: Logger.Level = .info
    ) throws {
        self.store = store
        switch mode {
        case .inProcess:
            let client = try InProcessClient(
                configure: configure, store: store, clock: clock, keyRefreshClock: keyRefreshClock, logHandler: logHandler,
                logLevel: logLevel)
            application = client.application
            // What `start()` does before the port opens: the JWK Set file is looked at every second.
            application.jwt?.startKeyRefresh()
            reach = .inProcess(client)
        case .live:
            let server = try LiveServer(
                configure: configure, store: store, clock: clock, keyRefreshClock: keyRefreshClock, logHandler: logHandler,
                logLevel: logLevel)
            application = server.application
            reach = .live(server)
        }
    }

    deinit {
        if case .inProcess = reach { application.jwt?.stopKeyRefresh() }
    }

    /// One request, as `TestHTTPClient.request` sends it on a new connection: `Host: 127.0.0.1`
    /// first, then `headers`, then with a body its `Content-Length`.
    func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) async throws
        -> HTTPResponseSnapshot
    {
        switch reach {
        case .live(let server):
            return try server.request(method, target, headers: headers, body: body)
        case .inProcess(let client):
            var fields: HTTPHeaders = ["Host": "127.0.0.1"]
            for (name, value) in headers { fields.add(name, value) }
            if let body { fields.add("Content-Length", String(body.utf8.count)) }
            let answer = await client.request(HTTPMethod(rawValue: method) ?? .unrecognized, target, headers: fields, body: body ?? "")
            ResponseRecorder.shared.record(method: method, target: target, response: Self.asSent(answer, method: method))
            return answer
        }
    }

    /// `response` as the wire would send it (`HTTPResponseWriter`), for the OpenAPI check's
    /// recording: its own `Content-Length` on every status that has a body (HEAD's the GET body's
    /// length), and no body on HEAD, 204 or 304. The test itself gets the pipeline's answer.
    private static func asSent(_ response: HTTPResponseSnapshot, method: String) -> HTTPResponseSnapshot {
        let hasBody = response.status >= 200 && response.status != 204 && response.status != 304
        var sent = response
        sent.headers.removeAll { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        if hasBody { sent.headers.append((name: "Content-Length", value: String(response.body.count))) }
        if !hasBody || method == "HEAD" { sent.body = [] }
        return sent
    }
}
