import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Prometheus

/// The to-do routes of the contract on one store, with conditional requests.
struct TodoRoutes: Sendable {
    let store: Store
    let registry: PrometheusCollectorRegistry
    let todosGauge = Gauge(label: "todos")
    let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    func now() -> String { Date().formatted(formatter) }
    func base(_ request: Request) -> String { "http://" + (request.head.authority ?? "localhost") }

    func add(to router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ in ["status": "ok", "todos": String(store.count)] }
        router.get("metrics") { _, _ -> Response in
            todosGauge.record(store.count)
            var buffer = [UInt8]()
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("todos", use: list)
        router.post("todos", use: create)
        router.delete("todos") { _, _ -> HTTPResponse.Status in
            store.removeAll()
            return .noContent
        }
        router.get("todos/:id", use: read)
        router.patch("todos/:id") { request, context in try await change(request, context, replacing: false) }
        router.put("todos/:id") { request, context in try await change(request, context, replacing: true) }
        router.delete("todos/:id", use: delete)
    }

    @Sendable func list(_ request: Request, context: some RequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map { try Self.integer($0, name: "limit", in: 1...1000) } ?? 500
        let offset = try query.get("offset").map { try Self.integer($0, name: "offset", in: 0...Int.max) } ?? 0
        let page = store.page(offset: offset, limit: limit)
        var headers: HTTPFields = [.eTag: page.tag, .totalCount: String(page.total)]
        if EntityTags(request.headers[.ifNoneMatch]).noneMatch(page.tag) {
            return Response(status: .notModified, headers: headers)
        }
        if let link = Self.links(base: base(request), offset: offset, limit: limit, total: page.total) {
            headers[.link] = link
        }
        var response = try context.responseEncoder.encode(page.todos, from: request, context: context)
        response.headers.append(contentsOf: headers)
        return response
    }

    @Sendable func create(_ request: Request, context: some RequestContext) async throws -> Response {
        let input = try await request.decode(as: TodoInput.self, context: context).validated(requireTitle: true)
        let id = UUID().uuidString.lowercased()
        let time = now()
        let url = base(request) + "/todos/" + id
        let todo = store.insert { revision in
            Todo(
                id: id, title: input.title ?? "", completed: input.completed ?? false, order: input.order ?? nil,
                dueDate: input.dueDate ?? nil, createdAt: time, updatedAt: time, url: url, revision: revision)
        }
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.status = .created
        response.headers[.location] = url
        response.headers[.eTag] = todo.entityTag
        return response
    }

    @Sendable func read(_ request: Request, context: some RequestContext) async throws -> Response {
        guard let todo = store.get(try context.parameters.require("id")) else { throw HTTPError(.notFound) }
        if EntityTags(request.headers[.ifNoneMatch]).noneMatch(todo.entityTag) {
            return Response(status: .notModified, headers: [.eTag: todo.entityTag])
        }
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.headers[.eTag] = todo.entityTag
        return response
    }

    func change(_ request: Request, _ context: some RequestContext, replacing: Bool) async throws -> Response {
        let id = try context.parameters.require("id")
        let input = try await request.decode(as: TodoInput.self, context: context).validated(requireTitle: replacing)
        let time = now()
        let outcome = store.update(id, if: precondition(request)) { todo in
            if replacing {
                todo.title = input.title ?? todo.title
                todo.completed = input.completed ?? false
                todo.order = input.order ?? nil
                todo.dueDate = input.dueDate ?? nil
            } else {
                if let title = input.title { todo.title = title }
                if let completed = input.completed { todo.completed = completed }
                if let order = input.order { todo.order = order }
                if let dueDate = input.dueDate { todo.dueDate = dueDate }
            }
            todo.updatedAt = time
        }
        let todo = try Self.result(of: outcome, id: id)
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.headers[.eTag] = todo.entityTag
        return response
    }

    @Sendable func delete(_ request: Request, context: some RequestContext) async throws -> HTTPResponse.Status {
        let id = try context.parameters.require("id")
        _ = try Self.result(of: store.remove(id, if: precondition(request)), id: id)
        return .noContent
    }

    /// `If-Match` must match; `If-None-Match` must not (both optional).
    func precondition(_ request: Request) -> (Todo) -> Bool {
        let ifMatch = EntityTags(request.headers[.ifMatch])
        let ifNoneMatch = EntityTags(request.headers[.ifNoneMatch])
        return { ifMatch.ifMatch($0.entityTag) && !ifNoneMatch.noneMatch($0.entityTag) }
    }

    static func result(of outcome: Store.Outcome, id: String) throws -> Todo {
        switch outcome {
        case .done(let todo): return todo
        case .notFound: throw HTTPError(.notFound, message: "No to-do with id '\(id)'.")
        case .preconditionFailed(let current):
            throw HTTPError(
                .preconditionFailed, headers: [.eTag: current.entityTag],
                message: "If-Match does not match the current version of to-do '\(id)'.")
        }
    }

    static func integer(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError(.badRequest, message: "Query parameter '\(name)' is '\(text)' but must be an integer in \(range).")
        }
        return value
    }

    /// RFC 8288 `first`, `prev`, `next` and `last`, or nil when everything fits on the first page.
    static func links(base: String, offset: Int, limit: Int, total: Int) -> String? {
        guard offset > 0 || total > limit else { return nil }
        func link(_ offset: Int, _ rel: String) -> String { "<\(base)/todos?limit=\(limit)&offset=\(offset)>; rel=\"\(rel)\"" }
        var links = [link(0, "first")]
        if offset > 0 { links.append(link(max(0, offset - limit), "prev")) }
        if offset < total - limit { links.append(link(offset + limit, "next")) }
        links.append(link(total > 0 ? (total - 1) / limit * limit : 0, "last"))
        return links.joined(separator: ", ")
    }
}
