import EventHTTP
import Logging

/// Writes one line per request: method, path, status, body bytes, duration and request id.
public struct AccessLog: Sendable {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func record(method: HTTPMethod, path: String, status: Int, bytes: Int, duration: Duration, requestID: String) {
        guard logger.logLevel <= .info else { return }
        let (seconds, attoseconds) = duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let milliseconds = "\(microseconds / 1000).\(String(microseconds % 1000 + 1000).dropFirst())"
        logger.info(
            "\(method.rawValue) \(path) \(status) \(bytes) \(milliseconds)ms",
            metadata: ["request_id": "\(requestID)"])
    }
}
