import HTTPValues
import Prometheus
import Testing

@testable import TodoServer

@Suite("Feed presenter and view: events as text/event-stream, bounded output")
struct FeedPresenterTests {
    private static let todo = Todo(
        id: "8f0c2f1e-0000-4000-8000-000000000001", title: "Milch", completed: true, order: 2, dueDate: nil,
        createdAt: Timestamp(millisecondsSinceEpoch: 1_764_288_000_000), updatedAt: Timestamp(millisecondsSinceEpoch: 1_764_288_060_000),
        revision: 3)

    @Test func eachKindOfChangeBecomesItsEventWithThePositionAsId() {
        let created = FeedSession.viewModel(.change(position: "p.1.2", .created(Self.todo)), baseURL: "http://h:1")
        #expect(created.id == "p.1.2")
        #expect(created.event == "created")
        #expect(
            String(decoding: created.data, as: UTF8.self) == #"""
                {"todo":{"completed":true,"createdAt":"2025-11-28T00:00:00.000Z","dueDate":null,"id":"8f0c2f1e-0000-4000-8000-000000000001","order":2,"title":"Milch","updatedAt":"2025-11-28T00:01:00.000Z","url":"http://h:1/todos/8f0c2f1e-0000-4000-8000-000000000001"},"etag":"\"3\""}
                """#)
        #expect(FeedSession.viewModel(.change(position: "x", .updated(Self.todo)), baseURL: "").event == "updated")
        let deleted = FeedSession.viewModel(.change(position: "m.1.3", .deleted(id: "abc")), baseURL: "")
        #expect(deleted.event == "deleted")
        #expect(String(decoding: deleted.data, as: UTF8.self) == #"{"id":"abc"}"#)
        let cleared = FeedSession.viewModel(.change(position: "m.1.4", .cleared), baseURL: "")
        #expect(cleared.event == "cleared")
        #expect(String(decoding: cleared.data, as: UTF8.self) == "{}")
        let resync = FeedSession.viewModel(.resync(position: "m.1.4"), baseURL: "")
        #expect(resync.event == "resync")
        #expect(resync.id == "m.1.4")
        #expect(String(decoding: resync.data, as: UTF8.self) == "{}")
    }

    @Test func theWriterSpeaksTheEventStreamFormat() {
        let stream = CapturingStream()
        let writer = EventStreamWriter(stream: stream, maxBufferedBytes: 1 << 20)
        #expect(writer.displayRetry(milliseconds: 2000) == .more)
        #expect(writer.displayEvent(FeedEventViewModel(id: "m.1.1", event: "deleted", data: Array(#"{"id":"a"}"#.utf8))) == .more)
        #expect(writer.displayComment("keep-alive") == .more)
        // A line break in a field would end it: dropped.
        #expect(writer.displayEvent(FeedEventViewModel(id: "a\nb", event: "x\r", data: Array("{}".utf8))) == .more)
        #expect(
            stream.text
                == "retry: 2000\n\nid: m.1.1\nevent: deleted\ndata: {\"id\":\"a\"}\n\n: keep-alive\n\nid: ab\nevent: x\ndata: {}\n\n")
        writer.displayEnd()
        #expect(stream.finished)
    }

    @Test func pastHalfItsBoundTheSubscriberPausesUntilAQuarterIsLeftAndPastTheBoundItIsCutOff() {
        let stream = CapturingStream()
        let writer = EventStreamWriter(stream: stream, maxBufferedBytes: 1000)
        let event = FeedEventViewModel(id: "m.1.1", event: "updated", data: Array(repeating: UInt8(ascii: "x"), count: 170))
        #expect(writer.displayEvent(event) == .more)  // 200 bytes pending
        #expect(writer.displayEvent(event) == .more)  // 400
        #expect(writer.displayEvent(event) == .paused)  // 600
        #expect(stream.drainRequested == 250)
        stream.pendingBytes = 100  // the client read
        #expect(writer.displayEvent(event) == .more)
        stream.pendingBytes = 900
        #expect(writer.displayEvent(event) == .cutOff)
        #expect(stream.aborted)
    }

    @Test func aStreamThatCannotBeOpenedCancelsTheSubscriptionAndAnswersAProblem() {
        let loop = ManualFeedLoop()
        let hub = FeedHub(maxSubscribers: 1, factory: PrometheusMetricsFactoryForTests.make())
        let log = ChangeLog(tag: "mt", capacity: 5, start: ChangePosition(major: 1, minor: 0))
        let presenter = FeedPresenter(interactor: FeedInteractor(log: log, scheduler: loop, heartbeat: .seconds(1), hub: hub))
        let view = RefusingView()
        presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: "http://h"), view: view)
        #expect(view.problems == [501])
        #expect(hub.subscriberCount == 0)
        presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: "http://h"), view: view)
        #expect(view.problems == [501, 501], "the refused one's place was given back")
    }

    final class RefusingView: FeedStreamDisplay {
        var problems: [Int] = []
        func displayStream(headers: HTTPHeaders, events: @escaping (HTTPStreamEvent) -> Void) -> (any FeedDisplay)? { nil }
        func displayProblem(_ model: ResponseViewModel<ProblemDetails>) { problems.append(model.status) }
    }
}

enum PrometheusMetricsFactoryForTests {
    static func make() -> PrometheusMetricsFactory { PrometheusMetricsFactory(registry: PrometheusCollectorRegistry()) }
}
