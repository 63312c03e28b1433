import EventHTTP
import LockTracing
import Testing
@testable import TodoServer

@Suite("TodosView: decoding requests")
struct TodosViewDecodingTests {
    let view = TodosView(serializer: JSONSerializer())
    let context = RequestContext(baseURL: "http://h:1", path: "/todos")

    /// The presenter over the real view, with use cases that record every call.
    private func presenter(_ stub: StubTodosUseCases) -> TodosPresenter { TodosPresenter(interactor: stub, view: view) }

    @Test("a body that is not a JSON object is a 400 problem from the view; no use case is called")
    func malformedBody() throws {
        let stub = StubTodosUseCases(todo: .success(TodoData(makeTodo("a"))))
        let capture = ResponseCapture()
        presenter(stub).presentCreation(body: Array(#"{"title":"x",}"#.utf8), context: context, respond: capture.respond)
        presenter(stub).presentReplacement(id: "a", body: [], context: context, respond: capture.respond)
        presenter(stub).presentPatch(id: "a", body: Array(#"["title"]"#.utf8), context: context, respond: capture.respond)
        #expect(capture.responses.map(\.status) == [400, 400, 400])
        #expect(capture.responses.allSatisfy { $0.header("Content-Type") == "application/problem+json" })
        #expect(capture.responses.map(\.text) == [
            #"{"detail":"The body is not valid JSON: trailing comma in object at byte 13.","status":400,"title":"Bad Request","type":"about:blank"}"#,
            #"{"detail":"The request body is empty; a JSON object is expected.","status":400,"title":"Bad Request","type":"about:blank"}"#,
            #"{"detail":"The body must be a JSON object, not an array.","status":400,"title":"Bad Request","type":"about:blank"}"#,
        ])
        #expect(stub.calls.withTracedLock { $0 } == [])
    }

    @Test("invalid fields are a 422 problem naming each field, before any use case or condition")
    func invalidFields() throws {
        let stub = StubTodosUseCases(todo: .success(TodoData(makeTodo("a"))))
        let capture = ResponseCapture()
        let conditional = RequestContext(baseURL: "http://h:1", ifMatch: .any)
        presenter(stub).presentCreation(body: Array(#"{"title":""}"#.utf8), context: context, respond: capture.respond)
        presenter(stub).presentPatch(id: "missing", body: Array(#"{"order":"3","colour":1}"#.utf8), context: conditional, respond: capture.respond)
        #expect(capture.responses.map(\.status) == [422, 422])
        #expect(capture.responses.map(\.text) == [
            #"{"detail":"The body has invalid fields: title.","errors":[{"field":"title","message":"must not be empty"}],"status":422,"title":"Unprocessable Content","type":"about:blank"}"#,
            #"{"detail":"The body has invalid fields: colour, order.","errors":[{"field":"colour","message":"is not a known field"},{"field":"order","message":"must be an integer or null, not a string"}],"status":422,"title":"Unprocessable Content","type":"about:blank"}"#,
        ])
        #expect(stub.calls.withTracedLock { $0 } == [])
    }

    @Test("a bad list query parameter is a 400 problem naming it; no use case is called")
    func badQuery() throws {
        let stub = StubTodosUseCases(todo: .success(TodoData(makeTodo("a"))))
        for (query, name) in [
            ("completed=yes", "completed"), ("sort=priority", "sort"), ("sort=-", "sort"), ("limit=0", "limit"),
            ("limit=1001", "limit"), ("limit=abc", "limit"), ("offset=-1", "offset"), ("offset=1.5", "offset"),
            ("limit=1&limit=2", "limit"),
        ] {
            let capture = ResponseCapture()
            presenter(stub).presentList(
                context: RequestContext(baseURL: "http://h:1", query: QueryParameters(query), path: "/todos"), respond: capture.respond)
            let response = try #require(capture.only)
            #expect(response.status == 400, "\(query)")
            #expect(response.text.contains(#""detail":"Query parameter '\#(name)' is "#), "\(query): \(response.text)")
        }
        let capture = ResponseCapture()
        presenter(stub).presentList(
            context: RequestContext(baseURL: "http://h:1", query: QueryParameters("limit=0"), path: "/todos"), respond: capture.respond)
        #expect(capture.only?.text
            == #"{"detail":"Query parameter 'limit' is '0' but must be an integer from 1 to 1000.","status":400,"title":"Bad Request","type":"about:blank"}"#)
        #expect(stub.calls.withTracedLock { $0 } == [])
    }

    @Test("a good request reaches the use case as its typed model")
    func typedRequests() throws {
        #expect(try view.query(from: QueryParameters("completed=true&q=milk&sort=-title&limit=5&offset=10&_=1")).get()
            == TodoQuery(completed: true, titleContains: "milk", sort: TodoSort(.title, descending: true), limit: 5, offset: 10))
        #expect(try view.draft(from: Array(#"{"title":" x ","completed":true,"dueDate":"2026-11-24","id":"ignored"}"#.utf8)).get()
            == TodoDraft(title: "x", completed: true, dueDate: CalendarDay("2026-11-24")))
        #expect(try view.patch(from: Array(#"{"dueDate":null,"order":7}"#.utf8)).get() == TodoPatch(order: 7, dueDate: .some(nil)))
        #expect(view.condition(ifMatch: nil, ifNoneMatch: nil) == .none)
        #expect(view.condition(ifMatch: EntityTagCondition(#""4", W/"5""#), ifNoneMatch: .any)
            == RevisionCondition(ifMatch: .oneOf([4]), ifNoneMatch: .any))
        let stub = StubTodosUseCases(todo: .success(TodoData(makeTodo("a"))))
        presenter(stub).presentList(
            context: RequestContext(baseURL: "http://h:1", query: QueryParameters("q=milk&limit=2"), path: "/todos")) { _ in }
        #expect(stub.calls.withTracedLock { $0 } == [.list(TodoQuery(titleContains: "milk", limit: 2))])
    }
}
