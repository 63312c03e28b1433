// Drives every operation of TodoServer through the client that swift-openapi-generator generates
// from the server's OpenAPI document (openapi.json beside this file, openapi-generator-config.yaml
// for the generator's options), as a Swift front end would: typed requests, typed answers, typed
// headers. Usage: TodoClientExample [BASE-URL]   (default http://127.0.0.1:8080; the server is
// emptied first). Prints one line per step and `N passed, M failed`; exits 1 on any failure.
// With tokens on, TODO_TOKEN is the bearer token the tour runs with (an owner's: the tour then acts
// on that owner's to-dos) and TODO_OPERATOR_TOKEN the one it reads /metrics and the health count
// with; TODO_OTHER_TOKEN, another owner's, must reach none of the first owner's to-dos.
import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// Sends `Authorization: Bearer <token>` with every request, as a front end with a signed-in user does.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}

@main
struct TodoClientExample {
    static func main() async {
        let base = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:8080"
        guard let serverURL = URL(string: base) else {
            print("not a URL: \(base)")
            exit(2)
        }
        // The one configuration line a client of this server needs: its timestamps carry
        // milliseconds (2026-11-27T22:43:46.123Z), which the runtime's default transcoder refuses.
        let environment = ProcessInfo.processInfo.environment
        func client(token: String?) -> Client {
            Client(
                serverURL: serverURL,
                configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
                transport: URLSessionTransport(),
                middlewares: token.map { [BearerToken(token: $0)] } ?? []
            )
        }
        var run = Run()
        let tour = Tour(
            client: client(token: environment["TODO_TOKEN"]), operatorClient: client(token: environment["TODO_OPERATOR_TOKEN"]),
            otherOwner: environment["TODO_OTHER_TOKEN"].map { client(token: $0) },
            base: base.hasSuffix("/") ? String(base.dropLast()) : base)
        await tour.drive(&run)
        let missing = Operation.allCases.filter { !run.called.contains($0) }
        if !missing.isEmpty {
            run.failed += 1
            print("FAIL operations never called: \(missing.map(\.rawValue).joined(separator: ", "))")
        }
        print("\(run.passed) passed, \(run.failed) failed")
        exit(run.failed == 0 ? 0 : 1)
    }
}

/// Every operation of the document, to prove the tour calls each one.
enum Operation: String, CaseIterable {
    case getIndex, getIndexHead, preflightIndex, getHealth, getHealthHead, preflightHealth
    case listTodos, listTodosHead, createTodo, deleteAllTodos, preflightTodos
    case getUpcoming, getUpcomingHead, preflightUpcoming
    case getTodo, getTodoHead, patchTodo, replaceTodo, deleteTodo, preflightTodo
    case getMetrics, getMetricsHead, preflightMetrics
    case getOpenAPIDocument, getOpenAPIDocumentHead, preflightOpenAPI
}

struct Run {
    var passed = 0
    var failed = 0
    var called: Set<Operation> = []

    /// Runs one step: it passes when `body` returns, fails when it throws.
    mutating func step(_ name: String, _ operations: Operation..., body: () async throws -> Void) async {
        called.formUnion(operations)
        do {
            try await body()
            passed += 1
            print("ok   \(name)")
        } catch {
            failed += 1
            print("FAIL \(name): \(error)")
        }
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
}

/// Fails the step with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw Failure(description: message()) }
}

/// Fails the step unless `actual == expected`, naming both.
func expect<T: Equatable>(_ actual: T, equals expected: T, _ what: String) throws {
    if actual != expected { throw Failure(description: "\(what): \(actual), expected \(expected)") }
}

struct Tour {
    let client: Client
    /// The client for /metrics and the health count (an operator's token when tokens are on).
    let operatorClient: Client
    /// Another owner's client, when the tour runs as an owner.
    let otherOwner: Client?
    /// The base URL without a trailing slash, as the server writes its links.
    let base: String

    /// Today in UTC as the server writes dates (YYYY-MM-DD).
    var today: String { Self.day(offset: 0) }

