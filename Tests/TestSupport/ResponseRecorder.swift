import Foundation
import LockTracing
import Synchronization

/// Appends every response the end-to-end tests receive to a JSON Lines file when
/// `TODO_RESPONSE_LOG` names one, so that `scripts/check_openapi.py` can check each against the
/// OpenAPI document: off the wire (`TestHTTPClient`), and in process as the wire would send them
/// (`TestServer`).
package final class ResponseRecorder: Sendable {
    package static let shared = ResponseRecorder(path: ProcessInfo.processInfo.environment["TODO_RESPONSE_LOG"])

    private let handle: Mutex<FileHandle?>

    private init(path: String?) {
        var handle: FileHandle?
        if let path {
            if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
            handle = FileHandle(forWritingAtPath: path)
            handle?.seekToEndOfFile()
        }
        self.handle = Mutex(handle)
    }

    package func record(method: String, target: String, response: HTTPResponseSnapshot) {
        handle.withTracedLock { handle in
            guard let handle else { return }
            let entry: [String: Any] = [
                "method": method, "target": target, "status": response.status,
                "headers": response.headers.map { [$0.name, $0.value] }, "body": response.text,
            ]
            guard var line = try? JSONSerialization.data(withJSONObject: entry) else { return }
            line.append(0x0A)
            handle.write(line)
        }
    }
}
