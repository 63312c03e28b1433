import HTTPValues
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("Pending")
struct PendingTests {
    @Test("an answer fulfilled before its start returns is ready at once, with no promise kept")
    func readyAtOnce() {
        let pending = Pending<Int> { $0.fulfil(7) }
        guard case .ready(let value) = pending else {
            Issue.record("not ready: \(pending)")
            return
        }
        #expect(value == 7)
    }

    @Test("a later answer reaches map and whenReady once, when it is fulfilled, in order")
    func later() {
        var promise: Promise<Int>?
        let pending = Pending<Int> { promise = $0 }
        var heard: [String] = []
        pending.map { value -> String in
            heard.append("map \(value)")
            return "#\(value)"
        }.whenReady { heard.append("ready \($0)") }
        #expect(heard == [])
        promise?.fulfil(3)
        #expect(heard == ["map 3", "ready #3"])
    }

    @Test("a promise fulfilled before anyone waits keeps the answer for the first who does")
    func fulfilledBeforeWaiting() {
        let promise = Promise<Int>()
        promise.fulfil(5)
        var heard: [Int] = []
        Pending.later(promise).whenReady { heard.append($0) }
        #expect(heard == [5])
    }

    @Test("map(with:) hands the transform the value it was given: at once for a ready answer, on fulfilment for a later one")
    func mapWithCaptured() {
        guard case .ready(let now) = Pending<Int>.ready(2).map(with: "a", { "\($1)\($0)" }) else {
            Issue.record("a ready answer was not transformed at once")
            return
        }
        #expect(now == "a2")
        let promise = Promise<Int>()
        var heard: [String] = []
        Pending.later(promise).map(with: "b") { "\($1)\($0)" }.whenReady { heard.append($0) }
        #expect(heard == [])
        promise.fulfil(3)
        #expect(heard == ["b3"])
    }

    @Test("the in-memory store answers at once: every call of the seam is ready, with no promise")
    func inMemoryStoreIsReady() {
        let store = InMemoryTodoStore()
        let todo = makeTodo("a", title: "A")
        func isReady<T>(_ pending: Pending<T>) -> Bool {
            if case .ready = pending { return true }
            return false
        }
        #expect(isReady(store.insert(todo)))
        #expect(isReady(store.todo(id: "a")))
        #expect(isReady(store.list(TodoQuery())))
        #expect(isReady(store.update(id: "a", change: TodoChange(title: "B"), condition: .none, at: todo.updatedAt)))
        #expect(isReady(store.upcoming(from: CalendarDay("2026-11-22")!, through: CalendarDay("2026-11-30")!)))
        #expect(isReady(store.statistics()))
        #expect(isReady(store.remove(id: "a", condition: .none)))
        #expect(isReady(store.removeAll()))
    }

    @Test("a store that answers at once: the view's response is ready when the view returns, through the whole module")
    func readyThroughTheModule() throws {
        let store = FakeTodoStore([makeTodo("a", title: "A", revision: 4)])
        let view = TodosView(
            presenter: TodosPresenter(
                interactor: TodosInteractor(store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs())),
            serializer: JSONSerializer())
        guard case .ready(let response) = view.handleTodo(id: "a", context: RequestContext(baseURL: "http://h")) else {
            Issue.record("a store that answered at once left the response for later")
            return
        }
        #expect(response.status == 200)
        #expect(response.headers["ETag"] == #""4""#)
    }

    @Test("a store that answers later: the view's response comes when the store does, through the whole module")
    func laterThroughTheModule() throws {
        let store = FakeTodoStore([makeTodo("a", title: "A", revision: 4)], deferred: true)
        let view = TodosView(
            presenter: TodosPresenter(
                interactor: TodosInteractor(store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs())),
            serializer: JSONSerializer())
        let capture = ResponseCapture()
        view.handleTodo(id: "a", context: RequestContext(baseURL: "http://h")).whenReady(capture.respond)
        view.handleTodo(id: "b", context: RequestContext(baseURL: "http://h")).whenReady(capture.respond)
        #expect(capture.responses.isEmpty)
        #expect(store.release() == 2)
        #expect(capture.responses.map(\.status) == [200, 404])
        #expect(capture.responses.first?.object["title"] as? String == "A")
        #expect(capture.responses.first?.header("ETag") == #""4""#)
    }
}
