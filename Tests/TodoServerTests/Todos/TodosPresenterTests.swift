import LockTracing
import Synchronization
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Keeps the answers a presenter returns, by kind: to-dos, lists, bodiless (204, 304), problems.
final class CapturingTodosView {
    let todos = Mutex<[ResponseViewModel<TodoViewModel>]>([])
    let lists = Mutex<[ResponseViewModel<TodoListViewModel>]>([])
    let empties = Mutex<[ResponseViewModel<NoBody>]>([])
    let problems = Mutex<[ResponseViewModel<ProblemDetails>]>([])

    func keep<Body>(_ answer: ViewAnswer<Body>) {
        switch answer {
        case .problem(let model): keep(model, in: problems)
        case .model(let model) where model.body == nil:
            keep(
                ResponseViewModel(status: model.status, headers: model.headers, contentType: model.contentType, body: NoBody?.none),
                in: empties)
        case .model(let model):
            if let model = model as? ResponseViewModel<TodoViewModel> { return keep(model, in: todos) }
            if let model = model as? ResponseViewModel<TodoListViewModel> { return keep(model, in: lists) }
            Issue.record("an unexpected view model: \(model)")
        }
    }

    private func keep<Model: Sendable>(_ model: Model, in list: borrowing Mutex<[Model]>) {
        list.withTracedLock { $0.append(model) }
    }
}

extension Pending {
    /// Hands the answer, when it is there, to `view`.
    func kept<Body>(in view: CapturingTodosView) where Value == ViewAnswer<Body> {
        whenReady { view.keep($0) }
    }
}

/// Use cases that answer with canned data and keep every request they are given (ids, typed
/// requests, conditions), so tests can check what reached them and that nothing else did.
final class StubTodosUseCases: TodosUseCases {
    /// One use case call and the typed request it carried.
    enum Call: Equatable {
        case list(TodoQuery)
        case create(TodoDraft)
        case get(id: String)
        case patch(id: String, TodoChange, RevisionCondition)
        case replace(id: String, TodoDraft, RevisionCondition)
        case delete(id: String, RevisionCondition)
        case deleteAll
    }

    let todo: Result<Todo, TodosError>
    let all: [Todo]
    let calls = Mutex<[Call]>([])
    /// The owners the presenter asked for, one per request, in order.
    let owners = Mutex<[Owner]>([])

    /// Itself (canned answers), noting the owner.
    func owned(by owner: Owner) -> StubTodosUseCases {
        owners.withTracedLock { $0.append(owner) }
        return self
    }

    init(todo: Result<Todo, TodosError>, all: [Todo] = []) {
        self.todo = todo
        self.all = all
    }

    var givenConditions: [RevisionCondition] {
        calls.withTracedLock { $0 }.compactMap { call in
            switch call {
            case .patch(_, _, let condition), .replace(_, _, let condition), .delete(_, let condition): condition
            default: nil
            }
        }
    }

    var givenIDs: [String] {
        calls.withTracedLock { $0 }.compactMap { call in
            switch call {
            case .get(let id), .patch(let id, _, _), .replace(let id, _, _), .delete(let id, _): id
            default: nil
            }
        }
    }

    func list(_ query: TodoQuery) -> Pending<Result<TodoListData, TodosError>> {
        record(.list(query))
        return .ready(
            .success(
                TodoListData(
                    items: Array(all.dropFirst(query.offset).prefix(query.limit)), total: all.count, offset: query.offset,
                    limit: query.limit)))
    }
    func create(_ draft: TodoDraft) -> Pending<Result<Todo, TodosError>> {
        record(.create(draft))
        return .ready(todo)
    }
    func get(id: String) -> Pending<Result<Todo, TodosError>> {
        record(.get(id: id))
        return .ready(todo)
    }
    func patch(id: String, with patch: TodoChange, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>> {
        record(.patch(id: id, patch, condition))
        return .ready(todo)
    }
    func replace(id: String, with draft: TodoDraft, condition: RevisionCondition) -> Pending<Result<Todo, TodosError>> {
        record(.replace(id: id, draft, condition))
        return .ready(todo)
    }
    func delete(id: String, condition: RevisionCondition) -> Pending<Result<Void, TodosError>> {
        record(.delete(id: id, condition))
        return .ready(todo.map { _ in () })
    }
    func deleteAll() -> Pending<Result<Void, TodosError>> {
        record(.deleteAll)
        return .ready(.success(()))
    }
    private func record(_ call: Call) { calls.withTracedLock { $0.append(call) } }
}

@Suite("TodosPresenter")
struct TodosPresenterTests {
    let data = makeTodo("abc", title: "Buy milk", order: 3, due: "2026-11-24", revision: 17)
    let context = RequestContext(baseURL: "http://localhost:8080")
    let draft = TodoDraft(title: "Buy milk", order: 3)

