import Foundation
import HTTPValues
import Synchronization
import TestSupport
import Testing

@testable import EventHTTP

/// A handler whose answers outlast the connection time-out: `/busy` holds the loop for longer,
/// anything else is an answer larger than the socket buffers hold.
private final class SlowHandler: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var deliveries: [HTTPResponder.Delivery] = []

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        if request.path == "/busy" {
            // Work on the loop thread that outlasts the connection time-out (1 s), as a sort over
            // many long titles did.
            let until = ContinuousClock.now + .milliseconds(1500)
            while ContinuousClock.now < until {}
            let delivery = responder.send(HTTPResponse(status: 200, body: Array("busy".utf8)))
            lock.withLock { deliveries.append(delivery) }
            return
        }
        // An answer larger than the socket buffers hold.
        let delivery = responder.send(HTTPResponse(status: 200, body: [UInt8](repeating: 0x61, count: 8 << 20)))
        lock.withLock { deliveries.append(delivery) }
    }

    var delivered: [HTTPResponder.Delivery] { lock.withLock { deliveries } }
}

@Suite("EventHTTP: an answer that comes after the connection closed")
struct LateAnswerTests {
    /// A server of `loopCount` loops with a connection time-out of 1 s on a `SlowHandler`, started.
    private static func started(loopCount: Int) throws -> (handler: SlowHandler, server: HTTPServer, port: Int) {
        let handler = SlowHandler()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, loopCount: loopCount, timeoutSeconds: 1),
            handler: handler)
        return (handler, server, try server.start())
    }

    @Test("a handler that keeps the loop busy past the connection time-out still gets its answer out")
    func busyHandler() throws {
        let (handler, server, port) = try Self.started(loopCount: 1)
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        let client = try TestHTTPClient(port: port, recordsResponses: false)
        let response = try client.request("GET", "/busy")
        #expect(response.status == 200)
        #expect(response.text == "busy")
        #expect(handler.delivered == [.sent])
        #expect(eventually { server.requestsInFlight == 0 })
    }

    @Test(
        "an answer the client does not read: the write time-out closes the connection, the request leaves the in-flight count, a drain does not wait for it"
    )
    func unreadAnswer() throws {
        let (handler, server, port) = try Self.started(loopCount: 2)
        let reader = try TestHTTPClient(port: port, receiveBufferBytes: 4096, recordsResponses: false)
        try reader.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(eventually { handler.delivered == [.sent] })
        // evhttp frees the request with its connection and never reports it complete.
        #expect(eventually { server.requestsInFlight == 0 }, "the cut-off answer must not stay in flight")
        #expect(reader.readToEnd().count < 8 << 20)

        // Nothing is left for a drain to wait for: with a 600 s grace period the loops exit at once.
        server.shutdown(gracePeriodSeconds: 600)
        let stopped = Atomic<Bool>(false)
        Thread.detachNewThread {
            server.waitUntilStopped()
            stopped.store(true, ordering: .relaxed)
        }
        #expect(eventually { stopped.load(ordering: .relaxed) })
    }
}
