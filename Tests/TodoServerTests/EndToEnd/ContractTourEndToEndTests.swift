import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// One request for every operation and status the OpenAPI document lists, so that
/// `scripts/check_openapi.py` sees each of them answered for real.
@Suite("End to end: a tour of every documented answer", .tags(.endToEnd))
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
            ("PATCH", path, [], #"{"order":"x"}"#, 422),
            ("PATCH", path, [("Content-Type", "application/merge-patch+json")], #"{"order":1}"#, 200),
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

    @Test("refusals every operation can get: a problem body on GET, OPTIONS and DELETE, the status alone on HEAD")
    func sharedRefusals() throws {
        let server = try LiveServer(configure: {
            $0.maxBodyBytes = 16; $0.maxURIBytes = 64; $0.maxHeaderCount = 10
        })
        let created = try server.request("POST", "/todos", body: #"{"title":"x"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let longTarget = "/todos?q=" + String(repeating: "q", count: 64)
        let manyFields = (1...10).map { ("X-F\($0)", "v") }
        let overBody = String(repeating: "b", count: 17)

        let getBody = try server.request("GET", "/healthz", body: overBody)
        #expect(getBody.status == 413)
        #expect(getBody.object["status"] as? Int == 413)
        #expect(try server.request("OPTIONS", "/todos", body: overBody).status == 413)
        let deleteAll = try server.request("DELETE", "/todos", headers: [("If-None-Match", " ")])
        #expect(deleteAll.status == 400)
        #expect(
            deleteAll.object["detail"] as? String
                == "The If-None-Match header is empty; send * or one or more entity tags, or leave it out.")
        #expect(try server.request("GET", longTarget).status == 414)

        for (target, headers, status) in [
            (path, [("If-None-Match", "")], 400), (longTarget, [], 414), ("/", manyFields, 431),
        ] as [(String, [(String, String)], Int)] {
            let response = try server.request("HEAD", target, headers: headers)
            #expect(response.status == status, "HEAD \(target)")
            #expect(response.header("Content-Type") == "application/problem+json", "HEAD \(target)")
        }
        // No body after a HEAD refusal: the next response on the connection starts right after its headers.
        let client = try server.client()
        #expect(try client.request("HEAD", path, headers: [("If-None-Match", "")]).status == 400)
        let next = try client.request("GET", path)
        #expect(next.status == 200)
        #expect(next.object["title"] as? String == "x")
    }
}
