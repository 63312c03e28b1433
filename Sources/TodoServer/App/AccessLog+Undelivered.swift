import HTTPValues
import Logging

extension AccessLog {
    /// The line for an answer that never left: its connection had closed (a time-out, a client
    /// that hung up) before the handler was done. A warning, so that it is not read as served.
    public func recordUndelivered(method: HTTPMethod, path: String, status: Int, duration: Duration, requestID: String) {
        logger.warning(
            "\(method.rawValue) \(path) not delivered: the connection closed before the answer",
            metadata: [
                "request_id": "\(requestID)", "status": "\(status)",
                "ms": "\(DecimalText.milliseconds(duration))",
            ])
    }
}
