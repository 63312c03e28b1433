import Foundation
import TestSupport

@testable import TodoServer

/// One Server-Sent Events message as a client reads it (WHATWG HTML §9.2.6): an event, or a
/// comment line, or the retry hint.
struct ServerSentEvent: Equatable, CustomStringConvertible {
    var id: String?
    var event: String?
    var data: String?
    var comment: String?
    var retry: Int?

    /// `data` as a JSON object.
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data((data ?? "").utf8))) as? [String: Any] ?? [:]
    }

    var description: String { "\(event ?? comment.map { ": \($0)" } ?? "retry") \(id ?? "") \(data ?? "")" }
}

/// `GET /todos/events` over a real socket: the head, then the stream's messages one at a time.
final class EventStreamClient: @unchecked Sendable {
    let client: TestHTTPClient
    /// The status line and header fields.
    let head: String
    private var pending: [UInt8] = []
    /// Whether the server ended the body (its last chunk).
    private(set) var ended = false

    init(
        port: Int, target: String = "/todos/events", headers: [(String, String)] = [], receiveBufferBytes: Int32? = nil,
        receiveTimeoutSeconds: Int = 20
    ) throws {
        client = try TestHTTPClient(port: port, receiveTimeoutSeconds: receiveTimeoutSeconds, receiveBufferBytes: receiveBufferBytes)
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try client.send(request + "\r\n")
        head = try client.readStreamHead()
    }

    var status: Int { Int(head.split(separator: " ")[1]) ?? 0 }

    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() { return parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// The next message (comments and the retry hint included); nil when the stream ended.
    func next() throws -> ServerSentEvent? {
        while true {
            if let end = Self.messageEnd(pending) {
                let text = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 2)
                return Self.parse(text)
            }
            guard !ended, let chunk = try client.readChunk() else {
                ended = true
                return nil
            }
            pending += chunk
        }
    }

    /// The next event (comments and retry hints skipped); nil when the stream ended.
    func nextEvent() throws -> ServerSentEvent? {
        while let message = try next() {
            if message.event != nil { return message }
        }
        return nil
    }

    /// The next `count` events.
    func events(_ count: Int) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        while events.count < count, let event = try nextEvent() { events.append(event) }
        return events
    }

    private static func messageEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 0..<(bytes.count - 1) where bytes[index] == 10 && bytes[index + 1] == 10 { return index }
        return nil
    }

    private static func parse(_ text: String) -> ServerSentEvent {
        var message = ServerSentEvent()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                message.comment = String(line.dropFirst()).trimmingCharacters(in: .whitespaces)
                continue
            }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let field = String(parts[0])
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix(" ") { value.removeFirst() }
            switch field {
            case "id": message.id = value
            case "event": message.event = value
            case "data": message.data = (message.data.map { $0 + "\n" } ?? "") + value
            case "retry": message.retry = Int(value)
            default: break
            }
        }
        return message
    }
}
