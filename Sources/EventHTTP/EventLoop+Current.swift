import EventLoops
import Glibc

extension EventLoop {
    /// The server loop running on the calling thread; nil off the server's loops (libevent's log
    /// and accept-error callbacks find their loop this way).
    static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentEventLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Marks the calling thread as this loop's, for its lifetime, for `EventLoop.current` and
    /// `LoopExecutor.current` (set once, by the loop's thread).
    func bindCurrentThread() {
        pthread_setspecific(currentEventLoopKey, Unmanaged.passUnretained(self).toOpaque())
        LoopExecutor.bindCurrentThread(to: tasks)
    }
}

/// The thread-specific slot behind `EventLoop.current`: written once per loop thread.
private let currentEventLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
