import Foundation
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// A live server whose JWT keys come from a URL (`jwtJwksUrl`, a real HTTPS provider): a request
/// whose token names a key the provider has just rotated in waits on its loop for the refetch and
/// is answered as its owner's, on the first try; `Expect: 100-continue` is not refused from the
/// head alone; made-up kids get 401 without a fetch. The refresh is paced by a fake clock.
@Suite("End to end: JWT keys from the provider's URL, a rotation without a refusal", .tags(.endToEnd))
struct JWKSURLEndToEndTests {
    typealias F = IdentityFixture

    private func server(_ provider: JWKSProvider, pace: FakeClock) throws -> LiveServer {
        try LiveServer(
            configure: {
                $0.jwtJwksUrl = provider.url
                $0.jwtJwksCaFile = provider.caFile
                $0.jwtIssuer = F.issuer
                $0.jwtAudience = F.audience
            }, clock: FakeClock(millisecondsSinceEpoch: F.now * 1000), keyRefreshClock: pace)
    }

    private func bearer(_ name: String) throws -> [(String, String)] {
        [("Authorization", "Bearer " + (try #require(try F.get().tokens[name])))]
    }

    @Test("a token of a key rotated in after start: the request waits for one fetch and is answered 201, then 200")
    func rotation() throws {
        let fixture = try F.get()
        let provider = try JWKSProvider(serving: fixture.setA)
        let pace = FakeClock(millisecondsSinceEpoch: 0)
        let server = try server(provider, pace: pace)
        // The first request may come before the start's fetch ends: it waits for it.
        let created = try server.request("POST", "/todos", headers: try bearer("e2e alice"), body: #"{"title":"before the rotation"}"#)
        #expect(created.status == 201)
        #expect(provider.requests == 1)

        try provider.serve(try JWKSProvider.union(fixture.setA, fixture.setB))
        let early = try server.request("GET", "/todos", headers: try bearer("e2e alice rotated"))
        #expect(early.status == 401, "within jwtJwksMinRefreshSeconds of the last fetch: refused at once")
        #expect(early.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="unknown key""#)
        #expect(provider.requests == 1)

        pace.advance(milliseconds: 30_000)
        let rotated = try server.request("POST", "/todos", headers: try bearer("e2e alice rotated"), body: #"{"title":"after"}"#)
        #expect(rotated.status == 201)
        #expect(provider.requests == 2)
        let list = try server.request("GET", "/todos", headers: try bearer("e2e alice rotated"))
        #expect(list.status == 200)
        #expect(Set(list.array.compactMap { $0["title"] as? String }) == ["before the rotation", "after"])
        #expect(provider.requests == 2)
    }

    @Test(
        "Expect: 100-continue: 100 Continue while a fetch may bring the token's key, the answer after it; 401 from the head once none would"
    )
    func expectContinue() throws {
        let fixture = try F.get()
        let provider = try JWKSProvider(serving: fixture.setA)
        let pace = FakeClock(millisecondsSinceEpoch: 0)
        let server = try server(provider, pace: pace)
        #expect(try server.request("GET", "/todos", headers: try bearer("e2e alice")).status == 200)
        try provider.serve(try JWKSProvider.union(fixture.setA, fixture.setB))
        pace.advance(milliseconds: 30_000)
        let token = try #require(fixture.tokens["e2e alice rotated"])
        let client = try server.client()
        let body = #"{"title":"continued"}"#
        try client.send(
            Array(
                ("POST /todos HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n").utf8))
        #expect(try client.readHead() == "HTTP/1.1 100 Continue")
        try client.send(Array(body.utf8))
        let answer = try client.readResponse()
        #expect(answer.status == 201)
        #expect(provider.requests == 2)

        // Now no fetch would follow (the last started less than 30 s ago): a kid still unknown is
        // refused from the head alone, before the client sends its body.
        let unknown = try #require(fixture.tokens["unknown kid"])
        let refused = try server.client()
        try refused.send(
            Array(
                ("POST /todos HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(unknown)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n").utf8))
        let head = try refused.readHead()
        #expect(head.hasPrefix("HTTP/1.1 401 "), "\(head)")
        #expect(head.contains(#"error_description="unknown key""#))
        #expect(provider.requests == 2)
    }
}
