import Testing
@testable import TodoServer

@Suite("System module")
struct SystemModuleTests {
    let presenter = SystemPresenter(
        interactor: SystemInteractor(store: FakeTodoStore([makeTodo("a"), makeTodo("b")])),
        view: SystemView(serializer: JSONSerializer()))

    @Test("the index lists absolute links and the version")
    func index() throws {
        let capture = ResponseCapture()
        presenter.presentIndex(context: RequestContext(baseURL: "http://h:9"), respond: capture.respond)
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(response.text == #"{"links":{"health":"http://h:9/healthz","self":"http://h:9/","todos":"http://h:9/todos","upcoming":"http://h:9/todos/upcoming"},"name":"TodoServer","version":"0.1.0"}"#)
    }

    @Test("health is ok with the to-do count")
    func health() throws {
        let capture = ResponseCapture()
        presenter.presentHealth(context: RequestContext(baseURL: "http://h"), respond: capture.respond)
        #expect(capture.only?.status == 200)
        #expect(capture.only?.text == #"{"status":"ok","todos":2}"#)
    }
}
