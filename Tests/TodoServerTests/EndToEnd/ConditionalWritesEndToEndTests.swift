import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("End to end: conditional writes (RFC 9110 If-None-Match, If-Match: *, changes that change nothing)")
struct ConditionalWritesEndToEndTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// Creates a to-do; its path and ETag.
    private func create(_ server: TestServer, _ body: String) async throws -> (path: String, etag: String) {
        let created = try await server.request("POST", "/todos", headers: [("Content-Type", "application/json")], body: body)
        #expect(created.status == 201)
        return ("/todos/\(try #require(created.object["id"] as? String))", try #require(created.header("ETag")))
    }

    @Test("If-None-Match that matches (* or the current tag) on PUT, PATCH, DELETE is 412 with the current ETag; nothing changes")
    func ifNoneMatchRefuses() async throws {
        let (path, etag) = try await create(server, #"{"title":"Kept","order":1}"#)
        let attempts: [(String, String, String?)] = [
            ("PUT", "*", #"{"title":"Overwritten"}"#), ("PUT", etag, #"{"title":"Overwritten"}"#),
            ("PATCH", "*", #"{"title":"Patched"}"#), ("PATCH", "\"other\", W/\(etag)", #"{"title":"Patched"}"#),
            ("DELETE", "*", nil), ("DELETE", etag, nil),
        ]
        for (method, condition, body) in attempts {
            let answer = try await server.request(method, path, headers: [("If-None-Match", condition)], body: body)
            #expect(answer.status == 412, "\(method) If-None-Match: \(condition)")
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(answer.header("ETag") == etag)
            #expect(
                answer.object["detail"] as? String
                    == "If-None-Match matches the current version of to-do '\(path.dropFirst(7))' (ETag \(etag)), so it was left unchanged."
            )
        }
        let read = try await server.request("GET", path)
        #expect(read.object["title"] as? String == "Kept")
        #expect(read.header("ETag") == etag)

        let other = try await server.request("PATCH", path, headers: [("If-None-Match", "\"0\"")], body: #"{"title":"Changed"}"#)
        #expect(other.status == 200)
        #expect(other.object["title"] as? String == "Changed")
        #expect(other.header("ETag") != etag)
    }

    @Test("If-Match: * on a missing to-do is 412 for PUT, PATCH and DELETE (no ETag); without it, 404")
    func ifMatchAnyOnMissing() async throws {
        for (method, body) in [("PUT", #"{"title":"x"}"#), ("PATCH", "{}"), ("DELETE", nil)] as [(String, String?)] {
            let answer = try await server.request(method, "/todos/missing", headers: [("If-Match", "*")], body: body)
            #expect(answer.status == 412, "\(method)")
            #expect(answer.header("ETag") == nil)
            #expect(answer.object["detail"] as? String == "If-Match: * asks for an existing to-do, and no to-do has the id 'missing'.")
            #expect(try await server.request(method, "/todos/missing", body: body).status == 404)
            #expect(try await server.request(method, "/todos/missing", headers: [("If-None-Match", "*")], body: body).status == 404)
        }
        #expect(try await server.request("GET", "/todos").array.isEmpty)
    }

    @Test("a PATCH or PUT that changes nothing keeps the ETag and updatedAt; a real change moves both")
    func noOpKeepsRevision() async throws {
        let (path, etag) = try await create(server, #"{"title":"Same","order":4,"dueDate":"2026-12-01"}"#)
        let before = try await server.request("GET", path)
        let updatedAt = try #require(before.object["updatedAt"] as? String)
        let noOps: [(String, String)] = [
            ("PATCH", "{}"), ("PATCH", #"{"title":"  Same ","order":4}"#), ("PATCH", #"{"completed":false,"dueDate":"2026-12-01"}"#),
            ("PUT", #"{"title":"Same","order":4,"dueDate":"2026-12-01"}"#),
            ("PUT", #"{"title":"Same","completed":false,"order":4,"dueDate":"2026-12-01","updatedAt":"2000-01-01T00:00:00.000Z"}"#),
        ]
        for (method, body) in noOps {
            let answer = try await server.request(method, path, headers: [("If-Match", etag)], body: body)
            #expect(answer.status == 200, "\(method) \(body)")
            #expect(answer.header("ETag") == etag, "\(method) \(body)")
            #expect(answer.object["updatedAt"] as? String == updatedAt)
            #expect(answer.object["title"] as? String == "Same")
        }
        #expect(try await server.request("GET", path, headers: [("If-None-Match", etag)]).status == 304)
        #expect(try await server.request("PATCH", path, headers: [("If-None-Match", etag)], body: "{}").status == 412)

        let changed = try await server.request("PATCH", path, headers: [("If-Match", etag)], body: #"{"title":"same"}"#)
        #expect(changed.status == 200)
        #expect(changed.header("ETag") != etag)
        #expect(changed.object["title"] as? String == "same")
        let cleared = try await server.request("PUT", path, body: #"{"title":"same"}"#)
        #expect(cleared.header("ETag") != changed.header("ETag"))
        #expect(cleared.object["order"] is NSNull)
    }
}
