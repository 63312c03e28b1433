import Glibc
import HTTPValues
import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import EventHTTP

/// `/hold` keeps the loop busy until the test lets it go; `/peek` answers with how many bytes
/// the client socket named by its `X-Peer` field (another connection's client, which the test does
/// not read meanwhile) had received when the request was handled. With the loop writing at once,
/// an answer already written reaches that socket a little later: with `waitsForDelivery`, the
/// second `/peek` looks until some arrived (or 10 s passed).
private final class PeekHandler: HTTPHandler, Sendable {
    let holding = Atomic<Bool>(false)
    let released = Atomic<Bool>(false)
    let peeks = Atomic<Int>(0)
    let waitsForDelivery: Bool

    init(waitsForDelivery: Bool) { self.waitsForDelivery = waitsForDelivery }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if request.path == "/hold" {
            holding.store(true, ordering: .sequentiallyConsistent)
            _ = eventually { released.load(ordering: .sequentiallyConsistent) }
        }
        var seen = 0
        if request.path == "/peek", let peer = request.headers["X-Peer"].flatMap({ Int32($0) }) {
            seen = TestHTTPClient.queuedBytes(peer, Int32(FIONREAD))
            if waitsForDelivery, seen == 0, peeks.load(ordering: .sequentiallyConsistent) == 1 {
                seen =
                    eventually(timeout: .seconds(10)) { () -> Int? in
                        let bytes = TestHTTPClient.queuedBytes(peer, Int32(FIONREAD))
                        return bytes > 0 ? bytes : nil
                    } ?? 0
            }
            responder.send(HTTPResponse(status: 200, body: Array(String(seen).utf8)))
            peeks.add(1, ordering: .sequentiallyConsistent)
            return
        }
        responder.send(HTTPResponse(status: 200, body: Array(String(seen).utf8)))
    }
}

/// `/stop` stops the server without a grace period, then answers: the stop runs later in the same
/// turn of the loop, before the turn's end.
private final class StopHandler: HTTPHandler, Sendable {
    /// Held weakly: the server holds its handler (a strong reference both ways leaked both, which
    /// AddressSanitizer's leak check reported).
    struct ServerReference { weak var server: HTTPServer? }
    let server = Mutex(ServerReference())

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if request.path == "/stop" { server.withTracedLock { $0.server }?.shutdown(gracePeriodSeconds: 0) }
        responder.send(HTTPResponse(status: 200, body: Array("stopping".utf8)))
    }
}

@Suite("EventHTTP: the answers of one turn of the loop are written at its end")
struct TurnEndWriteTests {
    /// Two requests on two connections that the loop finds ready in the same turn (they arrive
    /// while a third request holds the loop): what the second handled sees of the first's answer.
    private static func peeks(writesAtTurnEnd: Bool) throws -> [Int] {
        let handler = PeekHandler(waitsForDelivery: !writesAtTurnEnd)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1)
        configuration.writesAtTurnEnd = writesAtTurnEnd
        let server = HTTPServer(configuration: configuration, handler: handler)
        let port = try server.start()
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        let (holder, a, b) = (
            try TestHTTPClient(port: port, recordsResponses: false), try TestHTTPClient(port: port, recordsResponses: false),
            try TestHTTPClient(port: port, recordsResponses: false)
        )
        // Each connection accepted and answered once, so that the next requests are all the loop has.
        for client in [holder, a, b] { #expect(try client.request("GET", "/").status == 200) }
        try holder.send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n")
        try #require(eventually { handler.holding.load(ordering: .sequentiallyConsistent) })
        try a.send("GET /peek HTTP/1.1\r\nHost: h\r\nX-Peer: \(b.descriptor)\r\n\r\n")
        try b.send("GET /peek HTTP/1.1\r\nHost: h\r\nX-Peer: \(a.descriptor)\r\n\r\n")
        // Both requests are in the server's kernel (acknowledged) before the loop polls again.
        try #require(
            eventually {
                TestHTTPClient.queuedBytes(a.descriptor, Int32(TIOCOUTQ)) == 0
                    && TestHTTPClient.queuedBytes(b.descriptor, Int32(TIOCOUTQ)) == 0
            })
        handler.released.store(true, ordering: .sequentiallyConsistent)
        #expect(try holder.readResponse().text == "0")
        // Both handled before either answer is read: a blocked read would take the first answer out of
        // the socket's queue before the second request looks.
        try #require(eventually { handler.peeks.load(ordering: .sequentiallyConsistent) == 2 })
        let answers = try [a.readResponse(), b.readResponse()]
        #expect(answers.map(\.status) == [200, 200])
        return answers.compactMap { Int($0.text) }
    }

    @Test("written at the turn's end: neither request of the turn sees the other's answer arrive")
    func atTurnEnd() throws {
        #expect(try Self.peeks(writesAtTurnEnd: true) == [0, 0])
    }

    @Test("a stop that closes every connection in the turn that answered a request still sends that answer first")
    func answerBeforeStop() throws {
        let handler = StopHandler()
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1), handler: handler)
        handler.server.withTracedLock { $0.server = server }
        let port = try server.start()
        defer { server.waitUntilStopped() }
        let client = try TestHTTPClient(port: port, recordsResponses: false)
        let response = try client.request("GET", "/stop")
        #expect(response.status == 200)
        #expect(response.text == "stopping")
        #expect(client.serverClosed())
    }

    @Test("written at once (writesAtTurnEnd false): the second request of the turn sees the first's answer arrive")
    func atOnce() throws {
        let seen = try Self.peeks(writesAtTurnEnd: false)
        #expect(seen.count == 2)
        #expect(seen.filter { $0 == 0 }.count == 1, "\(seen)")
        #expect(seen.filter { $0 > 0 }.count == 1, "\(seen)")
    }
}
