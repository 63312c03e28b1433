import Foundation
import HTTPValues

/// A response as a test sees it, in process or off the wire: status, headers, body, JSON.
struct HTTPResponseSnapshot: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers.fields, body: response.body)
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func headerCount(_ name: String) -> Int {
        headers.filter { $0.name.lowercased() == name.lowercased() }.count
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) as? [String: Any] ?? [:]
    }

    /// The body as a JSON array of objects (empty when it is not one).
    var array: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? []
    }
}
