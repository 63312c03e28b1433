import Foundation
import TestSupport
import Testing
import TodoServer

@testable import TodoData

/// What the drain tests keep in flight: many to-dos due today, so that `/todos/upcoming` (not
/// paged) answers megabytes, more than the kernel's socket buffers hold.
enum DrainLoad {
    /// A server started with `arguments`, filled with 8,000 to-dos due today, and a reader with a
    /// tiny receive buffer that keeps the megabytes of `/todos/upcoming`'s answer in flight:
    /// counted by the server, not yet read.
    static func answerInFlight(arguments: [String]) throws -> (server: ServerProcess, port: Int, reader: TestHTTPClient) {
        let server = try ServerProcess(arguments: arguments)
        let port = try server.waitForPort()
        try fill(port: port, count: 8000)
        let reader = try TestHTTPClient(port: port, receiveBufferBytes: 4096)
        try reader.send("GET /todos/upcoming HTTP/1.1\r\nHost: h\r\n\r\n")
        try #require(try answerCounted(route: "/todos/upcoming", port: port))
        return (server, port, reader)
    }

    /// Creates `count` to-dos due today with long titles, 25 requests pipelined at a time.
    static func fill(port: Int, count: Int) throws {
        let client = try TestHTTPClient(port: port)
        let title = String(repeating: "t", count: 480)
        let today = Timestamp(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000)).description.prefix(10)
        for start in stride(from: 0, to: count, by: 25) {
            let batch = (start..<min(start + 25, count)).map { index in
                let body = #"{"title":"\#(index)\#(title)","dueDate":"\#(today)"}"#
                return
                    "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            try client.send(batch.joined())
            for _ in batch { try #require(try client.readResponse(method: "POST").status == 201) }
        }
    }

    /// Whether the server counted an answer on `route` within `eventually`'s time: an answer is in
    /// flight once counted (the server counts right after queueing it).
    static func answerCounted(route: String, port: Int) throws -> Bool {
        try eventually {
            try TestHTTPClient(port: port).request("GET", "/metrics").text.contains(#"route="\#(route)""#)
        }
    }
}
