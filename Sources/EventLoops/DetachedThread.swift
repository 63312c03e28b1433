import Glibc

/// A thread of its own for work that may block (the log writer, a join), started with pthreads
/// alone: no Foundation `Thread`. The thread is detached; its work ends it.
public enum DetachedThread {
    /// Starts `body` on a new thread. Returns false when the system refuses another thread.
    @discardableResult
    public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Work(body: body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
            work.body()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    private final class Work {
        let body: @Sendable () -> Void

        init(body: @escaping @Sendable () -> Void) {
            self.body = body
        }
    }
}
