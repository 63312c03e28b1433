import Foundation
import LockTracing
import TestSupport
import Testing

@testable import TodoServer

/// JSON Web Tokens on a live server's feed and log (the rest in process: `JWTEndToEndTests`): a
/// live feed stream ends with `event: expired` when its token does, and no log line holds a token.
@Suite("End to end: JSON Web Tokens on the live feed", .tags(.endToEnd))
struct JWTFeedEndToEndTests {
    @Test("the access log names the owner, never the token; no line at any level holds a token's part")
    func accessLog() async throws {
        let storage = CapturingLogHandler.Storage()
        let (fixture, file, server) = try JWTEndToEndTests.served(
            .live, logHandler: CapturingLogHandler(storage: storage, logLevel: .trace))
        defer { unlink(file) }
        let token = try #require(fixture.tokens["e2e bob"])
        #expect(try await server.request("GET", "/todos", headers: [("Authorization", "Bearer " + token)]).status == 200)
        let feed = try EventStreamClient(port: try #require(server.live?.port), target: "/todos/events?access_token=\(token)")
        #expect(feed.status == 200)
        #expect(try await server.request("GET", "/todos", headers: [("Authorization", "Bearer " + token + "x")]).status == 401)
        #expect(
            try eventually {
                storage.lines.withTracedLock { lines in lines.filter { $0.message.hasPrefix("GET /todos") }.count >= 3 }
            })
        let lines = storage.lines.withTracedLock { $0 }
        let access = lines.filter { $0.message.hasPrefix("GET /todos 200") }
        #expect(access.count == 1)
        #expect(access.first?.metadata["owner"] == "bob")
        #expect(lines.first { $0.message.hasPrefix("GET /todos/events") }?.metadata["owner"] == "bob")
        #expect(lines.first { $0.message.hasPrefix("GET /todos 401") }?.metadata["owner"] == nil)
        for line in lines {
            let text = line.message + " " + line.metadata.values.joined(separator: " ")
            for part in token.split(separator: ".") { #expect(!text.contains(part), "\(line.message)") }
        }
    }

    @Test("a token past its exp but inside the leeway opens a stream that says expired at once and replays nothing")
    func feedLapsed() async throws {
        let (fixture, file, server) = try JWTEndToEndTests.served(.live)
        defer { unlink(file) }
        let alice = try JWTEndToEndTests.bearer(fixture, "e2e alice")
        let position = try #require(try await server.request("GET", "/todos", headers: alice).header("X-Last-Event-ID"))
        #expect(try await server.request("POST", "/todos", headers: alice, body: #"{"title":"a"}"#).status == 201)
        let lapsed = try #require(fixture.tokens["e2e alice lapsed"])
        // Accepted on a plain request (inside the leeway)...
        #expect(try await server.request("GET", "/todos", headers: [("Authorization", "Bearer " + lapsed)]).status == 200)
        // ...but its stream reads nothing: the change after `position` is not replayed.
        let stream = try EventStreamClient(
            port: try #require(server.live?.port), target: "/todos/events?access_token=\(lapsed)", headers: [("Last-Event-ID", position)])
        #expect(stream.status == 200)
        let events = try stream.events(1)
        #expect(events.map(\.event) == ["expired"])
        #expect(events.first?.id == position)
        #expect(try stream.nextEvent() == nil)
    }

    @Test("a live feed stream opened with a token ends with event: expired when the token does, at the position reached")
    func feedExpires() async throws {
        let (fixture, file, server) = try JWTEndToEndTests.served(.live)
        defer { unlink(file) }
        let short = try #require(fixture.tokens["e2e alice short"])
        let stream = try EventStreamClient(port: try #require(server.live?.port), target: "/todos/events?access_token=\(short)")
        #expect(stream.status == 200)
        #expect(
            try await server.request("POST", "/todos", headers: try JWTEndToEndTests.bearer(fixture, "e2e alice"), body: #"{"title":"a"}"#)
                .status == 201)
        let events = try stream.events(2)
        #expect(events.map(\.event) == ["created", "expired"])
        #expect(events.last?.data == "{}")
        #expect(events.last?.id == events.first?.id)
        #expect(try stream.next() == nil)
        #expect(stream.ended)
    }
}
