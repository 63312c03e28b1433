import TestSupport
import Testing

@testable import TodoServer

@Suite("End to end: a form body")
struct FormBodyEndToEndTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test("a form-encoded body (http --form, an HTML form) gets a 400 that says to send JSON, and stores nothing")
    func formBody() async throws {
        let created = try await server.request(
            "POST", "/todos", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "title=Buy+milk&order=1")
        #expect(created.status == 400)
        #expect(created.header("Content-Type") == "application/problem+json")
        #expect(
            created.object["detail"] as? String
                == #"The body is form-encoded (name=value), not JSON; send JSON (Content-Type: application/json), such as {"title":"Buy milk"}."#
        )
        #expect(server.store.count == 0)
        // curl -d '{…}' sends JSON under the same form type: still read as JSON.
        let json = try await server.request(
            "POST", "/todos", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: #"{"title":"Buy milk"}"#)
        #expect(json.status == 201)
    }
}
