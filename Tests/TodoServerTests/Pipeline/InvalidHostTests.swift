import HTTPValues
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// A `Host` value that is not `uri-host [":" port]` (RFC 9112 §3.2) is answered 400 before any
/// module runs, and never built into a link.
@Suite("RequestPipeline: invalid Host (in process)")
struct InvalidHostTests {
    @Test(
        "an invalid Host is 400 problem+json, closes the connection, and is not echoed",
        arguments: [
            "[::1", "x:99999999", "-", ":8080", "evil.example/path", "a..b", "[::1]:80x",
        ])
    func invalid(host: String) async throws {
        let store = FakeTodoStore([makeTodo("abc")])
        let client = try InProcessClient(store: store)
        for (method, target, body) in [(HTTPMethod.get, "/todos", ""), (.get, "/", ""), (.post, "/todos", #"{"title":"x"}"#)] {
            let response = await client.request(method, target, headers: ["Host": host], body: body)
            #expect(response.status == 400, "\(method) \(target)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.header("Connection") == "close")
            #expect(response.header("Location") == nil && response.header("Link") == nil)
            #expect(
                response.text
                    == #"{"detail":"The Host header is not a host name or address with an optional port.","status":400,"title":"Bad Request","type":"about:blank"}"#
            )
        }
        #expect(store.count == 1, "nothing was created")
        #expect(store.callNames == [], "no module ran")
    }

    @Test("valid hosts build the links: a name with a port, a bracketed IPv6 address, a name with a trailing dot")
    func valid() async throws {
        let client = try InProcessClient(store: FakeTodoStore([makeTodo("abc")]))
        for host in ["todo.example:8080", "[::1]:9000", "todo.example."] {
            let index = await client.request(.get, "/", headers: ["Host": host])
            #expect(index.status == 200)
            #expect((index.object["links"] as? [String: String])?["todos"] == "http://\(host)/todos")
        }
    }
}