    static func day(offset: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(byAdding: .day, value: offset, to: Date())!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    func drive(_ run: inout Run) async {
        // MARK: the service
        await run.step("GET / names the service and links every route", .getIndex) {
            let index = try await client.getIndex().ok.body.json
            try expect(index.name, equals: "TodoServer", "name")
            try expect(index.links.todos, equals: "\(base)/todos", "links.todos")
            try expect(index.links.openapi, equals: "\(base)/openapi.json", "links.openapi")
            try expect(index.build.startedAt <= Date(), "build.startedAt \(index.build.startedAt) is in the future")
        }
        await run.step("HEAD / answers 200", .getIndexHead) {
            _ = try await client.getIndexHead().ok
        }
        var createdBefore = 0
        await run.step("GET /metrics: the POST /todos 201 count so far", .getMetrics) {
            createdBefore = try await createdCount()
        }
        await run.step("DELETE /todos empties the store", .deleteAllTodos) {
            _ = try await client.deleteAllTodos().noContent
        }
        await run.step("GET /healthz is ok with 0 to-dos", .getHealth) {
            let health = try await operatorClient.getHealth().ok.body.json
            try expect(health.status, equals: .ok, "status")
            try expect(health.todos, equals: 0, "todos")
        }
        await run.step("HEAD /healthz answers 200", .getHealthHead) {
            _ = try await client.getHealthHead().ok
        }

        // MARK: create
        var milk: Components.Schemas.Todo?
        var milkTag = ""
        await run.step("POST /todos creates a to-do: Location, ETag \"1\", dates decoded", .createTodo) {
            let created = try await client.createTodo(body: .json(.init(title: "Buy milk", order: 1, dueDate: today))).created
            let todo = try created.body.json
            try expect(todo.title, equals: "Buy milk", "title")
            try expect(todo.completed, equals: false, "completed")
            try expect(todo.order, equals: 1, "order")
            try expect(todo.dueDate, equals: today, "dueDate")
            try expect(todo.url, equals: "\(base)/todos/\(todo.id)", "url")
            try expect(created.headers.location, equals: todo.url, "Location")
            try expect(created.headers.eTag, equals: "\"1\"", "ETag")
            try expect(abs(todo.createdAt.timeIntervalSinceNow) < 600, "createdAt \(todo.createdAt) is not now")
            try expect(todo.updatedAt, equals: todo.createdAt, "updatedAt")
            milk = todo
            milkTag = created.headers.eTag
        }
        guard let milk else { return }
        await run.step("POST /todos with two more", .createTodo) {
            let plants = try await client.createTodo(body: .json(.init(title: "Water the plants", completed: true, order: 2))).created.body
                .json
            try expect(plants.completed, equals: true, "completed")
            let plumber = try await client.createTodo(body: .json(.init(title: "Call the plumber", dueDate: Self.day(offset: 1)))).created
                .body.json
            try expect(plumber.order, equals: nil, "order")
        }
        await run.step("POST /todos with an empty title: 422 problem naming title", .createTodo) {
            let problem = try await client.createTodo(body: .json(.init(title: ""))).unprocessableContent.body.applicationProblemJson
            try expect(problem.status, equals: 422, "status")
            try expect(problem.errors?.map(\.field) ?? [], equals: ["title"], "errors")
        }

        // MARK: lists
        var listTag = ""
        await run.step("GET /todos: all three, X-Total-Count 3, a list ETag", .listTodos) {
            let ok = try await client.listTodos().ok
            try expect(try ok.body.json.map(\.title), equals: ["Buy milk", "Water the plants", "Call the plumber"], "titles")
            try expect(ok.headers.xTotalCount, equals: 3, "X-Total-Count")
            try expect(ok.headers.eTag.hasPrefix("\"list-"), "ETag \(ok.headers.eTag)")
            try expect(ok.headers.xRequestID?.isEmpty == false, "X-Request-ID missing")
            listTag = ok.headers.eTag
        }
        await run.step("GET /todos?completed=false&sort=-title&limit=1&offset=0: one, Link next", .listTodos) {
            let ok = try await client.listTodos(query: .init(completed: false, sort: .titleDescending, limit: 1, offset: 0)).ok
            try expect(try ok.body.json.map(\.title), equals: ["Call the plumber"], "titles")
            try expect(ok.headers.xTotalCount, equals: 2, "X-Total-Count")
            try expect(ok.headers.link?.contains("rel=\"next\"") == true, "Link \(ok.headers.link ?? "nil")")
        }
        await run.step("GET /todos?completed=true&sort=dueDate", .listTodos) {
            let ok = try await client.listTodos(query: .init(completed: true, sort: .dueDate)).ok
            try expect(try ok.body.json.map(\.title), equals: ["Water the plants"], "titles")
        }
        await run.step("GET /todos?q=MILK", .listTodos) {
            let ok = try await client.listTodos(query: .init(q: "MILK")).ok
            try expect(try ok.body.json.map(\.id), equals: [milk.id], "ids")
        }
        await run.step("GET /todos with each sort value", .listTodos) {
            let expected: [Components.Schemas.TodoSort: [String]] = [
                .order: ["Buy milk", "Water the plants", "Call the plumber"],
                .orderDescending: ["Water the plants", "Buy milk", "Call the plumber"],
                .createdAt: ["Buy milk", "Water the plants", "Call the plumber"],
                .createdAtDescending: ["Call the plumber", "Water the plants", "Buy milk"],
                .dueDate: ["Buy milk", "Call the plumber", "Water the plants"],
                .dueDateDescending: ["Call the plumber", "Buy milk", "Water the plants"],
                .title: ["Buy milk", "Call the plumber", "Water the plants"],
                .titleDescending: ["Water the plants", "Call the plumber", "Buy milk"],
            ]
            for sort in Components.Schemas.TodoSort.allCases {
                let todos = try await client.listTodos(query: .init(sort: sort)).ok.body.json
                // Two to-dos created within the same millisecond tie on createdAt; ties go by id.
                let tied = Set(todos.map(\.createdAt)).count < todos.count
                if tied && (sort == .createdAt || sort == .createdAtDescending) {
                    let times = todos.map(\.createdAt)
                    try expect(times == times.sorted(by: sort == .createdAt ? (<) : (>)), "sort=\(sort.rawValue): \(times)")
                    continue
                }
                try expect(todos.map(\.title), equals: expected[sort] ?? [], "sort=\(sort.rawValue)")
            }
        }
        await run.step("GET /todos?offset=2: the last one, X-Total-Count 3", .listTodos) {
            let ok = try await client.listTodos(query: .init(offset: 2)).ok
            try expect(try ok.body.json.map(\.title), equals: ["Call the plumber"], "titles")
            try expect(ok.headers.xTotalCount, equals: 3, "X-Total-Count")
        }
        await run.step("GET /todos with If-None-Match: the list's ETag: 304", .listTodos) {
            let notModified = try await client.listTodos(headers: .init(ifNoneMatch: listTag)).notModified
            try expect(notModified.headers.eTag, equals: listTag, "ETag")
        }
        await run.step("GET /todos?limit=0: 400 problem", .listTodos) {
            let problem = try await client.listTodos(query: .init(limit: 0)).badRequest.body.applicationProblemJson
            try expect(problem.status, equals: 400, "status")
        }
        await run.step("HEAD /todos: 200 with X-Total-Count, 304 with the ETag", .listTodosHead) {
            let ok = try await client.listTodosHead(query: .init(completed: true)).ok
            try expect(ok.headers.xTotalCount, equals: 1, "X-Total-Count")
            _ = try await client.listTodosHead(headers: .init(ifNoneMatch: listTag)).notModified
        }

        // MARK: one to-do, conditional requests
        await run.step("GET /todos/{id}: the to-do and its ETag", .getTodo) {
            let ok = try await client.getTodo(path: .init(id: milk.id)).ok
            try expect(try ok.body.json.title, equals: "Buy milk", "title")
            try expect(ok.headers.eTag, equals: milkTag, "ETag")
        }
        await run.step("GET /todos/{id} with If-None-Match: its ETag: 304", .getTodo) {
            _ = try await client.getTodo(path: .init(id: milk.id), headers: .init(ifNoneMatch: milkTag)).notModified
        }
        await run.step("GET /todos/{id} of no to-do: 404 problem", .getTodo) {
            let problem = try await client.getTodo(path: .init(id: "no-such-id")).notFound.body.applicationProblemJson
            try expect(problem.status, equals: 404, "status")
        }
        await run.step("HEAD /todos/{id}: 200, 304, 404", .getTodoHead) {
            let ok = try await client.getTodoHead(path: .init(id: milk.id)).ok
            try expect(ok.headers.eTag, equals: milkTag, "ETag")
            _ = try await client.getTodoHead(path: .init(id: milk.id), headers: .init(ifNoneMatch: milkTag)).notModified
            _ = try await client.getTodoHead(path: .init(id: "no-such-id")).notFound
        }
        await run.step("PATCH /todos/{id} with If-Match: its ETag: changed, ETag \"2\"", .patchTodo) {
            let ok = try await client.patchTodo(
                path: .init(id: milk.id), headers: .init(ifMatch: milkTag), body: .json(.init(completed: true))
            ).ok
            let todo = try ok.body.json
            try expect(todo.completed, equals: true, "completed")
            try expect(todo.dueDate, equals: today, "dueDate")
            try expect(ok.headers.eTag, equals: "\"2\"", "ETag")
            try expect(todo.updatedAt >= todo.createdAt, "updatedAt before createdAt")
        }
        await run.step("PATCH /todos/{id} with the old ETag: 412 problem, nothing changed", .patchTodo) {
            let failed = try await client.patchTodo(
                path: .init(id: milk.id), headers: .init(ifMatch: milkTag), body: .json(.init(title: "Buy soy milk"))
            ).preconditionFailed
            try expect(try failed.body.applicationProblemJson.status, equals: 412, "status")
            try expect(failed.headers.eTag, equals: "\"2\"", "the current ETag")
            try expect(try await client.getTodo(path: .init(id: milk.id)).ok.body.json.title, equals: "Buy milk", "title")
        }
        await run.step("PATCH /todos/{id} with If-None-Match: *: 412", .patchTodo) {
            _ = try await client.patchTodo(path: .init(id: milk.id), headers: .init(ifNoneMatch: "*"), body: .json(.init(title: "x")))
                .preconditionFailed
        }
        await run.step("PATCH /todos/{id} with an empty title: 422 problem", .patchTodo) {
            let problem = try await client.patchTodo(path: .init(id: milk.id), body: .json(.init(title: " "))).unprocessableContent.body
                .applicationProblemJson
            try expect(problem.errors?.map(\.field) ?? [], equals: ["title"], "errors")
        }
        await run.step("PATCH /todos/{id} of no to-do: 404 problem", .patchTodo) {
            _ = try await client.patchTodo(path: .init(id: "no-such-id"), body: .json(.init(title: "x"))).notFound.body
                .applicationProblemJson
        }
        await run.step("PUT /todos/{id} with If-Match: * and no order or dueDate clears both", .replaceTodo) {
            let ok = try await client.replaceTodo(
                path: .init(id: milk.id), headers: .init(ifMatch: "*"), body: .json(.init(title: "Buy oat milk", completed: true))
            ).ok
            let todo = try ok.body.json
            try expect(todo.title, equals: "Buy oat milk", "title")
            try expect(todo.order, equals: nil, "order")
            try expect(todo.dueDate, equals: nil, "dueDate")
            try expect(ok.headers.eTag, equals: "\"3\"", "ETag")
        }
        await run.step("PUT /todos/{id} with a stale ETag: 412; an empty title: 422; no to-do: 404", .replaceTodo) {
            _ = try await client.replaceTodo(path: .init(id: milk.id), headers: .init(ifMatch: "\"1\""), body: .json(.init(title: "x")))
                .preconditionFailed
            _ = try await client.replaceTodo(path: .init(id: milk.id), body: .json(.init(title: ""))).unprocessableContent
            _ = try await client.replaceTodo(path: .init(id: "no-such-id"), body: .json(.init(title: "x"))).notFound
        }

        // MARK: upcoming
        await run.step("GET /todos/upcoming?tz=UTC&weekStart=monday: tomorrow's plumber", .getUpcoming) {
            let upcoming = try await client.getUpcoming(query: .init(tz: "UTC", weekStart: .monday)).ok.body.json
            try expect(upcoming.sections.map(\.relativeDate), equals: [.tomorrow], "sections")
            try expect(upcoming.sections.first?.title, equals: .tomorrow, "title")
            try expect(upcoming.sections.first?.items.map(\.title) ?? [], equals: ["Call the plumber"], "items")
            try expect(upcoming.message, equals: nil, "message")
        }
        await run.step("GET /todos/upcoming?tz=Nowhere/Atlantis: 400 problem", .getUpcoming) {
            _ = try await client.getUpcoming(query: .init(tz: "Nowhere/Atlantis")).badRequest.body.applicationProblemJson
        }
        await run.step("HEAD /todos/upcoming answers 200", .getUpcomingHead) {
            _ = try await client.getUpcomingHead(query: .init(weekStart: .sunday)).ok
        }

        // MARK: delete
        if let otherOwner {
            await run.step(
                "another owner's token reaches none of these to-dos: 404 by id, an empty list, its clear clears its own", .getTodo
            ) {
                _ = try await otherOwner.getTodo(path: .init(id: milk.id)).notFound
                _ = try await otherOwner.deleteTodo(path: .init(id: milk.id)).notFound
                try expect(try await otherOwner.listTodos().ok.body.json.count, equals: 0, "the other owner's list")
                _ = try await otherOwner.deleteAllTodos().noContent
                _ = try await client.getTodo(path: .init(id: milk.id)).ok
                _ = try await otherOwner.getMetrics().forbidden
            }
        }
        await run.step("DELETE /todos/{id}: stale If-Match 412, then 204, then 404", .deleteTodo, .getTodo) {
            _ = try await client.deleteTodo(path: .init(id: milk.id), headers: .init(ifMatch: milkTag)).preconditionFailed
            _ = try await client.deleteTodo(path: .init(id: milk.id), headers: .init(ifMatch: "\"3\"")).noContent
            _ = try await client.deleteTodo(path: .init(id: milk.id)).notFound
            _ = try await client.getTodo(path: .init(id: milk.id)).notFound
        }
        await run.step("GET /healthz counts 2 to-dos", .getHealth) {
            try expect(try await operatorClient.getHealth().ok.body.json.todos, equals: 2, "todos")
        }

        // MARK: metrics, the document, CORS preflights
        await run.step("GET /metrics: Prometheus text, 3 more POST /todos 201 than at the start", .getMetrics, .getMetricsHead) {
            try expect(try await createdCount(), equals: createdBefore + 3, "POST /todos 201 count")
            _ = try await operatorClient.getMetricsHead().ok
        }
        await run.step("GET /openapi.json: OpenAPI 3.1.0, this API", .getOpenAPIDocument, .getOpenAPIDocumentHead) {
            let document = try await client.getOpenAPIDocument().ok.body.json
            try expect(document.openapi, equals: "3.1.0", "openapi")
            try expect(document.info.title, equals: "TodoServer", "info.title")
            _ = try await client.getOpenAPIDocumentHead().ok
        }
        await run.step(
            "OPTIONS on every path: 204 preflights",
            .preflightIndex, .preflightHealth, .preflightTodos, .preflightTodo, .preflightUpcoming, .preflightMetrics, .preflightOpenAPI
        ) {
            _ = try await client.preflightIndex(headers: .init(accessControlRequestMethod: "GET")).noContent
            _ = try await client.preflightHealth(headers: .init(accessControlRequestMethod: "GET")).noContent
            _ = try await client.preflightTodos(
                headers: .init(accessControlRequestMethod: "POST", accessControlRequestHeaders: "content-type")
            ).noContent
            let preflight = try await client.preflightTodo(
                path: .init(id: milk.id),
                headers: .init(accessControlRequestMethod: "PATCH", accessControlRequestHeaders: "content-type, if-match")
            ).noContent
            try expect(
                preflight.headers.accessControlAllowMethods, equals: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
                "Access-Control-Allow-Methods")
            _ = try await client.preflightUpcoming().noContent
            _ = try await client.preflightMetrics().noContent
            _ = try await client.preflightOpenAPI().noContent
        }
    }

    /// The value of `http_requests_total{route="/todos",method="POST",status="201"}` in the metrics.
    func createdCount() async throws -> Int {
        let text = try await String(collecting: operatorClient.getMetrics().ok.body.plainText, upTo: 4 << 20)
        let prefix = #"http_requests_total{route="/todos",method="POST",status="201"} "#
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        guard let value = Int(line.dropFirst(prefix.count)) else { throw Failure(description: "not a count: \(line)") }
        return value
    }
}
