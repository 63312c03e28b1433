import HTTPValues
import Testing

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
