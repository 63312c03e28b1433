/// Something the server's loops report about themselves (not about a request), for the handler
/// to log: see `HTTPHandler.serverEvent(_:)`.
public enum HTTPServerEvent: Sendable, Equatable {
    /// Loop `loop` stopped accepting because `accept(2)` failed with `reason` (an errno, such as
    /// EMFILE at the descriptor limit), `failures` times since the previous report; it tries again
    /// every `retryMilliseconds`.
    case acceptPaused(loop: Int, reason: Int32, failures: Int, retryMilliseconds: Int)
    /// Loop `loop` accepted a connection again after `failures` failed attempts.
    case acceptResumed(loop: Int, failures: Int)
    /// A message libevent logged (its `EVENT_LOG_*` severity: 0 debug, 1 message, 2 warning, 3 error),
    /// on a loop's thread.
    case libeventMessage(loop: Int, severity: Int32, message: String)
}
