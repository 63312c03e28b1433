import LockTracing
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("TodosInteractor")
struct TodosInteractorTests: TodosInteractorFixture {
    let clock = FakeClock("2026-11-22T10:00:00.000Z")

    @Test("create assigns the next id and the clock's time, and stores the entity")
    func create() throws {
        let store = FakeTodoStore()
        let todos = interactor(store)
        let created = try #require(run { todos.create(draft(#"{"title":" Buy milk ","order":3}"#)) }).get()
        #expect(created.id == "id-1")
        #expect(created.title == "Buy milk")
        #expect(created.order == 3)
        #expect(created.createdAt.description == "2026-11-22T10:00:00.000Z")
        #expect(created.updatedAt == created.createdAt)
        #expect(store.stored["id-1"]?.title == "Buy milk")
        let second = try #require(run { todos.create(draft(#"{"title":"x"}"#)) }).get()
        #expect(second.id == "id-2")
    }

    @Test("lists by order (unset last), then createdAt, then id")
    func listOrder() throws {
        let store = FakeTodoStore([
            makeTodo("n2", order: nil, created: "2026-11-22T10:00:02.000Z"),
            makeTodo("o5", order: 5, created: "2026-11-22T10:00:00.000Z"),
            makeTodo("n1", order: nil, created: "2026-11-22T10:00:01.000Z"),
            makeTodo("o1b", order: 1, created: "2026-11-22T10:00:03.000Z"),
            makeTodo("o1a", order: 1, created: "2026-11-22T10:00:03.000Z"),
            makeTodo("neg", order: -2, created: "2026-11-22T10:00:09.000Z"),
        ])
        let list = try #require(run { interactor(store).list(TodoQuery()) }).get()
        #expect(list.items.map(\.id) == ["neg", "o1a", "o1b", "o5", "n1", "n2"])
        #expect(list.total == 6)
        #expect(list.limit == 500)
        #expect(list.offset == 0)
    }

