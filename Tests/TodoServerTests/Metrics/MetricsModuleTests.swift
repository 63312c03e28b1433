import HTTPValues
import Prometheus
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The metrics module: the interactor sets the scrape-time gauges and counts dropped log lines
/// once; the view writes the exposition as it is, labelled with its media type.
@Suite("Metrics module")
struct MetricsModuleTests {
    /// The exposition's text for one scrape of `interactor`.
    /// The in-memory store answers its statistics at once, so the exposition is there on return.
    private func scrape(_ interactor: MetricsInteractor) -> String {
        let answer = ScrapedBody()
        interactor.exposition().whenReady { answer.body = $0 }
        return String(decoding: answer.body ?? [], as: UTF8.self)
    }

    private func sampleLines(_ text: String, _ name: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
    }

    @Test("the interactor records the stored to-dos and the open connections at scrape time")
    func gauges() {
        let registry = PrometheusCollectorRegistry()
        let connections = ConnectionCount(3)
        let interactor = MetricsInteractor(
            registry: registry, factory: PrometheusMetricsFactory(registry: registry),
            store: InMemoryTodoStore([makeTodo("a"), makeTodo("b")]), openConnections: { connections.value })
        let first = scrape(interactor)
        #expect(sampleLines(first, "todos") == ["todos 2.0"])
        #expect(sampleLines(first, "http_open_connections") == ["http_open_connections 3.0"])
        connections.value = 7
        #expect(sampleLines(scrape(interactor), "http_open_connections") == ["http_open_connections 7.0"])
    }

    @Test("dropped log lines are added to the counter once: a second scrape with no new drops adds nothing")
    func droppedLinesCountedOnce() {
        let registry = PrometheusCollectorRegistry()
        let dropped = ConnectionCount(5)
        let interactor = MetricsInteractor(
            registry: registry, factory: PrometheusMetricsFactory(registry: registry), store: InMemoryTodoStore(),
            openConnections: { 0 }, droppedLogLines: { dropped.value })
        #expect(sampleLines(scrape(interactor), "log_lines_dropped_total") == ["log_lines_dropped_total 5"])
        #expect(sampleLines(scrape(interactor), "log_lines_dropped_total") == ["log_lines_dropped_total 5"])
        dropped.value = 12
        #expect(sampleLines(scrape(interactor), "log_lines_dropped_total") == ["log_lines_dropped_total 12"])
    }

    @Test("request metrics: one counter per route, method and status; durations in the loop's histogram")
    func requestMetrics() {
        let registry = PrometheusCollectorRegistry()
        let metrics = RequestMetrics(factory: PrometheusMetricsFactory(registry: registry), loopCount: 2)
        metrics.record(loop: 0, route: "/todos", method: .get, status: 200, duration: .milliseconds(3))
        metrics.record(loop: 1, route: "/todos", method: .get, status: 200, duration: .milliseconds(4))
        metrics.record(loop: 0, route: "/todos/{id}", method: .delete, status: 404, duration: .microseconds(10))
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(
            sampleLines(text, "http_requests_total").sorted() == [
                #"http_requests_total{route="/todos",method="GET",status="200"} 2"#,
                #"http_requests_total{route="/todos/{id}",method="DELETE",status="404"} 1"#,
            ])
        #expect(
            sampleLines(text, "http_request_duration_seconds_count").sorted() == [
                #"http_request_duration_seconds_count{loop="0"} 2"#,
                #"http_request_duration_seconds_count{loop="1"} 1"#,
            ])
        #expect(
            sampleLines(text, "http_request_duration_seconds_sum").sorted() == [
                #"http_request_duration_seconds_sum{loop="0"} 0.00301"#,
                #"http_request_duration_seconds_sum{loop="1"} 0.004"#,
            ])
    }

    @Test(
        "request metrics: counts stay exact past the loop's short list of recent handles (24 keys, 3 rounds, equal routes from other strings)"
    )
    func requestMetricsPastRecentList() {
        let registry = PrometheusCollectorRegistry()
        let metrics = RequestMetrics(factory: PrometheusMetricsFactory(registry: registry), loopCount: 1)
        let statuses = Array(200..<212)
        for round in 0..<3 {
            for status in statuses {
                // A template built at run time: equal to the table's string without being the same storage.
                let template = round == 1 ? String("/todos/{id}".utf8.map { Character(UnicodeScalar($0)) }) : "/todos/{id}"
                metrics.record(loop: 0, route: template, method: .get, status: status, duration: .microseconds(1))
                metrics.record(loop: 0, route: template, method: .delete, status: status, duration: .microseconds(1))
            }
        }
        metrics.record(loop: 0, route: "/todos/{id}", method: .delete, status: 200, duration: .microseconds(1))
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        let expected = statuses.flatMap { status in
            [
                #"http_requests_total{route="/todos/{id}",method="GET",status="\#(status)"} 3"#,
                #"http_requests_total{route="/todos/{id}",method="DELETE",status="\#(status)"} \#(status == 200 ? 4 : 3)"#,
            ]
        }
        #expect(sampleLines(text, "http_requests_total").sorted() == expected.sorted())
        #expect(sampleLines(text, "http_request_duration_seconds_count") == [#"http_request_duration_seconds_count{loop="0"} 73"#])
    }

    @Test("the view answers 200 with the Prometheus text media type and the interactor's exposition, as it is")
    func view() throws {
        let registry = PrometheusCollectorRegistry()
        let interactor = MetricsInteractor(
            registry: registry, factory: PrometheusMetricsFactory(registry: registry), store: InMemoryTodoStore([makeTodo("a")]),
            openConnections: { 2 })
        let capture = ResponseCapture()
        MetricsView(interactor: interactor, serializer: JSONSerializer())
            .handleMetrics(context: RequestContext(baseURL: "http://h")).whenReady(capture.respond)
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(sampleLines(response.text, "todos") == ["todos 1.0"])
        #expect(response.text == scrape(interactor), "the next scrape, with nothing changed, renders the same bytes")
    }

    @Test("exposition bytes are written unchanged, with their Content-Type")
    func bytesUnchanged() throws {
        let capture = ResponseCapture()
        let body = "# TYPE todos gauge\ntodos 1.0\n\"quoted\" \\ kept\n"
        capture.respond(
            JSONSerializer().display(
                ResponseViewModel(status: 200, contentType: MetricsView.contentType, body: RawBody(Array(body.utf8)))))
        let response = try #require(capture.only)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.text == body)
    }
}

/// A number the test changes between scrapes.
private final class ConnectionCount: @unchecked Sendable {
    var value: Int
    init(_ value: Int) { self.value = value }
}

/// The exposition a scrape answered.
private final class ScrapedBody: @unchecked Sendable {
    var body: [UInt8]?
}

extension Array {
    fileprivate var only: Element? { count == 1 ? first : nil }
}
