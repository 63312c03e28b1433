import CLibevent
import Glibc
import LockTracing
import Synchronization

/// An event loop of its own on its own thread, without the HTTP server: for code that needs fd
/// watches and timers on a loop before or without a server (tests, start-up work, benchmarks).
public final class StandaloneLoop: Sendable {
    private let base: Base
    private let tasks: LoopTasks
    private let thread = Mutex<pthread_t?>(nil)

    /// Starts the loop's thread. Throws when libevent cannot make the loop.
    public init() throws(LoopError) {
        evthread_use_pthreads()
        guard let base = event_base_new() else { throw .cannotCreateLoop }
        self.base = Base(pointer: base)
        guard let tasks = LoopTasks(base: base) else {
            event_base_free(base)
            throw .cannotCreateLoop
        }
        self.tasks = tasks
        let retained = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<StandaloneLoop>.fromOpaque(context!).takeRetainedValue()
                loop.run()
                return nil
            }, retained)
        guard created == 0 else {
            Unmanaged<StandaloneLoop>.fromOpaque(retained).release()
            tasks.close()
            event_base_free(base)
            throw .cannotCreateLoop
        }
        self.thread.withTracedLock { $0 = thread }
    }

    /// The loop for `execute`, `FileWatch` and `LoopTimer`.
    public var handle: LoopHandle {
        LoopHandle(tasks: tasks)
    }

    /// Stops the loop after the work queued so far and waits for its thread to end. Watches and
    /// timers still registered are left to their owners (cancel them on the loop first). Idempotent.
    public func shutdown() {
        tasks.enqueue { [base] in event_base_loopbreak(base.pointer) }
        guard
            let thread = thread.withTracedLock({ value -> pthread_t? in
                defer { value = nil }; return value
            })
        else { return }
        pthread_join(thread, nil)
    }

    private func run() {
        event_base_loop(base.pointer, EVLOOP_NO_EXIT_ON_EMPTY)
        tasks.run()
        tasks.close()
        event_base_free(base.pointer)
    }

    /// A libevent pointer set once before the thread starts and freed once after it ends.
    private final class Base: @unchecked Sendable {
        let pointer: OpaquePointer
        init(pointer: OpaquePointer) { self.pointer = pointer }
    }
}
