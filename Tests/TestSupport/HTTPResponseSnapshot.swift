import Foundation
import HTTPValues

/// A response as a test sees it, in process or off the wire: status, headers, body, JSON.
package struct HTTPResponseSnapshot: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers.fields.map { (name: $0.name, value: $0.value) }, body: response.body)
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package func headerCount(_ name: String) -> Int {
        headers.filter { $0.name.lowercased() == name.lowercased() }.count
    }

    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    package var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) as? [String: Any] ?? [:]
    }

    /// The body as a JSON array of objects (empty when it is not one).
    package var array: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] ?? []
    }
}
