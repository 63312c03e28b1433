import TestSupport
import Testing

@testable import TodoServer

/// The base of absolute urls from what the wire read: a `Host` with a port, an HTTP/1.0 request
/// without one (the bound port), a `Host` no URL can hold, or the configured public URL.
@Suite("End to end: absolute urls and the Host header", .tags(.endToEnd))
struct HostEndToEndTests {
    @Test("absolute urls follow the Host header, or the configured public URL")
    func baseURLs() throws {
        let server = try LiveServer()
        let client = try server.client()
        try client.send("POST /todos HTTP/1.1\r\nHost: todo.example.com:9000\r\nContent-Length: 13\r\n\r\n{\"title\":\"x\"}")
        let created = try client.readResponse(method: "POST")
        #expect((created.object["url"] as? String)?.hasPrefix("http://todo.example.com:9000/todos/") == true)
        try client.send("GET /todos HTTP/1.0\r\n\r\n")
        let fallback = try client.readResponse()
        #expect(fallback.array.first?["url"] as? String == "http://localhost:\(server.port)/todos/\(created.object["id"] as? String ?? "")")
        let badHost = try server.client()
        try badHost.send("GET /todos HTTP/1.1\r\nHost: evil\"host\r\n\r\n")
        #expect(try badHost.readResponse().status == 400)
        let twoHosts = try server.request("GET", "/todos", headers: [("Host", "other")])
        #expect(twoHosts.status == 400)
        #expect(twoHosts.object["detail"] as? String == "The request has 2 Host headers; send exactly one.")

        let configured = try LiveServer(configure: { $0.publicURL = "https://todo.example.com" })
        let response = try configured.request("POST", "/todos", body: #"{"title":"x"}"#)
        #expect((response.header("Location") ?? "").hasPrefix("https://todo.example.com/todos/"))
    }
}
