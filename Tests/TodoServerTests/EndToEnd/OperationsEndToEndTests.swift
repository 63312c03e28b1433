import Foundation
import TestSupport
import Testing

@testable import TodoServer

@Suite("End to end: metrics and the OpenAPI document", .tags(.endToEnd))
struct OperationsEndToEndTests {
    /// The value of the sample `name{labels}` in a Prometheus exposition, 0 when absent.
    private func sample(_ text: String, _ series: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? .nan
        }
        return 0
    }

    private func sum(_ text: String, prefix: String) -> Double {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    }

    @Test("a scrape before and after some requests shows the counters move by exactly that much")
    func metrics() throws {
        let server = try LiveServer()
        _ = try server.request("POST", "/todos", body: #"{"title":"seed"}"#)
        let before = try server.request("GET", "/metrics")
        #expect(before.status == 200)
        #expect(before.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let client = try server.client()
        for _ in 0..<3 { _ = try client.request("GET", "/todos") }
        for index in 0..<2 { _ = try client.request("POST", "/todos", body: #"{"title":"m\#(index)"}"#) }
        _ = try client.request("GET", "/todos/unknown-id")
        _ = try client.request("POST", "/todos", body: "{")
        _ = try client.request("GET", "/no/such/path")
        _ = try client.request("PATCH", "/todos")
        let after = try client.request("GET", "/metrics")
        let series = [
            (#"http_requests_total{route="/todos",method="GET",status="200"}"#, 3.0),
            (#"http_requests_total{route="/todos",method="POST",status="201"}"#, 2.0),
            (#"http_requests_total{route="/todos",method="POST",status="400"}"#, 1.0),
            (#"http_requests_total{route="/todos/{id}",method="GET",status="404"}"#, 1.0),
            (#"http_requests_total{route="unmatched",method="GET",status="404"}"#, 1.0),
            (#"http_requests_total{route="/todos",method="PATCH",status="405"}"#, 1.0),
            (#"http_requests_total{route="/metrics",method="GET",status="200"}"#, 1.0),
        ]
        for (name, delta) in series {
            #expect(sample(after.text, name) - sample(before.text, name) == delta, "\(name)")
        }
        let durations =
            sum(after.text, prefix: "http_request_duration_seconds_count") - sum(before.text, prefix: "http_request_duration_seconds_count")
        #expect(durations == 10)
        #expect(sample(after.text, "todos") == 3)
        #expect(sample(after.text, "http_open_connections") >= 1)
        #expect(after.text.contains(#"http_request_duration_seconds_bucket{loop="#))
    }

    @Test("open connections count up while clients are connected and down when they leave")
    func openConnections() throws {
        let server = try LiveServer()
        var clients: [TestHTTPClient] = []
        for _ in 0..<5 {
            let client = try server.client()
            _ = try client.request("GET", "/healthz")
            clients.append(client)
        }
        #expect(try openConnections(server) == 6)
        clients.removeAll()
        #expect(try openConnections(server, settlingTo: 1) == 1)
    }

    @Test("idle connections that never sent a request count as open, and stop counting once gone")
    func idleConnectionsCounted() throws {
        let server = try LiveServer()
        var idle = try (0..<3).map { _ in try server.client() }
        #expect(eventually { server.application.openConnections == 3 })
        #expect(try openConnections(server) == 4)
        idle.removeAll()
        #expect(try openConnections(server, settlingTo: 1) == 1)
        #expect(idle.isEmpty)
    }

    /// `http_open_connections` from a scrape on its own connection (which counts itself); with
    /// `settlingTo`, scrapes again for up to 4 s until the gauge shows that value.
    private func openConnections(_ server: LiveServer, settlingTo target: Double? = nil) throws -> Double {
        let scrape = { try server.request("GET", "/metrics", headers: [("Connection", "close")]).text }
        var open = sample(try scrape(), "http_open_connections")
        guard let target else { return open }
        try eventually(timeout: .seconds(4), interval: .milliseconds(100)) {
            open = sample(try scrape(), "http_open_connections")
            return open == target
        }
        return open
    }

    @Test("GET /openapi.json serves the document in the repository, its servers URL set to the request's Host")
    func document() throws {
        let server = try LiveServer()
        let response = try server.request("GET", "/openapi.json")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/TodoServer/Resources/openapi.json")
        let shipped = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(shipped.contains(#""url": "http://localhost:8080""#))
        // Byte for byte the shipped document, but for the one URL (TestHTTPClient sends Host: 127.0.0.1).
        #expect(response.text == shipped.replacingOccurrences(of: #""url": "http://localhost:8080""#, with: #""url": "http://127.0.0.1""#))
        #expect(response.object["openapi"] as? String == "3.1.0")
        let paths = try #require(response.object["paths"] as? [String: Any])
        #expect(
            Set(paths.keys) == ["/", "/healthz", "/todos", "/todos/upcoming", "/todos/events", "/todos/{id}", "/metrics", "/openapi.json"])
    }

    /// The `url` of each entry of the document's `servers`.
    private func serverURLs(_ response: HTTPResponseSnapshot) -> [String] {
        ((response.object["servers"] as? [[String: Any]]) ?? []).compactMap { $0["url"] as? String }
    }

    @Test("the served document's servers follow the Host header, and a configured publicUrl wins over it")
    func documentServers() throws {
        let server = try LiveServer()
        let client = try server.client()
        try client.send("GET /openapi.json HTTP/1.1\r\nHost: todo.example:9000\r\n\r\n")
        let byHost = try client.readResponse()
        #expect(byHost.status == 200)
        #expect(serverURLs(byHost) == ["http://todo.example:9000"])
        let head = try server.client()
        try head.send("HEAD /openapi.json HTTP/1.1\r\nHost: todo.example:9000\r\n\r\n")
        let headResponse = try head.readResponse(method: "HEAD")
        #expect(headResponse.header("Content-Length") == byHost.header("Content-Length"))

        let configured = try LiveServer(configure: { $0.publicURL = "https://todo.example.com/api" })
        let client2 = try configured.client()
        try client2.send("GET /openapi.json HTTP/1.1\r\nHost: todo.example:9000\r\n\r\n")
        let byPublicURL = try client2.readResponse()
        #expect(byPublicURL.status == 200)
        #expect(serverURLs(byPublicURL) == ["https://todo.example.com/api"])
        #expect(byPublicURL.object["paths"] as? [String: Any] != nil)
    }
}