    @Test("every use case is asked of the request's owner's use cases, once per request")
    func owners() throws {
        let stub = StubTodosUseCases(todo: .success(data), all: [data])
        let presenter = TodosPresenter(interactor: stub)
        var owned = context
        owned.owner = Owner(name: "alice")!
        let view = CapturingTodosView()
        presenter.presentList(TodoQuery(), context: owned).kept(in: view)
        presenter.presentCreation(draft, context: owned).kept(in: view)
        presenter.presentTodo(id: "abc", context: context).kept(in: view)
        presenter.presentPatch(id: "abc", TodoChange(title: "x"), condition: .none, context: owned).kept(in: view)
        presenter.presentReplacement(id: "abc", draft, condition: .none, context: owned).kept(in: view)
        presenter.presentDeletion(id: "abc", condition: .none, context: owned).kept(in: view)
        presenter.presentDeletionOfAll(context: owned).kept(in: view)
        let alice = Owner(name: "alice")!
        #expect(stub.owners.withTracedLock { $0 } == [alice, alice, .shared, alice, alice, alice, alice])
    }

    @Test("a created to-do is 201 with Location and an absolute url")
    func created() throws {
        let view = CapturingTodosView()
        let stub = StubTodosUseCases(todo: .success(data))
        TodosPresenter(interactor: stub)
            .presentCreation(draft, context: context).kept(in: view)
        #expect(stub.calls.withTracedLock { $0 } == [.create(TodoDraft(title: "Buy milk", order: 3))])
        let model = try #require(view.todos.withTracedLock { $0.first })
        #expect(model.status == 201)
        #expect(model.headers["Location"] == "http://localhost:8080/todos/abc")
        #expect(model.headers["ETag"] == #""17""#)
        #expect(model.body?.url == "http://localhost:8080/todos/abc")
        #expect(model.body?.todo.dueDate == CalendarDay("2026-11-24"))
        #expect(model.body?.todo.createdAt == FakeClock.timestamp("2026-11-22T10:00:00.000Z"))
        #expect(model.contentType == "application/json")
    }

    @Test("read, patch and replace are 200 without Location")
    func ok() throws {
        let view = CapturingTodosView()
        let stub = StubTodosUseCases(todo: .success(data))
        let presenter = TodosPresenter(interactor: stub)
        presenter.presentTodo(id: "abc", context: context).kept(in: view)
        presenter.presentPatch(id: "abc", TodoChange(order: .clear), condition: .none, context: context).kept(in: view)
        presenter.presentReplacement(id: "abc", draft, condition: .none, context: context).kept(in: view)
        #expect(
            stub.calls.withTracedLock { $0 } == [
                .get(id: "abc"), .patch(id: "abc", TodoChange(order: .clear), .none),
                .replace(id: "abc", TodoDraft(title: "Buy milk", order: 3), .none),
            ])
        let models = view.todos.withTracedLock { $0 }
        #expect(models.map(\.status) == [200, 200, 200])
        #expect(models.allSatisfy { $0.headers["Location"] == nil })
        #expect(models.allSatisfy { $0.headers["ETag"] == #""17""# })
    }

    @Test("the list maps every to-do with the request's base URL")
    func list() throws {
        let view = CapturingTodosView()
        let stub = StubTodosUseCases(todo: .success(data), all: [data, makeTodo("def")])
        TodosPresenter(interactor: stub)
            .presentList(TodoQuery(), context: RequestContext(baseURL: "https://todo.example.com")).kept(in: view)
        let model = try #require(view.lists.withTracedLock { $0.first })
        #expect(model.status == 200)
        #expect(model.body?.map(\.url) == ["https://todo.example.com/todos/abc", "https://todo.example.com/todos/def"])
        // FNV-1a 64 of abc/17, def/0, total 2, offset 0, limit 500 (computed outside Swift).
        #expect(model.headers["ETag"] == #""list-83dac5d3f993dc26""#)
        #expect(model.headers["X-Total-Count"] == "2")
        #expect(model.headers["Link"] == nil)
    }

