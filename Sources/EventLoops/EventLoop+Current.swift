import Glibc

extension EventLoop {
    // Inlinable: a static getter of a class is passed its metatype, a metadata lookup per call;
    // inlined, the request path reads the slot and nothing else.
    /// The loop whose thread is calling; nil off the loops' threads.
    @inlinable public static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether the calling thread is this loop's.
    public var isCurrent: Bool { EventLoop.current === self }

    /// Makes the calling thread this loop's for `current`, for the thread's life (set once, by
    /// `run`; whoever runs the loop keeps it alive while its thread runs).
    func bindCurrentThread() {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// The thread-specific slot behind `EventLoop.current`, the only one of the package: written once
/// per loop thread.
@usableFromInline let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
