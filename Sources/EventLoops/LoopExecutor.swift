import Glibc

/// Runs work on one event loop's thread, from any thread: how an answer that completes elsewhere
/// (a durable write's fsync) gets back onto the loop that owns its request.
public struct LoopExecutor: Sendable {
    let tasks: LoopTasks

    /// Queues `work` to run on the loop's thread, in the order queued. Work queued after the loop
    /// has exited is dropped: its requests are gone with the loop.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        tasks.enqueue(work)
    }

    /// The executor of the loop running on the calling thread; nil off the server's loops.
    public static var current: LoopExecutor? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return LoopExecutor(tasks: Unmanaged<LoopTasks>.fromOpaque(pointer).takeUnretainedValue())
    }

    /// Marks the calling thread as the loop's that runs `tasks`, for its lifetime (set once, by the
    /// loop's thread; `tasks` outlives the thread).
    package static func bindCurrentThread(to tasks: LoopTasks) {
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(tasks).toOpaque())
    }
}

/// The thread-specific slot behind `LoopExecutor.current`: written once per loop thread.
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
