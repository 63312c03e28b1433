import LockTracing
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("TodosPresenter: preconditions")
struct TodosPresenterConditionsTests {
    let data = makeTodo("abc", title: "Buy milk", revision: 17)

    @Test("PATCH, PUT and DELETE hand the id, the typed change and the view's revision condition to the use cases unchanged")
    func passesPreconditions() {
        let stub = StubTodosUseCases(todo: .success(data))
        let presenter = TodosPresenter(interactor: stub)
        let view = CapturingTodosView()
        let context = RequestContext(baseURL: "http://localhost:8080")
        let both = RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .any)
        let several = RevisionCondition(ifMatch: .oneOf([17]), ifNoneMatch: .oneOf([17, 18]))
        presenter.presentPatch(id: "abc", TodoChange(title: "x"), condition: both, context: context).kept(in: view)
        presenter.presentReplacement(id: "abc", TodoDraft(title: "y"), condition: both, context: context).kept(in: view)
        presenter.presentDeletion(id: "abc", condition: both, context: context).kept(in: view)
        presenter.presentDeletion(id: "def", condition: .none, context: context).kept(in: view)
        presenter.presentPatch(id: "ghi", TodoChange(order: .clear), condition: several, context: context).kept(in: view)
        #expect(
            stub.calls.withTracedLock { $0 } == [
                .patch(id: "abc", TodoChange(title: "x"), both), .replace(id: "abc", TodoDraft(title: "y"), both), .delete(id: "abc", both),
                .delete(id: "def", .none), .patch(id: "ghi", TodoChange(order: .clear), several),
            ])
    }

    @Test("a 412 for a missing to-do carries no ETag; one for an existing to-do carries its tag")
    func preconditionHeaders() throws {
        let view = CapturingTodosView()
        let context = RequestContext(baseURL: "http://localhost:8080")
        TodosPresenter(
            interactor: StubTodosUseCases(todo: .failure(.conditionFailed(id: "x", current: nil, failure: .ifMatchAnyButMissing)))
        )
        .presentDeletion(id: "x", condition: RevisionCondition(ifMatch: .any), context: context).kept(in: view)
        TodosPresenter(interactor: StubTodosUseCases(todo: .failure(.conditionFailed(id: "x", current: 4, failure: .ifNoneMatch))))
            .presentReplacement(
                id: "x", TodoDraft(title: "x"), condition: RevisionCondition(ifNoneMatch: .any), context: context
            ).kept(in: view)
        let problems = view.problems.withTracedLock { $0 }
        #expect(problems.map(\.status) == [412, 412])
        #expect(problems.map { $0.headers["ETag"] } == [nil, #""4""#])
        #expect(problems[0].body?.detail == "If-Match: * asks for an existing to-do, and no to-do has the id 'x'.")
    }
}
