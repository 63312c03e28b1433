/// A detached pthread that runs one closure: for blocking work that must not hold a thread of
/// Swift's concurrency pool (joining the server's loops at shutdown), without Foundation's `Thread`.
public enum DetachedThread {
    /// Starts a detached thread running `body`; false (and `body` never runs) when the system
    /// refuses a thread.
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        PosixThread.start(detached: true, body) != nil
    }
}
