import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The minimum request-body rate over real sockets: a body trickling in below it gets a 408
/// problem and a close; a body above it, arriving over longer than the grace period, is served.
/// Small figures keep it short: 200 bytes/s after 1 s.
@Suite("End to end: the minimum request-body rate", .tags(.endToEnd))
struct BodyRateEndToEndTests {
    /// A server, and a connection to it on which the head of a POST of `body` is sent.
    private func posting(_ body: [UInt8]) throws -> (LiveServer, TestHTTPClient) {
        let server = try LiveServer(configure: {
            $0.minBodyBytesPerSecond = 200; $0.bodyRateGraceSeconds = 1; $0.timeoutSeconds = 30
        })
        let client = try server.client()
        try client.send("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
        return (server, client)
    }

    /// Sends `body` in `pieces`, one every `pace` unless the server answers first; whether it did.
    private func send(_ body: [UInt8], pieces: Int, pace: Duration, over client: TestHTTPClient) throws -> Bool {
        let size = (body.count + pieces - 1) / pieces
        for start in stride(from: 0, to: body.count, by: size) {
            if eventually(timeout: pace, { client.hasInput() }) { return true }
            try client.send(Array(body[start..<min(body.count, start + size)]))
        }
        return false
    }

    @Test("a body trickling in below the rate (each byte resetting the time-out) gets a 408 problem and a close")
    func trickle() throws {
        let body = Array(#"{"title":"slow"}"#.utf8) + Array(repeating: UInt8(ascii: " "), count: 384)
        let (server, client) = try posting(body)
        // A byte every 50 ms: 20 bytes/s, a tenth of the rate (slower still on a loaded machine).
        let answeredEarly = try send(body, pieces: body.count, pace: .milliseconds(50), over: client)
        #expect(answeredEarly, "the server answered before the whole body was sent")
        let answer = try client.readResponse()
        #expect(answer.status == 408)
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.object["status"] as? Int == 408)
        #expect(answer.object["title"] as? String == "Request Timeout")
        let detail = answer.object["detail"] as? String ?? ""
        #expect(detail.contains("slower than 200 bytes per second"), "\(detail)")
        #expect(answer.header("Connection") == "close")
        #expect(answer.header("X-Request-ID")?.isEmpty == false)
        #expect(client.serverClosed())
        #expect(server.store.count == 0)
        #expect(server.application.wireStatistics.refusedStreams == 1)
    }

    @Test("a body above the rate, arriving over longer than the grace period, is served")
    func aboveTheRate() throws {
        let body = Array(#"{"title":"steady"}"#.utf8) + Array(repeating: UInt8(ascii: " "), count: 3000)
        let (server, client) = try posting(body)
        // 30 pieces, one every 50 ms: about 2,000 bytes/s over 1.5 s, ten times the rate.
        let answeredEarly = try send(body, pieces: 30, pace: .milliseconds(50), over: client)
        #expect(!answeredEarly, "the server answered before the whole body was sent")
        let answer = try client.readResponse()
        #expect(answer.status == 201)
        #expect(server.store.count == 1)
        #expect(server.application.wireStatistics.refusedStreams == 0)
    }
}
