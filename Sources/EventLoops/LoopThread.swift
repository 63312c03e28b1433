import Glibc
import LockTracing
import Synchronization

/// A thread of its own running one `EventLoop`, without the HTTP server: for code that needs fd
/// watches and timers on a loop before or without a server (tests, start-up work, benchmarks).
public final class LoopThread: Sendable {
    /// The loop the thread runs.
    public let loop: EventLoop
    private let thread = Mutex<pthread_t?>(nil)

    /// Starts the thread. Throws when libevent cannot make the loop or the system a thread.
    public init() throws(LoopError) {
        let loop = try EventLoop()
        self.loop = loop
        guard let thread = PosixThread.start(detached: false, { self.run() }) else {
            loop.close()
            throw .cannotCreateLoop
        }
        self.thread.withTracedLock { $0 = thread }
    }

    /// Stops the loop after the work queued so far and waits for the thread to end. Watches and
    /// timers still registered are left to their owners (cancel them on the loop first). Idempotent.
    public func shutdown() {
        loop.execute { [loop] in loop.stopRunning() }
        guard
            let thread = thread.withTracedLock({ value -> pthread_t? in
                defer { value = nil }; return value
            })
        else { return }
        pthread_join(thread, nil)
    }

    private func run() {
        loop.run()
        loop.runQueued()
        loop.close()
    }
}
