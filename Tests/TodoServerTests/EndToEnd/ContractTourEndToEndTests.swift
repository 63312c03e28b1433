import Foundation
import Testing
@testable import TodoServer

/// One request for every operation and status the OpenAPI document lists, so that
/// `scripts/check-openapi.py` sees each of them answered for real.
@Suite("End to end: a tour of every documented answer")
struct ContractTourEndToEndTests {
    @Test("every documented operation and status")
    func tour() throws {
        let server = try LiveServer(configure: { $0.maxBodyBytes = 256 })
        let created = try server.request("POST", "/todos", body: #"{"title":"Tour","dueDate":"2026-11-24"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let etag = try #require(created.header("ETag"))
        let listTag = try #require(try server.request("GET", "/todos").header("ETag"))
        let big = #"{"title":"\#(String(repeating: "x", count: 300))"}"#
        let calls: [(String, String, [(String, String)], String?, Int)] = [
            ("GET", "/", [], nil, 200), ("HEAD", "/", [], nil, 200), ("OPTIONS", "/", [], nil, 204),
            ("GET", "/healthz", [], nil, 200), ("HEAD", "/healthz", [], nil, 200), ("OPTIONS", "/healthz", [], nil, 204),
            ("GET", "/todos", [], nil, 200), ("HEAD", "/todos", [], nil, 200), ("OPTIONS", "/todos", [], nil, 204),
            ("GET", "/todos", [("If-None-Match", listTag)], nil, 304), ("HEAD", "/todos", [("If-None-Match", listTag)], nil, 304),
            ("GET", "/todos?limit=0", [], nil, 400), ("HEAD", "/todos?sort=up", [], nil, 400),
            ("POST", "/todos", [], "[", 400), ("POST", "/todos", [], big, 413),
            ("POST", "/todos", [("Content-Type", "text/csv")], "a,b", 415), ("POST", "/todos", [], #"{"title":""}"#, 422),
            ("GET", "/todos/upcoming", [], nil, 200), ("HEAD", "/todos/upcoming", [], nil, 200),
            ("OPTIONS", "/todos/upcoming", [], nil, 204), ("GET", "/todos/upcoming?tz=Nowhere", [], nil, 400),
            ("HEAD", "/todos/upcoming?weekStart=friday", [], nil, 400),
            ("GET", path, [], nil, 200), ("HEAD", path, [], nil, 200), ("OPTIONS", path, [], nil, 204),
            ("GET", path, [("If-None-Match", etag)], nil, 304), ("HEAD", path, [("If-None-Match", etag)], nil, 304),
            ("GET", "/todos/none", [], nil, 404), ("HEAD", "/todos/none", [], nil, 404),
            ("PATCH", path, [], "{", 400), ("PATCH", "/todos/none", [], "{}", 404), ("PATCH", path, [("If-Match", "\"0\"")], "{}", 412),
            ("PATCH", path, [], big, 413), ("PATCH", path, [("Content-Type", "text/plain")], "x", 415),
            ("PATCH", path, [], #"{"order":"x"}"#, 422), ("PATCH", path, [("Content-Type", "application/merge-patch+json")], #"{"order":1}"#, 200),
            ("PUT", path, [], "{", 400), ("PUT", "/todos/none", [], #"{"title":"x"}"#, 404),
            ("PUT", path, [("If-Match", "\"0\"")], #"{"title":"x"}"#, 412), ("PUT", path, [], big, 413),
            ("PUT", path, [("Content-Type", "text/plain")], "x", 415), ("PUT", path, [], "{}", 422),
            ("PUT", path, [], #"{"title":"Tour again"}"#, 200),
            ("DELETE", "/todos/none", [], nil, 404), ("DELETE", path, [("If-Match", "\"0\"")], nil, 412),
            ("DELETE", path, [], nil, 204), ("DELETE", "/todos", [], nil, 204),
            ("GET", "/metrics", [], nil, 200), ("HEAD", "/metrics", [], nil, 200), ("OPTIONS", "/metrics", [], nil, 204),
            ("GET", "/openapi.json", [], nil, 200), ("HEAD", "/openapi.json", [], nil, 200), ("OPTIONS", "/openapi.json", [], nil, 204),
        ]
        for (method, target, headers, body, status) in calls {
            let response = try server.request(method, target, headers: headers, body: body)
            #expect(response.status == status, "\(method) \(target)")
            if method == "HEAD" { #expect(response.header("Content-Length") != nil || status == 304, "\(method) \(target)") }
        }
    }
}
