import Testing
@testable import TodoServer

@Suite("System module")
struct SystemModuleTests {
    let presenter = SystemPresenter(
        interactor: SystemInteractor(
            store: FakeTodoStore([makeTodo("a"), makeTodo("b")]), document: Array(#"{"openapi":"3.1.0"}"#.utf8),
            startedAt: FakeClock.timestamp("2026-11-22T10:00:00.000Z")),
        view: SystemView(serializer: JSONSerializer()))

    @Test("the index lists absolute links and the version")
    func index() throws {
        let capture = ResponseCapture()
        presenter.presentIndex(context: RequestContext(baseURL: "http://h:9"), respond: capture.respond)
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(response.text == #"{"build":{"libevent":"2.1.12-stable","platform":"linux-x86_64","startedAt":"2026-11-22T10:00:00.000Z","swift":"6.3"},"links":{"health":"http://h:9/healthz","metrics":"http://h:9/metrics","openapi":"http://h:9/openapi.json","self":"http://h:9/","todos":"http://h:9/todos","upcoming":"http://h:9/todos/upcoming"},"name":"TodoServer","version":"0.2.0"}"#)
    }

    @Test("health is ok with the to-do count")
    func health() throws {
        let capture = ResponseCapture()
        presenter.presentHealth(context: RequestContext(baseURL: "http://h"), respond: capture.respond)
        #expect(capture.only?.status == 200)
        #expect(capture.only?.text == #"{"status":"ok","todos":2}"#)
    }

    @Test("the OpenAPI document is served as it is, as JSON")
    func document() throws {
        let capture = ResponseCapture()
        presenter.presentOpenAPIDocument(context: RequestContext(baseURL: "http://h"), respond: capture.respond)
        #expect(capture.only?.status == 200)
        #expect(capture.only?.header("Content-Type") == "application/json")
        #expect(capture.only?.text == #"{"openapi":"3.1.0"}"#)
    }
}
