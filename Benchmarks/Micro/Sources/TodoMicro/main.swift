import Foundation
import HTTPValues
import TodoData
import TodoServer

/// Runs `body` `iterations` times in each of 5 rounds; prints the median time per iteration.
@MainActor func measure(_ name: String, iterations: Int, _ body: () -> Void) {
    for _ in 0..<iterations / 10 { body() }
    var rounds: [Double] = []
    for _ in 0..<5 {
        let start = ContinuousClock.now
        for _ in 0..<iterations { body() }
        let elapsed = ContinuousClock.now - start
        rounds.append(
            Double(elapsed.components.attoseconds) / 1e9 / Double(iterations) + Double(elapsed.components.seconds) * 1e9
                / Double(iterations))
    }
    rounds.sort()
    print(String(format: "%-52@ %9.0f ns", name as NSString, rounds[2]))
}

let store = InMemoryTodoStore()
let router = AppRouter.makeRouter(
    dependencies: ModuleDependencies(store: store),
    screening: RequestScreening(maxBodyBytes: 1 << 20, maxURIBytes: 8192), cors: CORSPolicy())
var firstID = ""
for index in 0..<20 {
    let body = Array(#"{"title":"a thirty character title no \#(index)"}"#.utf8)
    router.routeRequest(HTTPRequest(method: .post, uri: "/todos", body: body), to: .todos, context: RequestContext(baseURL: "http://h")) {
        response in
        if firstID.isEmpty, let text = String(bytes: response.body, encoding: .utf8), let range = text.range(of: #""id":""#) {
            firstID = String(text[range.upperBound...].prefix(36))
        }
    }
}

var sink = 0
@MainActor func route(_ request: HTTPRequest) {
    router.routeRequest(
        request, to: router.route(for: request), context: RequestContext(baseURL: "http://127.0.0.1:8080", path: request.path)
    ) {
        sink &+= $0.body.count
    }
}

print("TodoServer micro-benchmarks (median of 5 rounds, release build)")
let getOne = HTTPRequest(method: .get, uri: "/todos/\(firstID)", headers: ["Host": "127.0.0.1:8080"])
measure("router: GET /todos/{id} (in process)", iterations: 200_000) { route(getOne) }
let list = HTTPRequest(method: .get, uri: "/todos", headers: ["Host": "127.0.0.1:8080"])
measure("router: GET /todos, 20 to-dos (in process)", iterations: 20_000) { route(list) }
let patch = HTTPRequest(method: .patch, uri: "/todos/\(firstID)", body: Array(#"{"completed":true}"#.utf8))
measure("router: PATCH /todos/{id} (in process)", iterations: 100_000) { route(patch) }
let invalid = HTTPRequest(method: .post, uri: "/todos", body: Array(#"{"title":"","order":1.5,"x":1}"#.utf8))
measure("router: POST /todos, 422 (decoding + validation)", iterations: 100_000) { route(invalid) }

let urlBase = Array("http://127.0.0.1:8080".utf8), urlID = Array("8f0c2f1e-0000-4000-8000-000000000000".utf8)
measure("JSONWriter: 20-item list of to-do-shaped objects", iterations: 50_000) {
    var writer = JSONWriter(capacity: 6000)
    writer.beginArray()
    for index in 0..<20 {
        writer.beginObject()
        writer.key("completed"); writer.bool(index % 2 == 0)
        writer.key("createdAt"); writer.timestamp(Timestamp(millisecondsSinceEpoch: 1_795_341_600_123 + Int64(index)))
        writer.key("dueDate"); writer.day(CalendarDay(daysSinceEpoch: 20_779 + index))
        writer.key("id"); writer.string("8f0c2f1e-0000-4000-8000-00000000000\(index % 10)")
        writer.key("order"); writer.int(index)
        writer.key("title"); writer.string("a thirty character title here!")
        writer.key("updatedAt"); writer.timestamp(Timestamp(millisecondsSinceEpoch: 1_795_341_600_123))
        writer.key("url")
        urlBase.withUnsafeBufferPointer { base in urlID.withUnsafeBufferPointer { writer.string(utf8: base, "/todos/", utf8: $0) } }
        writer.endObject()
    }
    writer.endArray()
    sink &+= writer.bytes.count
}

let big = InMemoryTodoStore()
let ids = (0..<400_000).map { "8f0c2f1e-0000-4000-8000-\(String(100_000_000_000 + $0))" }
var counter = 0
measure("store: insert (creation times increasing)", iterations: 50_000) {
    counter += 1
    let time = Timestamp(millisecondsSinceEpoch: 1_795_341_600_000 + Int64(counter))
    big.insert(
        Todo(
            id: ids[counter], title: "a thirty character title here!", completed: false, order: nil, dueDate: nil, createdAt: time,
            updatedAt: time)
    ) { _ in }
}
measure("store: set an order (moves the index key, 250k+ to-dos)", iterations: 2_000) {
    counter += 1
    let order = counter % 7
    let time = Timestamp(millisecondsSinceEpoch: 1_795_341_600_000 + Int64(counter))
    big.update(id: ids[counter % 1000 + 1], change: TodoChange(order: .set(order)), condition: .none, at: time) { _ in }
}
measure("store: get by id", iterations: 500_000) { big.todo(id: ids[1000]) { sink &+= (try? $0.get())?.title.utf8.count ?? 0 } }
measure("store: page of 50 in default order (250k+ to-dos)", iterations: 50_000) {
    big.list(TodoQuery(limit: 50, offset: 100_000)) { sink &+= (try? $0.get())?.items.count ?? 0 }
}
print("(checksum \(sink))")