    @Test("patch changes only the given fields, clears with null and moves updatedAt")
    func patch() throws {
        let store = FakeTodoStore([makeTodo("a", title: "Old", order: 523, due: "2026-11-24")])
        let todos = interactor(store)
        clock.set("2026-11-22T11:00:00.500Z")
        let patched = try #require(
            run { todos.patch(id: "a", with: patch(#"{"order":95,"dueDate":null}"#), condition: .none) }
        ).get()
        #expect(patched.title == "Old")
        #expect(patched.order == 95)
        #expect(patched.dueDate == nil)
        #expect(patched.createdAt.description == "2026-11-22T10:00:00.000Z")
        #expect(patched.updatedAt.description == "2026-11-22T11:00:00.500Z")
        #expect(store.stored["a"]?.order == 95)
        #expect(
            store.calls.withTracedLock { $0 } == [
                .update(
                    id: "a", change: TodoChange(order: .set(95), dueDate: .clear), condition: .none,
                    time: FakeClock.timestamp("2026-11-22T11:00:00.500Z"))
            ])
    }

    @Test("replace sets every writable field, absent ones to their defaults")
    func replace() throws {
        let store = FakeTodoStore([makeTodo("a", title: "Old", completed: true, order: 4, due: "2026-11-24")])
        let replaced = try #require(
            run { interactor(store).replace(id: "a", with: draft(#"{"title":"New"}"#), condition: .none) }
        ).get()
        #expect(replaced.title == "New")
        #expect(replaced.completed == false)
        #expect(replaced.order == nil)
        #expect(replaced.dueDate == nil)
    }

    @Test("unknown ids are not found, for every use case")
    func notFound() {
        let todos = interactor(FakeTodoStore())
        #expect(run { todos.get(id: "nope") } == .failure(.notFound(id: "nope")))
        #expect(run { todos.patch(id: "nope", with: patch("{}"), condition: .none) } == .failure(.notFound(id: "nope")))
        #expect(
            run { todos.replace(id: "nope", with: draft(#"{"title":"x"}"#), condition: .none) }
                == .failure(.notFound(id: "nope")))
        #expect(run { todos.delete(id: "nope", condition: .none) }.map { $0.map { 0 } } == .failure(.notFound(id: "nope")))
        #expect(TodosError.notFound(id: "nope").problem.status == 404)
    }

    @Test("delete one and delete all")
    func delete() {
        let store = FakeTodoStore([makeTodo("a"), makeTodo("b")])
        let todos = interactor(store)
        #expect(run { todos.delete(id: "a", condition: .none) }.map { $0.map { 0 } } == .success(0))
        #expect(store.stored.keys.sorted() == ["b"])
        #expect(run { todos.deleteAll() }.map { $0.map { 0 } } == .success(0))
        #expect(store.count == 0)
    }

    @Test("a store outage is a 503 problem")
    func storeFailure() {
        let todos = interactor(FakeTodoStore(failure: StoreError(reason: "down")))
        let result = run { todos.list(TodoQuery()) }
        #expect(result.map { $0.map(\.total) } == .failure(.store(StoreError(reason: "down"))))
        #expect(TodosError.store(StoreError(reason: "down")).problem.status == 503)
    }

    @Test("answers only when a store that completes later does")
    func deferredStore() throws {
        let store = FakeTodoStore([makeTodo("a", title: "A")], deferred: true)
        let todos = interactor(store)
        var answer: Result<Todo, TodosError>?
        todos.get(id: "a").whenReady { answer = $0 }
        #expect(answer == nil)
        #expect(store.release() == 1)
        #expect(try #require(answer).get().title == "A")
    }

    @Test("If-Match: a matching revision or any applies the change; a stale one is 412 and changes nothing")
    func ifMatch() throws {
        let store = FakeTodoStore([makeTodo("a", title: "Old", revision: 7)])
        let todos = interactor(store)
        let stale = run {
            todos.patch(id: "a", with: patch(#"{"title":"Mine"}"#), condition: RevisionCondition(ifMatch: .oneOf([6])))
        }
        #expect(stale == .failure(.conditionFailed(id: "a", current: 7, failure: .ifMatch)))
        #expect(store.stored["a"]?.title == "Old")
        #expect(TodosError.conditionFailed(id: "a", current: 7, failure: .ifMatch).problem.status == 412)
        // If-Match: W/"7" names no revision (the presenter drops weak tags): nothing matches.
        let weak = run {
            todos.replace(id: "a", with: draft(#"{"title":"Mine"}"#), condition: RevisionCondition(ifMatch: .oneOf([])))
        }
        #expect(weak == .failure(.conditionFailed(id: "a", current: 7, failure: .ifMatch)))
        let patched = try #require(
            run {
                todos.patch(
                    id: "a", with: patch(#"{"title":"Mine"}"#), condition: RevisionCondition(ifMatch: .oneOf([5, 7])))
            }
        ).get()
        #expect(patched.title == "Mine")
        #expect(patched.revision == 8)
        let any = try #require(
            run { todos.patch(id: "a", with: patch(#"{"order":1}"#), condition: RevisionCondition(ifMatch: .any)) }
        ).get()
        #expect(any.revision == 9)
        let staleDelete = run { todos.delete(id: "a", condition: RevisionCondition(ifMatch: .oneOf([8]))) }
        #expect(staleDelete.map { $0.map { 0 } } == .failure(.conditionFailed(id: "a", current: 9, failure: .ifMatch)))
        #expect(store.count == 1)
        #expect(
            run { todos.delete(id: "a", condition: RevisionCondition(ifMatch: .oneOf([9]))) }.map { $0.map { 0 } }
                == .success(0))
        #expect(store.count == 0)
    }

    @Test("list queries: filters, sort, page")
    func listQueries() throws {
        let store = FakeTodoStore([
            makeTodo("a", title: "Buy milk", order: 2, due: "2026-12-01", created: "2026-11-22T10:00:01.000Z"),
            makeTodo("b", title: "buy bread", completed: true, order: 1, created: "2026-11-22T10:00:02.000Z"),
            makeTodo("c", title: "Call mum", due: "2026-11-23", created: "2026-11-22T10:00:03.000Z"),
            makeTodo("d", title: "Buy eggs", order: 3, due: "2026-11-30", created: "2026-11-22T10:00:04.000Z"),
        ])
        let todos = interactor(store)
        func ids(_ query: String) throws -> [String] {
            try #require(run { todos.list(listQuery(query)) }).get().items.map(\.id)
        }
        #expect(try ids("completed=false") == ["a", "d", "c"])
        #expect(try ids("completed=true") == ["b"])
        #expect(try ids("q=BUY") == ["b", "a", "d"])
        #expect(try ids("q=buy+m") == ["a"])
        #expect(try ids("sort=-order") == ["d", "a", "b", "c"])
        #expect(try ids("sort=dueDate") == ["c", "d", "a", "b"])
        #expect(try ids("sort=-dueDate") == ["a", "d", "c", "b"])
        #expect(try ids("sort=-createdAt") == ["d", "c", "b", "a"])
        #expect(try ids("sort=title") == ["b", "d", "a", "c"])
        #expect(try ids("sort=-title") == ["c", "a", "d", "b"])
        #expect(try ids("sort=title&limit=2&offset=1") == ["d", "a"])
        #expect(try ids("offset=10") == [])
        #expect(try ids("_=1700000000&q=") == ["b", "a", "d", "c"])
        let page = try #require(run { todos.list(listQuery("completed=false&limit=2")) }).get()
        #expect(page.total == 3)
        #expect(page.limit == 2)
    }
}
