import Glibc

/// `pthread_create` for a Swift closure, without Foundation's `Thread`: the closure goes to the
/// new thread retained and is released once it has run, or at once when the system refuses a
/// thread. `DetachedThread` (detached) and `LoopThread` (joined) start theirs here.
enum PosixThread {
    /// Starts a thread running `body`: its id, or nil (and `body` never runs) when the system
    /// refuses a thread. A detached thread's id must not be joined.
    static func start(detached: Bool, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let created = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
