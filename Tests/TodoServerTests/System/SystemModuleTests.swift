import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("System module")
struct SystemModuleTests {
    let view = SystemView(
        interactor: SystemInteractor(
            store: FakeTodoStore([makeTodo("a"), makeTodo("b")]), document: Array(#"{"openapi":"3.1.0"}"#.utf8),
            startedAt: FakeClock.timestamp("2026-11-22T10:00:00.000Z"), libeventVersion: "2.1.12-test"),
        serializer: JSONSerializer())

    @Test("the index lists absolute links and the version")
    func index() throws {
        let capture = ResponseCapture()
        view.handleIndex(context: RequestContext(baseURL: "http://h:9")).whenReady(capture.respond)
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(
            response.text
                == #"{"build":{"libevent":"2.1.12-test","platform":"\#(SystemInteractor.platform)","startedAt":"2026-11-22T10:00:00.000Z","swift":"\#(SystemInteractor.swiftVersion)"},"links":{"events":"http://h:9/todos/events","health":"http://h:9/healthz","metrics":"http://h:9/metrics","openapi":"http://h:9/openapi.json","self":"http://h:9/","todos":"http://h:9/todos","upcoming":"http://h:9/todos/upcoming"},"name":"TodoServer","version":"\#(SystemInteractor.version)"}"#
        )
    }

    @Test("health is ok with the to-do count when detailed, only ok when not")
    func health() throws {
        let capture = ResponseCapture()
        view.handleHealth(detailed: true, context: RequestContext(baseURL: "http://h")).whenReady(capture.respond)
        #expect(capture.only?.status == 200)
        #expect(capture.only?.text == #"{"status":"ok","todos":2}"#)
        let anonymous = ResponseCapture()
        view.handleHealth(detailed: false, context: RequestContext(baseURL: "http://h")).whenReady(anonymous.respond)
        #expect(anonymous.only?.status == 200)
        #expect(anonymous.only?.text == #"{"status":"ok"}"#)
    }

    @Test("a store that cannot answer: 503 unavailable; the reason only when detailed")
    func healthDown() throws {
        let reason = #"connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed"#
        let view = SystemView(
            interactor: SystemInteractor(
                store: FakeTodoStore([], failure: StoreError(reason: reason)), document: [],
                startedAt: FakeClock.timestamp("2026-11-22T10:00:00.000Z"),
                libeventVersion: "2.1.12-test"),
            serializer: JSONSerializer())
        let anonymous = ResponseCapture()
        view.handleHealth(detailed: false, context: RequestContext(baseURL: "http://h")).whenReady(anonymous.respond)
        #expect(anonymous.only?.status == 503)
        #expect(anonymous.only?.text == #"{"status":"unavailable"}"#)
        let detailed = ResponseCapture()
        view.handleHealth(detailed: true, context: RequestContext(baseURL: "http://h")).whenReady(detailed.respond)
        #expect(detailed.only?.status == 503)
        #expect(
            detailed.only?.text
                == #"{"reason":"connection to server on socket \"/run/postgresql/.s.PGSQL.5432\" failed","status":"unavailable","todos":0}"#
        )
    }

    @Test("the OpenAPI document is served as it is, as JSON")
    func document() throws {
        let capture = ResponseCapture()
        view.handleOpenAPIDocument(context: RequestContext(baseURL: "http://h")).whenReady(capture.respond)
        #expect(capture.only?.status == 200)
        #expect(capture.only?.header("Content-Type") == "application/json")
        #expect(capture.only?.text == #"{"openapi":"3.1.0"}"#)
    }

    @Test("the document's first servers URL becomes the request's base URL, escaped as JSON")
    func documentServers() throws {
        let document =
            #"{"openapi": "3.1.0", "servers": [ {"url" : "http://localhost:8080", "description": "x"}, {"url": "http://b"} ], "info": {"url": "keep"}}"#
        let view = SystemView(
            interactor: SystemInteractor(
                store: FakeTodoStore([]), document: Array(document.utf8), startedAt: FakeClock.timestamp("2026-11-22T10:00:00.000Z"),
                libeventVersion: "2.1.12-test"),
            serializer: JSONSerializer())
        let capture = ResponseCapture()
        view.handleOpenAPIDocument(context: RequestContext(baseURL: "http://todo.example:9000")).whenReady(capture.respond)
        #expect(
            capture.only?.text
                == #"{"openapi": "3.1.0", "servers": [ {"url" : "http://todo.example:9000", "description": "x"}, {"url": "http://b"} ], "info": {"url": "keep"}}"#
        )
        let quoted = ResponseCapture()
        view.handleOpenAPIDocument(context: RequestContext(baseURL: #"http://a"b"#)).whenReady(quoted.respond)
        #expect(
            quoted.only?.text
                == #"{"openapi": "3.1.0", "servers": [ {"url" : "http://a\"b", "description": "x"}, {"url": "http://b"} ], "info": {"url": "keep"}}"#
        )
    }
}
