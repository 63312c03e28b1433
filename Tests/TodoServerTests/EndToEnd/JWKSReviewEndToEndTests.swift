import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// Second reading of `jwtJwksUrl` end to end: a provider that takes the connection and never
/// answers (the kernel completes the handshake, nobody reads): how many requests wait, how long,
/// and a stop while they do.
@Suite("End to end: JWT keys from a URL whose provider hangs", .tags(.endToEnd))
struct JWKSReviewEndToEndTests {
    typealias F = IdentityFixture

    /// A listening socket on 127.0.0.1 that is never accepted from.
    final class Hanging {
        let fd: Int32
        let port: Int
        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
            listen(fd, 512)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
            }
            self.port = Int(UInt16(bigEndian: address.sin_port))
        }
        deinit { close(fd) }
    }

    private func server(_ provider: Hanging, pace: FakeClock) throws -> LiveServer {
        try LiveServer(
            configure: {
                $0.jwtJwksUrl = "http://127.0.0.1:\(provider.port)/jwks.json"
                $0.jwtJwksTimeoutSeconds = 3
                $0.jwtJwksMinRefreshSeconds = 1
                $0.jwtIssuer = F.issuer
                $0.jwtAudience = F.audience
            }, clock: FakeClock(millisecondsSinceEpoch: F.now * 1000), keyRefreshClock: pace)
    }

    @Test("made-up kids while the fetch hangs: every connection's request waits the whole time-out, then 401")
    func pileUp() throws {
        let token = try #require(try F.get().tokens["e2e alice"])
        let provider = try Hanging()
        let pace = FakeClock(millisecondsSinceEpoch: 0)
        let server = try server(provider, pace: pace)
        let count = 100
        let clients = try (0..<count).map { _ in try server.client() }
        let started = ContinuousClock.now
        for client in clients {
            try client.send("GET /todos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        }
        var statuses: [Int] = []
        for client in clients {
            let response = try client.readResponse()
            statuses.append(response.status)
        }
        let waited = ContinuousClock.now - started
        #expect(Set(statuses) == [401])
        #expect(waited >= .milliseconds(2500), "they all waited for the hanging fetch")
    }

    @Test("a stop while a request waits on a hanging fetch: the stop ends within the grace, the late fetch end harms nothing")
    func stopWhileWaiting() throws {
        let token = try #require(try F.get().tokens["e2e alice"])
        let provider = try Hanging()
        let pace = FakeClock(millisecondsSinceEpoch: 0)
        var server: LiveServer? = try server(provider, pace: pace)
        let client = try server!.client()
        try client.send("GET /todos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\n")
        Thread.sleep(forTimeInterval: 0.5)  // waiting on the start's fetch (3 s)
        let started = ContinuousClock.now
        server!.application.stop()
        let stopping = ContinuousClock.now - started
        server = nil
        #expect(stopping < .seconds(4), "the waiting request holds the stop for the grace (2 s), not for the fetch")
        Thread.sleep(forTimeInterval: 4)  // the fetch ends, its waiter's work is dropped with the loop
        #expect(Bool(true), "still alive")
    }
}
