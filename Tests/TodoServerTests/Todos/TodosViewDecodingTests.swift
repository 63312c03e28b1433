import HTTPValues
import LockTracing
import Synchronization
import Testing

@testable import TodoData
@testable import TodoServer

/// A presenter that keeps every typed request the view hands it, with the context's `If-None-Match`,
/// and answers each with an empty 204.
final class RecordingTodosPresenter: TodosModuleInput {
    /// One presenter call and the typed values it carried.
    enum Call: Equatable {
        case list(TodoQuery)
        case create(TodoDraft)
        case deleteAll
        case get(id: String)
        case patch(id: String, TodoChange, RevisionCondition)
        case replace(id: String, TodoDraft, RevisionCondition)
        case delete(id: String, RevisionCondition)
    }

    let calls = Mutex<[Call]>([])
    let ifNoneMatches = Mutex<[EntityTagCondition?]>([])

    func presentList(_ query: TodoQuery, context: RequestContext) -> Pending<ViewAnswer<TodoListViewModel>> {
        answer(.list(query), context)
    }
    func presentCreation(_ draft: TodoDraft, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        answer(.create(draft), context)
    }
    func presentDeletionOfAll(context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        answer(.deleteAll, context)
    }
    func presentTodo(id: String, context: RequestContext) -> Pending<ViewAnswer<TodoViewModel>> {
        answer(.get(id: id), context)
    }
    func presentPatch(
        id: String, _ patch: TodoChange, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        answer(.patch(id: id, patch, condition), context)
    }
    func presentReplacement(
        id: String, _ draft: TodoDraft, condition: RevisionCondition, context: RequestContext
    ) -> Pending<ViewAnswer<TodoViewModel>> {
        answer(.replace(id: id, draft, condition), context)
    }
    func presentDeletion(id: String, condition: RevisionCondition, context: RequestContext) -> Pending<ViewAnswer<NoBody>> {
        answer(.delete(id: id, condition), context)
    }

    private func answer<Body>(_ call: Call, _ context: RequestContext) -> Pending<ViewAnswer<Body>> {
        calls.withTracedLock { $0.append(call) }
        ifNoneMatches.withTracedLock { $0.append(context.ifNoneMatch) }
        return .ready(.model(ResponseViewModel(status: 204, body: nil)))
    }
}

@Suite("TodosView: decoding requests")
struct TodosViewDecodingTests {
    let presenter = RecordingTodosPresenter()
    var view: TodosView<RecordingTodosPresenter> { TodosView(presenter: presenter, serializer: JSONSerializer()) }
    let context = RequestContext(baseURL: "http://h:1", path: "/todos")

    private func request(_ method: HTTPMethod, _ body: String) -> HTTPRequest {
        HTTPRequest(method: method, uri: "/todos", body: Array(body.utf8))
    }

