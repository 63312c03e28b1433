import HTTPValues
import Logging
import TodoData

extension AccessLog {
    /// The line for an answer that never left: its connection had closed (a time-out, a client
    /// that hung up) before the handler was done, or the request had been answered already. A
    /// warning, so that it is not read as served.
    public func recordUndelivered(
        _ delivery: HTTPDelivery, method: HTTPMethod, path: String, status: Int, duration: Duration, requestID: String
    ) {
        let why =
            delivery == .alreadyAnswered
            ? "the request was answered already" : "the connection closed before the answer"
        logger.warning(
            "\(method.rawValue) \(path) not delivered: \(why)",
            metadata: [
                "request_id": "\(requestID)", "status": "\(status)",
                "ms": "\(DecimalText.milliseconds(duration))",
            ])
    }
}
