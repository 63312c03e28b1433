import Glibc

extension EventLoop {
    /// The loop whose thread is calling; nil off the loops' threads.
    public static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Makes the calling thread this loop's for `current`, for the thread's life (set once, by
    /// `run`; whoever runs the loop keeps it alive while its thread runs).
    func bindCurrentThread() {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// The thread-specific slot behind `EventLoop.current`, the only one of the package: written once
/// per loop thread.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