    @Test("a body that is not a JSON object is a 400 problem from the view; the presenter is not called")
    func malformedBody() throws {
        let capture = ResponseCapture()
        view.handleCreation(request(.post, #"{"title":"x",}"#), context: context).whenReady(capture.respond)
        view.handleReplacement(id: "a", request(.put, ""), context: context).whenReady(capture.respond)
        view.handlePatch(id: "a", request(.patch, #"["title"]"#), context: context).whenReady(capture.respond)
        #expect(capture.responses.map(\.status) == [400, 400, 400])
        #expect(capture.responses.allSatisfy { $0.header("Content-Type") == "application/problem+json" })
        #expect(
            capture.responses.map(\.text) == [
                #"{"detail":"The body is not valid JSON: trailing comma in object at byte 13.","status":400,"title":"Bad Request","type":"about:blank"}"#,
                #"{"detail":"The request body is empty; a JSON object is expected.","status":400,"title":"Bad Request","type":"about:blank"}"#,
                #"{"detail":"The body must be a JSON object, not an array.","status":400,"title":"Bad Request","type":"about:blank"}"#,
            ])
        #expect(presenter.calls.withTracedLock { $0 } == [])
    }

    @Test("invalid fields are a 422 problem naming each field, before the presenter or any condition")
    func invalidFields() throws {
        let capture = ResponseCapture()
        let conditional = RequestContext(baseURL: "http://h:1", ifMatch: .any)
        view.handleCreation(request(.post, #"{"title":""}"#), context: context).whenReady(capture.respond)
        view.handlePatch(id: "missing", request(.patch, #"{"order":"3","colour":1}"#), context: conditional).whenReady(capture.respond)
        #expect(capture.responses.map(\.status) == [422, 422])
        #expect(
            capture.responses.map(\.text) == [
                #"{"detail":"The body has invalid fields: title.","errors":[{"field":"title","message":"must not be empty"}],"status":422,"title":"Unprocessable Content","type":"about:blank"}"#,
                #"{"detail":"The body has invalid fields: colour, order.","errors":[{"field":"colour","message":"is not a known field"},{"field":"order","message":"must be an integer or null, not a string"}],"status":422,"title":"Unprocessable Content","type":"about:blank"}"#,
            ])
        #expect(presenter.calls.withTracedLock { $0 } == [])
    }

    @Test("a bad list query parameter is a 400 problem naming it; the presenter is not called")
    func badQuery() throws {
        for (query, name) in [
            ("completed=yes", "completed"), ("sort=priority", "sort"), ("sort=-", "sort"), ("limit=0", "limit"),
            ("limit=1001", "limit"), ("limit=abc", "limit"), ("offset=-1", "offset"), ("offset=1.5", "offset"),
            ("limit=1&limit=2", "limit"),
            // Issue 35: digits only, read without wrapping (Swift's Int("+5") would take a sign).
            ("limit=+5", "limit"), ("offset=+1", "offset"), ("offset=-0", "offset"), ("limit=%2B5", "limit"),
            ("offset=99999999999999999999", "offset"), ("offset=9223372036854775808", "offset"), ("limit=18446744073709551621", "limit"),
        ] {
            let capture = ResponseCapture()
            view.handleList(
                context: RequestContext(baseURL: "http://h:1", query: QueryParameters(query), path: "/todos")
            ).whenReady(capture.respond)
            let response = try #require(capture.only)
            #expect(response.status == 400, "\(query)")
            #expect(response.text.contains(#""detail":"Query parameter '\#(name)' is "#), "\(query): \(response.text)")
        }
        let capture = ResponseCapture()
        view.handleList(
            context: RequestContext(baseURL: "http://h:1", query: QueryParameters("limit=0"), path: "/todos")
        ).whenReady(capture.respond)
        #expect(
            capture.only?.text
                == #"{"detail":"Query parameter 'limit' is '0' but must be an integer from 1 to 1000.","status":400,"title":"Bad Request","type":"about:blank"}"#
        )
        #expect(presenter.calls.withTracedLock { $0 } == [])
    }

    @Test("good requests reach the presenter as typed models, and the presenter answers through this view")
    func typedRequests() throws {
        let capture = ResponseCapture()
        let listContext = RequestContext(
            baseURL: "http://h:1", query: QueryParameters("completed=true&q=milk&sort=-title&limit=5&offset=10&_=1"), path: "/todos",
            ifNoneMatch: EntityTagCondition(#"W/"list-1""#))
        view.handleList(context: listContext).whenReady(capture.respond)
        view.handleCreation(
            request(.post, #"{"title":" x ","completed":true,"dueDate":"2026-11-24","id":"ignored"}"#), context: context
        ).whenReady(capture.respond)
        view.handleTodo(id: "abc", context: context).whenReady(capture.respond)
        view.handlePatch(id: "abc", request(.patch, #"{"dueDate":null,"order":7}"#), context: context).whenReady(capture.respond)
        view.handleReplacement(id: "abc", request(.put, #"{"title":"y"}"#), context: context).whenReady(capture.respond)
        view.handleDeletion(id: "def", context: context).whenReady(capture.respond)
        view.handleDeletionOfAll(context: context).whenReady(capture.respond)
        #expect(
            presenter.calls.withTracedLock { $0 } == [
                .list(TodoQuery(completed: true, titleContains: "milk", sort: TodoSort(.title, descending: true), limit: 5, offset: 10)),
                .create(TodoDraft(title: "x", completed: true, dueDate: CalendarDay("2026-11-24"))),
                .get(id: "abc"),
                .patch(id: "abc", TodoChange(order: .set(7), dueDate: .clear), .none),
                .replace(id: "abc", TodoDraft(title: "y"), .none),
                .delete(id: "def", .none),
                .deleteAll,
            ])
        #expect(presenter.ifNoneMatches.withTracedLock { $0.first } == EntityTagCondition(#"W/"list-1""#))
        #expect(capture.responses.map(\.status) == [204, 204, 204, 204, 204, 204, 204])
    }

    @Test("If-Match and If-None-Match reach the presenter as the revisions they name, for PATCH, PUT and DELETE")
    func conditions() {
        let capture = ResponseCapture()
        let both = RequestContext(baseURL: "http://h:1", ifMatch: EntityTagCondition(#""17""#), ifNoneMatch: .any)
        let weak = RequestContext(
            baseURL: "http://h:1", ifMatch: EntityTagCondition(#"W/"17", "17", "list-1", "017""#),
            ifNoneMatch: EntityTagCondition(#"W/"17", "18", "x""#))
        view.handlePatch(id: "abc", request(.patch, #"{"title":"x"}"#), context: both).whenReady(capture.respond)
        view.handleReplacement(id: "abc", request(.put, #"{"title":"x"}"#), context: both).whenReady(capture.respond)
        view.handleDeletion(id: "abc", context: both).whenReady(capture.respond)
        view.handleDeletion(id: "def", context: RequestContext(baseURL: "http://h:1")).whenReady(capture.respond)
        view.handlePatch(id: "ghi", request(.patch, #"{"title":"x"}"#), context: weak).whenReady(capture.respond)
        let expected = RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .any)
        #expect(
            presenter.calls.withTracedLock { $0 } == [
                .patch(id: "abc", TodoChange(title: "x"), expected), .replace(id: "abc", TodoDraft(title: "x"), expected),
                .delete(id: "abc", expected), .delete(id: "def", .none),
                .patch(id: "ghi", TodoChange(title: "x"), RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .oneOf([17, 18]))),
            ])
    }
}
