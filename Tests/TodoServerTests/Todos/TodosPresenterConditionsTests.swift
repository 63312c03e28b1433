import LockTracing
import EventHTTP
import Testing
@testable import TodoServer

@Suite("TodosPresenter: preconditions")
struct TodosPresenterConditionsTests {
    let data = TodoData(makeTodo("abc", title: "Buy milk", revision: 17))

    @Test("PATCH, PUT and DELETE hand the id and the revisions If-Match and If-None-Match name to the use cases")
    func passesPreconditions() {
        let stub = StubTodosUseCases(todo: .success(data))
        let presenter = TodosPresenter(interactor: stub, view: CapturingTodosView())
        let context = RequestContext(
            baseURL: "http://localhost:8080", ifMatch: EntityTagCondition(#""17""#), ifNoneMatch: .any)
        presenter.presentPatch(id: "abc", body: Array(#"{"title":"x"}"#.utf8), context: context) { _ in }
        presenter.presentReplacement(id: "abc", body: Array(#"{"title":"x"}"#.utf8), context: context) { _ in }
        presenter.presentDeletion(id: "abc", context: context) { _ in }
        presenter.presentDeletion(id: "def", context: RequestContext(baseURL: "http://localhost:8080")) { _ in }
        let weak = RequestContext(
            baseURL: "http://localhost:8080", ifMatch: EntityTagCondition(#"W/"17", "17", "list-1", "017""#),
            ifNoneMatch: EntityTagCondition(#"W/"17", "18", "x""#))
        presenter.presentPatch(id: "ghi", body: Array(#"{"title":"x"}"#.utf8), context: weak) { _ in }
        let expected = RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .any)
        #expect(stub.givenConditions == [
            expected, expected, expected, .none, RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .oneOf([17, 18])),
        ])
        #expect(stub.givenIDs == ["abc", "abc", "abc", "def", "ghi"])
    }

    @Test("a 412 for a missing to-do carries no ETag; one for an existing to-do carries its tag")
    func preconditionHeaders() throws {
        let view = CapturingTodosView()
        let context = RequestContext(baseURL: "http://localhost:8080")
        TodosPresenter(interactor: StubTodosUseCases(todo: .failure(.conditionFailed(id: "x", current: nil, failure: .ifMatchAnyButMissing))), view: view)
            .presentDeletion(id: "x", context: context) { _ in }
        TodosPresenter(interactor: StubTodosUseCases(todo: .failure(.conditionFailed(id: "x", current: 4, failure: .ifNoneMatch))), view: view)
            .presentReplacement(id: "x", body: Array(#"{"title":"x"}"#.utf8), context: context) { _ in }
        let problems = view.problems.withTracedLock { $0 }
        #expect(problems.map(\.status) == [412, 412])
        #expect(problems.map { $0.headers["ETag"] } == [nil, #""4""#])
        #expect(problems[0].body?.detail == "If-Match: * asks for an existing to-do, and no to-do has the id 'x'.")
    }
}
