import Foundation
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Use cases that answer with canned data and remember the requests.
final class StubUpcomingUseCases: UpcomingUseCases, @unchecked Sendable {
    let answer: Result<UpcomingData, UpcomingError>
    var asked: [UpcomingRequest] = []
    /// The owners the presenter asked for, one per request.
    var owners: [Owner] = []

    init(_ answer: Result<UpcomingData, UpcomingError>) { self.answer = answer }

    func owned(by owner: Owner) -> StubUpcomingUseCases {
        owners.append(owner)
        return self
    }

    func upcoming(_ request: UpcomingRequest) -> Pending<Result<UpcomingData, UpcomingError>> {
        asked.append(request)
        return .ready(answer)
    }
}

/// A presenter that keeps the typed requests the view hands it and answers a fixed model.
final class RecordingUpcomingPresenter: UpcomingModuleInput, @unchecked Sendable {
    var requests: [UpcomingRequest] = []

    func presentUpcoming(_ request: UpcomingRequest, context: RequestContext) -> Pending<ViewAnswer<UpcomingViewModel>> {
        requests.append(request)
        return .ready(.model(ResponseViewModel(status: 200, body: UpcomingViewModel(sections: [], message: "recorded"))))
    }
}

extension Pending {
    /// The presenter's answer, when it is there, written as the response to `capture`.
    func written<Body>(to capture: ResponseCapture) where Value == ViewAnswer<Body> {
        map { JSONSerializer().display($0) }.whenReady(capture.respond)
    }
}

@Suite("UpcomingPresenter and UpcomingView")
struct UpcomingPresenterTests {
    let view = UpcomingView(presenter: RecordingUpcomingPresenter(), serializer: JSONSerializer())

    @Test("sections get their titles; the message is null")
    func titled() throws {
        let data = UpcomingData(sections: [
            .init(relativeDate: .today, items: [makeTodo("a", due: "2026-11-22")]),
            .init(relativeDate: .laterThisWeek, items: [makeTodo("b", due: "2026-11-26")]),
            .init(relativeDate: .nextWeek, items: [makeTodo("c", due: "2026-12-01")]),
            .init(relativeDate: .tomorrow, items: [makeTodo("d", due: "2026-11-23")]),
        ])
        let stub = StubUpcomingUseCases(.success(data))
        let presenter = UpcomingPresenter(interactor: stub)
        let model = UpcomingViewModel(data, baseURL: "http://h")
        #expect(model.sections.map(\.title) == ["Today", "Later this week", "Next week", "Tomorrow"])
        #expect(model.sections.map(\.relativeDate) == ["today", "laterThisWeek", "nextWeek", "tomorrow"])
        #expect(model.sections[0].items[0].url == "http://h/todos/a")
        #expect(model.message == nil)

        let capture = ResponseCapture()
        let request = UpcomingRequest(timeZone: IANATimeZone(identifier: "Europe/Berlin"), weekStart: .sunday)
        presenter.presentUpcoming(request, context: RequestContext(baseURL: "http://h")).written(to: capture)
        #expect(stub.asked == [request])
        #expect(capture.only?.status == 200)
    }

    @Test("nothing upcoming: empty sections and the seeds' message, as exact JSON")
    func empty() throws {
        let capture = ResponseCapture()
        UpcomingPresenter(interactor: StubUpcomingUseCases(.success(UpcomingData(sections: []))))
            .presentUpcoming(UpcomingRequest(), context: RequestContext(baseURL: "http://h")).written(to: capture)
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(response.text == #"{"message":"Nothing is due before the end of next week.","sections":[]}"#)
    }

    @Test("a section as exact JSON, with message null")
    func sectionBytes() throws {
        let data = UpcomingData(sections: [.init(relativeDate: .tomorrow, items: [makeTodo("a", due: "2026-11-23")])])
        let capture = ResponseCapture()
        UpcomingPresenter(interactor: StubUpcomingUseCases(.success(data)))
            .presentUpcoming(UpcomingRequest(), context: RequestContext(baseURL: "http://h")).written(to: capture)
        #expect(
            capture.only?.text
                == #"{"message":null,"sections":[{"items":[{"completed":false,"createdAt":"2026-11-22T10:00:00.000Z","dueDate":"2026-11-23","id":"a","order":null,"title":"Task","updatedAt":"2026-11-22T10:00:00.000Z","url":"http://h/todos/a"}],"relativeDate":"tomorrow","title":"Tomorrow"}]}"#
        )
    }

    @Test("the view decodes tz and weekStart into the typed request; absent ones stay nil")
    func decoding() {
        #expect(view.request(from: QueryParameters("")) == .success(UpcomingRequest()))
        #expect(
            view.request(from: QueryParameters("tz=Asia%2FTokyo"))
                == .success(UpcomingRequest(timeZone: IANATimeZone(identifier: "Asia/Tokyo"))))
        #expect(view.request(from: QueryParameters("weekStart=monday&x=1")) == .success(UpcomingRequest(weekStart: .monday)))
        #expect(
            view.request(from: QueryParameters("tz=Nowhere"))
                == .failure(
                    .badRequest(
                        "Query parameter 'tz' is 'Nowhere', which is not a known IANA time zone (such as Europe/Berlin).")))
        #expect(
            view.request(from: QueryParameters("tz=UTC&weekStart=friday"))
                == .failure(
                    .badRequest(
                        "Query parameter 'weekStart' is 'friday'; use 'monday' or 'sunday'.")))
    }

    @Test("a bad parameter is a 400 problem from the view, and the presenter is never called")
    func problem() throws {
        let capture = ResponseCapture()
        let presenter = RecordingUpcomingPresenter()
        UpcomingView(presenter: presenter, serializer: JSONSerializer())
            .handleUpcoming(context: RequestContext(baseURL: "http://h", query: QueryParameters("tz=Nowhere"))).whenReady(capture.respond)
        let response = try #require(capture.only)
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(
            response.object["detail"] as? String
                == "Query parameter 'tz' is 'Nowhere', which is not a known IANA time zone (such as Europe/Berlin).")
        #expect(presenter.requests.isEmpty)
    }

    @Test("the view hands the decoded request to the presenter and writes the answer it returns")
    func handsTypedRequest() throws {
        let capture = ResponseCapture()
        let presenter = RecordingUpcomingPresenter()
        UpcomingView(presenter: presenter, serializer: JSONSerializer()).handleUpcoming(
            context: RequestContext(baseURL: "http://h", query: QueryParameters("tz=Europe%2FBerlin&weekStart=sunday"))
        ).whenReady(capture.respond)
        #expect(presenter.requests == [UpcomingRequest(timeZone: IANATimeZone(identifier: "Europe/Berlin"), weekStart: .sunday)])
        #expect(capture.only?.status == 200)
        #expect(capture.only?.text == #"{"message":"recorded","sections":[]}"#)
    }

    @Test("the store's failure becomes a 503 problem, with Retry-After when the store says when")
    func storeProblem() throws {
        let capture = ResponseCapture()
        UpcomingPresenter(interactor: StubUpcomingUseCases(.failure(.store(StoreError(reason: "restarting", retryAfter: 4)))))
            .presentUpcoming(UpcomingRequest(), context: RequestContext(baseURL: "http://h")).written(to: capture)
        let response = try #require(capture.only)
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "4")
        #expect(response.object["detail"] as? String == "The to-do store is unavailable: restarting")
    }
}
