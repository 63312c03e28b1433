import Glibc

/// A detached pthread that runs one closure: for blocking work that must not hold a thread of
/// Swift's concurrency pool (joining the server's loops at shutdown), without Foundation's `Thread`.
public enum DetachedThread {
    /// Starts a detached thread running `body`; false (and `body` never runs) when the system
    /// refuses a thread.
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return false
        }
        return true
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
