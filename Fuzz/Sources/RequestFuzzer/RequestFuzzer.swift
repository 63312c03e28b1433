import Foundation
import HTTPValues
import TodoData
import TodoServer

/// Raw bytes → a request (method, target, headers, body) → the whole request pipeline (request id,
/// screening, tokens, router, modules, conditional headers, CORS, metrics, access log) → one answer.
///
/// Holds for every input: exactly one answer, synchronously (the store is in memory); never a 5xx;
/// a JSON body that parses; a problem's `status` equal to the HTTP status; a refused request
/// leaves the stored to-dos as they were; and a request with a body whose head alone is refused
/// (`RequestPipeline.answer(toHead:)`, before `100 Continue`) gets that same refusal whole.
let store = InMemoryTodoStore()
let pipeline: RequestPipeline = {
    var configuration = ServerConfiguration()
    configuration.threads = 1
    configuration.maxBodyBytes = 4096
    configuration.maxURIBytes = 1024
    configuration.maxHeaderBytes = 4096
    configuration.maxHeaderCount = 16
    configuration.corsOrigin = "https://a.example, null"
    return RequestPipeline(
        configuration: configuration,
        dependencies: ModuleDependencies(store: store, openAPIDocument: Array("{}".utf8)))
}()
let methods: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]

/// Splits the input: byte 0 picks the method, then the target up to the first newline, header
/// lines up to an empty line, and the rest is the body. Seeds an existing to-do at `/todos/seed`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let method = methods[Int(bytes[0]) % methods.count]
    var lines = bytes.dropFirst().split(separator: UInt8(ascii: "\n"), maxSplits: 18, omittingEmptySubsequences: false)
    let target = "/" + String(decoding: lines.isEmpty ? [] : lines.removeFirst(), as: UTF8.self)
    var headers = HTTPHeaders()
    while let line = lines.first, !line.isEmpty, let colon = line.firstIndex(of: UInt8(ascii: ":")) {
        headers.add(String(decoding: line[..<colon], as: UTF8.self), String(decoding: line[(colon + 1)...], as: UTF8.self))
        lines.removeFirst()
    }
    if lines.first?.isEmpty == true { lines.removeFirst() }
    let body = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    let request = HTTPRequest(method: method, uri: target, headers: headers, body: body)

    store.insert(
        Todo(
            id: "seed", title: "Seed", completed: false, order: 1, dueDate: nil,
            createdAt: Timestamp(millisecondsSinceEpoch: 0), updatedAt: Timestamp(millisecondsSinceEpoch: 0))
    ) { _ in }
    let before = snapshot()
    var answers: [HTTPResponse] = []
    pipeline.respond(to: request) { answer in
        answers.append(answer)
        return .sent
    }

    precondition(answers.count == 1, "\(answers.count) answers to \(method) \(target)")
    let answer = answers[0]
    precondition(answer.status < 500, "\(answer.status) for \(method) \(target)")
    precondition(answer.headers.values(for: "X-Request-ID").count == 1, "no single X-Request-ID for \(method) \(target)")
    let type = answer.headers["Content-Type"] ?? ""
    if type.contains("json"), !answer.body.isEmpty {
        let parsed = try? JSONSerialization.jsonObject(with: Data(answer.body), options: [.fragmentsAllowed])
        precondition(parsed != nil, "invalid JSON body for \(method) \(target)")
        if type == "application/problem+json" {
            precondition((parsed as? [String: Any])?["status"] as? Int == answer.status, "problem status differs")
        }
    }
    if answer.status >= 400 { precondition(snapshot() == before, "a refused request changed the store") }
    checkAnswerFromHead(method: method, target: target, headers: headers, body: body)
    store.removeAll { _ in }
    return 0
}

/// What the wire asks before `100 Continue`: the answer to the head alone (its framing fields
/// replaced by the body's `Content-Length`, as the wire would have framed it). When there is one,
/// it is a refusal, and the whole request gets the same status and problem, and changes nothing.
private func checkAnswerFromHead(method: HTTPMethod, target: String, headers: HTTPHeaders, body: [UInt8]) {
    guard !body.isEmpty else { return }
    var fields = HTTPHeaders()
    for field in headers
    where !HTTPHeaders.namesMatch(field.name, "Content-Length") && !HTTPHeaders.namesMatch(field.name, "Transfer-Encoding") {
        fields.add(field.name, field.value)
    }
    fields.add("Content-Length", String(body.count))
    guard let fromHead = pipeline.answer(toHead: HTTPRequest(method: method, uri: target, headers: fields)) else { return }
    precondition(fromHead.status >= 400, "\(fromHead.status) from the head of \(method) \(target)")
    let before = snapshot()
    var answers: [HTTPResponse] = []
    pipeline.respond(to: HTTPRequest(method: method, uri: target, headers: fields, body: body)) { answer in
        answers.append(answer)
        return .sent
    }
    precondition(answers.count == 1, "\(answers.count) answers to \(method) \(target)")
    precondition(
        answers[0].status == fromHead.status && answers[0].body == fromHead.body,
        "the head of \(method) \(target) got \(fromHead.status), the whole request \(answers[0].status)")
    precondition(snapshot() == before, "a request refused from its head changed the store")
}

/// Every stored to-do, page by page (the in-memory store answers before it returns).
private func snapshot() -> [String: String] {
    var todos: [Todo] = []
    var more = true
    while more {
        var page: [Todo] = []
        store.list(TodoQuery(limit: TodoQuery.maxLimit, offset: todos.count)) { page = ((try? $0.get())?.items).map(Array.init) ?? [] }
        todos += page
        more = page.count == TodoQuery.maxLimit
    }
    return Dictionary(uniqueKeysWithValues: todos.map { ($0.id, "\($0)") })
}
