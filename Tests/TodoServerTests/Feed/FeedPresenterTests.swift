import HTTPValues
import Prometheus
import Testing

import struct ChangeFeed.ChangePosition
import enum ChangeFeed.FeedDelivery
import class ChangeFeed.FeedHub

@testable import TodoData
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
        let writer = EventStreamWriter(stream: stream)
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

    @Test func eventsAreQueuedUntilTheBatchIsFlushedAndCommentsGoOutAtOnce() {
        let stream = CapturingStream()
        let writer = EventStreamWriter(stream: stream)
        // 203 bytes as an event: "id: m.1.1\nevent: updated\ndata: " + 170 + "\n\n".
        let event = FeedEventViewModel(id: "m.1.1", event: "updated", data: Array(repeating: UInt8(ascii: "x"), count: 170))
        #expect(writer.displayEvent(event) == .more)
        #expect(writer.displayEvent(event) == .more)
        #expect(stream.flushes == 0)
        #expect(stream.unflushedBytes == 406)
        writer.displayFlush()
        #expect(stream.flushes == 1)
        #expect(stream.unflushedBytes == 0)
        #expect(writer.hasUnsentOutput, "406 bytes the client has not read")
        stream.pendingBytes = 0  // the client read
        // A heartbeat or the retry hint goes out at once, with what was queued before it.
        #expect(writer.displayEvent(event) == .more)
        #expect(writer.displayComment("keep-alive") == .more)
        #expect(stream.flushes == 2)
        #expect(stream.unflushedBytes == 0)
        stream.pendingBytes = 0
        writer.displayFlush()
        #expect(!writer.hasUnsentOutput)
    }

    /// The stream's back-pressure is the connection's (`ConnectionMachine+Streams`, with the
    /// marks below): the writer says what each write answered.
    @Test func theWriterSaysWhatTheStreamsBackPressureAnswered() {
        let stream = CapturingStream()
        let writer = EventStreamWriter(stream: stream)
        let event = FeedEventViewModel(id: "m.1.1", event: "updated", data: Array(repeating: UInt8(ascii: "x"), count: 170))
        stream.answers = [.accepted, .overBound, .accepted, .cutOff]
        #expect(writer.displayEvent(event) == .more)
        #expect(writer.displayEvent(event) == .paused)
        #expect(writer.hasUnsentOutput)
        #expect(writer.displayComment("keep-alive") == .more)
        #expect(writer.displayEvent(event) == .cutOff)
        #expect(writer.hasUnsentOutput, "cut off with output the client had not read")
        stream.finished = true
        #expect(writer.displayEvent(event) == .closed)
    }

    @Test func theFeedsStreamsPauseAtHalfTheirBoundResumeAtAQuarterAndAreCutOffAtTheBound() {
        #expect(FeedView.backPressure(maxBufferedBytes: 1000) == HTTPStreamBackPressure(pauseAt: 500, resumeAt: 250, cutOffAt: 1000))
        #expect(
            FeedView.backPressure(maxBufferedBytes: 256 << 10)
                == HTTPStreamBackPressure(pauseAt: 128 << 10, resumeAt: 64 << 10, cutOffAt: 256 << 10))
    }

    /// A presenter on a manual loop, for a hub of `maxSubscribers` and a log (tag "mt") of
    /// `logCapacity` changes from position 1.0; heartbeat 1 s, no loop share limit.
    private static func presenter(maxSubscribers: Int, logCapacity: Int) -> (ManualFeedLoop, FeedHub, ChangeLog, FeedPresenter) {
        let loop = ManualFeedLoop()
        let hub = FeedHub(maxSubscribers: maxSubscribers, factory: PrometheusMetricsFactoryForTests.make())
        let log = ChangeLog(tag: "mt", capacity: logCapacity, start: ChangePosition(major: 1, minor: 0))
        let presenter = FeedPresenter(
            interactor: FeedInteractor(
                log: log, scheduler: loop, hub: hub, settings: FeedSettings(heartbeat: .seconds(1), loopSharePercent: 100)))
        return (loop, hub, log, presenter)
    }

    @Test func aStreamThatCannotBeOpenedCancelsTheSubscriptionAndAnswersAProblem() {
        let (_, hub, _, presenter) = Self.presenter(maxSubscribers: 1, logCapacity: 5)
        let view = RefusingView()
        presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: "http://h"), view: view)
        #expect(view.problems == [501])
        #expect(hub.subscriberCount == 0)
        presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: "http://h"), view: view)
        #expect(view.problems == [501, 501], "the refused one's place was given back")
    }

    @Test func subscribersOnOneLoopAreSentOneShapingOfEachChangeAndEachBaseURLItsOwn() throws {
        let (loop, hub, log, presenter) = Self.presenter(maxSubscribers: 3, logCapacity: 5)
        let views = [RecordingView(), RecordingView(), RecordingView()]
        for (view, base) in zip(views, ["http://a", "http://a", "http://b"]) {
            presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: base), view: view)
        }
        log.appendNext(.created(Self.todo))
        loop.run()
        let events = try views.map { try #require($0.display.events.first) }
        let encodings = views.map(\.display.encodings)
        #expect(encodings[0] + encodings[1] == 1, "of two subscribers on one loop and base URL, one encodes, the other is sent that")
        #expect(encodings[2] == 1)
        let storage = events.map { $0.bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        #expect(storage[0] == storage[1])
        #expect(storage[0] != storage[2])
        let texts = events.map { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(texts[0].hasPrefix("id: mt.1.1\nevent: created\ndata: {"))
        #expect(texts[0].contains(#""url":"http://a/todos/"#))
        #expect(texts[2].contains(#""url":"http://b/todos/"#))
        hub.endAll()
        loop.run()
    }

    @Test func subscribersAtOneCursorAreSentOneBlockOfTheRunAndALaggingOneItsOwn() throws {
        let (loop, hub, log, presenter) = Self.presenter(maxSubscribers: 4, logCapacity: 10)
        log.appendNext(.deleted(id: "a"))
        let views = [RecordingView(), RecordingView(), RecordingView()]
        for view in views {
            presenter.presentSubscription(FeedRequest(), context: RequestContext(baseURL: "http://a"), view: view)
        }
        // One that resumes from the start: it has a change the others have not.
        let lagging = RecordingView()
        presenter.presentSubscription(FeedRequest(lastEventID: "mt.1.0"), context: RequestContext(baseURL: "http://a"), view: lagging)
        loop.run()
        log.appendNext(.deleted(id: "b"))
        log.appendNext(.deleted(id: "c"))
        loop.run()
        let blocks = views.map(\.display.events)
        #expect(blocks.map(\.count) == [1, 1, 1], "each was sent the run as one block")
        let storage = blocks.map { $0[0].bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } }
        #expect(Set(storage).count == 1, "one encoding of the run for all three")
        #expect((views + [lagging]).map(\.display.encodings).reduce(0, +) == 3, "each change shaped once on the loop")
        #expect(
            String(decoding: blocks[0][0].bytes, as: UTF8.self)
                == "id: mt.1.2\nevent: deleted\ndata: {\"id\":\"b\"}\n\nid: mt.1.3\nevent: deleted\ndata: {\"id\":\"c\"}\n\n")
        let lagged = lagging.display.events.map { String(decoding: $0.bytes, as: UTF8.self) }.joined()
        #expect(
            lagged
                == "id: mt.1.1\nevent: deleted\ndata: {\"id\":\"a\"}\n\nid: mt.1.2\nevent: deleted\ndata: {\"id\":\"b\"}\n\n"
                + "id: mt.1.3\nevent: deleted\ndata: {\"id\":\"c\"}\n\n")
        hub.endAll()
        loop.run()
    }

    final class RecordingView: FeedStreamDisplay {
        let display = RecordingDisplay()
        func displayStream(headers: HTTPHeaders, events: @escaping (HTTPStreamEvent) -> Void) -> (any FeedDisplay)? { display }
        func displayProblem(_ model: ResponseViewModel<ProblemDetails>) {}
    }

    final class RecordingDisplay: FeedDisplay {
        var events: [FeedEncodedEvent] = []
        var encodings = 0
        func displayEvent(_ model: FeedEventViewModel) -> FeedDelivery { displayEncodedEvent(encodeEvent(model)) }
        func encodeEvent(_ model: FeedEventViewModel) -> FeedEncodedEvent {
            encodings += 1
            return EventStreamWriter(stream: CapturingStream()).encodeEvent(model)
        }
        func displayEncodedEvent(_ event: FeedEncodedEvent) -> FeedDelivery {
            events.append(event)
            return .more
        }
        func displayFlush() {}
        func displayComment(_ text: String) -> FeedDelivery { .more }
        func displayRetry(milliseconds: Int) -> FeedDelivery { .more }
        func displayEnd() {}
        func displayCutOff() {}
        var hasUnsentOutput: Bool { false }
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
