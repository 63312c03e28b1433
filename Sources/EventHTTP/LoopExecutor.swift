import Glibc

/// Runs work on one event loop's thread, from any thread: how an answer that completes elsewhere
/// (a durable write's fsync) gets back onto the loop that owns its request.
public struct LoopExecutor: Sendable {
    let loop: EventLoop

    /// Queues `work` to run on the loop's thread, in the order queued. Work queued after the loop
    /// has exited is dropped: its requests are gone with the loop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        loop.enqueue(work)
    }

    /// The executor of the loop running on the calling thread; nil off the server's loops.
    public static var current: LoopExecutor? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return LoopExecutor(loop: Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue())
    }

    /// Marks the calling thread as `loop`'s for its lifetime (set once, by the loop's thread).
    static func bindCurrentThread(to loop: EventLoop) {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(loop).toOpaque())
    }
}

/// The thread-specific slot behind `LoopExecutor.current`: written once per loop thread.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
