import Foundation
import Hummingbird
import NIOPosix
import Synchronization

/// A to-do as the API shows it.
struct Todo: ResponseCodable, Sendable {
    var id: String
    var title: String
    var completed: Bool
    var order: Int?
    var dueDate: String?
    var createdAt: String
    var updatedAt: String
    var url: String

    enum CodingKeys: String, CodingKey { case id, title, completed, order, dueDate, createdAt, updatedAt, url }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(completed, forKey: .completed)
        try c.encode(order, forKey: .order)
        try c.encode(dueDate, forKey: .dueDate)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encode(url, forKey: .url)
    }
}

/// The fields a client sends.
struct TodoInput: Decodable {
    var title: String?
    var completed: Bool?
    var order: Int?
    var dueDate: String?
}

/// Creation-ordered to-dos behind a mutex.
final class Store: Sendable {
    private let state = Mutex<(byID: [String: Todo], order: [String])>(([:], []))

    func insert(_ todo: Todo) { state.withLock { $0.byID[todo.id] = todo; $0.order.append(todo.id) } }
    func get(_ id: String) -> Todo? { state.withLock { $0.byID[id] } }
    func page(offset: Int, limit: Int) -> [Todo] {
        state.withLock { s in s.order.dropFirst(offset).prefix(limit).compactMap { s.byID[$0] } }
    }
    func update(_ id: String, _ change: (inout Todo) -> Void) -> Todo? {
        state.withLock { s in
            guard var todo = s.byID[id] else { return nil }
            change(&todo)
            s.byID[id] = todo
            return todo
        }
    }
    func remove(_ id: String) -> Bool {
        state.withLock { s in
            guard s.byID.removeValue(forKey: id) != nil else { return false }
            s.order.removeAll { $0 == id }
            return true
        }
    }
    func removeAll() { state.withLock { $0 = ([:], []) } }
}

let arguments = CommandLine.arguments
let port = arguments.count > 1 ? Int(arguments[1]) ?? 8080 : 8080
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 2 : 2
let store = Store()
let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
func now() -> String { Date().formatted(formatter) }
func base(_ request: Request) -> String { "http://" + (request.head.authority ?? "localhost") }

let router = Router()
router.get("healthz") { _, _ in ["status": "ok"] }
router.get("todos") { request, _ -> [Todo] in
    let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? 500
    let offset = request.uri.queryParameters.get("offset", as: Int.self) ?? 0
    return store.page(offset: offset, limit: limit)
}
router.post("todos") { request, context -> EditedResponse<Todo> in
    let input = try await request.decode(as: TodoInput.self, context: context)
    guard let title = input.title, !title.isEmpty else { throw HTTPError(.unprocessableContent) }
    let id = UUID().uuidString.lowercased()
    let time = now()
    let todo = Todo(
        id: id, title: title, completed: input.completed ?? false, order: input.order, dueDate: input.dueDate,
        createdAt: time, updatedAt: time, url: base(request) + "/todos/" + id)
    store.insert(todo)
    return EditedResponse(status: .created, headers: [.location: todo.url], response: todo)
}
router.delete("todos") { _, _ -> HTTPResponse.Status in
    store.removeAll()
    return .noContent
}
router.get("todos/:id") { _, context -> Todo in
    guard let todo = store.get(try context.parameters.require("id")) else { throw HTTPError(.notFound) }
    return todo
}
router.patch("todos/:id") { request, context -> Todo in
    let input = try await request.decode(as: TodoInput.self, context: context)
    let time = now()
    let updated = store.update(try context.parameters.require("id")) { todo in
        if let title = input.title { todo.title = title }
        if let completed = input.completed { todo.completed = completed }
        if let order = input.order { todo.order = order }
        if let dueDate = input.dueDate { todo.dueDate = dueDate }
        todo.updatedAt = time
    }
    guard let updated else { throw HTTPError(.notFound) }
    return updated
}
router.delete("todos/:id") { _, context -> HTTPResponse.Status in
    store.remove(try context.parameters.require("id")) ? .noContent : .notFound
}

let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup(numberOfThreads: threads))
)
try await app.runService()