    @Test("a page of the list links first, prev, next and last, keeping the other parameters")
    func listLinks() throws {
        let view = CapturingTodosView()
        let all = (0..<25).map { makeTodo("t\($0)") }
        let context = RequestContext(
            baseURL: "http://h:1", query: QueryParameters("q=buy+milk&limit=10&offset=10&sort=-order"), path: "/todos")
        let query = TodoQuery(titleContains: "buy milk", sort: TodoSort(.order, descending: true), limit: 10, offset: 10)
        TodosPresenter(interactor: StubTodosUseCases(todo: .success(data), all: all))
            .presentList(query, context: context).kept(in: view)
        let model = try #require(view.lists.withTracedLock { $0.first })
        #expect(model.body?.map(\.todo.id) == (10..<20).map { "t\($0)" })
        #expect(model.headers["X-Total-Count"] == "25")
        #expect(
            model.headers["Link"]
                == [
                    #"<http://h:1/todos?q=buy%20milk&limit=10&offset=0&sort=-order>; rel="first""#,
                    #"<http://h:1/todos?q=buy%20milk&limit=10&offset=0&sort=-order>; rel="prev""#,
                    #"<http://h:1/todos?q=buy%20milk&limit=10&offset=20&sort=-order>; rel="next""#,
                    #"<http://h:1/todos?q=buy%20milk&limit=10&offset=20&sort=-order>; rel="last""#,
                ].joined(separator: ", "))
    }

    @Test("If-None-Match with the current tag is 304 with the ETag, for one to-do and for the list")
    func notModified() throws {
        let view = CapturingTodosView()
        let presenter = TodosPresenter(interactor: StubTodosUseCases(todo: .success(data), all: [data]))
        presenter.presentTodo(
            id: "abc", context: RequestContext(baseURL: "http://h", ifNoneMatch: EntityTagCondition(#"W/"17""#))
        ).kept(in: view)
        presenter.presentList(
            TodoQuery(), context: RequestContext(baseURL: "http://h", ifNoneMatch: EntityTagCondition(#"W/"list-a321638e4ffa4311""#))
        ).kept(in: view)
        presenter.presentList(
            TodoQuery(), context: RequestContext(baseURL: "http://h", ifNoneMatch: EntityTagCondition(#""list-83dac5d3f993dc26""#))
        ).kept(in: view)
        presenter.presentTodo(
            id: "abc", context: RequestContext(baseURL: "http://h", ifNoneMatch: EntityTagCondition(#""16""#))
        ).kept(in: view)
        let empties = view.empties.withTracedLock { $0 }
        #expect(empties.map(\.status) == [304, 304])
        #expect(empties.map { $0.headers["ETag"] } == [#""17""#, #""list-a321638e4ffa4311""#])
        #expect(view.todos.withTracedLock { $0.map(\.status) } == [200])
        #expect(view.lists.withTracedLock { $0.map(\.status) } == [200], "another page's tag is not the list's")
    }

    @Test("deletions are 204 with no body")
    func deletions() {
        let view = CapturingTodosView()
        let stub = StubTodosUseCases(todo: .success(data))
        let presenter = TodosPresenter(interactor: stub)
        presenter.presentDeletion(id: "abc", condition: .none, context: context).kept(in: view)
        presenter.presentDeletionOfAll(context: context).kept(in: view)
        #expect(stub.calls.withTracedLock { $0 } == [.delete(id: "abc", .none), .deleteAll])
        #expect(view.empties.withTracedLock { $0.map(\.status) } == [204, 204])
        #expect(view.empties.withTracedLock { $0.allSatisfy { $0.body == nil } })
    }

    @Test("errors become problem view models with their status")
    func problems() throws {
        let view = CapturingTodosView()
        let errors: [TodosError] = [
            .notFound(id: "x"), .store(StoreError(reason: "down")),
        ]
        for error in errors {
            TodosPresenter(interactor: StubTodosUseCases(todo: .failure(error)))
                .presentTodo(id: "x", context: context).kept(in: view)
        }
        let models = view.problems.withTracedLock { $0 }
        #expect(models.map(\.status) == [404, 503])
        TodosPresenter(interactor: StubTodosUseCases(todo: .failure(.conditionFailed(id: "x", current: 9, failure: .ifMatch))))
            .presentPatch(id: "x", TodoChange(title: "x"), condition: RevisionCondition(ifMatch: .oneOf([8])), context: context).kept(
                in: view)
        let precondition = try #require(view.problems.withTracedLock { $0.last })
        #expect(precondition.status == 412)
        #expect(precondition.headers["ETag"] == #""9""#)
        #expect(models.allSatisfy { $0.contentType == "application/problem+json" })
        #expect(models[0].body?.detail == "No to-do has the id 'x'.")
        #expect(models[1].headers["Retry-After"] == nil)
        #expect(models[1].body?.detail == "The to-do store is unavailable: down")
        TodosPresenter(interactor: StubTodosUseCases(todo: .failure(.store(StoreError(reason: "restarting", retryAfter: 5)))))
            .presentTodo(id: "x", context: context).kept(in: view)
        let retry = try #require(view.problems.withTracedLock { $0.last })
        #expect(retry.status == 503)
        #expect(retry.headers["Retry-After"] == "5")
    }
}
