import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Prometheus

/// The to-do routes of the contract on PostgreSQL: the in-memory peer's routes with each store
/// call an `await` on `PostgresTodos`. Writes honour `If-Match` (`If-None-Match` only on reads).
/// With owner tokens the `/todos` routes sit behind `OwnerTokenAuthenticator` and act on the
/// caller's to-dos only (another owner's to-do is a 404, as an absent one); without, on the one
/// shared list as before.
struct PostgresRoutes: Sendable {
    let todos: PostgresTodos
    let registry: PrometheusCollectorRegistry
    /// Token → owner; empty: no owners.
    let owners: [String: Owner]

    func base(_ request: Request) -> String { "http://" + (request.head.authority ?? "localhost") }

    func add(to router: Router<TodoContext>) {
        // With owners, an anonymous caller learns no count.
        if owners.isEmpty {
            router.get("healthz") { _, _ in ["status": "ok", "todos": String(try await todos.count())] }
        } else {
            router.get("healthz") { _, _ in ["status": "ok"] }
        }
        router.get("metrics") { _, _ -> Response in
            var buffer = [UInt8]()
            registry.emit(into: &buffer)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        let group = router.group("todos")
        if !owners.isEmpty { group.add(middleware: OwnerTokenAuthenticator(owners: owners)) }
        group.get(use: list)
        group.post(use: create)
        group.delete { _, context -> HTTPResponse.Status in
            try await todos.deleteAll(owner: context.identity?.name)
            return .noContent
        }
        group.get(":id", use: read)
        group.patch(":id") { request, context in try await change(request, context, replacing: false) }
        group.put(":id") { request, context in try await change(request, context, replacing: true) }
        group.delete(":id", use: delete)
    }

    @Sendable func list(_ request: Request, context: TodoContext) async throws -> Response {
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map { try Self.integer($0, name: "limit", in: 1...1000) } ?? 500
        let offset = try query.get("offset").map { try Self.integer($0, name: "offset", in: 0...Int.max) } ?? 0
        let page = try await todos.page(owner: context.identity?.name, offset: offset, limit: limit, base: base(request))
        let tag = Self.listTag(page.todos, total: page.total)
        var headers: HTTPFields = [.eTag: tag, .totalCount: String(page.total)]
        if EntityTags(request.headers[.ifNoneMatch]).noneMatch(tag) {
            return Response(status: .notModified, headers: headers)
        }
        if let link = Self.links(base: base(request), offset: offset, limit: limit, total: page.total) {
            headers[.link] = link
        }
        var response = try context.responseEncoder.encode(page.todos, from: request, context: context)
        response.headers.append(contentsOf: headers)
        return response
    }

    @Sendable func create(_ request: Request, context: TodoContext) async throws -> Response {
        let input = try await request.decode(as: TodoInput.self, context: context).validated(requireTitle: true)
        let todo = try await todos.create(input, owner: context.identity?.name, base: base(request))
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.status = .created
        response.headers[.location] = todo.url
        response.headers[.eTag] = todo.entityTag
        return response
    }

    @Sendable func read(_ request: Request, context: TodoContext) async throws -> Response {
        let id = try Self.id(context)
        guard let todo = try await todos.get(id, owner: context.identity?.name, base: base(request)) else { throw Self.notFound(id) }
        if EntityTags(request.headers[.ifNoneMatch]).noneMatch(todo.entityTag) {
            return Response(status: .notModified, headers: [.eTag: todo.entityTag])
        }
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.headers[.eTag] = todo.entityTag
        return response
    }

    func change(_ request: Request, _ context: TodoContext, replacing: Bool) async throws -> Response {
        let id = try Self.id(context)
        let input = try await request.decode(as: TodoInput.self, context: context).validated(requireTitle: replacing)
        let outcome = try await todos.update(
            id, owner: context.identity?.name, input: input, replacing: replacing, revisions: Self.revisions(request), base: base(request))
        let todo = try Self.result(of: outcome, id: id)
        var response = try context.responseEncoder.encode(todo, from: request, context: context)
        response.headers[.eTag] = todo.entityTag
        return response
    }

    @Sendable func delete(_ request: Request, context: TodoContext) async throws -> HTTPResponse.Status {
        let id = try Self.id(context)
        _ = try Self.result(
            of: await todos.delete(id, owner: context.identity?.name, revisions: Self.revisions(request), base: base(request)), id: id)
        return .noContent
    }

    /// The revisions `If-Match` accepts: nil for no header or `*`; tags that are not a revision
    /// match nothing.
    static func revisions(_ request: Request) -> [Int]? {
        guard let tags = EntityTags(request.headers[.ifMatch]).tags, !tags.contains("*") else { return nil }
        return tags.map { tag in
            guard tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 else { return -1 }
            return Int(tag.dropFirst().dropLast()) ?? -1
        }
    }

    /// An id that is not a UUID names no to-do.
    static func id(_ context: some RequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else {
            throw HTTPError(.notFound, message: "No to-do with id '\(text)'.")
        }
        return id
    }

    static func notFound(_ id: UUID) -> HTTPError {
        HTTPError(.notFound, message: "No to-do with id '\(id.uuidString.lowercased())'.")
    }

    static func result(of outcome: PostgresTodos.Outcome, id: UUID) throws -> Todo {
        switch outcome {
        case .done(let todo): return todo
        case .notFound: throw notFound(id)
        case .preconditionFailed(let current):
            throw HTTPError(
                .preconditionFailed, headers: [.eTag: current.entityTag],
                message: "If-Match does not match the current version of to-do '\(current.id)'.")
        }
    }

    /// The page's tag: FNV-1a over its ids and revisions and the total.
    static func listTag(_ page: [Todo], total: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let text = page.map { "\($0.id):\($0.revision);" }.joined() + String(total)
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\"list-" + String(hash, radix: 16) + "\""
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
